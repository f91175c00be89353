"""ClassicRPGContentPack: characters, combat, items and the QuestManager."""

from __future__ import annotations

from maid_engine.content import ContentPack, PackContext


class ClassicRPGContentPack(ContentPack):
    name = "classic_rpg"
    version = "0.1.0"
    requires = ("stdlib",)
    description = "Levels, combat, items, quests"

    def register(self, ctx: PackContext) -> None:
        from classic_rpg.questgen import register_rpg_questgen
        from classic_rpg.rules import register_rules
        from classic_rpg.systems.quests import register_quests

        register_rules(ctx)
        register_quests(ctx)
        register_rpg_questgen(ctx)
