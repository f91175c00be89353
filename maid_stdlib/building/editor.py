"""An edit of a pack's files: written with comments kept, checked, applied at once.

:meth:`PackEditor.edit` changes round-trip documents in memory, writes them, and
reloads the pack through :class:`~maid_stdlib.world.reload.PackReloader` — the
same check (``maid check-pack``'s) and the same apply path as ``@reload``. When
the check finds a problem the files are put back byte for byte and nothing in the
world changes: an edit that would break the pack is refused, saying why.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ruamel.yaml.comments import CommentedMap

from maid_stdlib.building.sources import dump_text, load_text
from maid_stdlib.world.reload import PackReloader, ReloadResult

#: Changes a file's round-trip document in place; raises EditError to refuse.
Mutation = Callable[[Any], None]


class EditError(Exception):
    """The edit cannot be made (nothing was written)."""


@dataclass
class EditResult:
    ok: bool
    problems: list[str] = field(default_factory=list)
    reload: ReloadResult | None = None

    def refusal(self) -> str:
        """What a builder reads when the edit was refused."""
        count = len(self.problems)
        lines = [
            f"Not changed: the edit would leave {count} problem{'s' if count != 1 else ''} "
            "in the pack (the files are as they were):"
        ]
        lines.extend(f"  {p}" for p in self.problems)
        return "\n".join(lines)


class PackEditor:
    """Edits of world packs' files (a service of ``stdlib.building``)."""

    def __init__(self, reloader: PackReloader) -> None:
        self.reloader = reloader

    def edit(self, pack: str, changes: dict[Path, Mutation]) -> EditResult:
        """Apply each mutation to its file's document, write the files, reload
        ``pack``; on any problem put every file back as it was."""
        before: dict[Path, str | None] = {}
        after: dict[Path, str] = {}
        for path, mutate in changes.items():
            text = path.read_text(encoding="utf-8") if path.is_file() else None
            doc = load_text(text) if text else None
            if doc is None:
                doc = CommentedMap()
            try:
                mutate(doc)
            except EditError as exc:
                return EditResult(False, [str(exc)])
            before[path] = text
            after[path] = dump_text(doc)
        for path, text in after.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        result = self.reloader.reload(pack)
        if not result.ok:
            for path, old in before.items():
                if old is None:
                    path.unlink(missing_ok=True)
                else:
                    path.write_text(old, encoding="utf-8")
            return EditResult(False, list(result.problems), result)
        return EditResult(True, [], result)
