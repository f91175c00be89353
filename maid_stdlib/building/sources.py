"""Where a world entry lives in a pack's files, read with ``ruamel.yaml``'s round trip.

Builders' files are under version control and full of comments: every edit goes
through :class:`PackSources`, which loads a file as a round-trip document
(comments, key order, quoting and block styles are kept), finds an entry's
mapping and line, and dumps it back. Nothing here writes a file or checks data:
:class:`~maid_stdlib.building.editor.PackEditor` does.
"""

from __future__ import annotations

import io
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.scalarstring import FoldedScalarString

from maid_stdlib.world.loader import WorldData
from maid_stdlib.world.schema import Entry

#: Entry kind -> its section in an area file.
SECTION = {"room": "rooms", "npc": "npcs", "item": "items"}

#: Folded text is cut into lines of at most this many characters (plus indent).
FOLD_WIDTH = 76


def yaml_rt() -> YAML:
    """The round-trip YAML MAID writes with: the indentation its packs use, no
    re-wrapping of long lines."""
    yaml = YAML()
    yaml.preserve_quotes = True
    yaml.width = 4096
    yaml.indent(mapping=2, sequence=4, offset=2)
    return yaml


def load_text(text: str) -> Any:
    return yaml_rt().load(text)


def dump_text(doc: Any) -> str:
    out = io.StringIO()
    yaml_rt().dump(doc, out)
    return out.getvalue()


def folded(text: str) -> str:
    """``text`` as a folded block (``>-``) cut at :data:`FOLD_WIDTH`, as a builder
    would write a description by hand; short text stays a plain string."""
    text = " ".join(text.split())
    if len(text) <= FOLD_WIDTH:
        return text
    lines = textwrap.wrap(text, FOLD_WIDTH, break_long_words=False, break_on_hyphens=False)
    value = FoldedScalarString(text)
    # fold_pos: the offsets of the spaces a folded scalar breaks its lines at.
    positions = []
    at = 0
    for line in lines[:-1]:
        at += len(line)
        positions.append(at)
        at += 1
    value.fold_pos = positions
    result: str = value
    return result


@dataclass
class Located:
    """An entry's mapping in its file's round-trip document."""

    path: Path
    #: The file as problems show it ("ironvale/areas/village.yaml").
    label: str
    doc: Any
    node: CommentedMap
    #: 1-based line of the entry's first key.
    line: int


class PackSources:
    """Find entries of loaded world packs in their files (round-trip documents)."""

    def __init__(self, data: WorldData) -> None:
        self.data = data

    def path_of(self, entry: Entry) -> Path:
        """The file an entry was read from (its label is relative to the folder
        holding the pack)."""
        root = self.data.pack(entry.pack).path
        return root.parent / entry.file

    def locate(self, entry: Entry) -> Located:
        path = self.path_of(entry)
        doc = load_text(path.read_text(encoding="utf-8"))
        node = find_entry(doc, entry.kind, entry.key)
        if node is None:
            raise LookupError(f"{entry.kind} {entry.key!r} is not in {entry.file} any more")
        return Located(path, entry.file, doc, node, node.lc.line + 1)


def find_entry(doc: Any, kind: str, key: str) -> CommentedMap | None:
    if not isinstance(doc, CommentedMap):
        return None
    if kind == "area":
        area = doc.get("area")
        return area if isinstance(area, CommentedMap) else None
    items = doc.get(SECTION[kind])
    if not isinstance(items, CommentedSeq):
        return None
    for item in items:
        if isinstance(item, CommentedMap) and item.get("key") == key:
            return item
    return None


def section(doc: CommentedMap, kind: str) -> CommentedSeq:
    """The list of ``kind`` entries in an area file, added (at the end) if missing."""
    name = SECTION[kind]
    items = doc.get(name)
    if not isinstance(items, CommentedSeq):
        items = CommentedSeq()
        doc[name] = items
    return items


def line_of(path: Path, keys: list[str]) -> int | None:
    """1-based line of the mapping reached by ``keys`` from the top of ``path``."""
    try:
        node: Any = load_text(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    line = None
    for key in keys:
        if not isinstance(node, CommentedMap) or key not in node:
            return None
        line = node.lc.key(key)[0] + 1
        node = node[key]
    return line
