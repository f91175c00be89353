"""The error of a content pack that cannot be loaded (a leaf: the loader, the pack
base class and the extension registries all raise it)."""

from __future__ import annotations

from pathlib import Path


class PackError(Exception):
    """A pack could not be loaded. The message names the pack (and file, if any)."""

    def __init__(self, pack: str, message: str, file: Path | str | None = None) -> None:
        where = f"content pack {pack!r}" + (f" ({file})" if file else "")
        super().__init__(f"{where}: {message}")
        self.pack = pack
        self.file = file
