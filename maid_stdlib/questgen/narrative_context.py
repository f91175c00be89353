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

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol, runtime_checkable

if TYPE_CHECKING:
    from maid_stdlib.text.realiser import Phrase

__all__ = [
    "NarrativeContext",
    "NarrativeProvider",
    "QuestDialogue",
    "QuestNarrative",
    "StoryFact",
    "TracedSentence",
]

NarrativeSource = Literal["llm", "template"]


@dataclass(frozen=True)
class StoryFact:
    """One thing the world holds that a quest's prose may say: ``key`` names it in
    traces ("goal", "memory:1", "objective:2"), ``kind`` is its sort (npc, place,
    goal, need, memory, relationship, threat, event, objective, item, subject),
    ``text`` says it plainly, ``names`` are the named entities in it."""

    key: str
    kind: str
    text: str
    names: tuple[str, ...] = ()

    def __str__(self) -> str:
        return f"{self.key}: {self.text}"


@dataclass(frozen=True)
class TracedSentence:
    """A sentence of a quest's text (``field``: title, summary, description, offer,
    progress, completion) and the keys of the facts it used (``flavour`` for a
    reviewed line that states nothing about the world)."""

    field: str
    text: str
    facts: tuple[str, ...]


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
    #: The typed facts (the builder collects them from the world), and the slot
    #: values the realiser renders, each pointing at its facts. Empty for a
    #: context made of the text fields only: the realiser then derives values
    #: from them.
    facts: tuple[StoryFact, ...] = ()
    #: Titles a new quest should not repeat: the last game day's, world-wide, and
    #: the giver's recent quests'.
    recent_titles: tuple[str, ...] = ()
    phrases: Mapping[str, Phrase] = field(default_factory=dict, compare=False)


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
    #: Per sentence, the facts it used (the realiser's); for model prose, the
    #: names it mentioned that the facts hold none of (see ``unmatched``).
    trace: tuple[TracedSentence, ...] = ()
    #: Named mentions in model prose, and those no fact backs.
    mentions: int = 0
    unmatched: tuple[str, ...] = ()


@runtime_checkable
class NarrativeProvider(Protocol):
    async def generate(self, ctx: NarrativeContext) -> QuestNarrative: ...
