"""ChangeCollector: turns the world's changes into a change set for the store, in
pieces.

A write of the world must be consistent: an item moved by a trade is written on
both sides or on neither, or a crash could duplicate or destroy it. The world's
changes are therefore collected while nothing else touches the world (holding its
lock, between ticks). Turning a changed component into JSON is the costly part --
at 10,000 NPCs a checkpoint's few thousand changed components take tens of
milliseconds, and every command and the next tick wait for them.

So a checkpoint is collected in pieces, one between each pair of ticks:

* ``step(budget)`` takes what changed since the previous piece from the world and
  turns up to ``budget`` of the changed entities into JSON (their changed
  components only). What it turned is kept ("staged"), not written. The world
  hands its record of the changes over whole (``World.take_change_log``) and it
  is merged into what is pending ``merge_slice`` entities at a time, a slice
  that has done ``enough`` ending there too: five seconds of a 10,000-NPC
  world's changes took several milliseconds to merge in one go.
* A component changed after it was staged is reported changed by the world again
  (assigning a field, ``World.modified``), so a later piece takes it again and
  stages it anew over the old JSON.
* ``finish()`` takes the last changes and stages everything still pending, in one
  piece. Every staged component then equals the component as it is now: the change
  set is the world at that instant, exactly what a collection in one piece would
  have produced then. A checkpoint finishes once the pending part fits one piece
  (``ready``); an early commit (``commit_now``) finishes at once with whatever is
  left.

Each piece holds the world for as long as it takes to stage its entities, so a
checkpoint's cost is spread over ticks instead of stopping the world once. The
server stages a piece in slices (``step`` then ``resume``, each told when it has
done ``enough``) and lets waiting commands have the world between them, so a
command waits for a slice, not for the piece. A
component changing every tick is staged once per piece while a checkpoint is being
collected (not once per checkpoint), which is why the pieces run only while one is.

``staged_components`` counts every component turned into JSON: how much work the
collection did (tests compare it with what changed, not with time).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING
from uuid import UUID

from maid_engine.ecs.component import Component, dump_component, dump_component_json
from maid_engine.jsontext import ComponentData, dump_json

if TYPE_CHECKING:
    from maid_engine.ecs.world import ChangeLog, World

#: A dirty entity's changed component types; None: all of them (a new entity).
Parts = frozenset[type[Component]] | None


def _union(a: Parts, b: Parts) -> Parts:
    if a is None or b is None:
        return None
    return a | b


@dataclass
class CollectedChanges:
    """A finished collection: the JSON to write, and what was taken from the world
    (handed back to it if the write fails, so the next checkpoint retries it)."""

    upserts: dict[UUID, dict[str, ComponentData]]
    removed: list[tuple[UUID, str]]
    destroyed: list[UUID]
    taken: dict[UUID, Parts]

    def hand_back(self, world: World) -> None:
        world.restore_changes(self.taken, self.removed, self.destroyed)


class _Taking:
    """A change log taken from the world and not yet merged into the collection:
    its dirty entities are merged a slice at a time, then its removals and
    destructions (a later log's changes come after all of this one's)."""

    __slots__ = ("left", "log", "uids")

    def __init__(self, log: ChangeLog) -> None:
        self.log = log
        self.uids: Iterator[UUID] = iter(log.dirty)
        self.left = len(log.dirty)


class ChangeCollector:
    #: Dirty entities merged between two questions to ``enough``: an entity takes
    #: 1-2 microseconds (its id hashed half a dozen times), so a slice's merge
    #: stays under a quarter of a millisecond.
    merge_slice: int = 128

    def __init__(self, world: World) -> None:
        self.world = world
        #: Change logs taken from the world, oldest first, not yet merged.
        self._backlog: deque[_Taking] = deque()
        #: entity -> {component name: JSON}: staged, not yet written.
        self._staged: dict[UUID, dict[str, ComponentData]] = {}
        #: Taken from the world, not yet staged (in the order taken).
        self._pending: dict[UUID, Parts] = {}
        #: Everything taken since the last finish (for handing it back).
        self._taken: dict[UUID, Parts] = {}
        self._removed: list[tuple[UUID, str]] = []
        self._destroyed: list[UUID] = []
        self._active = False
        #: Components turned into JSON so far (all collections).
        self.staged_components = 0
        #: Pieces run since the current collection began.
        self.pieces = 0

    @property
    def active(self) -> bool:
        """A collection is under way (``step`` has run since the last ``finish``)."""
        return self._active

    @property
    def pending(self) -> int:
        """Entities taken from the world and not staged yet."""
        return len(self._pending) + sum(t.left for t in self._backlog)

    def ready(self, budget: int) -> bool:
        """What is pending, with what changed since, would fit one piece of
        ``budget`` entities (an estimate: the world's count of dirty entities)."""
        return self.pending + self.world.dirty_count <= budget

    def step(self, budget: int, enough: Callable[[], bool] | None = None) -> int:
        """One piece: take the world's changes, stage up to ``budget`` entities,
        fewer if ``enough()`` says so after one of them (a piece staged in slices,
        the rest of it by :meth:`resume`). Call it where nothing is half-way
        through changing the world. Returns the entities staged."""
        self._active = True
        self.pieces += 1
        return self.resume(budget, enough)

    def resume(self, budget: int, enough: Callable[[], bool] | None = None) -> int:
        """More of the current piece, after other code has had the world: take
        what changed meanwhile, stage up to ``budget`` more entities (fewer if
        ``enough()``). Returns the entities staged: none when the slice went to
        merging what was taken (five seconds of a busy world's changes are
        merged over several slices)."""
        self._take()
        if not self._merge(enough):
            return 0
        pending = self._pending
        staged = 0
        while pending and staged < budget:
            uid = next(iter(pending))
            self._stage(uid, pending.pop(uid))
            staged += 1
            if enough is not None and enough():
                break
        return staged

    def finish(self) -> CollectedChanges | None:
        """Take the last changes and stage everything pending: the change set of
        the world as it is now (None: nothing changed). The collector starts
        afresh."""
        self._take()
        self._merge(None)
        for uid, parts in self._pending.items():
            self._stage(uid, parts)
        # An entity scheduled for destruction is left out (its destruction comes
        # with the next collection), as is a removal the entity has since undone.
        # Those destroyed already were dropped as their destruction was taken:
        # only the scheduled ones are looked for (a checkpoint stages thousands,
        # and asking each whether it exists took milliseconds).
        upserts = self._staged
        doomed = self.world.destruction_scheduled
        if doomed:
            upserts = {uid: comps for uid, comps in upserts.items() if uid not in doomed}
        removed = [(u, n) for (u, n) in self._removed if n not in upserts.get(u, {})]
        out = CollectedChanges(upserts, removed, self._destroyed, self._taken)
        empty = not (self._taken or self._removed or self._destroyed)
        self._staged, self._pending, self._taken = {}, {}, {}
        self._removed, self._destroyed = [], []
        self._active = False
        self.pieces = 0
        return None if empty else out

    def _take(self) -> None:
        """Take the world's changes since the last take (at once, whatever their
        size: :meth:`_merge` reads them)."""
        log = self.world.take_change_log()
        if log.dirty or log.removed or log.destroyed:
            self._backlog.append(_Taking(log))

    def _merge(self, enough: Callable[[], bool] | None) -> bool:
        """Merge the logs taken into what is pending, oldest first; with ``enough``,
        asked after every ``merge_slice`` entities, stop early. Returns whether
        all were merged."""
        backlog = self._backlog
        pending, taken = self._pending, self._taken
        step = max(self.merge_slice, 1)
        while backlog:
            taking = backlog[0]
            log = taking.log
            parts_of = log.parts_of
            done = 0
            for uid in taking.uids:
                parts = parts_of(uid)
                pending[uid] = _union(pending[uid], parts) if uid in pending else parts
                taken[uid] = _union(taken[uid], parts) if uid in taken else parts
                done += 1
                if done == step:
                    taking.left -= done
                    done = 0
                    if enough is not None and enough():
                        return False
            taking.left = 0
            backlog.popleft()
            self._settle(log.removed, log.destroyed)
        return True

    def _settle(self, removed: list[tuple[UUID, str]], destroyed: list[UUID]) -> None:
        """A merged log's removed components and destroyed entities."""
        pending, taken, staged = self._pending, self._taken, self._staged
        for uid, name in removed:
            comps = staged.get(uid)
            if comps is not None:
                comps.pop(name, None)
        self._removed.extend(removed)
        for uid in destroyed:
            staged.pop(uid, None)
            pending.pop(uid, None)
            taken.pop(uid, None)
        self._destroyed.extend(destroyed)

    def _stage(self, uid: UUID, parts: Parts) -> None:
        world = self.world
        if not world.entity_exists(uid):
            return
        comps = {
            c.component_name: _staged_data(c)
            for c in world.components_of(uid)
            if c.persist and (parts is None or type(c) in parts)
        }
        self.staged_components += len(comps)
        held = self._staged.get(uid)
        if held is not None:
            held.update(comps)
        elif comps or parts is None:
            self._staged[uid] = comps


def _staged_data(component: Component) -> ComponentData:
    """A component as a checkpoint keeps it until the write: JSON text. Text takes
    about a third of the memory of the same data as dicts and lists (the
    10,000-NPC world's components: 22 MiB against 60), and a busy world's
    checkpoint stages thousands of components while players play; pydantic's
    one-step encoding is also cheaper than the objects and then the text.

    A NaN or an infinity in a float field is not JSON and the store refuses it
    (the write fails and the changes go back to the world). pydantic writes one
    as ``NaN`` / ``Infinity`` there, so a component whose text holds either word
    is encoded again by the store's encoder, and staged as data when that refuses
    it, for the write to fail on as before. Text that cannot be UTF-8 (a lone
    surrogate, which JSON from outside may carry) is staged as data too: this
    runs under the world lock between ticks, where it must not raise."""
    try:
        text = dump_component_json(component)
    except ValueError:
        return dump_component(component)
    if b"NaN" not in text and b"Infinity" not in text:
        return text
    data = dump_component(component)
    try:
        return dump_json(data).encode()
    except ValueError:
        return data
