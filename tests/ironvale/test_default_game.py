"""Ironvale is the game ``maid run`` plays by default: the default settings load it
with the admin pack, after the stdlib and classic_rpg plugins it requires."""

from __future__ import annotations

from pathlib import Path

import pytest

from maid_engine.config import load_settings
from maid_engine.content import collect_packs


def test_the_default_packs_are_ironvale_and_admin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert load_settings().packs == ["ironvale", "admin"]


def test_the_default_packs_load_after_the_layers_they_require() -> None:
    rpg = [p.name for p in collect_packs(["classic_rpg"])]
    assert [p.name for p in collect_packs(["ironvale", "admin"])] == [*rpg, "ironvale", "admin"]
