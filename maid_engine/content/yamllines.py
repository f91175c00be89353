"""YAML that remembers where each value was written, for ``file:line`` problems.

:func:`load_yaml` reads like ``yaml.safe_load`` but composes nodes first and
keeps their marks: every mapping comes back as a :class:`LineDict` (a ``dict``)
and every list as a :class:`LineList` (a ``list``) that know their own line and
the line of each key or item. Code that does not care sees plain dicts and lists;
code that reports a problem asks :func:`line_of` (or walks a path with
:func:`line_at`) and writes ``areas/village.yaml:42: room 'well': ...``.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from pathlib import Path
from typing import Any

import yaml

__all__ = ["LineDict", "LineList", "YamlProblem", "line_at", "line_of", "load_yaml", "read_yaml"]


class LineDict(dict[Any, Any]):
    """A mapping read from YAML: ``line`` is where it starts, ``key_lines`` where
    each key is (1-based)."""

    line: int = 0
    key_lines: dict[Any, int]


class LineList(list[Any]):
    """A list read from YAML: ``line`` is where it starts, ``item_lines`` where
    each item is (1-based)."""

    line: int = 0
    item_lines: list[int]


class _LineLoader(yaml.SafeLoader):
    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        plain = super().construct_mapping(node, deep=True)
        out = LineDict(plain)
        out.line = node.start_mark.line + 1
        out.key_lines = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            if isinstance(key, Hashable):
                out.key_lines.setdefault(key, key_node.start_mark.line + 1)
        return out

    def construct_sequence(self, node: yaml.SequenceNode, deep: bool = False) -> list[Any]:
        out = LineList(super().construct_sequence(node, deep=True))
        out.line = node.start_mark.line + 1
        out.item_lines = [child.start_mark.line + 1 for child in node.value]
        return out


# The base loader builds a mapping through a generator (to allow recursion); ours
# builds it at once, so the constructors are registered for the standard tags.
_LineLoader.add_constructor(
    "tag:yaml.org,2002:map",
    lambda loader, node: loader.construct_mapping(node),  # type: ignore[arg-type]
)
_LineLoader.add_constructor(
    "tag:yaml.org,2002:seq",
    lambda loader, node: loader.construct_sequence(node),  # type: ignore[arg-type]
)


class YamlProblem(ValueError):
    """A file that is not valid YAML (or cannot be read), with the line if known."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


def load_yaml(text: str) -> Any:
    """Parse ``text``; YamlProblem (with the line) if it is not valid YAML."""
    try:
        return yaml.load(text, Loader=_LineLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        reason = getattr(exc, "problem", None) or str(exc)
        raise YamlProblem(f"invalid YAML{where}: {reason}", line) from exc


def read_yaml(path: Path) -> Any:
    """:func:`load_yaml` of a file; YamlProblem if it cannot be read or parsed."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise YamlProblem(f"cannot read: {exc}") from exc
    return load_yaml(text)


def line_of(value: Any, key: Any = None) -> int | None:
    """The line of ``value`` (a mapping or list read by :func:`load_yaml`), or of
    its ``key`` (a mapping key or a list index) when given; None if unknown."""
    if key is not None:
        if isinstance(value, LineDict) and key in value.key_lines:
            return value.key_lines[key]
        if isinstance(value, LineList) and isinstance(key, int) and 0 <= key < len(value):
            return value.item_lines[key]
    line = getattr(value, "line", 0)
    return line or None


def line_at(value: Any, path: Sequence[Any]) -> int | None:
    """The line of the deepest part of ``path`` (keys and indexes, as in a pydantic
    error's ``loc``) that exists under ``value``."""
    best = line_of(value)
    node = value
    for step in path:
        here = line_of(node, step)
        if here is None:
            break
        best = here
        try:
            node = node[step]
        except (KeyError, IndexError, TypeError):
            break
    return best
