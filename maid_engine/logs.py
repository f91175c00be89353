"""Logging set-up: readable lines by default, one JSON object per line with ``--log-json``.

Structured fields go in ``extra={...}`` (e.g. ``quest_id``, ``seed_id``,
``character_id``); the JSON formatter writes every such field, the plain formatter
appends them as ``key=value``.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType
from typing import Any, TypeAlias

from maid_engine.reliability import LogFloodFilter

_STANDARD = set(logging.LogRecord("", 0, "", 0, "", (), None).__dict__) | {"message", "asctime"}


def _extras(record: logging.LogRecord) -> dict[str, Any]:
    return {
        k: v for k, v in record.__dict__.items() if k not in _STANDARD and not k.startswith("_")
    }


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        doc: dict[str, Any] = {
            "ts": round(record.created, 3),
            "level": record.levelname.lower(),
            "logger": record.name,
            "event": record.getMessage(),
        }
        for key, value in _extras(record).items():
            plain = isinstance(value, (str, int, float, bool, type(None)))
            doc[key] = value if plain else str(value)
        if record.exc_info:
            doc["exc"] = self.formatException(record.exc_info)
        return json.dumps(doc, ensure_ascii=False)


class PlainFormatter(logging.Formatter):
    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)-7s %(name)s: %(message)s")
        self.converter = time.gmtime

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        extras = _extras(record)
        if extras:
            text += " " + " ".join(f"{k}={v}" for k, v in extras.items())
        return text


ExcInfo: TypeAlias = (
    bool
    | BaseException
    | tuple[type[BaseException], BaseException, TracebackType | None]
    | tuple[None, None, None]
    | None
)


@dataclass
class _Episode:
    since: float  # when the message last written was written
    suppressed: int = 0
    # The last message held back (format and arguments, formatted only if written).
    last: tuple[str, tuple[object, ...]] = ("", ())
    level: int = logging.WARNING


class ThrottledLog:
    """A logger for paths that can fail the same way over and over (every tick while
    the database is away or the disk is full): per cause, the first message is
    written at once, then at most one every ``interval`` seconds, and the one that
    ends a quiet spell says how many were held back:
    ``... (suppressed 193 similar messages in the last 60 s)``.

    ``cause`` is whatever makes two failures "the same" for the caller (usually the
    exception's class). :meth:`clear` ends an episode when the operation succeeds
    again: a count still held back is written then (nothing is lost silently), and
    the next failure of that cause is written at once. ``clock`` is injectable.

    ``exc_info`` goes with each message written (the first of a cause, then one a
    minute with the count). A caller that wants the count written even when the
    failures stop calls :meth:`flush_due` now and then (the engine does, every tick);
    those lines carry no traceback.
    """

    def __init__(
        self,
        logger: logging.Logger,
        interval: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
        max_causes: int = 64,
    ) -> None:
        self.logger = logger
        self.interval = interval
        self.clock = clock
        self.max_causes = max_causes
        self._episodes: dict[str, _Episode] = {}

    def log(
        self, level: int, cause: str, msg: str, *args: object, exc_info: ExcInfo = None
    ) -> bool:
        """Write ``msg % args`` unless ``cause`` was written less than ``interval``
        seconds ago. Returns whether it was written. ``exc_info`` adds the exception
        being handled to a message that is written."""
        if not self.logger.isEnabledFor(level):
            return False
        now = self.clock()
        episode = self._episodes.get(cause)
        if episode is None:
            if len(self._episodes) >= self.max_causes:
                self.clear()
            self._episodes[cause] = _Episode(since=now)
            self.logger.log(level, msg, *args, exc_info=exc_info)
            return True
        if now - episode.since < self.interval:
            episode.suppressed += 1
            episode.last = (msg, args)
            episode.level = level
            return False
        self.logger.log(level, msg + "%s", *args, self._note(episode, now), exc_info=exc_info)
        self._episodes[cause] = _Episode(since=now)
        return True

    def warning(self, cause: str, msg: str, *args: object) -> bool:
        return self.log(logging.WARNING, cause, msg, *args)

    def exception(self, cause: str, msg: str, *args: object) -> bool:
        """An ERROR with the exception being handled (as ``Logger.exception``)."""
        return self.log(logging.ERROR, cause, msg, *args, exc_info=True)

    def flush_due(self) -> int:
        """Write, for every cause held back for ``interval`` seconds or more, its last
        message with the count, and start its next window (the cause stays known: its
        next failure is counted, not written in full). Returns how many were written."""
        if not self._episodes:
            return 0
        now = self.clock()
        written = 0
        for episode in self._episodes.values():
            if episode.suppressed and now - episode.since >= self.interval:
                msg, args = episode.last
                self.logger.log(episode.level, msg + "%s", *args, self._note(episode, now))
                episode.since, episode.suppressed = now, 0
                written += 1
        return written

    def suppressed(self, cause: str) -> int:
        """How many messages of ``cause`` are held back right now."""
        episode = self._episodes.get(cause)
        return episode.suppressed if episode is not None else 0

    def clear(self, cause: str | None = None) -> None:
        """End the episode of ``cause`` (of every cause when None), writing the last
        message held back with the count, if any were."""
        causes = list(self._episodes) if cause is None else [cause]
        now = self.clock()
        for key in causes:
            episode = self._episodes.pop(key, None)
            if episode is not None and episode.suppressed:
                msg, args = episode.last
                self.logger.log(episode.level, msg + "%s", *args, self._note(episode, now))

    @staticmethod
    def _note(episode: _Episode, now: float) -> str:
        if not episode.suppressed:
            return ""
        n = episode.suppressed
        return (
            f" (suppressed {n} similar message{'' if n == 1 else 's'} "
            f"in the last {max(0.0, now - episode.since):.0f} s)"
        )


def raising_frame(exc: BaseException) -> str:
    """``file:line`` of the innermost frame of ``exc``'s traceback: where it was raised
    (``"?"`` for an exception that was never raised)."""
    tb = exc.__traceback__
    if tb is None:
        return "?"
    while tb.tb_next is not None:
        tb = tb.tb_next
    return f"{tb.tb_frame.f_code.co_filename}:{tb.tb_lineno}"


def setup_logging(level: str = "INFO", json_lines: bool = False) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if json_lines else PlainFormatter())
    # A client sending garbage must not be able to flood the log (telnetlib3 warns
    # once per malformed subnegotiation).
    handler.addFilter(LogFloodFilter())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    # Third-party chatter that says nothing to an operator.
    for noisy in ("telnetlib3", "aiosqlite", "asyncio", "LiteLLM", "httpx"):
        logging.getLogger(noisy).setLevel(max(logging.WARNING, logging.getLevelName(level)))
