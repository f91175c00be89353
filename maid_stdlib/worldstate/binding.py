"""Bound entries: a schema stat, flag or milestone whose value lives in the world.

An unbound ``player.hp`` is the narrated room's own number, private to it. Written
``bind: vitals.hp``, it *is* the character's hit points: the value the prompt, ``score``
and combat read, clamped by the schema's per-turn rules and by the binder's bounds.
``npc.gwen.trust`` bound to ``relationship.trust`` is Gwen's relationship toward the
acting character, and a milestone bound to ``world.fact`` is a world fact that quest
objectives and story detectors read.

A :class:`Binder` says where such a value lives and how it is read and written; the
:class:`Binders` registry holds them by name (the narration plugin keeps one as a
service, and a pack may register its own). A view given the bindings of a schema
reads and writes through them (``ComponentStatView(bindings=...)``) and hands the
rules a *live* schema whose bound stats carry the binder's current bounds
(:meth:`Binder.limits`), so clamping, the prompt, the sheet and the fix strings all
quote the same limits.
"""

from __future__ import annotations

import difflib
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar
from uuid import UUID

from maid_stdlib.worldstate.schema import (
    Kind,
    Number,
    Section,
    StatDef,
    StatSchema,
    Target,
    fmt_number,
)

if TYPE_CHECKING:
    from maid_engine.ecs import World
    from maid_stdlib.worldstate.view import StatValue


@dataclass(frozen=True)
class BindSite:
    """Where one bound entry is read and written in one turn (or one sheet)."""

    world: World
    #: The narrated room's entity and key.
    room: UUID
    room_key: str
    #: The acting character (``None`` when no one acts: start-up, a builder's view).
    actor: UUID | None
    #: The schema NPC's entity for ``npc.<id>.*`` entries, else ``None``.
    npc: UUID | None
    #: The stat, flag or milestone name (``hp``, ``trust``, ``rescue_gwen``).
    name: str
    #: The canonical path (``player.hp``).
    path: str
    #: The schema entry (its ``news`` and ``told_to`` for a fact), if known.
    target: Target | None = None


@dataclass(frozen=True)
class Bound:
    """A bound entry of a schema: its binder and what the schema says of it."""

    binder: Binder
    target: Target


class Binder(ABC):
    """Where a bound entry's value lives. Subclasses set the class attributes."""

    #: How schemas name it: ``bind: vitals.hp``.
    name: ClassVar[str]
    #: What it can bind: ``stat``, ``flag``, ``milestone``.
    kinds: ClassVar[frozenset[Kind]]
    #: Where it can be used: ``player``, ``npc``, ``world``, ``flags``, ``milestones``.
    sections: ClassVar[frozenset[Section]]
    #: Bands of a stat bound here are percentages of the live range (hit points whose
    #: maximum grows with the character), not values.
    relative_bands: ClassVar[bool] = False
    #: What the change line adds after the owner's stat ("in you"): ``{reader}`` is
    #: "you" for the actor and their name for the others. Empty: nothing.
    toward: ClassVar[str] = ""

    def check(self, target: Target) -> list[str]:
        """Problems of binding ``target`` here (beyond kind and section)."""
        return []

    @abstractmethod
    def get(self, site: BindSite) -> StatValue | None:
        """The live value; ``None`` when there is none (readers use ``initial``)."""

    @abstractmethod
    def set(self, site: BindSite, value: StatValue | None) -> None:
        """Store ``value``; ``None`` clears it where that means anything."""

    def writable(self, site: BindSite) -> bool:
        """False where there is nothing to write on (no actor, no NPC entity)."""
        return True

    def limits(self, site: BindSite) -> tuple[Number | None, Number | None] | None:
        """The live bounds of a bound stat (``None``: the schema's alone)."""
        return None

    def undo_blocked(self, site: BindSite) -> str | None:
        """Why a turn that changed this value can no longer be undone (something
        outside the room already reacted to it), or ``None``."""
        return None


