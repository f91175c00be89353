"""What a bot types next: staying alive, working on a quest, or passing the time.

Bots read the world to decide (where an NPC stands, what their quest log says, how
hurt they are), as a player reads the screen; every action is a command line. One
line per tick at most: a step through an exit, one ``kill``, one ``talk``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol
from uuid import UUID

from classic_rpg.combat.components import CombatRules, Fighting, LootTable, PendingRespawn
from classic_rpg.combat.death import can_drop
from classic_rpg.components import Health
from classic_rpg.items.components import ItemStats
from classic_rpg.items.factory import ItemFactory
from classic_rpg.simulate.bots import LOSES_BELOW, OTHER_CHOICE
from classic_rpg.systems.quests.models import Quest, QuestObjective
from classic_rpg.systems.quests.questlog import QuestEntry
from maid_engine.accounts.components import PlayerCharacter
from maid_engine.ecs import Component
from maid_engine.ports import ServicesPort, WorldPort
from maid_stdlib.questgen.vocabulary import ObjectiveType, QuestState
from maid_stdlib.world.components import NPC, Item
from maid_stdlib.world.look import name_of
from maid_stdlib.world.service import WorldService

if TYPE_CHECKING:
    from classic_rpg.simulate.bots import Bot

__all__ = ["Planner", "Step"]

T = ObjectiveType
_NPC_KINDS: tuple[type[Component], ...] = (NPC, PlayerCharacter)
_ITEM_KINDS: tuple[type[Component], ...] = (Item,)
#: Health share a bot heals up to before it starts a fight (players rest first too).
ENGAGE_AT = 0.9


@dataclass(frozen=True)
class Step:
    """The next command (None: wait a tick), what it is for, and, when the bot cannot
    go on at all, why."""

    line: str | None
    doing: str
    blocked: str | None = None


class PlannerHost(WorldPort, ServicesPort, Protocol):
    """What the planner reads: the world, the world service and the items."""


class Planner:
    """``options(quest_id, objective_id)``: how many options the decision behind a
    CUSTOM objective offers (what ``choose`` would list; 0: it is no decision)."""

    def __init__(self, engine: PlannerHost, options: Callable[[str, str], int]) -> None:
        self.engine = engine
        self.options = options
        self.world = engine.world
        self.ws = engine.services.get(WorldService)
        self.items = engine.services.get(ItemFactory)

    # -- where things are --------------------------------------------------------------
    def here(self, bot: Bot) -> str | None:
        return self.ws.room_key_of(bot.uid)

    def alive(self, uid: UUID) -> bool:
        if not self.world.entity_exists(uid):
            return False
        health = self.world.try_component(uid, Health)
        return health is None or health.current > 0

    def distance(self, start: str | None, room: str | None) -> int | None:
        if start is None or room is None:
            return None
        path = self.ws.path(start, room)
        return None if path is None else len(path)

    def nearest(self, bot: Bot, candidates: list[UUID]) -> UUID | None:
        """The closest live, placed candidate (ties: room key, then listing order)."""
        here = self.here(bot)
        best: tuple[int, str, int, UUID] | None = None
        for n, uid in enumerate(candidates):
            room = self.ws.room_key_of(uid)
            dist = self.distance(here, room) if self.alive(uid) else None
            if dist is None or room is None:
                continue
            key = (dist, room, n, uid)
            if best is None or key[:3] < best[:3]:
                best = key
        return best[3] if best else None

    def npcs(self, template: str | None = None, keyword: str | None = None) -> list[UUID]:
        out = []
        for uid, npc in self.world.each(NPC):
            if template is not None and npc.template != template:
                continue
            if keyword is not None and not self.ws.matches(uid, [keyword.lower()]):
                continue
            out.append(uid)
        return out

    def phrase(self, bot: Bot, target: UUID, kinds: tuple[type[Component], ...]) -> str | None:
        """What to type to name ``target`` in the bot's room ("scout", "2.scout"),
        counted the way ``WorldService.find_in_room`` counts."""
        room = self.here(bot)
        if room is None or self.ws.room_key_of(target) != room:
            return None
        has = self.world.has_component
        for keyword in self.ws.keywords_of(target):
            ordinal = 0
            for uid in self.ws.contents(room):
                if uid == bot.uid or not any(has(uid, k) for k in kinds):
                    continue
                if self.ws.matches(uid, [keyword]) and self.ws.is_visible(uid, bot.uid):
                    ordinal += 1
                    if uid == target:
                        return keyword if ordinal == 1 else f"{ordinal}.{keyword}"
        return None

    def carried_phrase(self, bot: Bot, item: UUID) -> str | None:
        """What to type to name ``item`` among what the bot carries ("seam",
        "2.ore"): the first keyword of a seam ore would name the iron ore carried
        before it, which the one it is for turns down."""
        carried = self.items.carried(bot.uid)
        for keyword in self.ws.keywords_of(item):
            ordinal = 0
            for uid in carried:
                if self.ws.matches(uid, [keyword]):
                    ordinal += 1
                    if uid == item:
                        return keyword if ordinal == 1 else f"{ordinal}.{keyword}"
        return None

    def hostile_in(self, room: str) -> bool:
        for uid in self.ws.npcs_in(room):
            rules = self.world.try_component(uid, CombatRules)
            if rules is not None and rules.hostile and self.alive(uid):
                return True
        return False

    # -- moving and meeting ------------------------------------------------------------
    def go_to(
        self, bot: Bot, room: str, doing: str, *, avoid_hostiles: bool = False
    ) -> Step | None:
        """One step towards ``room`` (None: already there). Hostiles attack whoever
        walks in, so the bot heals up before a step into their room; with
        ``avoid_hostiles`` (an errand of its own, no quest) it does not step in."""
        here = self.here(bot)
        if here == room:
            return None
        path = self.ws.path(here, room) if here is not None else None
        if not path:
            return Step(None, doing, blocked=f"no way from {here} to {room}")
        ahead = self.ws.exits_of(here or "").get(path[0])
        if ahead is not None and avoid_hostiles and self.hostile_in(ahead):
            return Step(None, doing, blocked=f"hostiles in {ahead}")
        if ahead is not None and self.hostile_in(ahead) and not self.fit_to_fight(bot):
            return Step(None, "resting before a fight")
        return Step(f"go {path[0]}", doing)

    def fit_to_fight(self, bot: Bot) -> bool:
        if bot.over_reaching:
            return True  # it does not think it needs to rest first
        health = self.world.try_component(bot.uid, Health)
        return health is None or health.current >= ENGAGE_AT * health.maximum

    def meet(self, bot: Bot, npc: UUID, verb: str, doing: str, suffix: str = "") -> Step:
        """Walk to ``npc`` and ``verb`` it (``talk``, ``kill``)."""
        room = self.ws.room_key_of(npc)
        if room is None or not self.alive(npc):
            return Step(None, doing, blocked=f"{self.name(npc)} is gone")
        step = self.go_to(bot, room, doing)
        if step is not None:
            return step
        phrase = self.phrase(bot, npc, _NPC_KINDS)
        if phrase is None:
            return Step(None, doing)  # not visible yet (it may be leaving): look again
        if verb == "kill" and not self.fit_to_fight(bot):
            return Step(None, "resting before a fight")
        return Step(f"{verb} {phrase}{suffix}", doing)

    def name(self, uid: UUID | None) -> str:
        return (
            name_of(self.ws, uid)
            if uid is not None and self.world.entity_exists(uid)
            else "someone"
        )

    # -- staying alive -----------------------------------------------------------------
    def potion(self, bot: Bot) -> str | None:
        for item in self.items.carried(bot.uid):
            stats = self.world.try_component(item, ItemStats)
            if stats is not None and stats.heal > 0:
                words = self.ws.keywords_of(item)
                if words:
                    return words[0]
        return None

    def survive(self, bot: Bot) -> Step | None:
        """Fight on, drink, flee or rest; None when the bot is fit to act."""
        health = self.world.try_component(bot.uid, Health)
        if health is None or health.maximum <= 0:
            return None
        share = health.current / health.maximum
        if bot.over_reaching:
            # Too weak for its quest and sure it is not: no rest, no potion; beaten
            # down to half its health, it knows it has lost the fight and runs.
            if not self.world.has_component(bot.uid, Fighting):
                return None
            if share < LOSES_BELOW:
                bot.over_reaching, bot.lost = False, True
                return Step("flee", "losing the fight")
            return Step(None, "fighting beyond its strength")
        if self.world.has_component(bot.uid, Fighting):
            if share < bot.style.flee_below:
                potion = self.potion(bot)
                return Step(f"drink {potion}" if potion else "flee", "saving its skin")
            return Step(None, "fighting")
        if share < bot.style.rest_below:
            return Step(None, "resting")
        return None

    # -- quests --------------------------------------------------------------------------
    def open_objectives(self, bot: Bot, quest: Quest, entry: QuestEntry) -> list[QuestObjective]:
        out = []
        for o in quest.objectives:
            progress = entry.objectives.get(o.objective_id)
            if progress is None or not progress.open:
                continue
            if not o.required and not bot.style.optional:
                continue
            if o.objective_type in (T.PROTECT, T.TIMED) and quest.watched(o):
                continue  # completes with the objectives it watches
            out.append(o)
        out.sort(key=lambda o: (not o.required, o.order))
        return out

    def quest_step(self, bot: Bot, quest: Quest, entry: QuestEntry | None) -> Step:
        giver = quest.giver_npc_id
        if entry is None or entry.state.terminal:
            if giver is None:
                return Step(None, "looking for the quest", blocked="the quest has no giver")
            return self.meet(bot, giver, "talk", f"asking {self.name(giver)} for the quest")
        if entry.state is QuestState.AVAILABLE:
            return Step(f"accept {quest.quest_id}", "accepting the quest")
        todo = self.open_objectives(bot, quest, entry)
        if entry.state is QuestState.COMPLETED and not todo:
            npc = quest.turn_in_npc
            if npc is None:
                return Step("turnin", "turning the quest in")
            return self.meet(bot, npc, "talk", f"turning the quest in to {self.name(npc)}")
        if not todo:
            return Step(None, "waiting for the quest to move on")
        return self.objective_step(bot, quest, todo[0])

    def objective_step(self, bot: Bot, quest: Quest, o: QuestObjective) -> Step:
        doing = o.description
        t = o.objective_type
        if t is T.VISIT:
            assert o.destination_room_id is not None
            step = self.go_to(bot, o.destination_room_id, doing)
            if step is not None:
                return step
            # Standing there already: the visit counts on arrival, so step out and back.
            exits = sorted(self.ws.exits_of(o.destination_room_id))
            return Step(f"go {exits[0]}", doing) if exits else Step(None, doing)
        if t is T.TALK:
            npc = o.target_id or self.nearest(bot, self.npcs(o.target_template))
            if npc is None:
                return Step(None, doing, blocked=f"nobody to talk to for '{doing}'")
            if self.world.has_component(npc, PlayerCharacter):
                # ``talk`` refuses players: the quest asks for something no one can do.
                return Step(
                    None,
                    doing,
                    blocked=f"'{doing}' asks to talk to a player "
                    f"character ({self.name(npc)}), not an NPC",
                )
            return self.meet(bot, npc, "talk", doing)
        if t is T.KILL:
            return self.kill_step(bot, o, doing)
        if t in (T.COLLECT, T.DELIVER):
            return self.item_step(bot, o, doing)
        if t is T.ESCORT:
            assert o.target_id is not None
            assert o.destination_room_id is not None
            if self.ws.room_key_of(o.target_id) != self.here(bot):
                return self.meet(bot, o.target_id, "look", doing)
            step = self.go_to(bot, o.destination_room_id, doing)
            return step if step is not None else Step(None, doing)
        if t is T.PROTECT:
            assert o.target_id is not None
            room = self.ws.room_key_of(o.target_id)
            step = self.go_to(bot, room, doing) if room is not None else None
            return step if step is not None else Step(None, doing)
        if t is T.CUSTOM:
            count = self.options(quest.quest_id, o.objective_id)
            if count < 1:
                return Step(None, doing, blocked=f"'{doing}' is not a decision a player can make")
            return Step(f"choose {quest.quest_id} {self.choice(bot, quest, o, count)}", doing)
        return Step(None, doing, blocked=f"no way to do a {t.value} objective")

    @staticmethod
    def choice(bot: Bot, quest: Quest, o: QuestObjective, count: int) -> int:
        """The option the bot picks at a decision of ``count`` options: its style's,
        or one time in OTHER_CHOICE another, drawn once from its fate source (so
        each seed has its own choices, the same on every run)."""
        key = (quest.quest_id, o.objective_id)
        if key not in bot.choices:
            own = count if bot.style.choice == 0 else min(bot.style.choice, count)
            others = [n for n in range(1, count + 1) if n != own]
            rng = bot.fate_rng
            bot.choices[key] = (
                rng.choice(others) if others and rng.randrange(OTHER_CHOICE) == 0 else own
            )
        return bot.choices[key]

    def kill_step(self, bot: Bot, o: QuestObjective, doing: str) -> Step:
        if o.target_id is not None:
            targets = [o.target_id] if self.alive(o.target_id) else []
        else:
            targets = self.npcs(o.target_template, o.target_keyword)
        target = self.nearest(bot, targets)
        if target is None:
            if self._respawning(o):
                return Step(None, f"{doing} (waiting for a respawn)")
            return Step(None, doing, blocked=f"nothing left alive to {doing.lower()}")
        return self.meet(bot, target, "kill", doing)

    def _respawning(self, o: QuestObjective) -> bool:
        if o.target_template is None:
            return False
        return any(p.template == o.target_template for _, p in self.world.each(PendingRespawn))

    def item_step(self, bot: Bot, o: QuestObjective, doing: str) -> Step:
        template = o.item_template or ""
        carried = [i for i in self.items.carried(bot.uid) if self.items.template_of(i) == template]
        if o.objective_type is T.DELIVER and carried:
            recipient = o.target_id or self.nearest(bot, self.npcs(o.target_template))
            if recipient is None:
                return Step(None, doing, blocked="nobody to deliver to")
            what = self.carried_phrase(bot, carried[0])
            return self.meet(bot, recipient, f"give {what or 'it'} to", doing)
        lying = [
            uid
            for uid, item in self.world.each(Item)
            if item.template == template and self.ws.room_key_of(uid) is not None
        ]
        found = self.nearest(bot, lying)
        if found is not None:
            step = self.go_to(bot, self.ws.room_key_of(found) or "", doing)
            if step is not None:
                return step
            phrase = self.phrase(bot, found, _ITEM_KINDS)
            return Step(f"get {phrase}" if phrase else None, doing)
        droppers = [
            uid
            for uid, table in self.world.each(LootTable)
            if any(can_drop(e, template, self.items) for e in table.entries)
        ]
        dropper = self.nearest(bot, droppers)
        if dropper is not None:
            return self.meet(bot, dropper, "kill", f"{doing} (from {self.name(dropper)})")
        return Step(None, doing, blocked=f"no {template} to be had")

    # -- no quest ------------------------------------------------------------------------
    def idle_step(self, bot: Bot, start_room: str | None, boards: list[str]) -> Step:
        here = self.here(bot)
        idle = bot.style.idle
        bot.idle_ticks += 1
        if here is None:
            return Step(None, "nowhere")
        if idle == "wander":
            return self._wander(bot, here)
        if idle == "chat" and bot.idle_ticks % 5 == 0:
            talkable = [u for u in self.ws.npcs_in(here) if self.alive(u) and not self._hostile(u)]
            if talkable:
                npc = talkable[bot.rng.randrange(len(talkable))]
                phrase = self.phrase(bot, npc, _NPC_KINDS)
                if phrase:
                    return Step(f"talk {phrase}", "chatting")
            return self._wander(bot, here)
        if idle == "board" and boards:
            step = self.go_to(bot, boards[0], "going to the notice board", avoid_hostiles=True)
            if step is not None:
                return step
            if bot.idle_ticks % 30 == 0:
                return Step("read board", "reading the notice board")
            return Step(None, "waiting by the board")
        if start_room is not None:
            # A bot with no quest keeps out of fights: killing a quest's foes on the
            # way home would take the quest from whoever is doing it.
            step = self.go_to(bot, start_room, "going home to rest", avoid_hostiles=True)
            if step is not None and step.blocked is None:
                return step
        return Step(None, "resting")

    def _hostile(self, uid: UUID) -> bool:
        rules = self.world.try_component(uid, CombatRules)
        return rules is not None and rules.hostile

    def _wander(self, bot: Bot, here: str) -> Step:
        exits = sorted(self.ws.exits_of(here).items())
        safe = [
            (name, room)
            for name, room in exits
            if self.ws.has_room(room) and not self.hostile_in(room)
        ]
        if not safe:
            return Step(None, "wandering")
        fresh = [e for e in safe if e[1] not in bot.visited[-6:]] or safe
        name, room = fresh[bot.rng.randrange(len(fresh))]
        bot.visited.append(room)
        del bot.visited[:-12]
        return Step(f"go {name}", "wandering")
