"""What the narrative layer gets from the QuestBuilder, and what it gives back.

:class:`NarrativeContext` holds only real names and places, resolved from the
world by the builder (never entity ids, never private memories). A
:class:`NarrativeProvider` turns it into a :class:`QuestNarrative`; the LLM one is
``maid_stdlib.questgen.narrative.QuestNarrativeGenerator``, which falls back to
templates on any failure and so never raises.

The narrative is generated once per quest, before any character is matched, so
nothing here is about a particular player: reputation-dependent
wording belongs to personalization and delivery.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

__all__ = ["NarrativeContext", "NarrativeProvider", "QuestDialogue", "QuestNarrative"]

NarrativeSource = Literal["llm", "template"]


@dataclass(frozen=True)
class NarrativeContext:
    """The grounded facts a quest's prose may use, as plain text.

    ``public_memories`` are the giver's PUBLIC memories only (the builder asks the
    memory service with ``visibility_filter=MemoryVisibility.PUBLIC``).
    ``objectives`` are the objectives' descriptions in order ("Travel to Old Trade
    Road, Crow's Ridge"); ``locations`` the names of the rooms involved, the
    quest's centre first; ``involved_npcs`` names of the other NPCs.
    """

    archetype_id: str
    giver_name: str
    motivation: str = ""
    backstory: str = ""
    stakes: str = ""
    objectives: tuple[str, ...] = ()
    locations: tuple[str, ...] = ()
    involved_npcs: tuple[str, ...] = ()
    public_memories: tuple[str, ...] = ()
    tone: tuple[str, ...] = ()
    narrative_arc: str = ""
    # Added by the questgen side; all optional so providers may ignore them.
    seed_type: str = ""
    tension: str = ""
    mood: str = "neutral"
    #: What threatens ("bandits"), for threat quests.
    threat: str = ""
    #: What an investigation is about.
    subject: str = ""
    #: The giver's short description line ("Gundrik the blacksmith ...").
    giver_description: str = ""
    #: Name of the area the quest is centred in ("Old Trade Road").
    area_name: str = ""
    #: Titles used lately (the giver's last few, and every quest's of the last game
    #: day), so the prose can avoid repeating one.
    recent_titles: tuple[str, ...] = ()


@dataclass(frozen=True)
class QuestDialogue:
    """What the giver says when offering, mid-quest, and at turn-in."""

    offer: str
    progress: str
    completion: str


@dataclass(frozen=True)
class QuestNarrative:
    """A quest's prose. ``fallback_reason`` says why templates were used (None
    when the model wrote it); ``tokens_used`` is the model's reported usage,
    including calls whose answer was discarded."""

    title: str
    summary: str
    description: str
    dialogue: QuestDialogue
    source: NarrativeSource = "template"
    tokens_used: int = 0
    fallback_reason: str | None = None


@runtime_checkable
class NarrativeProvider(Protocol):
    async def generate(self, ctx: NarrativeContext) -> QuestNarrative: ...
