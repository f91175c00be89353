"""Reloading a world pack while the server runs (``@reload <pack>``, ``maid run --watch``).

:class:`PackReloader` re-reads a world pack's data files, validates them as
``maid check-pack`` does (the pack's own ``validate_data`` hook, and the packs
that require it against the new data), and only when nothing is wrong applies
the difference with the same function that builds the world at start-up
(:func:`~maid_stdlib.world.spawner.spawn_pack`): new and changed rooms, exits,
items and NPCs appear, removed ones go, what the world owns (where an NPC is, its
needs and memories, what players carry) is kept. Players stay connected.

Other layers whose data lives in the pack's folder add a :class:`ReloadStep`
(the living world re-reads ``living.yaml``): every step checks before any step
applies, so a failed reload changes nothing and lists every problem.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol
from uuid import UUID

from maid_engine.commands import Command, CommandContext, Role, command
from maid_engine.content import PackContext, PackError, PackHost
from maid_engine.ecs import System
from maid_stdlib.world.events import PackReloadedEvent
from maid_stdlib.world.loader import WorldData
from maid_stdlib.world.service import WorldService
from maid_stdlib.world.spawner import SpawnReport, spawn_pack

log = logging.getLogger("maid.world")

__all__ = [
    "COMMANDS",
    "PackReloader",
    "PackWatchSystem",
    "PackWatcher",
    "ReloadResult",
    "ReloadStep",
]


class ReloadStep(Protocol):
    """A layer's share of a reload: ``check`` re-reads its files of ``pack`` and
    returns their problems (changing nothing); ``apply`` applies what ``check``
    read and returns lines for the report. ``apply`` runs only when every step's
    ``check`` found nothing."""

    def check(self, pack: str) -> list[str]: ...

    def apply(self, pack: str) -> list[str]: ...


@dataclass
class ReloadResult:
    pack: str
    ok: bool
    problems: list[str] = field(default_factory=list)
    report: SpawnReport | None = None
    #: Lines the reload steps added (e.g. living data).
    notes: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        """What a builder reads: the changes, or every problem."""
        if not self.ok:
            count = len(self.problems)
            head = (
                f"Reload of {self.pack} refused: {count} problem{'s' if count != 1 else ''}; "
                "nothing was changed."
            )
            return [head, *(f"  {p}" for p in self.problems)]
        report = self.report
        assert report is not None
        changes = []
        for what, keys in sorted(report.changed.items()):
            unique = sorted(dict.fromkeys(keys))
            changes.append(f"  {what}: {', '.join(unique)}")
        head = f"Reloaded {self.pack}: {report.created} new, {report.refreshed} changed, " + (
            f"{report.removed} removed, {report.kept} unchanged."
        )
        if report.moved:
            changes.append(f"  moved out of removed rooms: {len(report.moved)}")
        return [head, *changes, *(f"  {n}" for n in self.notes)]


class PackReloader:
    """The service behind ``@reload``: see the module docstring."""

    def __init__(self, engine: PackHost) -> None:
        self.engine = engine
        self.steps: list[ReloadStep] = []

    def add_step(self, step: ReloadStep) -> None:
        self.steps.append(step)

    @property
    def data(self) -> WorldData:
        return self.engine.services.get(WorldData)

    def reloadable(self) -> list[str]:
        """The world packs of this engine (the ones with data files)."""
        return self.data.declared()

    def files(self, pack: str) -> list[Path]:
        """The data files a reload reads: the manifest, area files and any other
        YAML in the pack's folder (living data, quests)."""
        root = self.data.pack(pack).path
        found = [p for p in root.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file()]
        return sorted(found)

    def reload(self, name: str) -> ReloadResult:
        data = self.data
        if name not in data.declared():
            known = ", ".join(data.declared()) or "none"
            return ReloadResult(name, False, [f"no world pack {name!r} (world packs: {known})"])
        pack = data.pack(name)
        fresh = data.reread(name)
        old = data.swap(name, fresh)
        problems: list[str] = []
        try:
            hook = getattr(pack, "validate_data", None)
            if callable(hook):
                problems.extend(str(p) for p in hook(PackContext(self.engine, pack)))
            else:
                problems.extend(fresh.problems)
            for dependent in data.dependents(name):
                # Another pack's exits may lead into this one: they must still.
                problems.extend(data.reread(dependent).problems)
            for step in self.steps:
                problems.extend(step.check(name))
        except Exception as exc:  # a pack's hook failing must not half-apply
            problems.append(f"{name}: checking failed: {type(exc).__name__}: {exc}")
        problems = list(dict.fromkeys(problems))
        if problems:
            data.swap(name, old)
            return ReloadResult(name, False, problems)
        return self._apply(name)

    def _apply(self, name: str) -> ReloadResult:
        data = self.data
        loaded = data.load(name)
        ws = self.engine.services.get(WorldService)
        start = loaded.start_room or ws.start_room
        try:
            report = spawn_pack(self.engine, data, loaded, fallback_room=start)
        except PackError as exc:
            # Validated data whose extension failed to apply: the world may be
            # partly refreshed; say so rather than pretend nothing happened.
            log.exception("reload of %s failed while applying", name)
            return ReloadResult(name, False, [f"applying failed part-way: {exc}"])
        ws.rebuild_index()
        if loaded.start_room is not None:
            ws.start_room = loaded.start_room
        notes: list[str] = []
        for step in self.steps:
            notes.extend(step.apply(name))
        self._tell_moved(ws, report.moved, start)
        self.engine.events.emit(PackReloadedEvent(name))
        log.info(
            "pack %s reloaded: %d new, %d changed, %d removed",
            name,
            report.created,
            report.refreshed,
            report.removed,
        )
        return ReloadResult(name, True, report=report, notes=notes)

    def _tell_moved(self, ws: WorldService, moved: Iterable[UUID], room: str | None) -> None:
        where = ws.room(room) if room is not None else None
        for uid in moved:
            if where is not None:
                ws.message_character(
                    uid, f"The place you stood in is gone; you find yourself in {where.name}."
                )


