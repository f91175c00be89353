"""WorldMutationBatch: collect, merge, validate, and apply world mutations atomically.

    batch = WorldMutationBatch(env, versions)
    batch.add(m1); batch.add(m2)
    if batch.validate():
        result = batch.apply()      # BatchResult: applied | conflict | failed

**Merging**, so two changes to one value never invalidate each other. Mutations with
the same (type, target entity, key) are combined before anything is checked, in the
order they were added:

* numeric changes (trust, standing, needs, goal progress, influence, coin) add up
  into one mutation; it saturates only if every part did;
* ``npc_goal_complete`` duplicates collapse, and completing a goal drops any
  ``npc_goal_advance`` of the same goal (completion subsumes progress);
* ``world_state``: the last one added wins (branch and abandonment consequences are
  added after the quest's own, so the more specific one decides);
* gossip and memories are all kept; exact duplicates collapse.

So an abandonment's -0.15 trust and the quest's own failure penalty on the same
giver become one -0.25 change instead of a "conflict" that voids the batch.

**Validation** refuses the whole batch if a target entity does not exist, a value
is not finite or moves more than its whole range, a strict mutation would leave its
bounds (faction standing and trust in [-1, 1], needs, goal progress and influence
in [0, 1], coin >= 0; a saturating one is clipped to the bound), or a kind's own
check fails (the NPC has no such need or goal).

**Concurrency**: validation records each target entity's version (a counter in
:class:`EntityVersions`, bumped by every batch that changes the entity) and the
current value of each scalar mutation. ``apply`` re-checks both right before each
mutation; if another batch -- or any other writer -- changed the entity since, the
batch is rolled back and reports ``conflict`` (the caller re-plans once).

**Atomicity**: before its first change of an (entity, component) the batch keeps a
deep copy; any exception or conflict restores every copy (in place, so references
held elsewhere stay valid) and runs the undo steps of applied mutations, newest
first. Nothing is half-applied. Events caused by the mutations are emitted only
once the whole batch went through.
"""

from __future__ import annotations

import copy
import dataclasses
import logging
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from maid_engine.ecs import Component
from maid_engine.events import Event
from maid_stdlib.consequences.kinds import MutationKinds
from maid_stdlib.consequences.mutations import MutationEnv, MutationKind, WorldMutation

__all__ = [
    "BatchResult",
    "EntityVersions",
    "Validation",
    "VersionConflict",
    "WorldMutationBatch",
]

log = logging.getLogger("maid.consequences")

#: Tolerance when comparing values read at validation and at application.
_EPS = 1e-9


class EntityVersions:
    """Per-entity version counters for optimistic concurrency.

    Every applied batch bumps the entities it changed; other writers of living
    state may call :meth:`bump` too. Values read at validation are compared as
    well, so a writer that never bumps is still noticed.
    """

    def __init__(self) -> None:
        self._versions: dict[UUID, int] = {}

    def version(self, entity: UUID) -> int:
        return self._versions.get(entity, 0)

    def bump(self, entity: UUID) -> int:
        value = self._versions.get(entity, 0) + 1
        self._versions[entity] = value
        return value

    def forget(self, entity: UUID) -> None:
        self._versions.pop(entity, None)


class VersionConflict(Exception):
    """An entity changed between validation and application."""


@dataclass
class Validation:
    errors: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return not self.errors


