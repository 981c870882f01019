"""The agent loop: planner, executor and verifier over the typed action grammar (host.core.actions)."""
