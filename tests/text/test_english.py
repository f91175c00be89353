"""The inflect engine is loaded without typeguard's instrumentation, and leaves
whatever typeguard the process had as it was. Each case runs in a fresh
interpreter: this one has inflect imported already."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_engine_is_built_without_typeguard() -> None:
    out = _run(
        """
        import sys
        from maid_engine.english import english
        e = english()
        import inflect
        print(e is english(), "typeguard" in sys.modules,
              "check_argument_types_internal" in inflect.engine.plural.__code__.co_names,
              e.plural("wolf"), e.a("hour"), e.ordinal("3"))
        """
    )
    assert out == "True False False wolves an hour 3rd"


def test_a_typeguard_imported_before_is_put_back() -> None:
    out = _run(
        """
        import sys
        import typeguard
        from maid_engine.english import english
        e = english()
        import inflect
        print(sys.modules["typeguard"] is typeguard,
              "check_argument_types_internal" in inflect.engine.plural.__code__.co_names,
              e.plural_verb("arrives"))
        """
    )
    assert out == "True False arrive"


def test_a_server_loads_the_engine_before_its_first_tick() -> None:
    # The import costs ~20 ms: paid at start, not inside the first tick that
    # writes a plural.
    out = _run(
        """
        import asyncio, sys, tempfile
        from maid_engine.app import MaidServer
        from maid_engine.config import Settings

        async def main():
            with tempfile.TemporaryDirectory() as d:
                settings = Settings(
                    data_dir=d, database_url=f"sqlite+aiosqlite:///{d}/maid.db",
                    telnet_enabled=False, web_enabled=False, metrics_enabled=False,
                )
                server = MaidServer(settings, packs=["stdlib"], announce=lambda _l: None)
                before = "inflect" in sys.modules
                await server.start()
                try:
                    print(before, "inflect" in sys.modules)
                finally:
                    await server.stop()

        asyncio.run(main())
        """
    )
    assert out.splitlines()[-1] == "False True"
