"""Player commands (quests, quest, accept, decline, abandon, turnin) and ``talk <npc>``.

Talking to an NPC (a TalkService handler): a COMPLETED quest whose turn-in NPC this
is gets turned in; else the NPC's open quests are offered (with the accept hint);
else an accepted quest of this NPC gets its progress dialogue; else the NPC's
ordinary greeting runs.
"""

from __future__ import annotations

from collections import Counter
from uuid import UUID

from classic_rpg.characters.components import Dialogue
from classic_rpg.characters.dialogue import find_topic
from classic_rpg.components import CharacterStats
from classic_rpg.items.factory import ItemFactory
from classic_rpg.systems.quests.errors import QuestError
from classic_rpg.systems.quests.grading import PYRRHIC_DURATION_FACTOR, required_ratio
from classic_rpg.systems.quests.handles import handle_word, match_handle
from classic_rpg.systems.quests.manager import QuestManager
from classic_rpg.systems.quests.matching import template_name
from classic_rpg.systems.quests.models import Quest, QuestObjective
from classic_rpg.systems.quests.questlog import QuestEntry, QuestLog
from maid_engine.commands import Command, CommandContext, CommandError, command
from maid_stdlib.questgen.service import QuestGenerationService
from maid_stdlib.questgen.text import topic_tokens
from maid_stdlib.questgen.vocabulary import ObjectiveType, QuestDeliveryMethod, QuestState
from maid_stdlib.story.facts import FactBook
from maid_stdlib.text import counted, join
from maid_stdlib.world.look import name_of
from maid_stdlib.world.service import WorldService
from maid_stdlib.world.text import in_place, speaker

_LABEL = {
    QuestState.AVAILABLE: "|yoffered|n",
    QuestState.IN_PROGRESS: "in progress",
    QuestState.COMPLETED: "|gready to turn in|n",
}


_ONE_QUEST_VERBS = frozenset({"quest", "accept", "abandon", "decline", "turnin"})


def manager_of(ctx: CommandContext) -> QuestManager:
    manager: QuestManager = ctx.service(QuestManager)
    return manager


def listed(manager: QuestManager, character: UUID) -> list[tuple[Quest, QuestEntry]]:
    """The list of ``quests``, offers and quests under way, each by its number."""
    qlog = manager.engine.world.try_component(character, QuestLog)
    if qlog is None:
        return []
    unnumbered = any(e.number <= 0 for e in qlog.quests.values() if not e.state.terminal)
    live = qlog.live()
    if unnumbered:
        # A log kept from before quests had numbers: they are given once, for good.
        manager.engine.world.modified(character, qlog)
    rows = []
    for entry in live:
        quest = manager.quest_for(entry)
        if quest is not None:
            rows.append((quest, entry))
    return rows


def resolve(ctx: CommandContext, what: str) -> tuple[Quest, QuestEntry]:
    """A quest of the actor's list by number, a word or the start of its title, or
    (for admins and scripts) its id. Words several quests share list the choices."""
    manager = manager_of(ctx)
    rows = listed(manager, ctx.require_actor())
    what = what.strip()
    if not what:
        raise CommandError("Which quest? (See 'quests' for the numbers.)")
    if what.isdigit():
        n = int(what)
        for row in rows:
            if row[1].number == n:
                return row
        raise CommandError(f"You have no quest number {n}. (See 'quests'.)")
    qlog = ctx.world.try_component(ctx.require_actor(), QuestLog)
    exact = qlog.entry(what.casefold()) if qlog is not None else None
    quest = manager.quest_for(exact) if exact is not None else None
    if exact is not None and quest is not None:
        return quest, exact  # finished quests too, by their id
    found = match_handle([q.title for q, _ in rows], what)
    if found.unique is not None:
        return rows[found.unique]
    if found.positions:
        # The commands that take a quest alone can be typed again with its number.
        verb = ctx.name if ctx.name in _ONE_QUEST_VERBS else "quest"
        choices = "; ".join(
            f"'{rows[i][0].title}' ({verb} {rows[i][1].number})" for i in found.positions
        )
        raise CommandError(f"Which one do you mean? {choices}")
    raise CommandError(f"You have no quest '{what}'. (See 'quests'.)")


