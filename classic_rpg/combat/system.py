"""CombatSystem: resolves the rounds of every fight on the tick."""

from __future__ import annotations

from uuid import UUID

from classic_rpg.characters.vitals import RegenSystem
from classic_rpg.combat.components import Fighting
from classic_rpg.combat.service import CombatService
from maid_engine.ecs import System


class CombatSystem(System):
    """Each fighter attacks once per ``CombatService.round_seconds`` real seconds
    (the engine's monotonic clock, which a test's manual clock steps).

    A fighter whose target is gone (dead, fled, walked out, disconnected) turns on
    someone else still attacking it in the room, or stops fighting. Everyone who
    struck or was struck gets a fresh prompt after the tick's rounds, so a player
    sees their health fall as the fight goes on.
    """

    phase = "combat"
    after = (RegenSystem,)

    async def update(self, delta: float) -> None:
        combat = self.engine.services.get(CombatService)
        world = self.world
        send = self.engine.sessions.send_to
        now = combat.now()
        involved: set[UUID] = set()
        for uid, (fighting,) in world.query(Fighting):
            # An earlier attack this tick may have ended or changed this fight.
            if world.try_component(uid, Fighting) is not fighting or not world.entity_exists(uid):
                continue
            if not combat.valid_target(uid, fighting.target):
                replacement = combat.new_target(uid) if combat.can_fight(uid) else None
                if replacement is None:
                    world.remove_component(uid, Fighting)
                    if fighting.target is not None and world.entity_exists(fighting.target):
                        send(uid, f"You are no longer fighting {combat.name(fighting.target)}.")
                        involved.add(uid)
                    continue
                fighting.target = replacement
            if fighting.next_round > now:
                continue
            fighting.next_round = now + combat.round_seconds
            assert fighting.target is not None
            involved.update((uid, fighting.target))
            combat.attack_round(uid, fighting.target)
        self._prompt(involved)

    def _prompt(self, involved: set[UUID]) -> None:
        sessions = self.engine.sessions
        for uid in involved:
            session = sessions.session_for(uid)
            if session is not None and session.connected:
                sessions.prompt(session)
