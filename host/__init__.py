"""Waymark native-messaging host: framing, protocol, sessions, agent loop and CLI. Its bottom
layer, host.core, is what providers and everything else build on."""
