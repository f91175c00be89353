"""NPC dialogue: the ``dialogue:`` data section, ``talk``/``ask``, and TalkService.

    dialogue:
      greeting: "Iron! I need iron, and those bandits..."
      topics:
        bandits road: "They camp on the Old Trade Road, east of the gate."
        iron ore: "Good ore comes from the hills. Came, rather."

``talk <npc>`` emits TalkedToEvent, then runs the TalkService handlers in order;
the first that returns True has handled the conversation (e.g. the QuestManager
offering or turning in a quest) and the greeting is not shown.
``ask <npc> about <topic>`` (or ``talk <npc> about <topic>``) does the same with
the topic handlers, then answers from the NPC's topics.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, field_validator

from classic_rpg.characters.components import Dialogue
from classic_rpg.combat.components import CombatRules
from classic_rpg.events import TalkedToEvent
from maid_engine.accounts.components import PlayerCharacter
from maid_engine.commands import Command, CommandContext, CommandError, command
from maid_stdlib.living import LivingWorld
from maid_stdlib.world.components import NPC
from maid_stdlib.world.extensions import ExtensionContext
from maid_stdlib.world.loader import WorldData
from maid_stdlib.world.look import name_of
from maid_stdlib.world.movement import here
from maid_stdlib.world.text import capitalize

log = logging.getLogger("maid.rpg.dialogue")

#: ``handler(ctx, npc_id)``; True (or an awaitable of True) = conversation handled.
TalkHandler = Callable[[CommandContext, UUID], bool | Awaitable[bool]]
#: ``handler(ctx, npc_id, topic)``; True = the question was answered.
TopicHandler = Callable[[CommandContext, UUID, str], bool | Awaitable[bool]]


class DialogueData(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    greeting: str = Field(min_length=1)
    topics: dict[str, str] = Field(default_factory=dict)

    @field_validator("topics")
    @classmethod
    def _topics(cls, value: dict[str, str]) -> dict[str, str]:
        out = {}
        for key, text in value.items():
            words = " ".join(key.lower().split())
            if not words or not text.strip():
                raise ValueError(f"topic {key!r} needs keywords and an answer")
            out[words] = text.strip()
        return out


def apply_dialogue(ctx: ExtensionContext, value: DialogueData) -> None:
    ctx.world.add_component(
        ctx.entity_id, Dialogue(greeting=value.greeting.strip(), topics=dict(value.topics))
    )


def register_dialogue_data(data: WorldData, owner: str) -> None:
    data.register_extension("npc", "dialogue", DialogueData, apply_dialogue, owner=owner)


async def _call(handler: Callable[..., bool | Awaitable[bool]], *args: object) -> bool:
    result = handler(*args)
    if inspect.isawaitable(result):
        result = await result
    return bool(result)


class TalkService:
    """Service: the extension point of ``talk`` and ``ask``."""

    def __init__(self) -> None:
        self.handlers: list[TalkHandler] = []
        self.topic_handlers: list[TopicHandler] = []

    def add_handler(self, handler: TalkHandler, first: bool = False) -> None:
        """Called on ``talk <npc>`` before the greeting (``first``: before the others)."""
        if first:
            self.handlers.insert(0, handler)
        else:
            self.handlers.append(handler)

    def remove_handler(self, handler: TalkHandler) -> bool:
        if handler in self.handlers:
            self.handlers.remove(handler)
            return True
        return False

    def add_topic_handler(self, handler: TopicHandler) -> None:
        """Called on ``ask <npc> about <topic>`` before the NPC's own topics."""
        self.topic_handlers.append(handler)

    async def run(self, ctx: CommandContext, npc: UUID) -> bool:
        for handler in list(self.handlers):
            try:
                if await _call(handler, ctx, npc):
                    return True
            except CommandError:
                raise
            except Exception:
                log.exception("talk handler %r failed", handler)
        return False

    async def run_topic(self, ctx: CommandContext, npc: UUID, topic: str) -> bool:
        for handler in list(self.topic_handlers):
            try:
                if await _call(handler, ctx, npc, topic):
                    return True
            except CommandError:
                raise
            except Exception:
                log.exception("topic handler %r failed", handler)
        return False


