"""Who plays which quest, each bot's turn, and how each attempt ended.

Every generated quest is meant to be attempted by a bot of the right level: one
whose level lies between the quest's minimum level and its recommended level + 2
(the personalizer's "close" band). An idle bot first takes a fitting quest that
was *offered* to it by the game (delivery), else volunteers for the oldest
unclaimed one it fits, preferring quests whose archetype suits its style, then the
level closest to the recommended one. A quest has one proper attempt; the
quitter's attempts (it abandons on purpose) do not count, and the quest goes back
to the others.

How an attempt ended is read from the quest events of the bot's own quest (turned
in with its grade, failed, invalidated, expired, abandoned); a bot gives up (with
``abandon``, like a player) after dying three times on a quest or when it has made
no progress for ``stuck_after`` game seconds, and the reason is kept.

Players do not finish everything they take. Each proper attempt draws a *fate*
from the bot's own deck (:data:`DECK`, shuffled by the bot's seeded random source,
so a run is reproducible), except on a chain's follow-up, which it always plays
through. ``settles``: the bot settles for part of the job (once half the required
objectives are done it turns the quest in early: a partial success). ``late``: it
comes too late (it accepts, then goes about other things until a deadline within
``LATE_WITHIN`` passes: the quest's time limit or the opportunity's expiry).
``weak``: on a quest with a fight before half the job it is too weak and
over-reaches (no rest before a fight, no potion); once it has lost a fight
(beaten below ``LOSES_BELOW`` of its health it flees, or it died) it goes back to
the giver and says so (``turnin <quest> confirm``: failed, or a partial success from half the
job). After a failure of either kind the quest goes back to the others. A card
that does not fit the quest (nothing to fight, a distant deadline, one objective)
stays in the deck for a later quest. The rest play it through, and choose at
branch points as their style says (or, now and then, otherwise).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TextIO
from uuid import UUID

from classic_rpg.combat.components import Fighting
from classic_rpg.components import CharacterStats
from classic_rpg.questgen.challenge import recommended_level
from classic_rpg.simulate.bots import BotHost, create_bot, log_out, shuffled_deck
from classic_rpg.simulate.play import Planner, Step
from classic_rpg.systems.quests import QuestManager
from classic_rpg.systems.quests.grading import required_ratio
from classic_rpg.systems.quests.questlog import QuestLog
from maid_engine.clock import GAME_HOUR
from maid_engine.ports import ClockPort
from maid_stdlib.consequences import GeneratedQuestIndex
from maid_stdlib.grounding import QuestGroundingMonitor
from maid_stdlib.questgen import QuestGen
from maid_stdlib.questgen.events import (
    QuestAbandonedEvent,
    QuestExpiredInternalEvent,
    QuestFailedEvent,
    QuestGeneratedEvent,
    QuestReratedEvent,
    QuestTurnedInEvent,
)
from maid_stdlib.questgen.service import QuestGenerationService
from maid_stdlib.questgen.vocabulary import ObjectiveType, QuestState
from maid_stdlib.world.events import EntityDiedEvent
from maid_stdlib.world.service import WorldService

if TYPE_CHECKING:
    from classic_rpg.simulate.bots import Bot

__all__ = ["SUCCESS", "Attempt", "Coordinator", "QuestInfo"]

SUCCESS = frozenset({"perfect", "completed", "pyrrhic_victory"})
MAX_DEATHS = 3
#: Band above the recommended level that still counts as "the right level".
LEVEL_ABOVE = 2
#: Quitters take the first try at one quest in this many.
QUITTER_SHARE = 3
#: A bot this many levels above its style's level is replaced by a new one.
RETIRE_ABOVE = 1
#: Times a bot asks a giver in person for a quest before it lets another try.
ASK_TIMES = 2
#: Only a quest whose deadline (its time limit, or the opportunity's expiry) falls
#: within this many game seconds of the claim is let run out: a bot holding a quest
#: it will not do for longer keeps its threat claimed and its giver waiting.
LATE_WITHIN = 6 * GAME_HOUR
#: How fated attempts that fail end; the quest goes back to the others after them.
FATED_FAILURES = frozenset({"failed", "expired"})
#: Fates of an attempt: played through, settled early, too late, or too weak.
FATES = ("", "settles", "late", "weak")


@dataclass
class QuestInfo:
    quest_id: str
    archetype_id: str
    seed_type: str
    generated_at: float
    recommended_level: int
    min_level: int
    traits: tuple[str, ...]
    #: Order of generation (1, 2, ...).
    sequence: int = 0


@dataclass
class Attempt:
    quest_id: str
    bot: str
    style: str
    level: int
    started: float
    ended: float | None = None
    result: str = "in_progress"
    reason: str = ""
    #: A proper attempt (the quitter's designed abandonments are not).
    counts: bool = True
    doing: str = ""
    #: What the bot meant to do with it ("", "settles", "late"; see the module).
    fate: str = ""

    def document(self) -> dict[str, Any]:
        return {
            "fate": self.fate,
            "bot": self.bot,
            "style": self.style,
            "level": self.level,
            "started": self.started,
            "ended": self.ended,
            "result": self.result,
            "reason": self.reason,
            "counts": self.counts,
        }


class CoordinatorHost(BotHost, ClockPort, Protocol):
    """What the coordinator uses: what bringing bots in and out uses (the world and
    its services, events, sessions to run their commands, the world lock and safe
    point), and game time."""


@dataclass
class Coordinator:
    engine: CoordinatorHost
    bots: list[Bot]
    stuck_after: float = 3 * GAME_HOUR
    quests: dict[str, QuestInfo] = field(default_factory=dict)
    attempts: list[Attempt] = field(default_factory=list)
    #: Bots whose players quit (outgrown), in order.
    retired: list[Bot] = field(default_factory=list)
    #: Where each bot's command and the game's answer are written, if anywhere.
    trace: TextIO | None = None
    #: Quests generated after this game time are not taken on: the run's end, after
    #: which the world runs on only so that the quests of the run can be finished.
    #: A quest generated just before it is still claimed afterwards, or it could
    #: never be finished by anyone free only a little later.
    claims_until: float = math.inf
    _claims: dict[str, Bot] = field(default_factory=dict)
    _current: dict[UUID, Attempt] = field(default_factory=dict)

    def __post_init__(self) -> None:
        engine = self.engine
        self.manager = engine.services.get(QuestManager)
        self.generation = engine.services.get(QuestGenerationService)
        self.qg = engine.services.get(QuestGen)
        self.monitor = engine.services.try_get(QuestGroundingMonitor)
        self.ws = engine.services.get(WorldService)
        self.planner = Planner(engine, self.decision_options)
        self.start_room = self.ws.start_room
        generation = self.generation
        self.boards = [r for r in self.ws.room_keys() if generation.notice_board_in(r) is not None]
        self._by_uid = {b.uid: b for b in self.bots}
        events = engine.events
        events.subscribe(QuestGeneratedEvent, self._on_generated)
        events.subscribe(QuestReratedEvent, self._on_rerated)
        events.subscribe(QuestTurnedInEvent, self._on_turned_in)
        events.subscribe(QuestFailedEvent, self._on_failed)
        events.subscribe(QuestAbandonedEvent, self._on_abandoned)
        events.subscribe(QuestExpiredInternalEvent, self._on_expired)
        events.subscribe(EntityDiedEvent, self._on_died)

    # -- what the game tells ------------------------------------------------------------
    def _on_generated(self, event: QuestGeneratedEvent) -> None:
        oq = self.generation.open_quest(event.quest_id)
        quest = self.manager.get_quest(event.quest_id)
        min_level = quest.level_requirement if quest is not None else 1
        rec = recommended_level(oq.quest.difficulty) if oq is not None else min_level + 1
        archetype = self.qg.archetypes.get(event.archetype_id)
        traits = tuple(
            t
            for t, flag in (
                ("combat", archetype.requires_combat if archetype else False),
                ("social", archetype.requires_social if archetype else False),
                ("exploration", archetype.requires_exploration if archetype else False),
            )
            if flag
        )
        self.quests[event.quest_id] = QuestInfo(
            event.quest_id,
            event.archetype_id,
            event.seed_type,
            self.engine.clock.game_time,
            rec,
            min_level,
            traits,
            len(self.quests) + 1,
        )

    def _on_rerated(self, event: QuestReratedEvent) -> None:
        """The world made the quest harder: the right level is the new one. A bot
        below it that holds the quest now over-reaches, and its attempt no longer
        says whether a bot of the right level can finish the quest."""
        info = self.quests.get(event.quest_id)
        if info is None:
            return
        quest = self.manager.get_quest(event.quest_id)
        info.recommended_level = recommended_level(event.difficulty)
        info.min_level = quest.level_requirement if quest is not None else info.min_level
        for attempt in self._current.values():
            if (
                attempt.quest_id == event.quest_id
                and attempt.counts
                and attempt.level < info.min_level
            ):
                attempt.counts = False
                attempt.reason = attempt.reason or "the quest was re-rated above the bot's level"

    def _attempt_of(self, character: UUID, quest_id: str) -> Attempt | None:
        attempt = self._current.get(character)
        return attempt if attempt is not None and attempt.quest_id == quest_id else None

    def _end(self, character: UUID, quest_id: str, result: str, reason: str = "") -> None:
        attempt = self._attempt_of(character, quest_id)
        if attempt is None:
            return
        attempt.result = result
        attempt.reason = attempt.reason or reason
        attempt.ended = self.engine.clock.game_time
        del self._current[character]
        bot = self._by_uid[character]
        bot.quest_id, bot.idle_since = None, attempt.ended
        bot.over_reaching = False
        self._claims.pop(quest_id, None)

    def _on_turned_in(self, event: QuestTurnedInEvent) -> None:
        self._end(event.character_id, event.quest_id, event.outcome.value)

    def _on_failed(self, event: QuestFailedEvent) -> None:
        if self._attempt_of(event.character_id, event.quest_id) is None:
            return
        why = event.detail or event.outcome.value
        if event.reason.value == "invalidated":
            # The monitor's own words for what no longer fits (it tells the player so).
            oq = self.generation.open_quest(event.quest_id)
            index = self.engine.services.try_get(GeneratedQuestIndex)
            quest = (
                oq.quest
                if oq is not None
                else (index.cached(event.quest_id) if index is not None else None)
            )
            explained = self.monitor.explain(quest) if quest and self.monitor else None
            why = f"{why} ({explained})" if explained else why
        self._end(event.character_id, event.quest_id, event.reason.value, why)

    def _on_abandoned(self, event: QuestAbandonedEvent) -> None:
        self._end(event.character_id, event.quest_id, "abandoned")

    def _on_expired(self, event: QuestExpiredInternalEvent) -> None:
        for character in [*event.character_ids, *self._current]:
            self._end(character, event.quest_id, "expired", "the opportunity expired")

    def _on_died(self, event: EntityDiedEvent) -> None:
        bot = self._by_uid.get(event.entity_id)
        if bot is not None:
            bot.deaths += 1
            bot.deaths_on_quest += 1
            # A bot too weak for its quest has lost: it owns up, not fights on.
            bot.over_reaching, bot.lost = False, True

    def decision_options(self, quest_id: str, objective_id: str) -> int:
        oq = self.generation.open_quest(quest_id)
        for branch in (oq.quest.branches or []) if oq is not None else []:
            if branch.trigger_objective == objective_id:
                return len(branch.options)
        return 0

    # -- claiming -------------------------------------------------------------------------
    def level_of(self, bot: Bot) -> int:
        stats = self.engine.world.try_component(bot.uid, CharacterStats)
        return stats.level if stats is not None else 1

    def fits(self, bot: Bot, info: QuestInfo) -> bool:
        return (
            info.generated_at <= self.claims_until
            and info.quest_id not in self._claims
            and not self.never_for(bot, info)
        )

    def never_for(self, bot: Bot, info: QuestInfo) -> bool:
        """The quest will not be ``bot``'s: closed, had its proper attempt, tried by
        this bot, or not for its level. (A quest someone merely holds may come back:
        the quitter's attempt does not count.)"""
        if not self.manager.is_open(info.quest_id):
            return True
        tried = [a for a in self.attempts if a.quest_id == info.quest_id]
        # A bot too weak or too late failed on purpose: someone else may take the
        # quest on (it is still open), as a player would after another's failure.
        proper = [a for a in tried if a.counts and not (a.fate and a.result in FATED_FAILURES)]
        if proper or any(a.bot == bot.name for a in tried):
            return True
        level = self.level_of(bot)
        return not info.min_level <= level <= info.recommended_level + LEVEL_ABOVE

    def _offered(self, bot: Bot) -> list[str]:
        qlog = self.engine.world.try_component(bot.uid, QuestLog)
        if qlog is None:
            return []
        return [e.quest_id for e in qlog.quests.values() if e.state is QuestState.AVAILABLE]

    def unwanted_offer(self, bot: Bot, making_room: bool = False) -> str | None:
        """An offer the bot will not take on, which it turns down: a hand-written
        quest (bots play the generated ones; held unanswered, two of them would fill
        the offer cap and keep every generated offer away, whatever the style), or
        one that will never be its (:meth:`never_for`) -- by a bot of a declining
        style, or by any bot ``making_room`` for the quest it is about to ask for. An
        offer turned down is not made again for a game day, so one someone else
        merely holds is kept: it comes back when the quitter gives up."""
        for quest_id in self._offered(bot):
            if quest_id == bot.quest_id:
                continue
            info = self.quests.get(quest_id)
            if info is None or ((bot.style.declines or making_room) and self.never_for(bot, info)):
                return quest_id
        return None

    def _offers_full(self, bot: Bot) -> bool:
        return len(self._offered(bot)) >= self.generation.offer_cap(bot.uid)

    def claim(self, bot: Bot) -> str | None:
        for quest_id in self._offered(bot):
            info = self.quests.get(quest_id)
            if info is not None and self.fits(bot, info):
                return self._take(bot, info, "offered")
        level = self.level_of(bot)
        ranked = sorted(
            (info for info in self.quests.values() if self.fits(bot, info)),
            key=lambda i: (
                i.generated_at,
                not set(i.traits) & set(bot.style.prefers),
                abs(level - i.recommended_level),
            ),
        )
        for info in ranked:
            if self._best_idle(info) is bot:
                return self._take(bot, info, "volunteered")
        return None

    def _best_idle(self, info: QuestInfo) -> Bot | None:
        idle = [b for b in self.bots if b.quest_id is None and self.fits(b, info)]
        if not idle:
            return None
        # Quitters go first on every QUITTER_SHARE-th quest: without a turn of their
        # own they would never play, and abandonment would go unmeasured.
        quitters = [b for b in idle if b.style.gives_up_after is not None]
        if quitters and info.sequence % QUITTER_SHARE == 0:
            return min(quitters, key=lambda b: (b.idle_since, self.bots.index(b)))
        # Whoever was offered it goes first (no one else may be); ties then go to
        # whoever has waited longest, so every style gets its turn.
        return min(
            idle,
            key=lambda b: (
                info.quest_id not in self._offered(b),
                not set(info.traits) & set(b.style.prefers),
                abs(self.level_of(b) - info.recommended_level),
                b.idle_since,
                self.bots.index(b),
            ),
        )

    def _take(self, bot: Bot, info: QuestInfo, how: str) -> str:
        now = self.engine.clock.game_time
        attempt = Attempt(
            info.quest_id,
            bot.name,
            bot.style.name,
            self.level_of(bot),
            now,
            counts=bot.style.gives_up_after is None,
            doing=how,
        )
        if attempt.counts:
            attempt.fate = self._fate(bot, info, now)
        bot.over_reaching, bot.lost = attempt.fate == "weak", False
        self.attempts.append(attempt)
        self._current[bot.uid] = attempt
        self._claims[info.quest_id] = bot
        bot.quest_id, bot.since, bot.progress_at, bot.deaths_on_quest = info.quest_id, now, now, 0
        bot.asked = 0
        return info.quest_id

    def _fate(self, bot: Bot, info: QuestInfo, now: float) -> str:
        """The first card of the bot's deck that fits the quest, taken from the deck
        (a plain card always fits); "" without taking one on a chain's follow-up."""
        oq = self.generation.open_quest(info.quest_id)
        if oq is not None and oq.quest.chain_depth > 0:
            return ""  # a follow-up is the story it came back for: it sees it through
        if not bot.deck:
            bot.deck = shuffled_deck(bot.fate_rng)
        quest = self.manager.get_quest(info.quest_id)
        for n, card in enumerate(bot.deck):
            if not card or self._fits_fate(card, bot, info, quest, oq, now):
                return bot.deck.pop(n)
        return ""

    def _fits_fate(
        self, card: str, bot: Bot, info: QuestInfo, quest: Any, oq: Any, now: float
    ) -> bool:
        if card == "settles":
            # Half of one objective is all of it: nothing to settle for.
            return quest is not None and len(quest.required) >= 2
        if card == "late":
            limit = quest.time_limit_seconds if quest is not None else None
            soon = oq is not None and oq.quest.expiry - now <= LATE_WITHIN
            return soon or (limit is not None and limit <= LATE_WITHIN)
        if card == "weak":
            # Too weak for a fight: a quest with foes to beat before half the job is
            # done (beaten there, it has failed; later, it would have half of it).
            required = sorted(quest.required, key=lambda o: o.order) if quest else []
            kinds = [o.objective_type for o in required]
            first = kinds.index(ObjectiveType.KILL) if ObjectiveType.KILL in kinds else None
            return first is not None and first < len(required) / 2
        return False

    def _fated_step(self, bot: Bot, attempt: Attempt, quest: Any, entry: Any) -> Step | None:
        """What a bot that will not play the quest through does instead, if anything."""
        if entry is None or entry.state is not QuestState.IN_PROGRESS:
            return None
        if attempt.fate == "late":
            idle = self.planner.idle_step(bot, self.start_room, self.boards)
            return Step(idle.line, "in no hurry (the quest will run out)")
        lost = attempt.fate == "weak" and (bot.lost or bot.deaths_on_quest > 0)
        if lost or (attempt.fate == "settles" and required_ratio(quest, entry) >= 0.5):
            npc = quest.turn_in_npc
            doing = (
                "telling the giver it lost the fight" if lost else "settling for part of the job"
            )
            room = self.ws.room_key_of(npc) if npc is not None else None
            # Below half the job, turning in early is owning up to failure (confirmed).
            line = f"turnin {quest.quest_id}" + (" confirm" if lost else "")
            if room is None:
                return Step(line, doing)
            step = self.planner.go_to(bot, room, doing)
            return step if step is not None else Step(line, doing)
        return None

    # -- a turn ---------------------------------------------------------------------------
    async def retire_outgrown(self, seed: int) -> None:
        """A bot whose rewards lifted it more than RETIRE_ABOVE levels above its style
        no longer tests quests at the right level: its player quits and a new player
        of the same style, at the style's level, logs in."""
        for n, bot in enumerate(self.bots):
            if bot.quest_id is not None or self.level_of(bot) <= bot.style.level + RETIRE_ABOVE:
                continue
            await log_out(self.engine, bot)
            self.retired.append(bot)
            generation = (
                sum(1 for b in self.retired if b.name.split("-")[0] == bot.name.split("-")[0]) + 1
            )
            fresh = await create_bot(
                self.engine, bot.style, f"{bot.name.split('-')[0]}-{generation}", seed
            )
            fresh.idle_since = self.engine.clock.game_time
            self.bots[n] = fresh
            del self._by_uid[bot.uid]
            self._by_uid[fresh.uid] = fresh

    async def step(self) -> None:
        for bot in self.bots:
            if bot.quest_id is None:
                self.claim(bot)
            line = self.decide(bot)
            if line is not None:
                bot.commands += 1
                await self.engine.sessions.execute(bot.session, line)
            sent = bot.session.sent
            if sent:
                bot.last_output = " | ".join(sent[-3:])[-400:]
            if self.trace is not None and (line is not None or sent):
                when = self.engine.clock.game_time / GAME_HOUR
                said = " | ".join(" ".join(s.split()) for s in sent)[:600]
                self.trace.write(
                    f"{when:9.2f}h {bot.name:<15} {bot.quest_id or '-':<40} "
                    f"{line or '':<30} -> {said}\n"
                )
            sent.clear()

    def decide(self, bot: Bot) -> str | None:
        planner = self.planner
        survive = planner.survive(bot)
        # An idle bot need not stand still to heal: its idle pastime is safe enough.
        if survive is not None and (bot.quest_id is not None or survive.doing != "resting"):
            if self._quitting_a_fight(bot, survive):
                # A quitter who has had enough runs from the fight: fighting on would
                # finish the quest's foes for whoever takes the quest next.
                return "flee"
            self._note(bot, survive)
            return survive.line
        if bot.quest_id is None:
            unwanted = self.unwanted_offer(bot)
            if unwanted is not None:
                return f"decline {unwanted}"
            return planner.idle_step(bot, self.start_room, self.boards).line
        quest = self.manager.get_quest(bot.quest_id)
        entry = self.manager.entry(bot.uid, bot.quest_id)
        if quest is None:
            self._end(bot.uid, bot.quest_id, "gone", "the quest disappeared")
            return None
        if entry is None or entry.state is QuestState.AVAILABLE:
            status = self.manager.registry.status(quest.quest_id)
            if status is not None:
                self._end(bot.uid, quest.quest_id, status[0], status[1])
                return None
        if (entry is None or entry.state.terminal) and self._offers_full(bot):
            # Asking the giver with every offer slot taken would bring no offer: a
            # player turns down one they will not take first.
            unwanted = self.unwanted_offer(bot, making_room=True)
            if unwanted is not None:
                return f"decline {unwanted}"
        give_up = self._give_up(bot, entry)
        if give_up is not None:
            return self._abandon(bot, entry, give_up)
        fated = self._fated_step(bot, self._current[bot.uid], quest, entry)
        if fated is not None:
            self._note(bot, fated)
            return fated.line
        step = planner.quest_step(bot, quest, entry)
        if (
            step.line is not None
            and step.line.startswith("talk")
            and (entry is None or entry.state.terminal)
        ):
            bot.asked += 1
            if bot.asked > ASK_TIMES:
                self._not_offered(bot, quest.quest_id)
                return None
        self._note(bot, step)
        if step.blocked is not None:
            return self._abandon(bot, entry, step.blocked)
        return step.line

    def _not_offered(self, bot: Bot, quest_id: str) -> None:
        """The giver, met in person, did not offer the quest: delivery decides who
        hears of a generated quest. Not an attempt; another bot may be offered it."""
        attempt = self._current[bot.uid]
        attempt.counts = False
        qlog = self.engine.world.try_component(bot.uid, QuestLog)
        held = len(qlog.in_state(QuestState.AVAILABLE)) if qlog is not None else 0
        cap = self.generation.offer_cap(bot.uid)
        oq = self.generation.open_quest(quest_id)
        if held >= cap:
            why = f"its {held} unanswered offer(s) fill the offer cap ({cap})"
        elif oq is not None and not self.generation.would_offer_in_person(quest_id, bot.uid):
            why = (
                f"the delivery planner does not match a level {self.level_of(bot)} "
                f"{bot.style.name} to it"
            )
        else:
            why = "no offer came"
        self._end(bot.uid, quest_id, "not_offered", why)

    def _note(self, bot: Bot, step: Step) -> None:
        attempt = self._current.get(bot.uid)
        if attempt is not None:
            attempt.doing = step.doing

    def _quitting_a_fight(self, bot: Bot, survive: Step) -> bool:
        if survive.line is not None or bot.quest_id is None:
            return False
        if bot.style.gives_up_after is None or not self.engine.world.has_component(
            bot.uid, Fighting
        ):
            return False
        entry = self.manager.entry(bot.uid, bot.quest_id)
        return entry is not None and entry.state.active and self._give_up(bot, entry) is not None

    def _give_up(self, bot: Bot, entry: Any) -> str | None:
        now = self.engine.clock.game_time
        attempt = self._current[bot.uid]
        done = sorted(o for o, p in entry.objectives.items() if p.completed) if entry else []
        signature = (
            entry.state if entry else None,
            tuple(done),
            tuple(p.count for p in entry.objectives.values()) if entry else (),
        )
        if signature != bot.progress:
            bot.progress, bot.progress_at = signature, now
        quitter = bot.style.gives_up_after
        if quitter is not None and len(done) >= quitter:
            return f"gives up after {len(done)} objective(s), as quitters do"
        if bot.deaths_on_quest >= MAX_DEATHS:
            return f"died {bot.deaths_on_quest} times while: {attempt.doing}"
        if attempt.fate == "late" and entry is not None and entry.state is QuestState.IN_PROGRESS:
            return None  # it makes no progress on purpose: the quest runs out
        if now - bot.progress_at >= self.stuck_after:
            hours = (now - bot.progress_at) / GAME_HOUR
            return f"no progress for {hours:.1f} game hours while: {attempt.doing}"
        return None

    def _abandon(self, bot: Bot, entry: Any, reason: str) -> str | None:
        attempt = self._current[bot.uid]
        attempt.reason = reason
        quest_id = attempt.quest_id
        if entry is not None and entry.state.active:
            return f"abandon {quest_id} confirm"  # QuestAbandonedEvent ends the attempt
        self._end(bot.uid, quest_id, "gave_up", reason)
        return None

    def finish(self) -> None:
        """End of the run: attempts still going are unfinished, but for a bot that
        came too late on purpose and was still waiting for its quest to run out."""
        for character, attempt in list(self._current.items()):
            if attempt.fate == "late":
                self._end(
                    character,
                    attempt.quest_id,
                    "waiting_out",
                    "came too late on purpose: the quest had not run out when the simulation ended",
                )
                continue
            self._end(
                character,
                attempt.quest_id,
                "unfinished",
                f"still going when the simulation ended: {attempt.doing}",
            )