def handles_of(manager: QuestManager, character: UUID, quest_id: str) -> list[str]:
    """What the character can type for the quest: its number in 'quests' and, when
    one is free, a word of its title no other quest of theirs shares."""
    rows = listed(manager, character)
    for quest, entry in rows:
        if quest.quest_id == quest_id:
            others = [q.title for q, _ in rows if q.quest_id != quest_id]
            word = handle_word(quest.title, others)
            n = str(entry.number)
            return [n, word] if word else [n]
    return []


def accept_hint(manager: QuestManager, character: UUID, quest_id: str) -> str:
    """The line under an offer: "(Type 'accept 2' or 'accept smithy' to take it on.)",
    or the level it waits for."""
    quest = manager.get_quest(quest_id)
    needed = level_needed(manager, quest, character) if quest is not None else None
    if quest is not None and needed is not None:
        # Why, when a fight is what asks for the level: a quest that opens with
        # "Speak with the gate guard" read as a talk that needed level 6.
        foes = fight_of(quest)
        why = f": it means fighting {foes}" if foes else ""
        return f"(You can take it on once you reach level {needed}{why}.)"
    handles = handles_of(manager, character, quest_id)
    if not handles:
        return "(Type 'quests' to see it.)"
    typed = " or ".join(f"'accept {h}'" for h in handles)
    return f"(Type {typed} to take it on.)"


#: Objectives done in someone's presence: an open one says where they are now.
_MEET = (ObjectiveType.TALK, ObjectiveType.DELIVER)


def whereabouts(manager: QuestManager, npc: UUID | None, viewer: UUID | None) -> str:
    """ " (here)" or " (now in The Guard Post)": where someone a quest sends the
    player to is at the moment (people go about their day), or "" if nowhere."""
    if npc is None:
        return ""
    ws = manager.engine.services.get(WorldService)
    room = ws.room_key_of(npc)
    if room is None:
        return ""
    if viewer is not None and ws.room_key_of(viewer) == room:
        return " (here)"
    where = ws.room(room)
    return f" (now {in_place(where.name)})" if where is not None else ""


def objective_line(
    manager: QuestManager,
    quest: Quest,
    entry: QuestEntry,
    o: QuestObjective,
    viewer: UUID | None = None,
) -> str:
    p = entry.objectives.get(o.objective_id)
    optional = " (optional)" if not o.required else ""
    if p is None or not p.unlocked:
        return f"   |x[locked]{optional} {o.description}|n"
    if p.failed:
        return f"   |r[failed]|n{optional} {o.description}"
    mark = "|g[x]|n" if p.completed else "[ ]"
    tally = f" ({p.count}/{o.target_count})" if o.target_count > 1 else ""
    met = ""
    if not p.completed and o.objective_type in _MEET:
        met = whereabouts(manager, o.target_id, viewer)
    line = f"   {mark}{optional} {o.description}{tally}{met}"
    if o.hint and not p.completed:
        line += f"\n       |xHint: {o.hint}|n"
    if o.time_limit_seconds and p.open and p.unlocked_at is not None:
        left = p.unlocked_at + o.time_limit_seconds - manager.now
        line += f" |y[{max(0, int(left))}s left]|n"
    return line


def objective_lines(
    manager: QuestManager, quest: Quest, entry: QuestEntry, viewer: UUID | None = None
) -> list[str]:
    """Every objective's line; in a quest in stages, each stage's name above its
    objectives. A stage still locked is that one line: what it holds is not told
    before the stage before it is done."""
    lines: list[str] = []
    stage = ""
    locked = False
    for o in quest.objectives:
        if o.stage != stage:
            stage = o.stage
            locked = bool(stage) and _stage_locked(quest, entry, stage)
            if stage:
                lines.append(f"  |x{stage} [locked]|n" if locked else f"  |w{stage}|n")
        if not locked:
            lines.append(objective_line(manager, quest, entry, o, viewer))
    return lines


def _stage_locked(quest: Quest, entry: QuestEntry, stage: str) -> bool:
    progress = [entry.objectives.get(o.objective_id) for o in quest.objectives if o.stage == stage]
    return all(p is None or not p.unlocked for p in progress)


