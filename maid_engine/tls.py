"""TLS for the listeners: the server's SSL context, and a self-signed pair for development.

The certificate and key are PEM files named by the ``tls_cert_file`` and
``tls_key_file`` settings. ``maid tls-cert --out DIR`` writes a self-signed pair with
the ``openssl`` command (present wherever OpenSSL is, which Python's own ``ssl`` needs
anyway), so the server needs no extra Python package for it.
"""

from __future__ import annotations

import ipaddress
import os
import re
import shutil
import ssl
import subprocess
from pathlib import Path

from maid_engine.config import ConfigError

__all__ = ["CERT_NAME", "KEY_NAME", "server_context", "write_self_signed"]

CERT_NAME = "cert.pem"
KEY_NAME = "key.pem"
_HOSTNAME = re.compile(r"(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?")


def server_context(cert_file: Path | str, key_file: Path | str) -> ssl.SSLContext:
    """A server-side context holding the certificate chain and its key.

    Raises :class:`ConfigError` naming the file and what is wrong with it (missing,
    unreadable, not PEM, or a key that does not belong to the certificate).
    """
    for label, path in (("tls_cert_file", cert_file), ("tls_key_file", key_file)):
        if not Path(path).is_file():
            raise ConfigError(f"config error: {label}: {path} is not a file")
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    # Older protocol versions are broken; every MUD client with TLS speaks 1.2.
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        context.load_cert_chain(str(cert_file), str(key_file))
    except ssl.SSLError as exc:
        raise ConfigError(
            f"config error: tls_cert_file/tls_key_file: {cert_file} and {key_file} "
            f"are not a PEM certificate and its key ({exc.reason or exc})"
        ) from None
    except OSError as exc:
        raise ConfigError(f"config error: tls files: {exc}") from None
    return context


def write_self_signed(
    out: Path, host: str = "localhost", days: int = 365, openssl: str = "openssl"
) -> tuple[Path, Path]:
    """Write ``cert.pem`` and ``key.pem`` (readable by the owner only) into ``out``.

    The certificate is self-signed for ``host`` (and 127.0.0.1 and localhost), so a
    client connects once it is told to trust it or not to verify. Existing files are
    never overwritten. Raises :class:`ValueError` with a message for the user.
    """
    if days < 1:
        raise ValueError("--days must be at least 1")
    if not (_is_ip(host) or _HOSTNAME.fullmatch(host)):
        raise ValueError(f"--host {host!r} is not a host name or an IP address")
    binary = shutil.which(openssl)
    if binary is None:
        raise ValueError(f"the '{openssl}' command is needed (apt-get install openssl)")
    cert, key = out / CERT_NAME, out / KEY_NAME
    for path in (cert, key):
        if path.exists():
            raise ValueError(f"{path} already exists; remove it or pick another --out")
    out.mkdir(parents=True, exist_ok=True)
    names = {f"DNS:{name}" for name in ("localhost", host) if not _is_ip(name)}
    names |= {f"IP:{ip}" for ip in ("127.0.0.1", host) if _is_ip(ip)}
    command = [
        binary, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
        "-nodes", "-sha256", "-days", str(days), "-subj", f"/CN={host}",
        "-addext", "subjectAltName=" + ",".join(sorted(names)),
        "-keyout", str(key), "-out", str(cert),
    ]  # fmt: skip
    # The key is created readable by the owner only, never briefly by everyone.
    old_mask = os.umask(0o077)
    try:
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    finally:
        os.umask(old_mask)
    if done.returncode != 0:
        for path in (cert, key):
            path.unlink(missing_ok=True)
        detail = (done.stderr or done.stdout).strip().splitlines()
        raise ValueError(f"openssl failed: {detail[-1] if detail else done.returncode}")
    cert.chmod(0o644)
    return cert, key


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True
