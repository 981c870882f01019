"""The one reading of a URL's origin (`scheme://host[:port]`): what a secret is bound to
(host.core.secrets_store), what the egress question remembers (host.agent.egress) and what a frame
is compared with in the service worker, so that all three name a site alike."""

from __future__ import annotations

from urllib.parse import urlsplit

_DEFAULT_PORT = {"http": 80, "https": 443}


def origin_of(url: str) -> str | None:
    """`scheme://host[:port]` of an http(s) URL in lower case with the scheme's default port dropped,
    or None for any other URL (file:, about:blank, one with no host or a port out of range)."""
    try:
        parts = urlsplit(url.strip())
        host, port = parts.hostname, parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORT or not host:
        return None
    host = f"[{host}]" if ":" in host else host.lower()
    return f"{scheme}://{host}" + (f":{port}" if port not in (None, _DEFAULT_PORT[scheme]) else "")