@dataclass
class BatchResult:
    #: "applied", "conflict" or "failed" (an exception while applying).
    status: str
    applied: list[WorldMutation] = field(default_factory=list)
    error: str | None = None
    #: (entity, component type) pairs the applied batch changed (for persisting them).
    touched: list[tuple[UUID, type[Component]]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status == "applied"


@dataclass
class _Planned:
    mutation: WorldMutation
    kind: MutationKind
    base: float | None


class WorldMutationBatch:
    def __init__(
        self,
        env: MutationEnv,
        versions: EntityVersions | None = None,
        kinds: MutationKinds | None = None,
        emit: Callable[[Event], None] | None = None,
    ) -> None:
        self.env = env
        self.versions = versions if versions is not None else EntityVersions()
        self.kinds = kinds if kinds is not None else MutationKinds.builtin()
        self.emit = emit
        self._mutations: list[WorldMutation] = []
        self._planned: list[_Planned] | None = None
        self._expected: dict[UUID, int] = {}
        self.validation: Validation | None = None

    # -- building ---------------------------------------------------------------------
    def add(self, mutation: WorldMutation) -> None:
        """Queue a mutation; the batch must be validated again afterwards."""
        self._mutations.append(mutation)
        self._planned = None
        self.validation = None

    @property
    def mutations(self) -> list[WorldMutation]:
        """Everything added, in order (before merging)."""
        return list(self._mutations)

    @property
    def planned(self) -> list[WorldMutation]:
        """The merged (and, for saturating ones, clipped) mutations validation passed."""
        return [p.mutation for p in self._planned or []]

    def __len__(self) -> int:
        return len(self._mutations)

    def merged(self) -> list[WorldMutation]:
        """The mutations after merging (see the module doc), as new objects."""
        out: list[WorldMutation] = []
        index: dict[tuple[str, UUID | None, str | None], int] = {}
        completes = {
            (m.target_entity, m.target_key)
            for m in self._mutations
            if m.mutation_type == "npc_goal_complete"
        }
        for m in self._mutations:
            goal = (m.target_entity, m.target_key)
            if m.mutation_type == "npc_goal_advance" and goal in completes:
                continue
            kind = self.kinds.get(m.mutation_type)
            strategy = kind.merge if kind is not None else "keep"
            key = m.merge_key
            if strategy == "keep":
                if any(_same(o, m) for o in out):
                    continue
                out.append(_copy(m))
                continue
            at = index.get(key)
            if at is None:
                index[key] = len(out)
                out.append(_copy(m))
                continue
            if strategy == "sum":
                out[at] = _sum(out[at], m)
            elif strategy == "last":
                out[at] = _copy(m)
            # "once": the first stays
        return out

    # -- validation -------------------------------------------------------------------
    def validate(self) -> Validation:
        """Merge, then check existence, bounds and each kind's rules. Never changes
        the world; records what ``apply`` will verify."""
        errors: list[str] = []
        planned: list[_Planned] = []
        expected: dict[UUID, int] = {}
        world = self.env.world
        for m in self.merged():
            kind = self.kinds.get(m.mutation_type)
            if kind is None:
                errors.append(f"unknown mutation type {m.mutation_type!r}")
                continue
            missing = [e for e in kind.entities(m) if not world.entity_exists(e)]
            if missing:
                errors.append(f"{m.mutation_type}: entity {missing[0]} does not exist")
                continue
            problem = kind.check(self.env, m)
            if problem:
                errors.append(f"{m.mutation_type}: {problem}")
                continue
            base = kind.read(self.env, m)
            problem = self._bounds(kind, m, base)
            if problem:
                errors.append(f"{m.mutation_type}: {problem}")
                continue
            for entity in kind.entities(m):
                expected[entity] = self.versions.version(entity)
            planned.append(_Planned(m, kind, base))
        self.validation = Validation(errors)
        self._planned = planned if not errors else None
        self._expected = expected if not errors else {}
        return self.validation

    def _bounds(self, kind: MutationKind, m: WorldMutation, base: float | None) -> str | None:
        if m.delta is None:
            return None
        if not math.isfinite(m.delta):
            return f"delta {m.delta} is not a number"
        if kind.bounds is None or base is None:
            return None
        low, high = kind.bounds
        width = high - low
        if math.isfinite(width) and abs(m.delta) > width + _EPS:
            return f"delta {m.delta:+.3f} is larger than the whole range [{low}, {high}]"
        projected = base + m.delta
        if low - _EPS <= projected <= high + _EPS:
            return None
        if m.saturate:
            clipped = min(high, max(low, projected))
            m.payload.setdefault("requested_delta", m.delta)
            m.delta = clipped - base
            return None
        return (
            f"{m.target_entity}/{m.target_key}: {base:.3f} {m.delta:+.3f} = "
            f"{projected:.3f} is outside [{low}, {high}]"
        )

    # -- application ------------------------------------------------------------------
    def apply(self) -> BatchResult:
        """Apply every planned mutation, or none. Validates first if needed.

        A refused validation applies nothing and returns ``failed`` with the errors.
        """
        if self._planned is None:
            validation = self.validation if self.validation is not None else self.validate()
            if self._planned is None:
                return BatchResult("failed", error="; ".join(validation.errors) or "invalid")
        planned = self._planned
        snapshots: dict[tuple[UUID, type[Component]], Component | None] = {}
        order: list[tuple[UUID, type[Component]]] = []
        undos: list[Callable[[], None]] = []
        events: list[Event] = []
        applied: list[WorldMutation] = []
        try:
            for p in planned:
                keys = p.kind.components(p.mutation)
                # A component this batch already changed has moved on by design;
                # only its version can reveal someone else.
                self._verify(p, check_value=not any(k in snapshots for k in keys))
                for key in keys:
                    if key not in snapshots:
                        snapshots[key] = _snapshot(self.env, *key)
                        order.append(key)
                done = p.kind.apply(self.env, p.mutation)
                if done is not None:
                    if done.undo is not None:
                        undos.append(done.undo)
                    events.extend(done.events)
                applied.append(p.mutation)
        except VersionConflict as exc:
            self._rollback(snapshots, order, undos)
            return BatchResult("conflict", error=str(exc))
        except Exception as exc:
            log.exception("a consequence mutation failed; rolling the batch back")
            self._rollback(snapshots, order, undos)
            return BatchResult("failed", error=f"{type(exc).__name__}: {exc}")
        touched = {e for p in planned for e in p.kind.entities(p.mutation)}
        touched |= {entity for entity, _ in order}
        for entity in touched:
            self.versions.bump(entity)
        if self.emit is not None:
            for event in events:
                self.emit(event)
        self._planned = None
        return BatchResult("applied", applied, touched=order)

    def _verify(self, p: _Planned, check_value: bool = True) -> None:
        for entity in p.kind.entities(p.mutation):
            if self.versions.version(entity) != self._expected.get(entity, 0):
                raise VersionConflict(f"{entity} changed (version) since validation")
            if not self.env.world.entity_exists(entity):
                raise VersionConflict(f"{entity} was destroyed since validation")
        if not check_value:
            return
        now = p.kind.read(self.env, p.mutation)
        if (now is None) != (p.base is None) or (
            now is not None and p.base is not None and abs(now - p.base) > _EPS
        ):
            raise VersionConflict(
                f"{p.mutation.mutation_type} of {p.mutation.target_entity}: value changed "
                f"from {p.base} to {now} since validation"
            )

    def _rollback(
        self,
        snapshots: dict[tuple[UUID, type[Component]], Component | None],
        order: list[tuple[UUID, type[Component]]],
        undos: list[Callable[[], None]],
    ) -> None:
        for undo in reversed(undos):
            try:
                undo()
            except Exception:
                log.exception("undoing a consequence mutation failed")
        for entity, ctype in reversed(order):
            try:
                _restore(self.env, entity, ctype, snapshots[(entity, ctype)])
            except Exception:
                log.exception("restoring %s of %s failed", ctype.__name__, entity)


def _copy(m: WorldMutation) -> WorldMutation:
    return dataclasses.replace(m, payload=copy.deepcopy(m.payload))


def _same(a: WorldMutation, b: WorldMutation) -> bool:
    return a.merge_key == b.merge_key and a.payload.get("content") == b.payload.get("content")


def _sum(a: WorldMutation, b: WorldMutation) -> WorldMutation:
    payload: dict[str, Any] = {**copy.deepcopy(b.payload), **a.payload}
    payload["merged"] = int(a.payload.get("merged", 1)) + 1
    description = "; ".join(d for d in (a.description, b.description) if d)
    return dataclasses.replace(
        a,
        delta=(a.delta or 0.0) + (b.delta or 0.0),
        payload=payload,
        description=description,
        saturate=a.saturate and b.saturate,
    )


def _snapshot(env: MutationEnv, entity: UUID, ctype: type[Component]) -> Component | None:
    component = env.world.try_component(entity, ctype)
    return None if component is None else _detached_copy(component)


def _detached_copy(component: Component) -> Component:
    owner = component.__dict__.get("_owner")
    object.__setattr__(component, "_owner", None)
    try:
        return copy.deepcopy(component)
    finally:
        object.__setattr__(component, "_owner", owner)


def _restore(
    env: MutationEnv, entity: UUID, ctype: type[Component], saved: Component | None
) -> None:
    world = env.world
    if not world.entity_exists(entity):
        return
    current = world.try_component(entity, ctype)
    if saved is None:
        if current is not None:
            world.remove_component(entity, ctype)
        return
    if current is None:
        world.add_component(entity, _detached_copy(saved))
        return
    # In place: systems and handlers may hold a reference to the component.
    fresh = _detached_copy(saved)
    for f in dataclasses.fields(current):  # type: ignore[arg-type]
        setattr(current, f.name, getattr(fresh, f.name))
    world.modified(entity, current)
