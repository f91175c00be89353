"""The event loop the server runs on (maid_engine.loops)."""

from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path

import pytest
import uvloop

from maid_engine import loops
from maid_engine.cli import main as maid
from maid_engine.config import ConfigError, load_settings


async def _which() -> str:
    await asyncio.sleep(0)
    return loops.loop_name(asyncio.get_running_loop())


def test_auto_runs_on_uvloop_where_it_is_installed() -> None:
    assert loops.run(_which(), "auto") == "uvloop"
    assert loops.loop_factory("auto") is uvloop.new_event_loop


def test_the_loops_can_be_named() -> None:
    assert loops.run(_which(), "uvloop") == "uvloop"
    assert loops.run(_which(), "asyncio") == "asyncio"


def test_auto_falls_back_to_asyncio_without_uvloop(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "uvloop" else real(name, *a)
    )
    assert loops.run(_which(), "auto") == "asyncio"


def test_uvloop_named_but_missing_is_an_error_that_runs_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "uvloop" else real(name, *a)
    )
    ran: list[str] = []

    async def main() -> None:
        ran.append("ran")

    with pytest.raises(loops.LoopUnavailable, match="pip install uvloop"):
        loops.run(main(), "uvloop")
    assert ran == []


def test_maid_run_asked_for_a_missing_uvloop_stops_saying_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "uvloop" else real(name, *a)
    )
    monkeypatch.setenv("MAID_EVENT_LOOP", "uvloop")
    assert maid(["run", "--telnet-port", "0", "--data-dir", str(tmp_path)]) == 3
    err = capsys.readouterr().err
    assert "MAID_EVENT_LOOP=uvloop, but uvloop is not installed (pip install uvloop" in err
    assert not (tmp_path / "maid.db").exists()  # nothing was started


def test_the_setting_is_read_and_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAID_EVENT_LOOP", "asyncio")
    assert load_settings().event_loop == "asyncio"
    monkeypatch.setenv("MAID_EVENT_LOOP", "twisted")
    with pytest.raises(ConfigError, match="event_loop"):
        load_settings()
