"""`maid run`'s web flags and the web listener's defaults."""

from __future__ import annotations

from pathlib import Path

import pytest
from e2e.fixtures import served

from maid_engine.cli import _settings, build_parser
from maid_engine.config import load_settings


def test_the_web_flags_become_settings(tmp_path: Path) -> None:
    args = build_parser().parse_args(
        ["run", "--data-dir", str(tmp_path), "--web-host", "0.0.0.0", "--web-port", "4321"]
    )
    settings = _settings(args)
    assert (settings.web_host, settings.web_port, settings.web_enabled) == ("0.0.0.0", 4321, True)


def test_the_web_client_listens_on_4080_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The test suite moves every server to a free port; the shipped default is 4080.
    monkeypatch.delenv("MAID_WEB_PORT", raising=False)
    settings = load_settings(None, data_dir=tmp_path)
    assert (settings.web_host, settings.web_port, settings.web_enabled) == (
        "127.0.0.1",
        4080,
        True,
    )
    monkeypatch.setenv("MAID_WEB_ENABLED", "false")
    assert load_settings(None, data_dir=tmp_path).web_enabled is False


async def test_a_server_without_the_web_listener(tmp_path: Path) -> None:
    async with served(tmp_path, web_enabled=False) as server:
        assert server.web is None
        assert server.web_port == 0
        assert server.telnet_port > 0
