"""The shape of a story signal as the quest pipeline reads it.

The story layer (``maid_stdlib.story``, Doc 07-lite) owns ``StorySignal``; the
pipeline only reads a few attributes, so it accepts anything shaped like
:class:`StorySignalLike` and never imports the story layer's class. That keeps
the two layers free to evolve and lets tests and packs feed signals directly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable
from uuid import UUID

__all__ = [
    "BasicSignal",
    "StoredSignal",
    "StorySignalLike",
    "chain_depth_of",
    "signal_key",
    "signal_type_of",
]


@runtime_checkable
class StorySignalLike(Protocol):
    """What the pipeline reads of a signal. ``signal_type`` may be a str enum."""

    @property
    def signal_type(self) -> Any: ...

    @property
    def importance(self) -> float: ...

    @property
    def involved_npcs(self) -> Sequence[UUID]: ...

    @property
    def context(self) -> Mapping[str, Any]: ...


@dataclass
class BasicSignal:
    """A plain signal (tests, packs without the story layer, synthetic seeds)."""

    signal_type: str
    importance: float
    involved_npcs: list[UUID] = field(default_factory=list)
    context: dict[str, Any] = field(default_factory=dict)
    chain_depth: int = 0


@dataclass
class StoredSignal:
    """A signal read back from the store with a seed that waited across a restart.

    It keeps what the stages read of the original (type, importance, people,
    context, chain depth) and what identifies it: its ``id`` (supersession of
    seeds built from the same signals) and ``situation_key`` (a seed whose every
    situation has been resolved is dropped as stale).
    """

    signal_type: str
    importance: float
    involved_npcs: list[UUID] = field(default_factory=list)
    context: dict[str, Any] = field(default_factory=dict)
    chain_depth: int = 0
    situation_key: str = ""
    id: UUID | None = None


def signal_type_of(signal: StorySignalLike) -> str:
    """The signal type as a plain upper-case string ("THREAT_DETECTED")."""
    raw = signal.signal_type
    value = getattr(raw, "value", raw)
    return str(value).upper()


def signal_key(signal: StorySignalLike) -> object:
    """What identifies a signal: its ``id`` when it has one, else the object."""
    return getattr(signal, "id", None) or id(signal)


def chain_depth_of(signal: StorySignalLike) -> int:
    """Depth in an emergent chain: the larger of the signal's attribute and the
    ``chain_depth`` context key the consequence layer sets, so neither
    source can hide a deep chain from the circuit breaker."""
    depths = [getattr(signal, "chain_depth", 0), signal.context.get("chain_depth", 0)]
    out = 0
    for depth in depths:
        try:
            out = max(out, int(depth or 0))
        except (TypeError, ValueError):
            continue
    return out
