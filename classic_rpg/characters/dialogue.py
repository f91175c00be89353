"""NPC dialogue: the ``dialogue:`` data section, ``talk``/``ask``, and TalkService.

    dialogue:
      greeting: "Iron! I need iron, and those bandits..."
      topics:
        bandits road: "They camp on the Old Trade Road, east of the gate."
        iron ore: "Good ore comes from the hills. Came, rather."

A greeting or an answer may instead be a list of lines, each valid only while
its living-world conditions hold for the NPC (``when``, the vocabulary of
living data: ``threat_known``, ``supply_clear``, ``at:tavern``, ``doing:drinking``
...); the first that holds is said, so a line written for the crisis is not said
once the road is clear::

      greeting:
        - {when: [threat_known], text: "Nobody wants to do anything about them."}
        - {text: "The road is quiet. Long may it last."}

``talk <npc>`` emits TalkedToEvent, then runs the TalkService handlers in order;
the first that returns True has handled the conversation (e.g. the QuestManager
offering or turning in a quest) and the greeting is not shown.
``ask <npc> about <topic>`` (or ``talk <npc> about <topic>``) does the same with
the topic handlers, then answers from the NPC's topics.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable, Iterable
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, field_validator

from classic_rpg.characters.components import Dialogue, DialogueLine
from classic_rpg.combat.components import CombatRules
from classic_rpg.events import TalkedToEvent
from maid_engine.accounts.components import PlayerCharacter
from maid_engine.commands import Command, CommandContext, CommandError, command
from maid_engine.content import PackError
from maid_stdlib.living import LivingWorld, Tie
from maid_stdlib.living.data import condition_room, qualify_condition
from maid_stdlib.questgen.text import topic_tokens
from maid_stdlib.text.morph import possessive
from maid_stdlib.world.components import NPC
from maid_stdlib.world.extensions import CheckScope, ExtensionContext
from maid_stdlib.world.loader import WorldData
from maid_stdlib.world.look import find_detail, name_of
from maid_stdlib.world.movement import here
from maid_stdlib.world.text import capitalize, speaker

log = logging.getLogger("maid.rpg.dialogue")

#: Words of "ask <npc> about <topic>" that mean any work the NPC has (stemmed as
#: ``topic_tokens`` stems them).
ASKING_FOR_WORK = topic_tokens("work job quest help task errand offer")
#: Words asking for whatever someone has heard lately ("ask greta about news").
ASKING_FOR_NEWS = topic_tokens("news rumours rumors gossip tidings")

#: ``handler(ctx, npc_id)``; True (or an awaitable of True) = conversation handled.
TalkHandler = Callable[[CommandContext, UUID], bool | Awaitable[bool]]
#: ``handler(ctx, npc_id, topic)``; True = the question was answered.
TopicHandler = Callable[[CommandContext, UUID, str], bool | Awaitable[bool]]
#: ``afterword(ctx, npc_id)``: lines said after a greeting (see ``TalkService``).
Afterword = Callable[[CommandContext, UUID], list[str]]


class LineData(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    text: str = Field(min_length=1)
    when: list[str] = Field(default_factory=list)


Said = str | list[LineData]


def _said(value: Said, what: str) -> Said:
    if isinstance(value, str):
        if not value.strip():
            raise ValueError(f"{what} needs text")
        return value.strip()
    if not value:
        raise ValueError(f"{what} needs at least one line")
    return value


class DialogueData(BaseModel):
    """The ``dialogue:`` section of an NPC entry (classic_rpg): what ``talk`` and ``ask`` answer.

    Each answer is text, or a list of lines with ``when:`` living conditions (the
    first that holds is said): ``greeting: [{when: [supply_clear], text: ...}, {text: ...}]``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)
    greeting: Said
    """What it says to ``talk <npc>``."""
    topics: dict[str, Said] = Field(default_factory=dict)
    """Topic -> answer, for ``ask <npc> about <topic>``."""

    @field_validator("greeting")
    @classmethod
    def _greeting(cls, value: Said) -> Said:
        return _said(value, "the greeting")

    @field_validator("topics")
    @classmethod
    def _topics(cls, value: dict[str, Said]) -> dict[str, Said]:
        out = {}
        for key, text in value.items():
            words = " ".join(key.lower().split())
            if not words:
                raise ValueError(f"topic {key!r} needs keywords and an answer")
            out[words] = _said(text, f"topic {key!r}")
        return out


