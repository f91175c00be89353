"""ClassicRPGContentPack: characters, combat, items and the QuestManager."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from uuid import UUID

from maid_engine.content import ContentPack, PackContext


class ClassicRPGContentPack(ContentPack):
    name = "classic_rpg"
    version = "0.1.0"
    requires = ("stdlib",)
    description = "Levels, combat, items, quests"

    def register(self, ctx: PackContext) -> None:
        from classic_rpg.consequences_glue import register_consequences_glue
        from classic_rpg.questgen import register_rpg_questgen
        from classic_rpg.questgen.wiring import register_rpg_quest_delivery
        from classic_rpg.rules import register_rules
        from classic_rpg.systems.quests import register_quests

        register_rules(ctx)
        register_quests(ctx)
        register_rpg_questgen(ctx)
        register_rpg_quest_delivery(ctx)
        register_consequences_glue(ctx)
        _connect_living_world(ctx)


def _connect_living_world(ctx: PackContext) -> None:
    """Teach the living world what combat knows: hostile NPCs are threats, and an
    NPC in a fight does not wander off on its schedule."""
    from classic_rpg.combat.components import CombatRules
    from classic_rpg.combat.service import CombatService
    from maid_stdlib.living import LivingWorld

    living = ctx.engine.services.try_get(LivingWorld)
    if living is None:
        return
    combat = ctx.service(CombatService)

    cache: list[Any] = [None, []]

    def hostiles(world: Any) -> Iterator[tuple[UUID, str]]:
        # Rebuilding the threat map walked every NPC's rules; they are set when an
        # NPC is made (World.version_of tells when any were added or removed).
        version = world.version_of(CombatRules)
        if cache[0] != version:
            cache[:] = [
                version,
                [(uid, "hostiles") for uid, rules in world.each(CombatRules) if rules.hostile],
            ]
        return iter(cache[1])

    def is_hostile(world: Any, uid: UUID) -> bool:
        rules = world.try_component(uid, CombatRules)
        return rules is not None and bool(rules.hostile)

    living.add_threat_provider(hostiles, is_hostile)
    living.movement_guards.append(lambda uid: not combat.is_fighting(uid))
