"""CombatService: starting and ending fights, resolving attacks, applying damage.

Commands and the aggression handler only *mark* fights (a :class:`Fighting`
component on each side); :class:`~classic_rpg.combat.system.CombatSystem` calls
:meth:`CombatService.attack_round` on the tick when a fighter's round is due.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol
from uuid import UUID

from classic_rpg.characters.levels import xp_for_level
from classic_rpg.characters.posture import stand_up
from classic_rpg.combat.components import CombatRules, Fighting, Wimpy
from classic_rpg.combat.formulas import (
    ROUND_SECONDS,
    defense_of,
    level_of,
    offense_of,
    roll_damage,
    roll_hit,
)
from classic_rpg.components import CharacterStats, Health
from classic_rpg.events import (
    CombatStartedEvent,
    DamageDealtEvent,
    ProgressChangedEvent,
    VitalsChangedEvent,
)
from maid_engine.accounts.components import PlayerCharacter
from maid_engine.events import CharacterConnectedEvent, CharacterDisconnectedEvent
from maid_engine.ports import (
    ClockPort,
    EventsPort,
    RandomPort,
    ServicesPort,
    SessionsPort,
    WorldPort,
)
from maid_stdlib.world.components import NPC
from maid_stdlib.world.events import EntityDiedEvent, EntityRelocatedEvent
from maid_stdlib.world.look import name_of, render_room
from maid_stdlib.world.service import WorldService
from maid_stdlib.world.text import capitalize

if TYPE_CHECKING:
    from maid_engine.ecs import World

log = logging.getLogger("maid.rpg.combat")

#: The death rules (loot, experience, respawn, a player's recall: death.py): called
#: with the EntityDiedEvent the moment health reaches 0. A call, not a subscription:
#: queued events are delivered only after the whole system's update, and until then
#: the dead would keep fighting and loot would be rolled after later attacks.
DeathHandler = Callable[[EntityDiedEvent], None]


class CombatHost(
    WorldPort, EventsPort, ClockPort, ServicesPort, SessionsPort, RandomPort, Protocol
):
    """What combat uses: the fighters and the world index, messages to them, the
    combat events, the monotonic clock (rounds run in real seconds) and the seeded
    random source (rolls)."""


class CombatService:
    """Service: who fights whom, attacks, damage and death (the rules of what
    follows are the ``on_death`` handler given to it: death.py's).

    Tunables (instance attributes, change them after the pack registered):
    ``recall_room`` where dead players wake up (default: the world's start room),
    ``death_gold_penalty`` (0.10), ``death_health_fraction`` (0.5),
    ``flee_chance`` (0.75), ``flee_experience_cost`` (10), ``pvp`` (False: players
    cannot attack players), ``round_seconds`` (real seconds between a fighter's
    attacks; the rules plugin sets it from the ``combat_round_seconds`` setting),
    ``aggression_level_gap`` (5: hostile NPCs leave alone characters more levels
    above them than that), ``companions`` (who shares a kill's experience with its
    killer: the groups plugin installs its own), ``attack_refusals`` (more reasons
    a fight may not start: a quest's own foes are their hunter's) and
    ``aggression_filters`` (a hostile NPC jumps only whom all of them allow).
    """

    def __init__(self, engine: CombatHost, on_death: DeathHandler) -> None:
        self.engine = engine
        self.on_death = on_death
        self.recall_room: str | None = None
        self.death_gold_penalty = 0.10
        self.death_health_fraction = 0.5
        self.flee_chance = 0.75
        self.flee_experience_cost = 10
        self.pvp = False
        self.round_seconds = ROUND_SECONDS
        self.aggression_level_gap = 5
        self.companions: Callable[[UUID], list[UUID]] = lambda uid: [uid]
        #: ``refusal(attacker, target) -> reason | None``, asked after the rules' own.
        self.attack_refusals: list[Callable[[UUID, UUID], str | None]] = []
        #: ``allows(npc, victim) -> bool``: whether a hostile NPC may jump a victim.
        self.aggression_filters: list[Callable[[UUID, UUID], bool]] = []
        #: Player character -> the room they came into their room from (runtime):
        #: a flight goes back that way when it is safe.
        self._came_from: dict[UUID, str] = {}

    def now(self) -> float:
        """Real seconds on the engine's monotonic clock: fights are paced by it, not
        by game time (a time scale of 24 would give 8 rounds a real second)."""
        return self.engine.clock.monotonic()

    @property
    def world(self) -> World:
        return self.engine.world

    @property
    def ws(self) -> WorldService:
        return self.engine.services.get(WorldService)

    def name(self, uid: UUID) -> str:
        return name_of(self.ws, uid)

    # -- queries ----------------------------------------------------------------------
    def is_player(self, uid: UUID) -> bool:
        return self.world.has_component(uid, PlayerCharacter)

    def can_fight(self, uid: UUID) -> bool:
        """Alive, in the world, and (for players) connected."""
        world = self.world
        health = world.try_component(uid, Health)
        if health is None or health.current <= 0 or not world.entity_exists(uid):
            return False
        if self.is_player(uid) and not self.engine.sessions.is_online(uid):
            return False
        return self.ws.room_key_of(uid) is not None

    def attack_refusal(self, attacker: UUID, target: UUID) -> str | None:
        """Why ``attacker`` may not start a fight with ``target`` (None: it may)."""
        if target == attacker:
            return "You cannot attack yourself."
        name = self.name(target)
        if self.is_player(target) and not self.pvp:
            return f"You cannot attack other players here, and {name} is a player."
        rules = self.world.try_component(target, CombatRules)
        if not self.world.has_component(target, Health) or (
            rules is not None and not rules.attackable
        ):
            return f"{capitalize(name)} is not someone you can fight."
        if not self.can_fight(target):
            return f"{capitalize(name)} cannot fight right now."
        for refusal in self.attack_refusals:
            reason = refusal(attacker, target)
            if reason:
                return reason
        return None

    def target_of(self, uid: UUID) -> UUID | None:
        fighting = self.world.try_component(uid, Fighting)
        return fighting.target if fighting is not None else None

    def is_fighting(self, uid: UUID) -> bool:
        return self.world.has_component(uid, Fighting)

    def opponents_of(self, uid: UUID) -> list[UUID]:
        """Everyone whose target is ``uid``."""
        return [other for other, (f,) in self.world.query(Fighting) if f.target == uid]

    def valid_target(self, attacker: UUID, target: UUID | None) -> bool:
        if target is None or not self.can_fight(attacker) or not self.can_fight(target):
            return False
        return self.ws.room_key_of(attacker) == self.ws.room_key_of(target)

    # -- starting and stopping ----------------------------------------------------------
    def engage(self, attacker: UUID, target: UUID) -> bool:
        """Mark a fight: ``attacker`` strikes on the next tick; ``target`` fights back
        half a round later unless it is already fighting someone. A sleeping or
        resting target is jolted to its feet. Returns True if the attacker was not
        already fighting this target."""
        now = self.now()
        world = self.world
        current = world.try_component(attacker, Fighting)
        if current is not None and current.target == target:
            return False
        if current is None:
            world.add_component(attacker, Fighting(target, now))
        else:
            current.target = target  # switching targets does not reset the round timer
        stand_up(self.engine, attacker)
        stand_up(self.engine, target, "|rYou are jolted awake!|n")
        if not world.has_component(target, Fighting):
            world.add_component(target, Fighting(attacker, now + self.round_seconds / 2))
        self.engine.events.emit(CombatStartedEvent(attacker, target))
        return True

    def disengage(self, uid: UUID) -> None:
        """``uid`` stops fighting, and nobody fights ``uid`` any more (those who were
        switch to another opponent attacking them, or stop)."""
        world = self.world
        if world.has_component(uid, Fighting):
            world.remove_component(uid, Fighting)
        for other in self.opponents_of(uid):
            replacement = self.new_target(other, exclude=uid)
            if replacement is None:
                world.remove_component(other, Fighting)
            else:
                world.get_component(other, Fighting).target = replacement

    def new_target(self, uid: UUID, exclude: UUID | None = None) -> UUID | None:
        """Someone in ``uid``'s room still attacking it, to turn on."""
        for other in self.opponents_of(uid):
            if other != exclude and self.valid_target(uid, other):
                return other
        return None

    # -- hostility ----------------------------------------------------------------------
    def is_hostile(self, uid: UUID) -> bool:
        rules = self.world.try_component(uid, CombatRules)
        return rules is not None and rules.hostile

    def will_aggress(self, npc: UUID, victim: UUID) -> bool:
        """Whether hostile ``npc`` jumps ``victim``: as in ROM, not those far above
        its level (they are no prey for it)."""
        if not all(allows(npc, victim) for allows in self.aggression_filters):
            return False
        return level_of(self.world, victim) <= level_of(self.world, npc) + (
            self.aggression_level_gap
        )

    def aggress(self, npc: UUID, victim: UUID) -> None:
        room = self.ws.room_key_of(npc)
        if room is None or not self.engage(npc, victim):
            return
        npc_name = capitalize(self.name(npc))
        self.engine.sessions.send_to(victim, f"|r{npc_name} attacks you!|n")
        self.ws.message_room(room, f"{npc_name} attacks {self.name(victim)}!", exclude=(victim,))

    def check_aggression(self, uid: UUID, room: str) -> None:
        """``uid`` just appeared in ``room``: hostile NPCs there jump it, or, if it is
        a hostile NPC, it jumps a player there."""
        if not self.can_fight(uid):
            return
        if self.is_player(uid):
            for npc in self.ws.npcs_in(room):
                if (
                    self.is_hostile(npc)
                    and not self.is_fighting(npc)
                    and self.can_fight(npc)
                    and self.will_aggress(npc, uid)
                    and self.may_join(npc, uid)
                ):
                    self.aggress(npc, uid)
        elif self.is_hostile(uid) and not self.is_fighting(uid):
            for char in self.ws.characters_in(room):
                if (
                    self.can_fight(char)
                    and self.will_aggress(uid, char)
                    and self.may_join(uid, char)
                ):
                    self.aggress(uid, char)
                    break

    def may_join(self, npc: UUID, victim: UUID) -> bool:
        """Whether hostile ``npc`` may jump ``victim`` when others already fight them:
        a band gangs up only on someone above its level. A weaker newcomer faces one
        of them at a time (three level-2 scouts at once killed a level-1 character
        before they could type)."""
        return not self.opponents_of(victim) or level_of(self.world, victim) > level_of(
            self.world, npc
        )

    def on_relocated(self, event: EntityRelocatedEvent) -> None:
        if event.to_room is not None and self.world.entity_exists(event.entity_id):
            if event.from_room is not None and self.is_player(event.entity_id):
                self._came_from[event.entity_id] = event.from_room
            self.check_aggression(event.entity_id, event.to_room)

    def on_connected(self, event: CharacterConnectedEvent) -> None:
        room = self.ws.room_key_of(event.character_id)
        if room is not None and not event.takeover:
            self.check_aggression(event.character_id, room)

    def on_disconnected(self, event: CharacterDisconnectedEvent) -> None:
        # Offline characters are invisible and cannot act: nobody fights them.
        self._came_from.pop(event.character_id, None)
        if self.world.entity_exists(event.character_id):
            self.disengage(event.character_id)

    # -- attacks and damage ---------------------------------------------------------------
    def attack_round(self, attacker: UUID, target: UUID) -> None:
        """One attack of ``attacker`` on ``target`` (called by the CombatSystem)."""
        world = self.world
        rng = self.engine.random
        att, dfn = offense_of(world, attacker), defense_of(world, target)
        a_name, t_name = self.name(attacker), self.name(target)
        room = self.ws.room_key_of(attacker)
        send = self.engine.sessions.send_to
        if not roll_hit(rng, att, dfn):
            send(attacker, f"You miss {t_name}.")
            send(target, f"{capitalize(a_name)} misses you.")
            if room is not None:
                self.ws.message_room(
                    room, f"{capitalize(a_name)} misses {t_name}.", exclude=(attacker, target)
                )
            return
        amount = roll_damage(rng, att, dfn)
        send(attacker, f"You hit {t_name} for |y{amount}|n damage.")
        send(target, f"|r{capitalize(a_name)} hits you for {amount} damage.|n")
        if room is not None:
            self.ws.message_room(
                room, f"{capitalize(a_name)} hits {t_name}.", exclude=(attacker, target)
            )
        self.apply_damage(target, amount, attacker)

    def apply_damage(
        self,
        target: UUID,
        amount: int,
        attacker: UUID | None = None,
        damage_type: str = "physical",
    ) -> bool:
        """Take ``amount`` health from ``target`` (combat, traps, spells ...), emit
        DamageDealtEvent and VitalsChangedEvent, make it fight back, and handle its
        death. Returns True if it died."""
        health = self.world.try_component(target, Health)
        if health is None or amount <= 0 or health.current <= 0:
            return False
        health.current = max(0, health.current - amount)
        events = self.engine.events
        events.emit(
            DamageDealtEvent(attacker, target, amount, health.current, health.maximum, damage_type)
        )
        events.emit(VitalsChangedEvent(target))
        if health.current <= 0:
            self.die(target, attacker)
            return True
        stand_up(self.engine, target, "|rYou are jolted awake!|n")
        if (
            attacker is not None
            and not self.is_fighting(target)
            and self.valid_target(target, attacker)
        ):
            self.engage(target, attacker)
        wimpy = self.world.try_component(target, Wimpy)
        if (
            wimpy is not None
            and health.current < wimpy.hp
            and self.is_fighting(target)
            and self.can_fight(target)
        ):
            send = self.engine.sessions.send_to
            send(target, "|yYou are badly hurt and try to run!|n")
            for line in self.run_away(target):
                send(target, line)
        return False

    def die(self, victim: UUID, killer: UUID | None) -> None:
        """``victim`` stops fighting, EntityDiedEvent is emitted (while it still
        exists) and the death rules run at once."""
        npc = self.world.try_component(victim, NPC)
        event = EntityDiedEvent(
            entity_id=victim,
            killer_id=killer,
            room=self.ws.room_key_of(victim) or "",
            template=npc.template if npc is not None else "",
            is_player=self.is_player(victim),
            name=name_of(self.ws, victim),
        )
        self.disengage(victim)
        self.engine.events.emit(event)
        self.on_death(event)

    # -- fleeing ------------------------------------------------------------------------
    def flee(self, uid: UUID) -> str | None:
        """Try to run from the fight: back the way the runner came, else through a
        random exit; into a room where nothing hostile would jump them if there is
        such a way (someone running for their life runs out of the cave, not
        deeper into it). Returns the exit taken, or None if the attempt failed (the
        fight goes on)."""
        ws = self.ws
        room = ws.room_key_of(uid)
        if room is None:
            return None
        exits = sorted((name, t) for name, t in ws.exits_of(room).items() if ws.has_room(t))
        safe = [(name, t) for name, t in exits if not self._lies_in_wait(t, uid)]
        exits = safe or exits
        rng = self.engine.random
        if not exits or rng.random() >= self.flee_chance:
            # The failed attempt took the time of an attack.
            fighting = self.world.try_component(uid, Fighting)
            if fighting is not None:
                fighting.next_round = max(fighting.next_round, self.now()) + self.round_seconds
            return None
        back = [e for e in safe if e[1] == self._came_from.get(uid)]
        direction, target = back[0] if back else exits[rng.randrange(len(exits))]
        self.disengage(uid)
        name = capitalize(self.name(uid))
        ws.message_room(room, f"{name} flees {direction}!", exclude=(uid,))
        ws.move(uid, target, reason="flee")
        ws.message_room(target, f"{name} stumbles in, out of breath.", exclude=(uid,))
        return direction

    def _lies_in_wait(self, room: str, uid: UUID) -> bool:
        """Whether something hostile in ``room`` would jump ``uid`` coming in."""
        return any(
            self.is_hostile(npc) and self.can_fight(npc) and self.will_aggress(npc, uid)
            for npc in self.ws.npcs_in(room)
        )

    def flee_cost(self, uid: UUID) -> int:
        """Take the experience a successful flee costs a player (never below what
        their level needs: nobody loses a level by running); returns the amount."""
        stats = self.world.try_component(uid, CharacterStats)
        if stats is None or not self.is_player(uid):
            return 0
        lost = max(0, min(self.flee_experience_cost, stats.experience - xp_for_level(stats.level)))
        if lost:
            stats.experience -= lost
            self.engine.events.emit(ProgressChangedEvent(uid))
        return lost

    def run_away(self, uid: UUID) -> list[str]:
        """``flee`` and its cost, for the ``flee`` command and wimpy: the lines to
        tell the one who ran (the new room's description when it worked)."""
        direction = self.flee(uid)
        if direction is None:
            return ["|rYou try to flee, but cannot get away!|n"]
        lines = [f"|yYou flee {direction}!|n"]
        lost = self.flee_cost(uid)
        if lost:
            lines.append(f"You lose {lost} experience.")
        room = self.ws.room_key_of(uid)
        if room is not None:
            lines.append(render_room(self.ws, room, uid))
        return lines