def game_span(manager: QuestManager, seconds: float) -> str:
    """A span of game time as a player can plan by: "40 game minutes (2 real
    minutes)". Game time runs faster than the player's own, so the real span is
    given beside it."""
    minutes = max(1, round(seconds / 60))
    if minutes < 60:
        told = f"{minutes} game minute{'s' if minutes != 1 else ''}"
    else:
        hours = round(seconds / 3600, 1)
        told = f"{hours:g} game hour{'s' if hours != 1 else ''}"
    real = seconds / manager.engine.clock.time_scale
    if real < 60:
        return f"{told} (under a real minute)"
    real_minutes = int(real / 60 + 0.5)
    return f"{told} ({real_minutes} real minute{'s' if real_minutes != 1 else ''})"


def pace_line(manager: QuestManager, quest: Quest, entry: QuestEntry) -> str | None:
    """How long the quest should take, and how long is left before finishing it
    counts only as a pyrrhic victory: that grade must never come as a surprise."""
    estimate = quest.estimated_duration_seconds
    if not estimate:
        return None
    slow = PYRRHIC_DURATION_FACTOR * estimate
    if entry.state is QuestState.AVAILABLE:
        return (
            f"It should take about {game_span(manager, estimate)} once accepted; taking "
            f"more than {game_span(manager, slow)} makes it a pyrrhic victory."
        )
    if entry.state is not QuestState.IN_PROGRESS or entry.accepted_at is None:
        return None  # done (its clock stopped) or over
    left = entry.accepted_at + slow - manager.now
    if left <= 0:
        return "   |yIt has taken too long for a clean win: finishing it is a pyrrhic victory.|n"
    return f"   |xLeft for a clean win: {game_span(manager, left)}.|n"


def fight_of(quest: Quest) -> str:
    """Whom the quest's required kills are of ("3 bandit scouts and Kral"), or ""."""
    foes = [
        counted(o.target_count, o.target_name)
        for o in quest.objectives
        if o.objective_type is ObjectiveType.KILL and o.required and o.target_name
    ]
    return join(list(dict.fromkeys(foes)))


def level_needed(manager: QuestManager, quest: Quest, character: UUID) -> int | None:
    """The level the quest asks for, when the character has not reached it."""
    stats = manager.engine.world.try_component(character, CharacterStats)
    level = stats.level if stats is not None else 1
    return quest.level_requirement if level < quest.level_requirement else None


def reward_items(manager: QuestManager, templates: list[str]) -> list[str]:
    """The reward's items by name ("a copper ring", "a healing draught (x2)"): a
    count of "item(s)" told the player nothing about what they would get."""
    counts = Counter(template_name(manager.engine, t) or "something" for t in templates)
    return [name if n == 1 else f"{name} (x{n})" for name, n in counts.items()]


def describe(
    manager: QuestManager,
    quest: Quest,
    entry: QuestEntry,
    full: bool,
    character: UUID | None = None,
) -> list[str]:
    label = _LABEL.get(entry.state, entry.state.value)
    needed = level_needed(manager, quest, character) if character is not None else None
    if needed is not None and entry.state is QuestState.AVAILABLE:
        label += f", |rneeds level {needed}|n"
    lines = [f"|c{quest.title}|n  [{label}]"]
    if full:
        text = quest.description or quest.summary
        if text:
            lines.append(text)
        if quest.giver_npc_id is not None:
            lines.append(
                f"Given by {manager.name_of(quest.giver_npc_id)}; turn in to "
                f"{manager.name_of(quest.turn_in_npc)}."
            )
        if quest.level_requirement > 1:
            foes = fight_of(quest)
            why = f" (it means fighting {foes})" if foes else ""
            lines.append(f"Requires level {quest.level_requirement}{why}.")
    elif quest.summary:
        lines.append(f"   {quest.summary}")
    if entry.state.active:
        lines += objective_lines(manager, quest, entry, character)
        if entry.state is QuestState.COMPLETED and quest.turn_in_npc is not None:
            where = whereabouts(manager, quest.turn_in_npc, character)
            lines.append(f"   Turn it in to {manager.name_of(quest.turn_in_npc)}{where}.")
        if quest.time_limit_seconds and entry.accepted_at is not None:
            left = entry.accepted_at + quest.time_limit_seconds - manager.now
            lines.append(f"   |yTime left: {max(0.0, left) / 3600:.1f} game hours.|n")
    elif full:
        # Optional steps too: the accepted quest lists them, so the offer should.
        lines += [
            f"   - {'' if o.required else '(optional) '}{o.description}" for o in quest.objectives
        ]
    pace = pace_line(manager, quest, entry)
    if pace is not None and (full or entry.state.active):
        lines.append(pace)
    if full:
        r = quest.rewards
        parts = [f"{r.experience} experience"] if r.experience else []
        parts += [f"{r.gold} gold"] if r.gold else []
        parts += reward_items(manager, r.item_template_ids)
        if parts:
            lines.append("Reward: " + ", ".join(parts) + ".")
    return lines


