"""A quest's own foes: kill objectives fitted to the character who accepted.

The foes a generated quest names are shared world entities: levelling them to
one character would change the quest for everyone else in the same place. So a
quest fitted to a character (per-character difficulty) may carry a
:class:`FoeSpec` per counted kill objective (``QuestEntry.foes``): the quest
spawns that many foes of the template for that character, at the fitted level,
in the objective's room. They are the character's quarry:

* one's quarry counts for the objective it was spawned for (a companion's kill
  too where the quest shares credit) and for no one else's quest; the world's
  foes of the kind still count, since they are the real threat the quest is about;
* they attack only their hunter and the hunter's group, and nobody else may
  attack them;
* they never respawn and carry nothing (what their loot table rolls still drops);
* they are runtime entities (``persistent=False``): a checkpoint never writes them,
  so a crash or a restart cannot leave them behind. The quest's entry keeps the
  spec, so the foes still owed come back when the hunter logs in again;
* they go away when the quest ends (any way) or the hunter leaves the game, and a
  periodic sweep removes any whose hunter is not on that quest any more.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol
from uuid import UUID

from classic_rpg.combat.components import CombatProfile, CombatRules, Fighting
from classic_rpg.components import CharacterStats, Health
from classic_rpg.items.factory import ItemFactory
from classic_rpg.systems.quests.models import Quest
from classic_rpg.systems.quests.questlog import FoeSpec, QuestEntry, QuestLog
from maid_engine.ecs import Component
from maid_engine.ports import SessionsPort, WorldPort
from maid_stdlib.text import counted
from maid_stdlib.text.place import located, place_phrase
from maid_stdlib.world.components import Describable, SeenAs
from maid_stdlib.world.extensions import ExtensionHost
from maid_stdlib.world.look import name_of
from maid_stdlib.world.service import WorldService
from maid_stdlib.world.spawner import spawn_template
from maid_stdlib.world.text import capitalize, join_words

__all__ = ["FoeSpec", "QuestFoe", "QuestFoes", "fitted_level", "rescale"]

log = logging.getLogger("maid.rpg.quests")

#: The keyword every quarry answers to ("kill quarry").
QUARRY = "quarry"


@dataclass
class QuestFoe(Component):
    """This NPC is ``owner``'s quarry for ``objective_id`` of ``quest_id``. Runtime
    only, on a runtime-only entity."""

    component_name = "QuestFoe"
    persist = False
    quest_id: str = ""
    objective_id: str = ""
    owner: UUID | None = None


def fitted_level(base: int, rated: int, low_factor: float, high_factor: float) -> int:
    """A foe of level ``base`` fitted to characters rated at level ``rated``, kept
    within ``base * low_factor`` .. ``base * high_factor`` (the archetype's bounds
    on the quest's work: the same quest never turns into another tier's)."""
    low = max(1, math.floor(base * low_factor))
    high = max(base, math.ceil(base * high_factor))
    return min(high, max(low, rated))


def rescale(engine: WorldPort, uid: UUID, level: int) -> None:
    """Make NPC ``uid`` a level ``level`` one: its health, damage, experience value
    and gold move in proportion to the level (armour stays: it is what it wears)."""
    world = engine.world
    stats = world.try_component(uid, CharacterStats)
    if stats is None:
        world.add_component(uid, CharacterStats(level=level))
        return
    base = max(1, stats.level)
    if base == level:
        return
    ratio = level / base
    stats.level = level
    stats.gold = max(0, round(stats.gold * ratio))
    health = world.try_component(uid, Health)
    if health is not None:
        health.maximum = max(1, round(health.maximum * ratio))
        health.current = health.maximum
    profile = world.try_component(uid, CombatProfile)
    if profile is not None:
        profile.damage_min = max(1, round(profile.damage_min * ratio))
        profile.damage_max = max(profile.damage_min, round(profile.damage_max * ratio))
        profile.xp_value = max(1, round(profile.xp_value * ratio))


class QuestFoesHost(ExtensionHost, SessionsPort, Protocol):
    """What the quest's foes use: the world and its index, the item factory (what a
    foe carries), lines to the hunter and the relocation events."""


class QuestFoes:
    """Spawns, tracks and removes the quests' own foes."""

    def __init__(self, engine: QuestFoesHost) -> None:
        self.engine = engine
        #: Foe -> its tag, kept after the foe is destroyed until its death was
        #: counted (a dead NPC is gone before its EntityDiedEvent is dispatched).
        self._tags: dict[UUID, QuestFoe] = {}
        #: Who a character hunts with (the groups plugin installs its own): those
        #: a quarry attacks and who may attack it.
        self.party_of: Callable[[UUID], list[UUID]] = lambda uid: [uid]
        #: Destroyed foes whose tags the last sweep saw (dropped at the next).
        self._gone_before: set[UUID] = set()

    @property
    def ws(self) -> WorldService:
        return self.engine.services.get(WorldService)

    # -- what others ask ------------------------------------------------------------------
    def tag_of(self, npc: UUID) -> QuestFoe | None:
        return self._tags.get(npc)

    def forget(self, npc: UUID) -> None:
        """A dead foe's kill was counted: drop its tag."""
        if not self.engine.world.entity_exists(npc):
            self._tags.pop(npc, None)

    def foes_of(self, owner: UUID, quest_id: str | None = None) -> list[UUID]:
        """``owner``'s living quarry (of one quest, or all)."""
        exists = self.engine.world.entity_exists
        return [
            uid
            for uid, tag in self._tags.items()
            if tag.owner == owner and (quest_id is None or tag.quest_id == quest_id) and exists(uid)
        ]

    def hunts(self, npc: UUID, victim: UUID) -> bool:
        """Whether ``npc`` may jump ``victim``: a quarry only its hunter's party."""
        tag = self._tags.get(npc)
        return tag is None or tag.owner is None or victim in self._party(tag.owner)

    def attack_refusal(self, attacker: UUID, target: UUID) -> str | None:
        """Someone else's quarry is not yours to fight."""
        tag = self._tags.get(target)
        if tag is None or tag.owner is None or attacker in self._party(tag.owner):
            return None
        hunter = capitalize(name_of(self.ws, tag.owner))
        return f"{capitalize(name_of(self.ws, target))} is {hunter}'s quarry, not yours."

    def _party(self, owner: UUID) -> list[UUID]:
        party = self.party_of(owner)
        return party if owner in party else [owner, *party]

    # -- spawning -------------------------------------------------------------------------
    def spawn(self, owner: UUID, quest: Quest, entry: QuestEntry) -> list[UUID]:
        """Bring ``owner``'s foes still owed for ``quest`` (its fitted copy) into the
        world: per spec, the objective's count less the kills made and the foes
        alive. Returns the new foes."""
        if not entry.foes or not entry.state.active:
            return []
        alive: dict[str, int] = {}
        for uid in self.foes_of(owner, quest.quest_id):
            objective = self._tags[uid].objective_id
            alive[objective] = alive.get(objective, 0) + 1
        made: list[UUID] = []
        for objective_id, spec in entry.foes.items():
            o = quest.objective(objective_id)
            progress = entry.objectives.get(objective_id)
            if o is None or progress is None or progress.completed or progress.failed:
                continue
            owed = o.target_count - progress.count - alive.get(objective_id, 0)
            for _ in range(max(0, owed)):
                foe = self._spawn_one(owner, quest.quest_id, objective_id, spec)
                if foe is None:
                    break
                made.append(foe)
        return made

    def _spawn_one(
        self, owner: UUID, quest_id: str, objective_id: str, spec: FoeSpec
    ) -> UUID | None:
        ws = self.ws
        if not ws.has_room(spec.room):
            log.warning("quest %s: no room %r for its foes", quest_id, spec.room)
            return None
        try:
            # The id from the engine's seeded random: a foe's id shows in what the
            # game reports (an invalidation's detail), and a seed must replay alike.
            uid = spawn_template(
                self.engine,
                spec.template,
                None,
                kind="npc",
                persistent=False,
                entity_id=UUID(int=self.engine.random.getrandbits(128), version=4),
            )
        except LookupError:
            log.warning("quest %s: no NPC template %r for its foes", quest_id, spec.template)
            return None
        world = self.engine.world
        items = self.engine.services.try_get(ItemFactory)
        if items is not None:
            for item in items.all_items(uid):
                # Items are persistent entities: none may be held by a runtime one.
                items.destroy(item)
        rules = world.try_component(uid, CombatRules)
        if rules is not None:
            rules.respawn = None
            rules.attackable = True
        rescale(self.engine, uid, spec.level)
        tag = QuestFoe(quest_id=quest_id, objective_id=objective_id, owner=owner)
        self._tags[uid] = tag
        world.add_component(uid, tag)
        desc = world.try_component(uid, Describable)
        hunter = capitalize(name_of(ws, owner))
        if desc is not None:
            desc.short = f"{capitalize(desc.name)} is here, hunted by {hunter}."
            desc.keywords = [*desc.keywords, QUARRY]
            world.modified(uid, desc)
            # The hunter reads it as theirs, not as someone else's.
            mine = f"{capitalize(desc.name)} is here: your quarry."
            world.add_component(uid, SeenAs(lines={owner: mine}))
        ws.place(uid, spec.room, reason="quest")
        ws.message_room(spec.room, f"{capitalize(name_of(ws, uid))} arrives.", exclude=(uid,))
        return uid

    def summary(self, foes: list[UUID]) -> str:
        """One line for the hunter: what of their quarry stands where."""
        ws, world = self.ws, self.engine.world
        groups: dict[tuple[str, int, str], int] = {}
        for uid in foes:
            desc = world.try_component(uid, Describable)
            stats = world.try_component(uid, CharacterStats)
            key = (
                desc.name if desc is not None else "a foe",
                stats.level if stats is not None else 1,
                ws.room_key_of(uid) or "",
            )
            groups[key] = groups.get(key, 0) + 1
        parts = []
        for (name, level, room), count in groups.items():
            where = ws.room(room)
            area_key = ws.area_of(room) if where else None
            area = ws.area(area_key) if area_key else None
            prose = (
                located(place_phrase(where.name, area.name if area else ""))
                if where
                else f"at {room}"
            )
            parts.append(f"{counted(count, name)} of level {level} {prose}")
        return (
            f"Your quarry: {join_words(parts)}. Yours alone to hunt ('kill quarry'); "
            "the others of the kind count too."
        )

    # -- removing ---------------------------------------------------------------------------
    def despawn(self, owner: UUID, quest_id: str | None = None) -> int:
        """Remove ``owner``'s living quarry (of one quest, or all). Returns how many."""
        foes = self.foes_of(owner, quest_id)
        for uid in foes:
            self._remove(uid)
        return len(foes)

    def _remove(self, uid: UUID) -> None:
        world = self.engine.world
        self._tags.pop(uid, None)
        if not world.entity_exists(uid):
            return
        for other, (fighting,) in list(world.query(Fighting)):
            if fighting.target == uid:
                world.remove_component(other, Fighting)
        room = self.ws.remove_from_world(uid, reason="quest")
        if room is not None:
            self.ws.message_room(room, f"{capitalize(name_of(self.ws, uid))} slips away.")
        world.destroy_entity(uid)

    def sweep(self, online: Callable[[UUID], bool]) -> int:
        """Remove every quarry whose hunter is offline or no longer on its quest
        (a safety net behind the event-driven clean-up). Returns how many."""
        world = self.engine.world
        gone = [uid for uid in self._tags if not world.entity_exists(uid)]
        stale: list[UUID] = []
        for uid, tag in list(self._tags.items()):
            if uid in gone or tag.owner is None:
                continue
            qlog = world.try_component(tag.owner, QuestLog)
            entry = qlog.entry(tag.quest_id) if qlog is not None else None
            if not online(tag.owner) or entry is None or not entry.state.active:
                stale.append(uid)
        for uid in stale:
            self._remove(uid)
        # A foe destroyed by other means (an admin's purge) leaves its tag: drop it
        # once a sweep has seen it gone twice, when its death was surely counted.
        for uid in self._gone_before & set(gone):
            self._tags.pop(uid, None)
        self._gone_before = set(gone)
        return len(stale)
