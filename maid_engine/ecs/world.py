"""The ECS world: entities addressed by UUID, their components, and the indexes
the rest of MAID reads.

The World owns its storage (no ECS library underneath):

* entity -> {component type: component}: every lookup by entity (``try_component``,
  ``components_of``) is two dict lookups;
* component type -> a set of entity numbers: which entities hold that type, and the
  order every query of it iterates in;
* component type -> {entity number: (entity, component)}: the rows a query returns,
  built once per add instead of once per query.

Entities are numbered (1, 2, 3, ... in creation order, never reused) only inside
this module; everything outside uses their UUIDs.

Query order is the iteration order of the type's set of entity numbers. It is part
of what a seeded simulation reproduces, and it is deterministic by construction: an
int hashes to itself (no hash randomisation), so the same sequence of adds, removals
and destructions gives the same order in every run. It is not insertion order: a
small set of large numbers iterates by number modulo the table size, and a removed
holder that comes back takes its old slot. This is the order the engine had while it
stored components in esper (whose per-type sets these are), which the simulation's
quality targets were measured with; insertion order measurably changed them
(docs/architecture.md, "The World").
"""

from __future__ import annotations

import itertools
import random
import uuid
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from typing import Any, TypeVar, overload
from uuid import UUID

from maid_engine.ecs.component import Component

C = TypeVar("C", bound=Component)
C2 = TypeVar("C2", bound=Component)
C3 = TypeVar("C3", bound=Component)
C4 = TypeVar("C4", bound=Component)

#: ``fn(entity, component)``: see :meth:`World.on_changed`.
ChangeHook = Callable[[UUID, Any], None]
#: ``fn(entity)``: see :meth:`World.watch_holders`.
HolderHook = Callable[[UUID], None]


class EntityNotFound(KeyError):
    """Raised when an operation names an entity that does not exist."""

    def __init__(self, entity_id: UUID) -> None:
        super().__init__(f"entity {entity_id} does not exist")
        self.entity_id = entity_id


class ComponentNotFound(KeyError):
    def __init__(self, entity_id: UUID, ctype: type[Component]) -> None:
        super().__init__(f"entity {entity_id} has no {ctype.__name__}")
        self.entity_id = entity_id
        self.component_type = ctype


def seeded_ids(seed: int | str) -> Callable[[], UUID]:
    """A reproducible source of version-4 UUIDs: the same ``seed`` gives the same
    sequence in every process. It has its own random stream, so creating an entity
    does not shift the engine's other seeded draws."""
    rng = random.Random(f"entity-ids:{seed}")

    def new_id() -> UUID:
        return UUID(int=rng.getrandbits(128), version=4)

    return new_id


class ChangeLog:
    """The world's changes taken by :meth:`World.take_change_log`: the dirty
    entities, the component types changed on each (``whole``: all of them), the
    components removed and the entities destroyed, in the world's own
    collections (no longer the world's once taken)."""

    __slots__ = ("destroyed", "dirty", "parts", "removed", "whole")

    def __init__(
        self,
        dirty: set[UUID],
        parts: dict[UUID, set[type[Component]]],
        whole: set[UUID],
        removed: list[tuple[UUID, str]],
        destroyed: list[UUID],
    ) -> None:
        self.dirty = dirty
        self.parts = parts
        self.whole = whole
        self.removed = removed
        self.destroyed = destroyed

    def parts_of(self, uid: UUID) -> frozenset[type[Component]] | None:
        """A dirty entity's changed component types; None: all of them."""
        return None if uid in self.whole else frozenset(self.parts.get(uid, ()))


