"""A one-line progress bar on a terminal's stderr (nothing when stderr is not a TTY,
so logs and CI output stay clean)."""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["ProgressBar"]


class ProgressBar:
    WIDTH = 30
    #: Redraw at most this often (wall seconds): drawing every tick would cost more
    #: than the tick.
    INTERVAL = 0.2

    def __init__(
        self, total: int, stream: TextIO | None = None, enabled: bool | None = None
    ) -> None:
        self.total = max(1, total)
        self.stream = stream if stream is not None else sys.stderr
        isatty = getattr(self.stream, "isatty", None)
        self.enabled = enabled if enabled is not None else bool(isatty and isatty())
        self._drawn = 0.0
        self._started = time.monotonic()

    def update(self, done: int, label: str = "", force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if not force and now - self._drawn < self.INTERVAL:
            return
        self._drawn = now
        share = min(1.0, done / self.total)
        filled = int(share * self.WIDTH)
        elapsed = now - self._started
        eta = elapsed / share - elapsed if share > 0 else 0.0
        bar = "#" * filled + "-" * (self.WIDTH - filled)
        self.stream.write(f"\r[{bar}] {100 * share:5.1f}% {label} (eta {eta:4.0f} s) ")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()