def _lines(ctx: ExtensionContext, topic: str, value: Said) -> tuple[str, list[DialogueLine]]:
    """(the unconditional text, every line) of one greeting or topic."""
    if isinstance(value, str):
        return value, []
    living = ctx.engine.services.try_get(LivingWorld)
    out = []
    for line in value:
        when = [qualify_condition(ctx.entry.pack, c) for c in line.when]
        for spec in when:
            if living is None or spec not in living.conditions:
                known = ", ".join(living.conditions.names()) if living is not None else "none"
                raise PackError(
                    ctx.entry.pack,
                    f"{ctx.entry.file}: npc {ctx.entry.key!r}: dialogue: unknown condition "
                    f"{spec!r} (known: {known})",
                )
        out.append(DialogueLine(topic, " ".join(line.text.split()), when))
    plain_text = next((line.text for line in out if not line.when), "")
    return plain_text, out


def apply_dialogue(ctx: ExtensionContext, value: DialogueData) -> None:
    greeting, lines = _lines(ctx, "", value.greeting)
    topics = {}
    for key, said in value.topics.items():
        topics[key], more = _lines(ctx, key, said)
        lines.extend(more)
    ctx.world.add_component(ctx.entity_id, Dialogue(greeting=greeting, topics=topics, lines=lines))


def line_for(dialogue: Dialogue, topic: str, holds: Callable[[list[str]], bool]) -> str:
    """What the NPC says for ``topic`` ("" the greeting) now: the first line whose
    conditions hold, else the unconditional one ("" if none fits)."""
    for line in dialogue.lines:
        if line.topic == topic and holds(line.when):
            return line.text
    if topic == "":
        return dialogue.greeting
    return dialogue.topics.get(topic, "")


def own_line_about(dialogue: Dialogue, wanted: set[str], holds: Callable[[list[str]], bool]) -> str:
    """The first line the NPC would say now (its greeting, then its topics'
    answers) whose words take in ``wanted`` (``topic_tokens`` of the question);
    else the line it would say now in the place of one whose other version does
    (asked about "the deep seam" its crisis greeting spoke of, it says what it
    says of the seam now); "" if none does."""
    if not wanted:
        return ""
    slots = ("", *dialogue.topics)
    for topic in slots:
        line = line_for(dialogue, topic, holds)
        if line and wanted <= topic_tokens(line):
            return line
    for topic in slots:
        line = line_for(dialogue, topic, holds)
        if line and wanted <= _words_of_every_version(dialogue, topic):
            return line
    return ""


def _words_of_every_version(dialogue: Dialogue, topic: str) -> set[str]:
    unconditional = dialogue.greeting if topic == "" else dialogue.topics.get(topic, "")
    texts = [line.text for line in dialogue.lines if line.topic == topic]
    return topic_tokens(unconditional, *texts)


def check_dialogue(value: DialogueData, scope: CheckScope) -> Iterable[str]:
    """A condition naming a room ("at:tavern", "not:threat_in:herb_glade") names one
    the pack may use: a mistyped room would make the line never, or always, said."""
    said = [("greeting", value.greeting), *((f"topic {k!r}", v) for k, v in value.topics.items())]
    for where, answer in said:
        if isinstance(answer, str):
            continue
        for line in answer:
            for cond in line.when:
                room = condition_room(cond)
                if room is not None and not scope.room_exists(room):
                    yield f"{where}: unknown room {scope.qualify(room)!r} in {cond!r}"


def register_dialogue_data(data: WorldData, owner: str) -> None:
    data.register_extension(
        "npc", "dialogue", DialogueData, apply_dialogue, check=check_dialogue, owner=owner
    )


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
        self.afterwords: list[Afterword] = []

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

    def add_afterword(self, afterword: Afterword) -> None:
        """Called after the greeting of a ``talk <npc>`` no handler took (and on
        ``ask <npc> about work`` that finds none): lines said after it (work the
        NPC keeps for a more seasoned character)."""
        self.afterwords.append(afterword)

    def after_greeting(self, ctx: CommandContext, npc: UUID) -> list[str]:
        lines: list[str] = []
        for afterword in self.afterwords:
            try:
                lines.extend(afterword(ctx, npc))
            except Exception:
                log.exception("talk afterword %r failed", afterword)
        return lines

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


#: Words a question may put before its subject ("ask hilde about the crawlers").
_ARTICLES = frozenset({"a", "an", "the", "some"})


