"""World mutations: one planned change of living-world state, and what a kind of
change must tell the batch.

A :class:`WorldMutation` is data (planned by the propagator, audited as JSON). What
a mutation *does* is its :class:`MutationKind`: which entities it touches, the
current value it changes (for bounds and for conflict detection), the components
to snapshot for rollback, and how to apply it. The built-in kinds, one per
consequence type, are in :mod:`maid_stdlib.consequences.kinds`.
"""

from __future__ import annotations

import abc
import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar
from uuid import UUID

from maid_engine.ecs import Component, World
from maid_engine.events import Event
from maid_stdlib.living.service import LivingWorld
from maid_stdlib.world.components import data_uuid

__all__ = [
    "WORLD_FLAGS_ID",
    "Applied",
    "MutationEnv",
    "MutationKind",
    "WorldFlags",
    "WorldMutation",
    "statement_id",
    "world_flag",
]

#: The one entity holding world-state flags set by consequences.
WORLD_FLAGS_ID = data_uuid("consequences", "state", "world_flags")


@dataclass
class WorldFlags(Component):
    """World-state flags ("threat:bandits:ironvale:old_trade_road" -> "cleared")."""

    component_name = "WorldFlags"
    flags: dict[str, str] = field(default_factory=dict)


def world_flag(world: World, key: str) -> str | None:
    flags = world.try_component(WORLD_FLAGS_ID, WorldFlags)
    return None if flags is None else flags.flags.get(key)


@dataclass
class WorldMutation:
    """A single planned world-state change.

    ``saturate``: a bounded value that would leave its bounds stops at the bound
    instead of invalidating the batch (reputation that is already 0.95 still
    "goes up" on a PERFECT turn-in). Strict mutations (the default) are refused.
    """

    mutation_type: str
    target_entity: UUID | None
    target_key: str | None
    delta: float | None
    payload: dict[str, Any] = field(default_factory=dict)
    description: str = ""
    saturate: bool = False

    @property
    def merge_key(self) -> tuple[str, UUID | None, str | None]:
        return (self.mutation_type, self.target_entity, self.target_key)

    def document(self) -> dict[str, Any]:
        """JSON-ready form for the audit collection."""
        return {
            "mutation_type": self.mutation_type,
            "target_entity": str(self.target_entity) if self.target_entity else None,
            "target_key": self.target_key,
            "delta": self.delta,
            "payload": _jsonable(self.payload),
            "description": self.description,
            "saturate": self.saturate,
        }


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set):
        return [_jsonable(v) for v in value]
    if isinstance(value, UUID):
        return str(value)
    return value


@dataclass
class MutationEnv:
    """What applying a mutation may use. ``now`` is game time."""

    world: World
    now: float
    living: LivingWorld | None = None


@dataclass
class Applied:
    """Result of applying one mutation: how to undo what snapshots cannot
    (a memory in the memory service), and events to emit once the batch commits."""

    undo: Callable[[], None] | None = None
    events: list[Event] = field(default_factory=list)


class MutationKind(abc.ABC):
    """How one ``mutation_type`` is validated, snapshotted and applied.

    ``merge``: how several mutations with the same (type, entity, key) combine in a
    batch: "sum" (deltas add up), "last" (the last added wins), "once" (duplicates
    collapse), "keep" (all kept; exact duplicates collapse).
    """

    name: ClassVar[str] = ""
    bounds: ClassVar[tuple[float, float] | None] = None
    merge: ClassVar[str] = "sum"

    def entities(self, m: WorldMutation) -> list[UUID]:
        """Entities that must exist, and whose versions guard the mutation."""
        return [m.target_entity] if m.target_entity is not None else []

    def read(self, env: MutationEnv, m: WorldMutation) -> float | None:
        """The value the delta applies to (None: not a scalar change)."""
        return None

    def check(self, env: MutationEnv, m: WorldMutation) -> str | None:
        """Why the mutation cannot apply to the world as it is (None: it can)."""
        return None

    def components(self, m: WorldMutation) -> list[tuple[UUID, type[Component]]]:
        """Components ``apply`` may change (snapshotted before, restored on rollback)."""
        return []

    @abc.abstractmethod
    def apply(self, env: MutationEnv, m: WorldMutation) -> Applied | None:
        """Change the world; what changed (None: nothing to do)."""


def statement_id(quest_id: str, content: str) -> str:
    """Stable gossip statement id: the same news of the same quest is one statement."""
    digest = hashlib.sha1(content.encode("utf-8")).hexdigest()[:10]
    return f"quest:{quest_id}:{digest}"
