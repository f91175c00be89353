"""Where live values are read and written, by canonical path.

``apply_delta``, snapshots and the context builders only ever talk to a
:class:`StatView`, so they do not care whether values sit in ECS components spread over
the room, the acting character and each NPC (:class:`~.components.ComponentStatView`)
or in one plain document (:class:`DictStatView`, used by tests and for storage).

Values by path:

* ``world.<stat>``, ``player.<stat>``, ``npc.<id>.<stat>``: a number;
* ``flags.<name>``: a bool;
* ``milestones.<id>``: the action index it was reached at (absent while pending).

``None`` means "never set": readers fall back to the schema's ``initial``; writing
``None`` deletes the value (that is how a snapshot restore un-reaches a milestone).
Cooldown bookkeeping (``last_changed``) is kept per path beside the values.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any

from maid_stdlib.worldstate.schema import Section, canonical, split_path

if TYPE_CHECKING:
    from maid_stdlib.worldstate.schema import StatSchema

StatValue = bool | int | float


def parse_path(path: str) -> tuple[Section, str | None, str]:
    """Split a path into (section, npc id or None, name); ``ValueError`` if malformed."""
    parts = split_path(path)
    if parts is None:
        raise ValueError(f"not a world-state path: {path!r}")
    return parts


class StatView(ABC):
    """Read/write access to live values and their cooldown bookkeeping."""

    @abstractmethod
    def get(self, path: str) -> StatValue | None:
        """The stored value, or ``None`` if never set."""

    @abstractmethod
    def set(self, path: str, value: StatValue | None) -> None:
        """Store a value; ``None`` deletes it."""

    @abstractmethod
    def last_changed(self, path: str) -> int | None:
        """Action index of the last change to ``path`` (``_meta.last_changed``)."""

    @abstractmethod
    def set_last_changed(self, path: str, index: int | None) -> None:
        """Record (or with ``None`` forget) the action index of a change."""

    @abstractmethod
    def values(self) -> dict[str, StatValue]:
        """Every stored value by canonical path (what a snapshot captures)."""

    @abstractmethod
    def all_last_changed(self) -> dict[str, int]:
        """Every cooldown record by canonical path."""

    def writable(self, path: str) -> bool:
        """False where the view has nowhere to put the value (an NPC with no entity)."""
        return True

    def live_schema(self, schema: StatSchema) -> StatSchema:
        """``schema`` as the rules should apply it here: bound stats carry their live
        bounds (a character's maximum hit points). Plain views change nothing."""
        return schema

    def undo_blocked(self, paths: list[str]) -> list[str]:
        """Why changes to ``paths`` can no longer be taken back (something outside the
        room reacted to them); empty when they can."""
        return []


class DictStatView(StatView):
    """A view over one plain document in the ``world_state`` shape::

        {"world": {"day": 3}, "player": {"hp": 55}, "npc": {"gwen": {"trust": 20}},
         "flags": {"has_key": false}, "milestones": {"rescue_gwen": {"reached": true, "at": 7}},
         "_meta": {"last_changed": {"player.hp": 7}}}

    The document is JSON-ready and is exposed as ``data``.
    """

    def __init__(self, data: dict[str, Any] | None = None) -> None:
        self.data: dict[str, Any] = copy.deepcopy(data) if data else {}

    def _bucket(self, path: str, create: bool) -> tuple[dict[str, Any] | None, str]:
        section, npc, name = parse_path(path)
        root = self.data
        keys = ["npc", npc] if section == "npc" and npc is not None else [section]
        for key in keys:
            child = root.get(key)
            if not isinstance(child, dict):
                if not create:
                    return None, name
                child = root[key] = {}
            root = child
        return root, name

    def get(self, path: str) -> StatValue | None:
        bucket, name = self._bucket(path, create=False)
        if bucket is None or name not in bucket:
            return None
        value = bucket[name]
        if parse_path(path)[0] == "milestones":
            return value.get("at") if isinstance(value, dict) and value.get("reached") else None
        return value if isinstance(value, bool | int | float) else None

    def set(self, path: str, value: StatValue | None) -> None:
        bucket, name = self._bucket(path, create=value is not None)
        if bucket is None:
            return
        if value is None:
            bucket.pop(name, None)
        elif parse_path(path)[0] == "milestones":
            bucket[name] = {"reached": True, "at": value}
        else:
            bucket[name] = value

    def _meta(self) -> dict[str, Any]:
        meta: dict[str, Any] = self.data.setdefault("_meta", {})
        last_changed: dict[str, Any] = meta.setdefault("last_changed", {})
        return last_changed

    def last_changed(self, path: str) -> int | None:
        section, npc, name = parse_path(path)
        meta = self.data.get("_meta", {}).get("last_changed", {})
        found = meta.get(canonical(section, name, npc))
        return found if isinstance(found, int) else None

    def set_last_changed(self, path: str, index: int | None) -> None:
        section, npc, name = parse_path(path)
        key = canonical(section, name, npc)
        if index is None:
            self._meta().pop(key, None)
        else:
            self._meta()[key] = index

    def values(self) -> dict[str, StatValue]:
        out: dict[str, StatValue] = {}
        for section in ("world", "player", "flags", "milestones"):
            for name in self.data.get(section, {}) or {}:
                path = f"{section}.{name}"
                value = self.get(path)
                if value is not None:
                    out[path] = value
        for npc, stats in (self.data.get("npc", {}) or {}).items():
            for name in stats or {}:
                value = self.get(f"npc.{npc}.{name}")
                if value is not None:
                    out[f"npc.{npc}.{name}"] = value
        return out

    def all_last_changed(self) -> dict[str, int]:
        found = self.data.get("_meta", {}).get("last_changed", {})
        return {k: v for k, v in found.items() if isinstance(v, int)}
