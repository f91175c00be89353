"""The one ``inflect`` engine the server's English comes from.

``inflect`` 7.x decorates its API with typeguard's ``@typechecked``, which rebuilds
each decorated function from its module's source when the module is imported (two
seconds of every ``maid`` process's start here) and checks every argument of every
call after (a plural costs four times what it does unchecked). Upstream knows
(jaraco/inflect#212, agronholm/typeguard#468) and has not changed it. Our callers
are checked by strict mypy instead, so the engine is imported with a stand-in for
typeguard whose ``typechecked`` returns what it is given; the real typeguard, if
something imported it already, is put back at once.

Loaded on first use (no import-time side effects), once per process, under a lock:
prose is written on the event loop and in worker threads. ``MaidServer.start``
loads it, so that no tick pays the import.
"""

from __future__ import annotations

import sys
import threading
import types
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import inflect

__all__ = ["english"]

_lock = threading.Lock()
_engine: inflect.engine | None = None


def _unchecked(target: Any = None, **_options: Any) -> Any:
    # Both forms of the decorator: ``@typechecked`` and ``@typechecked(...)``.
    return target if target is not None else _unchecked


def _import_unchecked() -> types.ModuleType:
    if "inflect" in sys.modules:
        # Imported before us (a test, a pack): whatever it was built with stays.
        return sys.modules["inflect"]
    stand_in = types.ModuleType("typeguard")
    stand_in.typechecked = _unchecked  # type: ignore[attr-defined]
    real = sys.modules.get("typeguard")
    sys.modules["typeguard"] = stand_in
    try:
        import inflect
    finally:
        if real is None:
            del sys.modules["typeguard"]
        else:
            sys.modules["typeguard"] = real
    return inflect


def english() -> inflect.engine:
    """The process's inflect engine (plurals, articles, ordinals, verb agreement)."""
    global _engine
    if _engine is None:
        with _lock:
            if _engine is None:
                _engine = _import_unchecked().engine()
    return _engine
