from pathlib import Path

import pytest

from maid_engine.config import ConfigError, load_settings


def test_defaults_are_embedded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    s = load_settings()
    assert s.telnet_host == "127.0.0.1"
    assert s.telnet_port == 4000
    assert s.resolved_database_url.startswith("sqlite+aiosqlite:///")
    assert s.llm_model == ""
    # Which packs are the default (the shipped game) is the game's own test.
    assert s.packs


def test_env_beats_file_and_overrides_beat_env(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cfg = tmp_path / "maid.toml"
    cfg.write_text('[maid]\ntelnet_port = 5000\ntick_rate = 20\npacks = ["a", "b"]\n')
    monkeypatch.setenv("MAID_TICK_RATE", "30")
    monkeypatch.setenv("MAID_PACKS", "x,y")
    s = load_settings(cfg)
    assert s.telnet_port == 5000
    assert s.tick_rate == 30
    assert s.packs == ["x", "y"]
    s = load_settings(cfg, telnet_port=0)
    assert s.telnet_port == 0


def test_invalid_values_give_one_line_per_problem(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAID_TELNET_PORT", "70000")
    monkeypatch.setenv("MAID_TICK_RATE", "-1")
    monkeypatch.setenv("MAID_DATABASE_URL", "mysql://x")
    with pytest.raises(ConfigError) as err:
        load_settings()
    lines = str(err.value).splitlines()
    assert len(lines) == 3
    assert any("telnet_port" in ln and "MAID_TELNET_PORT" in ln for ln in lines)
    assert any("database_url" in ln and "sqlite+aiosqlite" in ln for ln in lines)


def test_unknown_file_key_and_missing_file(tmp_path: Path) -> None:
    cfg = tmp_path / "maid.toml"
    cfg.write_text("telnet_prot = 1\n")
    with pytest.raises(ConfigError, match="telnet_prot: unknown setting"):
        load_settings(cfg)
    with pytest.raises(ConfigError, match="not found"):
        load_settings(tmp_path / "nope.toml")
