"""The browser test can never quietly stop running where a browser is required."""

from __future__ import annotations

import pytest
from e2e_client import browser


def test_a_missing_browser_fails_where_required(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(browser, "CHROMIUM", "/nonexistent/chromium")
    monkeypatch.setenv("MAID_REQUIRE_BROWSER", "1")
    with pytest.raises(pytest.fail.Exception, match="apt-get install"):
        browser.require_browser()


def test_a_missing_browser_skips_on_a_developers_machine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(browser, "CHROMEDRIVER", "/nonexistent/chromedriver")
    monkeypatch.delenv("MAID_REQUIRE_BROWSER", raising=False)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception):
        browser.require_browser()
