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
from typing import Any

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
