"""One module per `waymark` subcommand; each exposes `register(subparsers)`."""