@command("quests", aliases=("questlog", "journal"), category="quests")
def quests_cmd(ctx: CommandContext) -> None:
    """Your quest log: accepted quests with their objectives, and open offers.

    Usage: quests
    Objectives show [x] done, [ ] open, [locked] (opens after earlier steps).
    A quest keeps its number until it ends: taking on or finishing another
    never renumbers it.
    """
    manager = manager_of(ctx)
    actor = ctx.require_actor()
    rows = listed(manager, actor)
    if not rows:
        ctx.send("You have no quests. Talk to people; some of them may need help.")
    else:
        out = ["|wYour quests:|n"]
        for quest, entry in rows:
            head, *rest = describe(manager, quest, entry, full=False, character=actor)
            out.append(f"{entry.number}. {head}")
            out += rest
        offers = [(q, e) for q, e in rows if e.state is QuestState.AVAILABLE]
        waiting = [q for q, _ in offers if level_needed(manager, q, actor) is not None]
        if offers and len(waiting) == len(offers) and len(offers) == len(rows):
            # Nothing to do but wait for a level: say how one gets there.
            lowest = min(q.level_requirement for q in waiting)
            out.append(
                f"Every offer here asks for level {lowest} or more. Experience comes "
                "from fights: 'consider <foe>' tells you which are fair game."
            )
        elif offers:
            out.append("Type 'accept <number>' to take on an offered quest.")
        ctx.send("\n".join(out))
    qlog = ctx.world.try_component(actor, QuestLog)
    done = [manager.title(q) for q, n in (qlog.turn_ins.items() if qlog else []) if n]
    if done:
        ctx.send("Completed: " + ", ".join(sorted(done)) + ".")


@command("quest", category="quests")
def quest_cmd(ctx: CommandContext) -> None:
    """Details of one quest.

    Usage: quest <number|word>    (the number in 'quests', or a word of the title)
    """
    quest, entry = resolve(ctx, ctx.args)
    lines = describe(manager_of(ctx), quest, entry, full=True, character=ctx.require_actor())
    ctx.send("\n".join(lines))


@command("accept", category="quests")
async def accept_cmd(ctx: CommandContext) -> None:
    """Accept a quest someone offered you.

    Usage: accept [<number|word>]    (no argument: your only offer)
    The number is the one 'quests' shows; a word of the title works too
    ("accept smithy"). When a word fits several quests you are shown which.
    """
    manager = manager_of(ctx)
    actor = ctx.require_actor()
    if ctx.args.strip():
        quest, _ = resolve(ctx, ctx.args)
    else:
        offers = [r for r in listed(manager, actor) if r[1].state is QuestState.AVAILABLE]
        if len(offers) != 1:
            raise CommandError(
                "Accept which quest? (See 'quests'.)"
                if offers
                else "Nobody has offered you a quest."
            )
        quest = offers[0][0]
    try:
        # accept_dialogue is the giver's offer, spoken when the quest was offered,
        # so acceptance only confirms, before the quarry it may bring is told.
        told = f"|gYou accept '{quest.title}'.|n Type 'quests' to see what to do."
        await manager.accept_quest(actor, quest.quest_id, told=told)
    except QuestError as exc:
        raise CommandError(str(exc)) from exc


#: Words that confirm ``abandon <quest> ...``.
CONFIRM_WORDS = ("confirm", "yes", "y")


