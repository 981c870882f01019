"""Host methods, one module per concern; every module here registers with `@method` on import."""
