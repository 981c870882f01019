"""Workflows: a verified run saved as a parameterised replay that needs no model while its steps
still match the page, and asks the executor for one step only when one does not."""