@command("abandon", category="quests", prefix_match=False)
def abandon_cmd(ctx: CommandContext) -> None:
    """Give up a quest you accepted (you are asked to confirm: its progress is lost).

    Usage: abandon <number|word>            asks you to confirm
           abandon <number|word> confirm    gives it up
    (the number in 'quests', or a word of the title)
    """
    manager = manager_of(ctx)
    words = ctx.args.split()
    confirmed = len(words) > 1 and words[-1].lower() in CONFIRM_WORDS
    wanted = " ".join(words[:-1] if confirmed else words)
    quest, entry = resolve(ctx, wanted)
    if not confirmed and entry.state.active:
        done = sum(1 for p in entry.objectives.values() if p.completed)
        progress = f" and the {done} objective(s) you finished" if done else ""
        ctx.send(
            f"Abandon '{quest.title}'? You lose your progress{progress}. "
            f"Type 'abandon {wanted} confirm' to give it up."
        )
        return
    try:
        manager.abandon_quest(ctx.require_actor(), quest.quest_id)
    except QuestError as exc:
        raise CommandError(str(exc)) from exc
    ctx.send(f"You abandon '{quest.title}'.")


@command("decline", category="quests", prefix_match=False)
def decline_cmd(ctx: CommandContext) -> None:
    """Turn down a quest you were offered (it frees room for other offers).

    Usage: decline <number|word>    (the number in 'quests', or a word of the title)
    """
    manager = manager_of(ctx)
    quest, entry = resolve(ctx, ctx.args)
    if entry.state is not QuestState.AVAILABLE:
        raise CommandError(f"You have already taken on '{quest.title}'; 'abandon' it instead.")
    try:
        manager.decline_quest(ctx.require_actor(), quest.quest_id)
    except QuestError as exc:
        raise CommandError(str(exc)) from exc
    ctx.send(f"You decline '{quest.title}'.")


@command("turnin", aliases=("turn-in",), category="quests")
async def turnin_cmd(ctx: CommandContext) -> None:
    """Turn in a finished quest to the person who asked for it (or just talk to them).

    Usage: turnin [<number|word>]   (no argument: everything you can turn in here)

    Some quests (those the world raised on its own) may be turned in early once at
    least half their required objectives are done: name the quest. That is a
    partial success: half the rewards, and the good done counts for half. With less
    than half done, 'turnin <quest> confirm' tells the giver you could not do it:
    the quest fails (no reward), and they remember who tried.
    """
    manager = manager_of(ctx)
    actor = ctx.require_actor()
    words = ctx.args.split()
    confirmed = len(words) > 1 and words[-1].lower() in CONFIRM_WORDS
    wanted = " ".join(words[:-1] if confirmed else words)
    if wanted:
        quest, entry = resolve(ctx, wanted)
        fitted = manager.quest_for(entry) or quest
        if (
            entry.state is QuestState.IN_PROGRESS
            and fitted.partial_turn_in
            and required_ratio(fitted, entry) < 0.5
        ):
            await _report_failure(ctx, manager, actor, fitted, wanted, confirmed)
            return
        targets = [quest]
    else:
        ws: WorldService = ctx.service(WorldService)
        here = ws.room_key_of(actor)
        targets = [
            q
            for q, e in listed(manager, actor)
            if e.state is QuestState.COMPLETED
            and (q.turn_in_npc is None or ws.room_key_of(q.turn_in_npc) == here)
        ]
        if not targets:
            raise CommandError("You have nothing to turn in here.")
    for quest in targets:
        try:
            await manager.turn_in_quest(actor, quest.quest_id)
        except QuestError as exc:
            raise CommandError(str(exc)) from exc


async def _report_failure(
    ctx: CommandContext,
    manager: QuestManager,
    actor: UUID,
    quest: Quest,
    wanted: str,
    confirmed: bool,
) -> None:
    """``turnin`` with less than half of a quest done: telling the giver it failed."""
    npc = quest.turn_in_npc
    name = manager.name_of(npc) if npc is not None else "them"
    if not confirmed:
        ctx.send(
            f"You have done less than half of '{quest.title}'. Type 'turnin {wanted} "
            f"confirm' to tell {name} you could not do it (the quest fails)."
        )
        return
    try:
        manager.report_failure(actor, quest.quest_id)
    except QuestError as exc:
        raise CommandError(str(exc)) from exc