class PackWatcher:
    """``maid run --watch``: reload a world pack when one of its data files changes.

    :meth:`poll` compares modification times (``stat`` is injectable) and reloads
    each pack whose files changed, telling ``report`` the result; the engine calls
    it from the tick every ``interval`` seconds of wall time, so nothing runs
    beside the world (and tests call it directly)."""

    def __init__(
        self,
        reloader: PackReloader,
        report: Callable[[str], None],
        stat: Callable[[Path], float] | None = None,
    ) -> None:
        self.reloader = reloader
        self.report = report
        self.stat = stat or (lambda p: p.stat().st_mtime)
        self._seen: dict[str, dict[Path, float]] = {}

    def _snapshot(self, pack: str) -> dict[Path, float]:
        out: dict[Path, float] = {}
        for path in self.reloader.files(pack):
            try:
                out[path] = self.stat(path)
            except OSError:
                continue  # removed between the listing and the stat
        return out

    def prime(self) -> None:
        """Remember the files as they are (called once at start)."""
        for pack in self.reloader.reloadable():
            self._seen[pack] = self._snapshot(pack)

    def poll(self) -> list[ReloadResult]:
        results = []
        for pack in self.reloader.reloadable():
            now = self._snapshot(pack)
            before = self._seen.get(pack)
            self._seen[pack] = now
            if before is None or now == before:
                continue
            result = self.reloader.reload(pack)
            results.append(result)
            for line in result.lines():
                self.report(line)
        return results


class PackWatchSystem(System):
    """Polls the world packs' data files once per ``interval`` seconds of wall time
    (``now`` is injectable) and reloads the ones that changed (``maid run --watch``).
    Added only when the setting ``watch`` is on."""

    phase = "persistence"

    def __init__(
        self, watcher: PackWatcher, interval: float = 1.0, now: Callable[[], float] | None = None
    ) -> None:
        self.watcher = watcher
        self.interval = interval
        self.now = now or time.monotonic
        self._next = 0.0

    async def startup(self) -> None:
        self.watcher.prime()
        self._next = self.now() + self.interval

    async def update(self, delta: float) -> None:
        now = self.now()
        if now < self._next:
            return
        self._next = now + self.interval
        self.watcher.poll()


@command("@reload", permission=Role.BUILDER, category="building")
def reload_pack(ctx: CommandContext) -> None:
    """Re-read a world pack's data files and apply the changes without a restart.

    Usage: @reload <pack>
           @reload          (lists the packs that can be reloaded)

    The files are checked first, as 'maid check-pack' does: if anything is wrong
    nothing changes and every problem is listed. Otherwise new and changed rooms,
    exits, NPCs and items appear at once and removed ones go; players stay where
    they are, and what the world owns is kept (where an NPC is, its needs,
    memories and wounds, what players carry). An NPC whose entry changed takes
    its new name, descriptions and keywords; an edited section (stats, needs,
    schedule ...) is applied again.
    """
    reloader: PackReloader = ctx.service(PackReloader)
    name = ctx.args.strip()
    if not name:
        packs = ", ".join(reloader.reloadable()) or "none"
        ctx.send(f"Usage: @reload <pack>. World packs: {packs}.")
        return
    result = reloader.reload(name)
    ctx.send("\n".join(result.lines()))


COMMANDS: list[Command] = [reload_pack]
