"""ClassicRPGContentPack (``classic_rpg``): the group of the RPG feature plugins.

In load order: ``classic_rpg.rules`` (characters, combat, items, dialogue),
``classic_rpg.quests`` (the QuestManager), ``classic_rpg.groups`` (follow, group,
shared experience and quest credit), ``classic_rpg.questgen`` (archetypes,
hooks, quest sink), ``classic_rpg.quest_delivery``, ``classic_rpg.consequences``
(the consequence and grounding glue), ``classic_rpg.living`` (combat seen by the
living world), ``classic_rpg.navigation`` (no recall out of a fight) and
``classic_rpg.narration`` (narrated hp bound to the character's vitals) and
``classic_rpg.shops`` (shopkeepers). See docs/architecture.md for what each
provides and requires.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from uuid import UUID

from classic_rpg.characters.bound_vitals import VitalsHp, VitalsMana
from classic_rpg.combat.components import CombatRules
from classic_rpg.combat.service import CombatService
from classic_rpg.consequences_glue import ConsequencesGluePlugin
from classic_rpg.groups.plugin import GroupsPlugin
from classic_rpg.questgen.crafting import CraftingRequestPlugin
from classic_rpg.questgen.register import RpgQuestGenPlugin
from classic_rpg.questgen.wiring import QuestDeliveryPlugin
from classic_rpg.rules import RulesPlugin
from classic_rpg.shops.register import ShopsPlugin
from classic_rpg.systems.quests import QuestManager
from classic_rpg.systems.quests.register import QuestsPlugin
from maid_engine.content import ContentPack, PackContext, PluginGroup
from maid_stdlib.living import LivingWorld
from maid_stdlib.living.register import LivingPlugin
from maid_stdlib.narration.register import NarrationPlugin
from maid_stdlib.navigation import Navigation, NavigationPlugin
from maid_stdlib.pack import StdlibContentPack
from maid_stdlib.worldstate.binding import Binders

__all__ = [
    "ClassicRPGContentPack",
    "LivingConnectionPlugin",
    "NarrationConnectionPlugin",
    "NavigationConnectionPlugin",
]


class LivingConnectionPlugin(ContentPack):
    """Teach the living world what combat and quests know: hostile NPCs are threats,
    and an NPC in a fight, or being escorted, does not wander off on its schedule."""

    name = "classic_rpg.living"
    requires = (RulesPlugin, LivingPlugin)
    description = "Hostile NPCs are the living world's threats; fighters keep their place."

    def register(self, ctx: PackContext) -> None:
        living = ctx.service(LivingWorld)
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

        living.add_threat_provider(hostiles, is_hostile, sources=(CombatRules,))
        living.movement_guards.append(lambda uid: not combat.is_fighting(uid))
        services = ctx.engine.services

        def not_escorted(uid: UUID) -> bool:
            # Someone bringing the NPC home leads; its schedule does not walk it off.
            # (The quest manager may be wired after this plugin: looked up late.)
            manager = services.try_get(QuestManager)
            return manager is None or not manager.objectives.is_escorted(uid)

        living.movement_guards.append(not_escorted)


class NavigationConnectionPlugin(ContentPack):
    """Teach navigation what combat knows: nobody recalls out of a fight."""

    name = "classic_rpg.navigation"
    requires = (RulesPlugin, NavigationPlugin)
    description = "No recall in the middle of a fight."

    def register(self, ctx: PackContext) -> None:
        combat = ctx.service(CombatService)

        def not_fighting(uid: UUID) -> str | None:
            if combat.is_fighting(uid):
                return "You cannot recall in the middle of a fight! Try 'flee' first."
            return None

        ctx.service(Navigation).recall_guards.append(not_fighting)


class NarrationConnectionPlugin(ContentPack):
    """Teach narrated rooms what a character is: ``bind: vitals.hp`` makes a
    narrated hp the character's own hit points."""

    name = "classic_rpg.narration"
    requires = (RulesPlugin, NarrationPlugin)
    description = "Narrated rooms may bind hp to the character's vitals (vitals.hp)."

    def register(self, ctx: PackContext) -> None:
        ctx.service(Binders).register(VitalsHp(ctx.engine))
        ctx.service(Binders).register(VitalsMana(ctx.engine))


class ClassicRPGContentPack(PluginGroup):
    name = "classic_rpg"
    version = "0.1.0"
    requires = (StdlibContentPack,)
    description = "Levels, combat, items, quests"
    # The order is the order handlers subscribe in (systems go by their phases).
    plugins = (
        RulesPlugin,
        QuestsPlugin,
        GroupsPlugin,
        RpgQuestGenPlugin,
        QuestDeliveryPlugin,
        ConsequencesGluePlugin,
        LivingConnectionPlugin,
        NavigationConnectionPlugin,
        NarrationConnectionPlugin,
        ShopsPlugin,
        CraftingRequestPlugin,
    )