class QuestTalk:
    """The TalkService handler: turn in, offer, or progress dialogue."""

    def __init__(self, manager: QuestManager) -> None:
        self.manager = manager

    async def __call__(self, ctx: CommandContext, npc: UUID) -> bool:
        manager = self.manager
        actor = ctx.require_actor()
        # What the NPC answers to a step this conversation finishes comes first, in
        # place of its greeting ("Gundrik says, ..."), then the step's own line.
        replies = manager.objectives.replies(actor, npc)
        for line in replies:
            ctx.send(line)
        # ``talk`` queued its TalkedToEvent but it is dispatched after this handler;
        # count the conversation now so "report to X" completes before the turn-in.
        manager.objectives.talk_now(actor, npc)
        name = speaker(manager.name_of(npc))
        running = manager.objectives.running(actor)
        ready = [q for q, e in running if e.state is QuestState.COMPLETED and q.turn_in_npc == npc]
        if ready:
            for quest in ready:
                try:
                    await manager.turn_in_quest(actor, quest.quest_id)
                except QuestError as exc:
                    ctx.send(str(exc))
            return True
        offers = self._offers(actor, npc)
        if offers:
            for quest in offers:
                manager.offer_quest(actor, quest.quest_id, QuestDeliveryMethod.CONVERSATION)
                speech = quest.accept_dialogue or quest.description or quest.summary
                ctx.send(f'{name} says, "{speech}"' if speech else f"{name} has work for you.")
                hint = accept_hint(manager, actor, quest.quest_id)
                ctx.send(f"|yQuest offered: '{quest.title}'.|n {hint}")
            return True
        # What the player carries for a step of theirs that ends with this NPC: the
        # progress line ("bring me one...") would ask for what is already in hand.
        in_hand = manager.objectives.deliverable(actor, npc)
        for line in self._hand_over(ctx, npc, in_hand):
            ctx.send(line)
        handing = {quest.quest_id for quest, _ in in_hand}
        mine = [(q, e) for q, e in running if npc in (q.giver_npc_id, q.turn_in_npc)]
        if mine:
            for quest, entry in mine:
                if quest.progress_dialogue and quest.quest_id not in handing:
                    ctx.send(f'{name} says, "{quest.progress_dialogue}"')
                ctx.send("\n".join(describe(manager, quest, entry, full=False, character=actor)))
            return True
        return bool(replies) or bool(in_hand)

    def _hand_over(
        self, ctx: CommandContext, npc: UUID, steps: list[tuple[Quest, QuestObjective]]
    ) -> list[str]:
        """One line per item the NPC waits for and the player carries: that they see
        it, and the ``give`` that hands it over."""
        ws = ctx.engine.services.get(WorldService)
        actor = ctx.require_actor()
        npc_words = ws.keywords_of(npc)
        to = npc_words[0] if npc_words else "them"
        lines = []
        items = ctx.service(ItemFactory)
        for template in dict.fromkeys(o.item_template for _, o in steps if o.item_template):
            item = next((i for i in items.carried(actor) if items.template_of(i) == template), None)
            if item is None:
                continue
            words = ws.keywords_of(item)
            what = words[0] if words else "it"
            lines.append(
                f"{speaker(self.manager.name_of(npc))} sees {name_of(ws, item)} in your "
                f"hands. |y(Type 'give {what} to {to}' to hand it over.)|n"
            )
        return lines

    def _may_offer(self, actor: UUID, quest_id: str, offering: int) -> bool:
        engine = self.manager.engine
        generation = engine.services.try_get(QuestGenerationService)
        if generation is None:
            return True
        open_quest = generation.open_quest(quest_id)
        if open_quest is None:
            # Registered outside the generation system's delivery (by a pack or a
            # test): offered like an authored quest.
            quest = self.manager.get_quest(quest_id)
            stats = engine.world.try_component(actor, CharacterStats)
            level = stats.level if stats is not None else 1
            return quest is not None and level >= quest.level_requirement
        pending = self.manager.count_pending_offers(actor) + offering
        if pending >= generation.offer_cap(actor):
            return False
        return generation.would_offer_in_person(quest_id, actor)

    async def topic(self, ctx: CommandContext, npc: UUID, topic: str) -> bool:
        """A TalkService topic handler: ``ask <npc> about <words>`` naming one of the
        NPC's quests the actor was offered or is on ("ask voss about gwen") brings
        up its offer or how it stands, as talking would, unless the NPC has words
        of its own on the subject; words of what it said on taking in one of the
        actor's quests bring that line back ("ask voss about fenn")."""
        manager = self.manager
        actor = ctx.require_actor()
        wanted = topic_tokens(topic)
        dialogue = ctx.world.try_component(npc, Dialogue)
        if not wanted or (dialogue is not None and find_topic(dialogue, topic) is not None):
            return False
        name = speaker(manager.name_of(npc))
        mine = manager.quests_of(
            actor, QuestState.AVAILABLE, QuestState.IN_PROGRESS, QuestState.COMPLETED
        )
        for quest, entry in mine:
            if npc not in (quest.giver_npc_id, quest.turn_in_npc):
                continue
            if not wanted & topic_tokens(quest.title, quest.summary, quest.description):
                continue
            if entry.state is QuestState.AVAILABLE:
                speech = quest.accept_dialogue or quest.description or quest.summary
                if speech:
                    ctx.send(f'{name} says, "{speech}"')
                ctx.send(accept_hint(manager, actor, quest.quest_id))
            else:
                if quest.progress_dialogue:
                    ctx.send(f'{name} says, "{quest.progress_dialogue}"')
                ctx.send("\n".join(describe(manager, quest, entry, full=False, character=actor)))
            return True
        # What it said on thanking the actor for a quest (Voss pointing to Fenn's
        # wolves): asked about it afterwards, it does not deny having said it.
        for quest, _entry in manager.quests_of(actor, QuestState.TURNED_IN):
            said = quest.complete_dialogue
            if npc == quest.turn_in_npc and said and wanted <= topic_tokens(said):
                ctx.send(f'{name} says, "{said}"')
                return True
        return False

    def _finishable(self, quest: Quest) -> bool:
        """Whether every fact the quest waits on can still come true here (a
        narrated room's milestone needs a storyteller): one that cannot be
        finished is not offered."""
        facts = self.manager.engine.services.try_get(FactBook)
        return facts is None or all(
            facts.reachable(o.fact)
            for o in quest.required
            if o.objective_type is ObjectiveType.FACT and o.fact
        )

    def _offers(self, actor: UUID, npc: UUID) -> list[Quest]:
        manager = self.manager
        stats = manager.engine.world.try_component(actor, CharacterStats)
        level = stats.level if stats is not None else 1
        qlog = manager.engine.world.try_component(actor, QuestLog)
        out = []
        for quest in manager.quests_from(npc):
            entry = qlog.entry(quest.quest_id) if qlog is not None else None
            if not manager.is_open(quest.quest_id):
                continue
            if quest.source == "generated":
                # Talking to the giver is the CONVERSATION delivery: it may
                # bring up the quest, but within the delivery rules (level range,
                # opt-out, pending-offer cap), like an offer in person.
                if entry is not None and entry.state is QuestState.AVAILABLE:
                    out.append(quest)
                elif entry is None and self._may_offer(actor, quest.quest_id, len(out)):
                    out.append(quest)
                continue
            if level < quest.level_requirement:
                continue
            if entry is not None and entry.state.active:
                continue
            if entry is None and not self._finishable(quest):
                continue
            if qlog is not None and qlog.turn_ins.get(quest.quest_id) and not quest.repeatable:
                continue
            if entry is None and manager.turned_down(actor, quest.quest_id):
                # Turned down (lately): the giver goes on to what the character did
                # take on, and asks again after a while.
                continue
            out.append(quest)
        return out

    def afterword(self, ctx: CommandContext, npc: UUID) -> list[str]:
        """The TalkService afterword: a hand-written quest of the NPC's the actor is
        not seasoned enough for yet is named by its level, so a player sent to this
        NPC knows to come back rather than that there is nothing."""
        manager = self.manager
        actor = ctx.require_actor()
        stats = ctx.world.try_component(actor, CharacterStats)
        level = stats.level if stats is not None else 1
        qlog = ctx.world.try_component(actor, QuestLog)
        waiting = [
            quest.level_requirement
            for quest in manager.quests_from(npc)
            if quest.source != "generated"
            and level < quest.level_requirement
            and manager.is_open(quest.quest_id)
            and self._finishable(quest)
            and (qlog is None or qlog.entry(quest.quest_id) is None)
            and (qlog is None or not qlog.turn_ins.get(quest.quest_id))
        ]
        if not waiting:
            return []
        name = speaker(manager.name_of(npc))
        return [f"{name} has work for you once you reach level {min(waiting)}."]


COMMANDS: list[Command] = [quests_cmd, quest_cmd, accept_cmd, decline_cmd, abandon_cmd, turnin_cmd]
