"""The bottom layer: what every other part of Waymark may import and which imports nothing of
Waymark's own outside this package — the action grammar, the snapshot model, target matching,
the wire protocol's models, where files live and the secret store. Providers import only this."""

__version__ = "0.1.0"
from typing import Final, Literal

PROTOCOL_VERSION: Final[Literal[1]] = 1
HOST_NAME = "dev.waymark.host"