class Binders:
    """The binders by name; :meth:`problems` checks a schema's ``bind`` entries."""

    def __init__(self, binders: Iterable[Binder] = ()) -> None:
        self._by_name: dict[str, Binder] = {}
        for binder in binders:
            self.register(binder)

    def register(self, binder: Binder) -> None:
        known = self._by_name.get(binder.name)
        if known is not None and known is not binder:
            raise ValueError(f"a binder named {binder.name!r} is already registered")
        self._by_name[binder.name] = binder

    def get(self, name: str) -> Binder | None:
        return self._by_name.get(name)

    def names(self) -> list[str]:
        return sorted(self._by_name)

    def problems(self, schema: StatSchema) -> list[str]:
        """Every ``bind`` that names no binder, or one that cannot bind that entry."""
        out: list[str] = []
        for target in schema.targets():
            wanted = bind_of(target)
            if wanted is None:
                continue
            where = _yaml_path(target)
            binder = self._by_name.get(wanted)
            if binder is None:
                close = difflib.get_close_matches(wanted, self.names(), n=1, cutoff=0.6)
                hint = f" (did you mean {close[0]}?)" if close else ""
                known = ", ".join(self.names()) or "none"
                out.append(f"{where}.bind: no binder {wanted!r}{hint}; known: {known}")
                continue
            if target.kind not in binder.kinds or target.section not in binder.sections:
                fits = "/".join(sorted(binder.sections))
                what = "/".join(sorted(binder.kinds))
                out.append(
                    f"{where}.bind: {wanted} binds a {what} under {fits}, not a "
                    f"{target.kind} under {target.section}"
                )
                continue
            out += [f"{where}.bind: {p}" for p in binder.check(target)]
        return out

    def of(self, schema: StatSchema) -> dict[str, Bound]:
        """Canonical path -> bound entry for every ``bind`` whose binder is known."""
        out: dict[str, Bound] = {}
        for target in schema.targets():
            wanted = bind_of(target)
            binder = self._by_name.get(wanted) if wanted is not None else None
            if binder is not None:
                out[target.path] = Bound(binder, target)
        return out


def bind_of(target: Target) -> str | None:
    entry = target.stat or target.flag or target.milestone
    return entry.bind if entry is not None else None


def _yaml_path(target: Target) -> str:
    """The entry as the YAML nests it (``npcs.gwen.trust``)."""
    if target.section == "npc":
        return f"npcs.{target.npc}.{target.name}"
    return target.path


def live_stat(
    stat: StatDef, bounds: tuple[Number | None, Number | None], relative: bool
) -> StatDef:
    """``stat`` with the binder's live bounds: the narrower of the two on each side,
    and percentage bands turned into values of that range (rounded to whole numbers
    for a whole-number stat, so hp never reads 7.4)."""
    lo, hi = bounds
    new_lo = stat.min if lo is None else lo if stat.min is None else max(stat.min, lo)
    new_hi = stat.max if hi is None else hi if stat.max is None else min(stat.max, hi)
    bands = stat.bands
    if relative and new_lo is not None and new_hi is not None and bands:
        span = new_hi - new_lo

        def at(percent: Number) -> Number:
            value = new_lo + span * percent / 100
            return round(value) if stat.integral else value

        bands = tuple((at(b_lo), at(b_hi), label) for b_lo, b_hi, label in bands)
    return stat.model_copy(update={"min": new_lo, "max": new_hi, "bands": bands})


def live_schema(schema: StatSchema, live: Mapping[str, StatDef]) -> StatSchema:
    """``schema`` with the stats named in ``live`` replaced (path -> new definition)."""
    if not live:
        return schema

    def swap(
        section: str, stats: Mapping[str, StatDef], npc: str | None = None
    ) -> dict[str, StatDef]:
        out: dict[str, StatDef] = {}
        for name, stat in stats.items():
            path = f"npc.{npc}.{name}" if npc else f"{section}.{name}"
            out[name] = live.get(path, stat)
        return out

    npcs = {
        npc_id: npc.model_copy(update={"stats": swap("npc", npc.stats, npc_id)})
        for npc_id, npc in schema.npcs.items()
    }
    return StatSchema.model_construct(
        world=swap("world", schema.world),
        player=swap("player", schema.player),
        npcs=npcs,
        flags=schema.flags,
        milestones=schema.milestones,
    )


def percent_band_problems(target: Target) -> list[str]:
    """Bands of a relative binder are percentages: they must run from 0 to 100."""
    stat = target.stat
    if stat is None or not stat.bands:
        return []
    first = min(b[0] for b in stat.bands)
    last = max(b[1] for b in stat.bands)
    if (first, last) != (0, 100):
        return [
            "bands of a bound stat are percentages of its live range and must run from "
            f"0 to 100, not {fmt_number(first)} to {fmt_number(last)}"
        ]
    return []


__all__ = [
    "BindSite",
    "Binder",
    "Binders",
    "Bound",
    "bind_of",
    "live_schema",
    "live_stat",
    "percent_band_problems",
]
