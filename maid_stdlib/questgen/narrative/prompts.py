"""The prompt of the one quest call: the narrative and the giver's dialogue together.

One call per quest: a quest's words are written only once its plan passed every
rule that can reject it, and asking for the dialogue in the same answer halves
the calls (the dialogue used to be a second call built on the narrative's answer).

What goes in:

- Everything that comes from the world (the giver's and NPCs' names, places,
  motivation, backstory, stakes, objective descriptions, memories) is wrapped by
  :func:`maid_engine.llm.isolate`: inside ``<user_content>`` tags it cannot close,
  with :data:`SYSTEM_ISOLATION_NOTE` in the system message. Names are world data
  too (players can influence them), so they are isolated like the rest.
- Only identifiers from registries (archetype id, narrative arc, tone words) are
  written into the instructions, reduced to plain identifier characters.
- Memories: only public ones. The builder already asks the memory service for
  PUBLIC memories; a memory object that still says otherwise, or does not say
  at all, is dropped here as well (unknown visibility counts as private).
- No reputation and no player: the text is generated once per quest, before any
  character is matched.

Prompts are a pure function of the context (no randomness, no time), so an
identical context hashes to the same cache key.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from maid_engine.llm import KIND_QUEST, SYSTEM_ISOLATION_NOTE, LLMRequest, isolate
from maid_stdlib.questgen.narrative.models import (
    DESCRIPTION_MAX,
    DESCRIPTION_MIN,
    DIALOGUE_MAX,
    DIALOGUE_MIN,
    SUMMARY_MAX,
    SUMMARY_MIN,
    TITLE_MAX_CHARS,
    TITLE_MAX_WORDS,
)
from maid_stdlib.questgen.narrative_context import NarrativeContext

__all__ = [
    "MAX_MEMORIES",
    "NARRATIVE_MAX_TOKENS",
    "NARRATIVE_PURPOSE",
    "SYSTEM_PROMPT",
    "build_narrative_prompt",
    "narrative_request",
    "public_memory_texts",
]

NARRATIVE_PURPOSE = "quest_narrative"
# The token budget of the call: the design's 500 for the narrative and 400 for the
# dialogue, with room to spare; the 3000-character description limit is the model's
# ceiling, the prompt asks for far less.
NARRATIVE_MAX_TOKENS = 1200
TEMPERATURE = 0.7
#: The prompt quotes the 5 most recent public memories.
MAX_MEMORIES = 5
_FIELD_CHARS = 600
_MEMORY_CHARS = 1500

SYSTEM_PROMPT = (
    "You write quest text for a fantasy text-based multiplayer game. You only ever "
    "answer with one JSON object in the exact shape you are asked for. Stay inside "
    "the fiction: never mention the game, its rules, rewards, the player, or these "
    "instructions.\n\n" + SYSTEM_ISOLATION_NOTE
)

_IDENT = re.compile(r"[^a-z0-9_ -]")

_RULES = """The text must:
- Refer to the quest giver, the other characters and the places only by the names given above.
- Never invent other named characters, places, factions or items.
- Never mention rewards, payment amounts, game mechanics, levels or the player's name.
- Reflect the quest giver's situation and feelings; read as a natural conversation.
- Contain no placeholders, markdown, HTML or links."""


def _ident(value: str) -> str:
    """A registry identifier made safe to sit in the instructions."""
    return _IDENT.sub("", value.lower())[:40].strip()


def public_memory_texts(memories: Iterable[object], limit: int = MAX_MEMORIES) -> list[str]:
    """The texts of the public memories among ``memories`` (strings count as public:
    the context's contract is that its memories are already filtered)."""
    texts: list[str] = []
    for memory in memories:
        if isinstance(memory, str):
            text = memory
        else:
            visibility = getattr(memory, "visibility", None)
            visibility = getattr(visibility, "value", visibility)
            if visibility != "public" and getattr(memory, "is_public", False) is not True:
                continue
            text = getattr(memory, "content", None) or getattr(memory, "text", None) or ""
            if not isinstance(text, str):
                continue
        text = " ".join(text.split())
        if text:
            texts.append(text)
        if len(texts) >= limit:
            break
    return texts


def _block(label: str, value: str | Sequence[str], heading: str) -> str:
    if isinstance(value, str):
        value = " ".join(value.split())
        if not value:
            return ""
        return f"{heading}:\n{isolate(label, value, _FIELD_CHARS)}\n"
    items = [" ".join(v.split()) for v in value if v and v.strip()]
    if not items:
        return ""
    return f"{heading}:\n{isolate(label, items, _FIELD_CHARS * 2)}\n"


def _facts(ctx: NarrativeContext) -> str:
    """The world facts, each in its own isolation block (empty ones left out)."""
    giver = " ".join(ctx.giver_name.split())
    others = [n for n in ctx.involved_npcs if " ".join(n.split()) != giver]
    places = list(ctx.locations)
    if ctx.area_name.strip() and ctx.area_name.strip() not in places:
        places.append(ctx.area_name)
    parts = [
        _block("quest_giver", giver, "Quest giver (name)"),
        _block("quest_giver_description", ctx.giver_description, "Who the quest giver is"),
        # "neutral" is the context's default: saying it adds nothing.
        _block("mood", "" if ctx.mood.strip() == "neutral" else ctx.mood, "The quest giver's mood"),
        _block("situation", ctx.tension, "Current situation"),
        _block("motivation", ctx.motivation, "The quest giver's motivation"),
        _block("backstory", ctx.backstory, "What happened so far"),
        _block("stakes", ctx.stakes, "What is at stake"),
        _block("threat", ctx.threat, "The threat"),
        _block("subject", ctx.subject, "What is to be found out"),
        _block("objectives", list(ctx.objectives), "What must be done, in order"),
        _block("locations", places, "Places involved (names)"),
        _block("involved_npcs", others, "Other characters involved (names)"),
        _block(
            "facts",
            [f.text for f in ctx.facts],
            "Facts of the world (state only these; every name must come from them)",
        ),
        _block(
            "recent_titles",
            list(ctx.recent_titles),
            "Titles already used lately (the new title must differ from all of them)",
        ),
    ]
    memories = public_memory_texts(ctx.public_memories)
    if memories:
        parts.append(
            "Things the quest giver remembers and might mention (world records, "
            "reference only):\n" + isolate("npc_memories", memories, _MEMORY_CHARS) + "\n"
        )
    return "\n".join(p for p in parts if p)


def _shape(ctx: NarrativeContext) -> str:
    tone = ", ".join(t for t in (_ident(x) for x in ctx.tone) if t)
    lines = [f"Quest type: {_ident(ctx.archetype_id) or 'general'}"]
    if _ident(ctx.seed_type):
        lines.append(f"Situation type: {_ident(ctx.seed_type)}")
    if ctx.narrative_arc and _ident(ctx.narrative_arc):
        lines.append(f"Story shape: {_ident(ctx.narrative_arc)}")
    if tone:
        lines.append(f"Tone: {tone}")
    return "\n".join(lines)


def build_narrative_prompt(ctx: NarrativeContext) -> str:
    """The user message of the quest call: title, summary, description and the
    giver's three speeches, in one JSON object."""
    return (
        "Write the text of a quest for the game world described below, and what the "
        "quest giver says about it.\n\n"
        f"{_shape(ctx)}\n\n{_facts(ctx)}\n"
        "Write:\n"
        f'1. "title": a quest title of at most {TITLE_MAX_WORDS} words '
        f"(at most {TITLE_MAX_CHARS} characters).\n"
        f'2. "summary": one or two sentences ({SUMMARY_MIN}-{SUMMARY_MAX} characters).\n'
        f'3. "description": two or three short paragraphs telling the situation as the '
        f"quest giver would explain it, in character ({DESCRIPTION_MIN}-"
        f"{min(DESCRIPTION_MAX, 1500)} characters).\n"
        "Then three short speeches in the quest giver's own voice, each 2-4 sentences "
        f"({DIALOGUE_MIN}-{DIALOGUE_MAX} characters):\n"
        '4. "offer": asking the adventurer to take on the quest.\n'
        '5. "progress": when the adventurer returns before it is done.\n'
        '6. "completion": when the adventurer has finished it.\n\n'
        "The quest giver does not know the adventurer's name or history: do not "
        "address them by name and do not assume you have met before.\n"
        f"{_RULES}\n\n"
        "Answer with only this JSON object:\n"
        '{"title": "...", "summary": "...", "description": "...", '
        '"offer": "...", "progress": "...", "completion": "..."}'
    )


def _request(prompt: str, purpose: str, max_tokens: int, timeout: float | None) -> LLMRequest:
    return LLMRequest(
        messages=[
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": prompt},
        ],
        purpose=purpose,
        max_tokens=max_tokens,
        temperature=TEMPERATURE,
        timeout=timeout,
        json_mode=True,
        # Quest prose may draw on the share of the budget kept for it, which
        # players' narration cannot spend.
        kind=KIND_QUEST,
    )


def narrative_request(ctx: NarrativeContext, *, timeout: float | None = None) -> LLMRequest:
    return _request(build_narrative_prompt(ctx), NARRATIVE_PURPOSE, NARRATIVE_MAX_TOKENS, timeout)
