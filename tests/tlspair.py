"""A self-signed certificate for tests of the TLS listener, made by ``maid tls-cert``'s
own code, and the client context that trusts it (and nothing else)."""

from __future__ import annotations

import ssl
from pathlib import Path

from maid_engine.tls import write_self_signed


def cert_pair(folder: Path) -> tuple[Path, Path]:
    """``(cert.pem, key.pem)`` in ``folder/tls`` (made once per folder)."""
    out = folder / "tls"
    cert, key = out / "cert.pem", out / "key.pem"
    if cert.exists() and key.exists():
        return cert, key
    return write_self_signed(out)


def client_context(cert: Path) -> ssl.SSLContext:
    """A client context that verifies the server against ``cert`` (for "localhost")."""
    context = ssl.create_default_context(cafile=str(cert))
    context.check_hostname = True
    return context