def find_topic(dialogue: Dialogue, topic: str) -> str | None:
    words = topic.lower().split()
    if not words:
        return None
    for keys, text in dialogue.topics.items():
        options = keys.split()
        if all(any(o.startswith(w) for o in options) for w in words):
            return text
    return None


def topic_hint(dialogue: Dialogue) -> str:
    if not dialogue.topics:
        return ""
    names = ", ".join(k.split()[0] for k in dialogue.topics)
    return f"\n(You could ask about: {names}.)"


def _find_npc(ctx: CommandContext, wanted: str) -> tuple[UUID, str]:
    ws, actor, room = here(ctx)
    target = ws.find_in_room(room, wanted, kinds=(NPC, PlayerCharacter), viewer=actor)
    if target is None:
        raise CommandError(f"You do not see '{wanted}' here.")
    if ctx.world.has_component(target, PlayerCharacter):
        raise CommandError("Use 'say' or 'tell' to talk to other players.")
    return target, room


async def converse(ctx: CommandContext, who: str, topic: str | None) -> None:
    ws, actor, _ = here(ctx)
    npc, room = _find_npc(ctx, who)
    talk: TalkService = ctx.service(TalkService)
    ctx.engine.events.emit(TalkedToEvent(actor, npc, room, topic=topic or ""))
    # The living world remembers the conversation and hands back what the NPC has
    # heard lately (gossip, including news of finished quests).
    living = ctx.engine.services.try_get(LivingWorld)
    gossip = living.note_conversation(npc, actor) if living is not None else []
    name = capitalize(name_of(ws, npc))
    dialogue = ctx.world.try_component(npc, Dialogue)
    if topic is None:
        ws.message_room(
            room, f"{capitalize(name_of(ws, actor))} talks to {name_of(ws, npc)}.", exclude=(actor,)
        )
        if await talk.run(ctx, npc):
            return
        if dialogue is None or not dialogue.greeting:
            rules = ctx.world.try_component(npc, CombatRules)
            hostile = rules is not None and rules.hostile
            ctx.send(f"{name} {'snarls at you.' if hostile else 'has nothing to say to you.'}")
            return
        ctx.send(f'{name} says, "{dialogue.greeting}"{topic_hint(dialogue)}')
        for line in gossip:
            ctx.send(line)
        return
    if await talk.run_topic(ctx, npc, topic):
        return
    answer = find_topic(dialogue, topic) if dialogue is not None else None
    if answer is None:
        ctx.send(f"{name} does not know anything about '{topic}'.")
        return
    ctx.send(f'{name} says, "{answer}"')


def _split_about(args: str) -> tuple[str, str | None]:
    text = " ".join(args.split())
    who, sep, topic = text.partition(" about ")
    if sep:
        return who.strip(), topic.strip() or None
    return text, None


@command("talk", category="communication")
def talk(ctx: CommandContext) -> Awaitable[None]:
    """Talk to someone who is not a player (they may have work for you).

    Usage:
      talk <npc>                  e.g. "talk gundrik"
      talk <npc> about <topic>    the same as "ask <npc> about <topic>"
    """
    who, topic = _split_about(ctx.args)
    if not who:
        raise CommandError("Talk to whom?")
    return converse(ctx, who, topic)


@command("ask", category="communication")
def ask(ctx: CommandContext) -> Awaitable[None]:
    """Ask someone about a topic.

    Usage: ask <npc> about <topic>     e.g. "ask voss about bandits"
    """
    who, topic = _split_about(ctx.args)
    if topic is None:
        # "ask voss bandits": the first word is who, the rest the topic.
        who, _, rest = who.partition(" ")
        topic = rest.strip() or None
    if not who or topic is None:
        raise CommandError("Usage: ask <npc> about <topic>")
    return converse(ctx, who, topic)


COMMANDS: list[Command] = [talk, ask]
