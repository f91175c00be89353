"""`maid tls-cert` (a self-signed pair for development) and the TLS settings."""

from __future__ import annotations

import ssl
import stat
import subprocess
from pathlib import Path

import pytest

from maid_engine.app import tls_context
from maid_engine.cli import main
from maid_engine.config import ConfigError, load_settings
from maid_engine.tls import write_self_signed


def test_tls_cert_writes_a_pair_a_server_can_use(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "certs"
    assert main(["tls-cert", "--out", str(out)]) == 0
    cert, key = out / "cert.pem", out / "key.pem"
    printed = capsys.readouterr().out
    assert f"--tls-cert {cert} --tls-key {key}" in printed
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    settings = load_settings(tls_port=0, tls_cert_file=str(cert), tls_key_file=str(key))
    assert isinstance(tls_context(settings), ssl.SSLContext)
    # The certificate is for localhost: a client that trusts it verifies the name.
    client = ssl.create_default_context(cafile=str(cert))
    assert client.cert_store_stats()["x509_ca"] == 1


def test_tls_cert_never_overwrites(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tls-cert", "--out", str(tmp_path)]) == 0
    before = (tmp_path / "key.pem").read_bytes()
    capsys.readouterr()
    assert main(["tls-cert", "--out", str(tmp_path)]) == 1
    assert "already exists" in capsys.readouterr().err
    assert (tmp_path / "key.pem").read_bytes() == before


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"host": "bad host/CN=x"}, "is not a host name or an IP address"),
        ({"days": 0}, "--days must be at least 1"),
        ({"openssl": "no-such-openssl"}, "the 'no-such-openssl' command is needed"),
        ({"openssl": "false"}, "openssl failed"),
    ],
)
def test_tls_cert_refuses_clearly_and_leaves_nothing(
    tmp_path: Path, options: dict[str, object], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        write_self_signed(tmp_path / "out", **options)  # type: ignore[arg-type]
    assert not (tmp_path / "out" / "cert.pem").exists()
    assert not (tmp_path / "out" / "key.pem").exists()


def test_tls_cert_for_an_ip_address(tmp_path: Path) -> None:
    cert, _ = write_self_signed(tmp_path, host="10.1.2.3", days=2)
    shown = subprocess.run(
        ["openssl", "x509", "-in", str(cert), "-noout", "-ext", "subjectAltName"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert "IP Address:10.1.2.3" in shown
    assert "DNS:localhost" in shown


def test_a_tls_port_needs_both_files(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ConfigError, match="tls_port needs tls_cert_file and tls_key_file"):
        load_settings(tls_port=4443)
    assert main(["run", "--tls-port", "0", "--tls-cert", "c.pem"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "config error: tls_port needs tls_cert_file and tls_key_file (MAID_TLS_CERT_FILE, "
        "MAID_TLS_KEY_FILE; `maid tls-cert --out DIR` makes a pair for development)"
    ]


def test_no_tls_port_no_context(tmp_path: Path) -> None:
    assert tls_context(load_settings()) is None
    # Files alone (for the web listener, say) do not open a telnet TLS port.
    cert, key = write_self_signed(tmp_path)
    assert tls_context(load_settings(tls_cert_file=str(cert), tls_key_file=str(key))) is None
