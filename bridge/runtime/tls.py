"""One TLS context for every HTTPS client askbridge opens.

httpx builds a context per client by default, and each one reads the whole CA bundle: 25-50 ms
of startup and about 0.7 MB apiece (measured; bench/README.md). Telegram alone opens two
clients (getUpdates and everything else); `askbridge doctor`, webhooks, event hooks and the
agents' Python client one each. They all share this one; it trusts what httpx would
(`SSL_CERT_FILE` or `SSL_CERT_DIR` when set, else certifi's bundle). Sharing is safe: the only
thing set on it per connection is the ALPN list, and every client here asks for HTTP/1.1 alone.
"""

from __future__ import annotations

import ssl
from functools import cache

import httpx


@cache
def client_tls() -> ssl.SSLContext:
    """The process's TLS client context, built on first use."""
    return httpx.create_ssl_context()
