"""Where tintin++ and tf5 are required (CI), their absence fails the client tests
instead of skipping them; elsewhere they skip with the install line."""

from __future__ import annotations

import pytest
from e2e_client import tintin, tinyfugue


def test_missing_tintin_fails_where_required(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tintin, "TINTIN", "/nonexistent/tt++")
    monkeypatch.setenv("MAID_REQUIRE_TINTIN", "1")
    with pytest.raises(pytest.fail.Exception, match="apt-get install tintin"):
        tintin.require_tintin()


def test_missing_tintin_skips_on_a_developers_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tintin, "TINTIN", "/nonexistent/tt++")
    monkeypatch.delenv("MAID_REQUIRE_TINTIN", raising=False)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception):
        tintin.require_tintin()


def test_missing_tinyfugue_fails_where_required(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tinyfugue, "TINYFUGUE", "/nonexistent/tf5")
    monkeypatch.setenv("MAID_REQUIRE_TF", "1")
    with pytest.raises(pytest.fail.Exception, match="apt-get install tf5"):
        tinyfugue.require_tinyfugue()


def test_missing_tinyfugue_skips_on_a_developers_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tinyfugue, "TINYFUGUE", "/nonexistent/tf5")
    monkeypatch.delenv("MAID_REQUIRE_TF", raising=False)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception):
        tinyfugue.require_tinyfugue()
