"""A real Chromium (Debian's ``chromium`` and ``chromium-driver``) driven by Selenium.

Selenium's calls block, and the MUD server of a test runs on the test's own event
loop: every browser call goes through a thread (:meth:`Browser.call`), so the server
keeps answering while the browser waits. Selenium is pointed at the installed driver
and browser, so it never tries to download either.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from e2e_client.ptyclient import require_client

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
WITHIN = 20.0

T = TypeVar("T")


def require_browser() -> None:
    """Skip on a developer's machine without Chromium; fail where it is required (CI
    exports MAID_REQUIRE_BROWSER=1), so the browser test can never quietly stop running."""
    require_client(CHROMIUM, "chromium", "MAID_REQUIRE_BROWSER")
    require_client(CHROMEDRIVER, "chromium-driver", "MAID_REQUIRE_BROWSER")


class Browser:
    """One headless Chromium window."""

    def __init__(
        self, shots: Path, width: int = 1280, height: int = 860, insecure: bool = False
    ) -> None:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for arg in (
            "--headless=new",
            "--no-sandbox",  # the CI container runs as root
            "--disable-dev-shm-usage",
            "--disable-gpu",
            f"--window-size={width},{height}",
        ):
            options.add_argument(arg)
        # The page's console (errors, policy violations) is read by console_errors().
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        if insecure:
            # For a self-signed test certificate only.
            options.add_argument("--ignore-certificate-errors")
        self.driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        self.shots = shots
        shots.mkdir(parents=True, exist_ok=True)

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.to_thread(fn, *args)

    async def open(self, url: str) -> None:
        await self.call(self.driver.get, url)

    async def script(self, source: str, *args: Any) -> Any:
        return await self.call(self.driver.execute_script, source, *args)

    async def text_of(self, element_id: str) -> str:
        value = await self.script(
            "const e = document.getElementById(arguments[0]); return e ? e.innerText : '';",
            element_id,
        )
        return str(value)

    async def wait_text(self, element_id: str, needle: str, within: float = WITHIN) -> str:
        """Wait until the element's visible text contains ``needle``; return the text."""
        return await self._wait_for_text(element_id, needle, True, within)

    async def wait_text_gone(self, element_id: str, needle: str, within: float = WITHIN) -> str:
        """Wait until the element's visible text no longer contains ``needle``."""
        return await self._wait_for_text(element_id, needle, False, within)

    async def _wait_for_text(
        self, element_id: str, needle: str, present: bool, within: float
    ) -> str:
        from selenium.webdriver.support.ui import WebDriverWait

        def check(_driver: Any) -> str | bool:
            text = str(
                self.driver.execute_script(
                    "const e = document.getElementById(arguments[0]);return e ? e.innerText : '';",
                    element_id,
                )
            )
            return text if (needle in text) == present else False

        try:
            found = await self.call(WebDriverWait(self.driver, within, 0.1).until, check)
        except Exception as exc:
            shown = await self.text_of(element_id)
            where = "not in" if present else "still in"
            raise AssertionError(
                f"{needle!r} {where} #{element_id} after {within}s:\n{shown[-3000:]}"
            ) from exc
        return str(found)

    async def type_line(self, line: str) -> None:
        """Type into the command line with real key events and press Enter."""
        from selenium.webdriver.common.by import By
        from selenium.webdriver.common.keys import Keys

        box = await self.call(self.driver.find_element, By.ID, "command")
        await self.call(box.send_keys, line + Keys.ENTER)

    async def click(self, selector: str) -> None:
        from selenium.webdriver.common.by import By

        element = await self.call(self.driver.find_element, By.CSS_SELECTOR, selector)
        await self.call(element.click)

    async def keys(self, *keys: str) -> None:
        """Send keys to whatever has the focus (as a keyboard-only user would)."""
        from selenium.webdriver.common.action_chains import ActionChains

        def press() -> None:
            chain = ActionChains(self.driver)
            for key in keys:
                chain.send_keys(key)
            chain.perform()

        await self.call(press)

    async def chord(self, modifier: str, key: str) -> None:
        """Press ``key`` while holding ``modifier`` (e.g. Keys.ALT)."""
        from selenium.webdriver.common.action_chains import ActionChains

        def press() -> None:
            ActionChains(self.driver).key_down(modifier).send_keys(key).key_up(modifier).perform()

        await self.call(press)

    async def active_id(self) -> str:
        return str(await self.script("return document.activeElement.id;"))

    async def console_errors(self) -> list[str]:
        """Errors the page logged since the last call (script errors, CSP refusals)."""
        entries = await self.call(self.driver.get_log, "browser")
        return [str(e["message"]) for e in entries if e.get("level") == "SEVERE"]

    async def screenshot(self, name: str) -> Path:
        path = self.shots / f"{name}.png"
        await self.call(self.driver.save_screenshot, str(path))
        return path

    async def quit(self) -> None:
        await self.call(self.driver.quit)
