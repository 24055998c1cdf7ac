"""One TLS context for every HTTPS client askbridge opens.

httpx builds a context per client by default, and each one reads the whole CA bundle: 25-45 ms
of startup and about 0.7 MB apiece (measured; bench/README.md). Telegram alone opens two
clients (getUpdates and everything else), webhooks and event hooks one each. They all share this
one; it trusts what httpx would (`SSL_CERT_FILE` or `SSL_CERT_DIR` when set, else certifi's
bundle). A context is safe to share: connections only read it, and every client here asks for
the same protocols (HTTP/1.1).
"""

from __future__ import annotations

import ssl
from functools import cache

import httpx


@cache
def client_tls() -> ssl.SSLContext:
    """The process's TLS client context, built on first use."""
    return httpx.create_ssl_context()