def find_topic(dialogue: Dialogue, topic: str) -> str | None:
    """The topic key ``topic`` names ("road" -> "bandits road", "the road" too), if
    any."""
    words = [w for w in topic.lower().split() if w not in _ARTICLES]
    if not words:
        return None
    for keys in dialogue.topics:
        options = keys.split()
        if all(any(o.startswith(w) for o in options) for w in words):
            return keys
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
        thing = ws.find_in_room(room, wanted, viewer=actor)
        if thing is not None:
            # There, but a thing (a notice board): saying "not here" would deny it.
            raise CommandError(f"{capitalize(name_of(ws, thing))} is not someone you can talk to.")
        if find_detail(ws, room, wanted) is not None:
            raise CommandError("That is part of the place, not someone you can talk to.")
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
    name = speaker(name_of(ws, npc))
    dialogue = ctx.world.try_component(npc, Dialogue)

    def holds(when: list[str]) -> bool:
        if not when:
            return True
        return living is not None and living.holds(npc, when)

    if topic is None:
        ws.message_room(
            room, f"{capitalize(name_of(ws, actor))} talks to {name_of(ws, npc)}.", exclude=(actor,)
        )
        if await talk.run(ctx, npc):
            return
        greeting = line_for(dialogue, "", holds) if dialogue is not None else ""
        if dialogue is None or not greeting:
            rules = ctx.world.try_component(npc, CombatRules)
            hostile = rules is not None and rules.hostile
            if hostile:
                ctx.send(f"{name} snarls at you.")
            elif dialogue is not None:
                # Nothing written fits the moment: a nod, and the news.
                ctx.send(f"{name} nods to you.{topic_hint(dialogue)}")
                _tell(ctx, name, "says", gossip)
            else:
                ctx.send(f"{name} has nothing to say to you.")
            for line in talk.after_greeting(ctx, npc):
                ctx.send(line)
            return
        ctx.send(f'{name} says, "{greeting}"{topic_hint(dialogue)}')
        _tell(ctx, name, "adds", gossip)
        for line in talk.after_greeting(ctx, npc):
            ctx.send(line)
        return
    if await talk.run_topic(ctx, npc, topic):
        return
    key = find_topic(dialogue, topic) if dialogue is not None else None
    if key is None and topic_tokens(topic) & ASKING_FOR_WORK:
        # Asking about work is asking for what talking brings up: the quests this
        # NPC has for the actor, or how they are getting on.
        if await talk.run(ctx, npc):
            return
        ctx.send(
            "\n".join(talk.after_greeting(ctx, npc)) or f"{name} has no work for you just now."
        )
        return
    if key is None and living is not None and topic_tokens(topic) & ASKING_FOR_NEWS:
        # Asking for the news is asking for what it has heard, whatever it is about.
        news = living.gossip_lines(npc, 3)
        if news:
            _tell(ctx, name, "says", news)
        else:
            ctx.send(f"{name} has heard nothing worth telling.")
        return
    if key is None or dialogue is None:
        # Nothing written on it: what the NPC has heard on the subject, if anything.
        wanted = topic_tokens(topic)
        heard = (
            living.gossip_lines(npc, 2, about=lambda text: bool(wanted & topic_tokens(text)))
            if living is not None and wanted
            else []
        )
        if heard:
            _tell(ctx, name, "says", heard)
            return
        # Something it brought up itself (a greeting asking for moonwort): it says
        # that line again rather than deny knowing what it just spoke of.
        said = own_line_about(dialogue, wanted, holds) if dialogue is not None else ""
        if said:
            ctx.send(f'{name} says, "{said}"')
            return
        # A grudge it is seen to bear (the sharp words by the weir): asked about
        # its subject or the other party, it shows where it stands.
        ties = (
            living.ties_about(npc, lambda text: bool(wanted & topic_tokens(text)))
            if living is not None and wanted
            else []
        )
        if ties:
            ctx.send(_tie_line(name, ties[0]))
            return
        ctx.send(f"{name} does not know anything about '{topic}'.")
        return
    answer = line_for(dialogue, key, holds)
    if not answer:
        ctx.send(f"{name} has nothing to say about {key.split()[0]} just now.")
        return
    ctx.send(f'{name} says, "{answer}"')


def _tie_line(name: str, tie: Tie) -> str:
    """How an NPC takes a question about someone it has a tie with (or about what
    the tie is over): "Brin Harrow's face darkens at the mention of Aldous Miller:
    Aldous Miller raised the weir ...", "Sefa speaks fondly of Old Jory, family."."""
    why = f": {tie.cause}" if tie.cause else ""
    if tie.sour:
        rival = " (a rival)" if tie.kind == "rival" and not why else ""
        return f"{possessive(name)} face darkens at the mention of {tie.other}{rival}{why}."
    if why:
        return f"{name} speaks of {tie.other}{why}."
    if tie.kind == "family":
        return f"{name} speaks fondly of {tie.other}, family."
    if tie.kind == "friend":
        return f"{name} speaks warmly of {tie.other}, a friend."
    if tie.kind == "sweetheart":
        return f"{name} colours at the mention of {tie.other}."
    if tie.warm:
        return f"{name} speaks warmly of {tie.other}."
    return f"{name} knows {tie.other}, and says no more."


def _tell(ctx: CommandContext, name: str, verb: str, news: list[str]) -> None:
    """The news an NPC passes on, in its own voice: a bare line after its greeting
    read as nobody's."""
    for line in news:
        ctx.send(f'{name} {verb}, "{line}"')


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

    Asked about work (or a word of a quest's title), someone whose offer you
    turned down offers it again while the quest is still open.
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