class World:
    """Entities, their components, a name index, and dirty tracking for persistence.

    ``new_id`` makes the UUID of an entity created without one (``uuid4`` unless
    given). A seeded engine passes a seeded source: several systems order or
    stagger entities by their UUID, so random ids would make a seeded run differ
    from every other run of the same seed.
    """

    def __init__(self, new_id: Callable[[], UUID] | None = None) -> None:
        self._new_id: Callable[[], UUID] = new_id or uuid.uuid4
        #: entity -> {component type: component}: the store (module docstring).
        self._entities: dict[UUID, dict[type[Component], Component]] = {}
        #: Entity numbers (module docstring), both ways.
        self._numbers = itertools.count(1)
        self._number_of: dict[UUID, int] = {}
        self._uuid_of: dict[int, UUID] = {}
        #: component type -> numbers of its holders: the order of queries. A type
        #: whose last holder leaves is dropped, so its next set starts afresh.
        self._order: dict[type[Component], set[int]] = {}
        #: component type -> {number: (entity, component)}: the rows of queries.
        self._rows: dict[type[Component], dict[int, tuple[UUID, Component]]] = {}
        # Ordered (destroyed in scheduling order) and O(1) to test.
        self._pending_destroy: dict[UUID, None] = {}
        #: component type -> a counter bumped when which entities have one, which
        #: component object they have, or its content (``modified``) changes.
        self._versions: dict[type[Component], int] = {}
        self._names: dict[str, set[UUID]] = {}
        self._persistent: set[UUID] = set()
        self._dirty: set[UUID] = set()
        #: Of the dirty entities, which component types changed; an entity in
        #: ``_whole`` (new, or handed back whole) is written with all of them.
        self._parts: dict[UUID, set[type[Component]]] = {}
        self._whole: set[UUID] = set()
        self._removed: list[tuple[UUID, str]] = []
        self._destroyed: list[UUID] = []
        self._hooks: dict[type[Component], list[ChangeHook]] = {}
        #: ``watch_holders``: component type -> who hears that an entity gained or
        #: lost one; and every hook once, for destruction.
        self._holder_hooks: dict[type[Component], list[HolderHook]] = {}
        #: What a held component calls when a field of it is assigned.
        self._marker = self._make_marker()

    # -- entities --------------------------------------------------------------
    def new_id(self) -> UUID:
        """A fresh entity UUID from this world's id source (``create_entity`` takes
        one when none is given)."""
        return self._fresh_id()

    def use_ids(self, new_id: Callable[[], UUID]) -> None:
        """Draw the UUIDs of new entities from ``new_id`` from now on."""
        self._new_id = new_id

    def _fresh_id(self) -> UUID:
        uid = self._new_id()
        # A seeded source restarted over a world it already filled would repeat.
        while uid in self._entities:
            uid = self._new_id()
        return uid

    def create_entity(
        self,
        *components: Component,
        entity_id: UUID | None = None,
        persistent: bool = True,
    ) -> UUID:
        """Create an entity and return its UUID.

        ``persistent=False`` keeps it out of checkpoints (e.g. temporary effects).
        """
        uid = entity_id or self._fresh_id()
        if uid in self._entities:
            raise ValueError(f"entity {uid} already exists")
        self._entities[uid] = {}
        number = next(self._numbers)
        self._number_of[uid] = number
        self._uuid_of[number] = uid
        if persistent:
            self._persistent.add(uid)
            self._dirty.add(uid)
            self._whole.add(uid)
        for component in components:
            self.add_component(uid, component)
        return uid

    def destroy_entity(self, entity_id: UUID) -> None:
        """Schedule destruction at the next safe point (between systems).

        Until then the entity is reported as not existing, but its components can
        still be read, so an iteration in progress is not disturbed.
        """
        held = self._entities.get(entity_id)
        if held is not None and entity_id not in self._pending_destroy:
            self._pending_destroy[entity_id] = None
            # It leaves every query at once: caches keyed on versions must see it.
            for ctype in held:
                self._bump(ctype)
            if self._holder_hooks:
                self._tell_holders(entity_id, held)

    def flush_destroyed(self) -> list[UUID]:
        """Destroy everything scheduled. Called by the engine between systems."""
        if not self._pending_destroy:
            return []
        done = list(self._pending_destroy)
        # Emptied in place: ``destruction_scheduled`` hands out a view of it.
        self._pending_destroy.clear()
        for uid in done:
            held = self._entities.pop(uid, None)
            if held is None:
                continue
            number = self._number_of.pop(uid)
            del self._uuid_of[number]
            for ctype, component in held.items():
                self._unorder(number, ctype)
                self._unindex(uid, component)
                component._owner = None
            if uid in self._persistent:
                self._persistent.discard(uid)
                self._dirty.discard(uid)
                self._whole.discard(uid)
                self._parts.pop(uid, None)
                self._destroyed.append(uid)
        return done

    @property
    def destruction_scheduled(self) -> Collection[UUID]:
        """Entities scheduled for destruction and not destroyed yet (they no longer
        exist, ``entity_exists``; the next safe point destroys them): a live view."""
        return self._pending_destroy.keys()

    def entity_exists(self, entity_id: UUID) -> bool:
        # Hashing a UUID is a Python call: the pending set is asked only when not empty
        # (asked before every command a player runs).
        pending = self._pending_destroy
        return entity_id in self._entities and not (pending and entity_id in pending)

    def is_persistent(self, entity_id: UUID) -> bool:
        return entity_id in self._persistent

    def entities(self) -> list[UUID]:
        pending = self._pending_destroy
        if not pending:
            return list(self._entities)
        return [u for u in self._entities if u not in pending]

    @property
    def entity_count(self) -> int:
        return len(self._entities) - len(self._pending_destroy)

    def _held(self, entity_id: UUID) -> dict[type[Component], Component]:
        held = self._entities.get(entity_id)
        if held is None:
            raise EntityNotFound(entity_id)
        return held

    # -- components ------------------------------------------------------------
    def add_component(self, entity_id: UUID, component: Component) -> None:
        """Give the entity ``component``, replacing its component of that type (the
        entity keeps its place in that type's order then)."""
        held = self._held(entity_id)
        ctype = type(component)
        old = held.get(ctype)
        if old is not None:
            self._unindex(entity_id, old)
            old._owner = None
        held[ctype] = component
        number = self._number_of[entity_id]
        order = self._order.get(ctype)
        if order is None:
            order = self._order[ctype] = set()
            self._rows[ctype] = {}
        order.add(number)
        self._rows[ctype][number] = (entity_id, component)
        self._bump(ctype)
        if entity_id in self._persistent:
            # The entity first: setting the marker is what arms it.
            object.__setattr__(component, "_entity", entity_id)
            object.__setattr__(component, "_owner", self._marker)
            self._mark(entity_id, ctype)
        self._index(entity_id, component)
        for hook in self._hooks.get(ctype, ()):
            hook(entity_id, component)
        for holder_hook in self._holder_hooks.get(ctype, ()):
            holder_hook(entity_id)

    def remove_component(self, entity_id: UUID, ctype: type[C]) -> C | None:
        held = self._held(entity_id)
        component = held.pop(ctype, None)
        if component is None:
            return None
        assert isinstance(component, ctype)
        self._unorder(self._number_of[entity_id], ctype)
        self._bump(ctype)
        self._unindex(entity_id, component)
        component._owner = None
        if entity_id in self._persistent and ctype.persist:
            self._removed.append((entity_id, ctype.component_name))
        for holder_hook in self._holder_hooks.get(ctype, ()):
            holder_hook(entity_id)
        return component

    def get_component(self, entity_id: UUID, ctype: type[C]) -> C:
        """The component, or ``ComponentNotFound``/``EntityNotFound``."""
        held = self._entities.get(entity_id)
        if held is None:
            raise EntityNotFound(entity_id)
        component = held.get(ctype)
        if component is None:
            raise ComponentNotFound(entity_id, ctype)
        return component  # type: ignore[return-value]

    def get_or_add(self, entity_id: UUID, ctype: type[C]) -> C:
        """The entity's component of ``ctype``, given a new one (made with no
        arguments) first if it has none; ``EntityNotFound`` for an unknown entity."""
        component = self.try_component(entity_id, ctype)
        if component is None:
            component = ctype()
            self.add_component(entity_id, component)
        return component

    def try_component(self, entity_id: UUID, ctype: type[C]) -> C | None:
        held = self._entities.get(entity_id)
        return held.get(ctype) if held is not None else None  # type: ignore[return-value]

    @overload
    def try_components(
        self, entity_id: UUID, c1: type[C], c2: type[C2], /
    ) -> tuple[C | None, C2 | None]: ...
    @overload
    def try_components(
        self, entity_id: UUID, c1: type[C], c2: type[C2], c3: type[C3], /
    ) -> tuple[C | None, C2 | None, C3 | None]: ...
    @overload
    def try_components(
        self, entity_id: UUID, c1: type[C], c2: type[C2], c3: type[C3], c4: type[C4], /
    ) -> tuple[C | None, C2 | None, C3 | None, C4 | None]: ...

    def try_components(
        self, entity_id: UUID, *ctypes: type[Component]
    ) -> tuple[Component | None, ...]:
        """``try_component`` of each type, with one look-up of the entity: hashing a
        UUID is a Python call, and a pass over a crowded room asks each entity for
        several types. Like ``try_component``, an entity scheduled for destruction
        still reads until the flush, and one that does not exist reads all None."""
        held = self._entities.get(entity_id)
        if held is None:
            return (None,) * len(ctypes)
        return tuple([held.get(t) for t in ctypes])

    def has_component(self, entity_id: UUID, ctype: type[Component]) -> bool:
        held = self._entities.get(entity_id)
        return held is not None and ctype in held

    def components_of(self, entity_id: UUID) -> tuple[Component, ...]:
        """The entity's components, in the order it gained them (a replacement
        keeps its place)."""
        return tuple(self._held(entity_id).values())

    # -- saying what changed ---------------------------------------------------
    def modified(self, entity_id: UUID, component: Component) -> None:
        """Report that ``component`` (held by ``entity_id``) changed in place.

        Assigning a field of a component marks its entity dirty by itself; anything
        else -- appending to a list, setting a key of a dict, changing a nested
        object -- is reported here, once after the change. It marks the entity dirty
        for the next checkpoint, bumps ``version_of`` the component's type and runs
        its ``on_changed`` hooks. A component the entity no longer holds (destroyed
        or replaced meanwhile) is ignored.
        """
        ctype = type(component)
        held = self._entities.get(entity_id)
        if held is None or held.get(ctype) is not component:
            return
        self._bump(ctype)
        if entity_id in self._persistent:
            self._mark(entity_id, ctype)
        for hook in self._hooks.get(ctype, ()):
            hook(entity_id, component)

    def on_changed(self, ctype: type[C], hook: Callable[[UUID, C], None]) -> None:
        """Run ``hook(entity, component)`` after a ``ctype`` is added (or replaced)
        and after every ``modified`` of one: for systems that keep their own index
        of the entities needing work. Hooks run in registration order."""
        self._hooks.setdefault(ctype, []).append(hook)

    def version_of(self, ctype: type[Component]) -> int:
        """Changes whenever a ``ctype`` is added, replaced, removed or reported
        ``modified``, and when an entity holding one is scheduled for destruction:
        a cache derived from the holders of a type keys on it."""
        return self._versions.get(ctype, 0)

    def watch_holders(self, hook: HolderHook, *ctypes: type[Component]) -> None:
        """Run ``hook(entity)`` after an entity is given (or has replaced) or loses a
        component of one of ``ctypes``, and once when an entity holding one is
        scheduled for destruction: for caches of what is where that key on the
        places those entities are in, not on the components' contents."""
        for ctype in ctypes:
            hooks = self._holder_hooks.setdefault(ctype, [])
            if hook not in hooks:
                hooks.append(hook)

    def _tell_holders(self, entity_id: UUID, held: dict[type[Component], Component]) -> None:
        told: list[HolderHook] = []
        for ctype in held:
            for hook in self._holder_hooks.get(ctype, ()):
                if hook not in told:
                    told.append(hook)
                    hook(entity_id)

    def _bump(self, ctype: type[Component]) -> None:
        self._versions[ctype] = self._versions.get(ctype, 0) + 1

    # -- queries ---------------------------------------------------------------
    @overload
    def query(self, c1: type[C], /) -> Iterator[tuple[UUID, tuple[C]]]: ...
    @overload
    def query(self, c1: type[C], c2: type[C2], /) -> Iterator[tuple[UUID, tuple[C, C2]]]: ...
    @overload
    def query(
        self, c1: type[C], c2: type[C2], c3: type[C3], /
    ) -> Iterator[tuple[UUID, tuple[C, C2, C3]]]: ...
    @overload
    def query(self, *ctypes: type[Component]) -> Iterator[tuple[UUID, tuple[Any, ...]]]: ...

    def query(self, *ctypes: type[Component]) -> Iterator[tuple[UUID, tuple[Any, ...]]]:
        """Entities having all of ``ctypes``, skipping those scheduled for destruction,
        in the order of the type with the fewest holders (the first of equals).

        The result is materialised first, so the caller may create, destroy or
        change components while iterating.
        """
        if not ctypes:
            return iter(())
        order, all_rows = self._order, self._rows
        sets = [order.get(t) for t in ctypes]
        if not all(sets):
            return iter(())
        tables = [all_rows[t] for t in ctypes]
        lead = min(sets, key=len)  # type: ignore[arg-type]
        uuid_of, pending = self._uuid_of, self._pending_destroy
        out = []
        for number in lead:  # type: ignore[union-attr]
            uid = uuid_of[number]
            if pending and uid in pending:
                continue
            row = []
            for table in tables:
                found = table.get(number)
                if found is None:
                    break
                row.append(found[1])
            else:
                out.append((uid, tuple(row)))
        return iter(out)

    def each(self, ctype: type[C]) -> Iterator[tuple[UUID, C]]:
        """Single-component query (the common case), materialised like ``query``."""
        order = self._order.get(ctype)
        if not order:
            return iter(())
        rows = list(map(self._rows[ctype].__getitem__, order))
        pending = self._pending_destroy
        if pending:
            rows = [row for row in rows if row[0] not in pending]
        return iter(rows)  # type: ignore[arg-type]

    def each_in(self, ctype: type[C], entities: Iterable[UUID]) -> Iterator[tuple[UUID, C]]:
        """``each(ctype)`` restricted to ``entities``, in ``each`` order, without
        visiting every holder in Python (for a few among thousands)."""
        order = self._order.get(ctype)
        if not order:
            return iter(())
        number_of, pending = self._number_of, self._pending_destroy
        wanted = {number_of[u] for u in entities if u in number_of and u not in pending}
        rows = self._rows[ctype]
        return iter([rows[n] for n in filter(wanted.__contains__, order)])  # type: ignore[misc]

    def holders(self, ctype: type[Component]) -> list[UUID]:
        """Entities with a ``ctype``, in ``each`` order (a copy)."""
        order = self._order.get(ctype)
        if not order:
            return []
        uids = list(map(self._uuid_of.__getitem__, order))
        pending = self._pending_destroy
        return [u for u in uids if u not in pending] if pending else uids

    def holders_any(self, *ctypes: type[Component]) -> list[UUID]:
        """Entities holding any of ``ctypes``, each once, at its first place in the
        concatenation of ``holders(ctype)`` (a copy). The repeats are dropped on
        the entities' numbers, without hashing a UUID: a system visiting the
        holders of two types met 10,000 repeats in one tick otherwise."""
        present = [s for s in map(self._order.get, ctypes) if s]
        if not present:
            return []
        numbers = list(present[0])
        for i in range(1, len(present)):
            earlier = present[0] if i == 1 else present[0].union(*present[1:i])
            numbers.extend(itertools.filterfalse(earlier.__contains__, present[i]))
        uids = list(map(self._uuid_of.__getitem__, numbers))
        pending = self._pending_destroy
        return [u for u in uids if u not in pending] if pending else uids

    def count(self, ctype: type[Component]) -> int:
        """Entities with a ``ctype`` (those scheduled for destruction included)."""
        order = self._order.get(ctype)
        return len(order) if order is not None else 0

    def _unorder(self, number: int, ctype: type[Component]) -> None:
        order = self._order[ctype]
        order.discard(number)
        del self._rows[ctype][number]
        if not order:
            del self._order[ctype]
            del self._rows[ctype]

    # -- names -----------------------------------------------------------------
    def _index(self, entity_id: UUID, component: Component) -> None:
        field = component.name_field
        if field:
            name = getattr(component, field, None)
            if isinstance(name, str) and name:
                self._names.setdefault(name.casefold(), set()).add(entity_id)

    def _unindex(self, entity_id: UUID, component: Component) -> None:
        field = component.name_field
        if field:
            name = getattr(component, field, None)
            if isinstance(name, str) and name:
                bucket = self._names.get(name.casefold())
                if bucket is not None:
                    bucket.discard(entity_id)
                    if not bucket:
                        del self._names[name.casefold()]

    def rename(self, entity_id: UUID, component: Component, new_name: str) -> None:
        """Change the indexed name field of ``component`` keeping the index right."""
        field = component.name_field
        if not field:
            raise TypeError(f"{type(component).__name__} has no name field")
        self._unindex(entity_id, component)
        setattr(component, field, new_name)
        self._index(entity_id, component)

    def find_by_name(self, name: str) -> list[UUID]:
        """Entities whose indexed name equals ``name`` (case-insensitive)."""
        bucket = self._names.get(name.casefold(), ())
        return [u for u in bucket if self.entity_exists(u)]

    # -- persistence support ---------------------------------------------------
    def _mark(self, entity_id: UUID, ctype: type[Component]) -> None:
        self._dirty.add(entity_id)
        if entity_id not in self._whole:
            parts = self._parts.get(entity_id)
            if parts is None:
                self._parts[entity_id] = {ctype}
            else:
                parts.add(ctype)

    def _make_marker(self) -> Callable[[UUID, type[Component]], None]:
        # One function per world, shared by every component it holds (each
        # component keeps only its entity): a closure per component cost about
        # 300 bytes, 2.4 KiB per NPC. A closure, not a bound method:
        # ``copy.deepcopy`` of a component copies a function by reference but
        # would copy a bound method's World.
        mark = self._mark

        def marker(entity_id: UUID, ctype: type[Component]) -> None:
            mark(entity_id, ctype)

        return marker

    @property
    def dirty_count(self) -> int:
        """Entities with changes not taken yet (``take_changed_parts``)."""
        return len(self._dirty)

    def take_changes(self) -> tuple[set[UUID], list[tuple[UUID, str]], list[UUID]]:
        """Dirty entities, removed components and destroyed entities since last call.

        The caller owns the returned collections; if saving fails it hands them
        back with :meth:`restore_changes` so nothing is lost.
        """
        parts, removed, destroyed = self.take_changed_parts()
        return set(parts), removed, destroyed

    def take_changed_parts(
        self,
    ) -> tuple[dict[UUID, frozenset[type[Component]] | None], list[tuple[UUID, str]], list[UUID]]:
        """As :meth:`take_changes`, with each dirty entity's changed component types
        (None: all of them -- a new entity, or one handed back whole): a checkpoint
        writes only those. In a living world most of an NPC's components stay as
        they are while one of them (its needs, its place) changes every tick."""
        taken = self.take_change_log()
        dirty = {uid: taken.parts_of(uid) for uid in taken.dirty}
        return dirty, taken.removed, taken.destroyed

    def take_change_log(self) -> ChangeLog:
        """What :meth:`take_changed_parts` takes, as the world kept it: taken at once
        whatever its size, to be read afterwards a piece at a time (the world keeps
        its next changes apart). Five seconds of a 10,000-NPC world's changes took
        several milliseconds to turn into :meth:`take_changed_parts`'s mapping."""
        taken = ChangeLog(self._dirty, self._parts, self._whole, self._removed, self._destroyed)
        self._dirty, self._parts, self._whole = set(), {}, set()
        self._removed, self._destroyed = [], []
        return taken

    def restore_changes(
        self,
        dirty: Iterable[UUID] | Mapping[UUID, frozenset[type[Component]] | None],
        removed: list[tuple[UUID, str]],
        destroyed: list[UUID],
    ) -> None:
        """Hand back what :meth:`take_changes` or :meth:`take_changed_parts` took
        (a failed save): those entities are dirty again, with what changed since."""
        for uid in dirty:
            if uid not in self._persistent:
                continue
            types = dirty[uid] if isinstance(dirty, Mapping) else None
            self._dirty.add(uid)
            if types is None:
                self._whole.add(uid)
                self._parts.pop(uid, None)
            elif uid not in self._whole:
                self._parts.setdefault(uid, set()).update(types)
        self._removed[:0] = removed
        self._destroyed[:0] = destroyed
