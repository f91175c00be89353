"""CombatSystem: resolves the rounds of every fight on the tick."""

from __future__ import annotations

from classic_rpg.characters.vitals import RegenSystem
from classic_rpg.combat.components import Fighting
from classic_rpg.combat.formulas import ROUND_SECONDS
from classic_rpg.combat.service import CombatService
from maid_engine.ecs import System


class CombatSystem(System):
    """Each fighter attacks once per ``ROUND_SECONDS`` game seconds.

    A fighter whose target is gone (dead, fled, walked out, disconnected) turns on
    someone else still attacking it in the room, or stops fighting.
    """

    phase = "combat"
    after = (RegenSystem,)

    async def update(self, delta: float) -> None:
        combat = self.engine.services.get(CombatService)
        world = self.world
        send = self.engine.sessions.send_to
        now = self.engine.clock.game_time
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
                    continue
                fighting.target = replacement
            if fighting.next_round > now:
                continue
            fighting.next_round = now + ROUND_SECONDS
            assert fighting.target is not None
            combat.attack_round(uid, fighting.target)
