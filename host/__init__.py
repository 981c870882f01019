"""Waymark native-messaging host: framing, protocol, sessions, agent loop and CLI."""

__version__ = "0.1.0"
PROTOCOL_VERSION = 1
HOST_NAME = "dev.waymark.host"
