"""The harness's own `waymark` subcommands (eval, bench, demo). The product's CLI finds them
through the `waymark.commands` entry points in pyproject.toml and never imports eval itself."""
