"""Real applications for the `apps` suite (stand-in registry until branch `apps` lands)."""
