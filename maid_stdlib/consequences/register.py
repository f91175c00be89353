"""ConsequencesPlugin (``stdlib.consequences``): the consequence layer of an engine."""

from __future__ import annotations

from maid_engine.content import ContentPack, PackContext
from maid_stdlib.consequences.chains import CHAINS_COLLECTION
from maid_stdlib.consequences.sidetable import (
    BRANCH_CHOICES_COLLECTION,
    BranchChoices,
    GeneratedQuestIndex,
)
from maid_stdlib.consequences.system import AUDIT_COLLECTION, ConsequenceSystem
from maid_stdlib.living.register import LivingPlugin
from maid_stdlib.living.service import LivingWorld
from maid_stdlib.questgen.register import GENERATED_QUESTS_COLLECTION, QuestGen, QuestGenPlugin

__all__ = ["ConsequencesPlugin"]


class ConsequencesPlugin(ContentPack):
    """Provide ``ConsequenceSystem`` (whose ``chain_rules`` packs add to),
    ``GeneratedQuestIndex`` (shared with the grounding monitor) and
    ``BranchChoices``, declare ``quest_consequences``, ``quest_branch_choices`` and
    ``quest_chains``, and add the ConsequenceSystem (phase consequences)."""

    name = "stdlib.consequences"
    requires = (LivingPlugin, QuestGenPlugin)
    provides = (ConsequenceSystem, GeneratedQuestIndex, BranchChoices)
    description = "Consequences of finished quests on the living world, and chains."

    def register(self, ctx: PackContext) -> None:
        index = GeneratedQuestIndex(ctx.engine)
        ctx.provide(GeneratedQuestIndex, index)
        choices = BranchChoices(ctx.engine)
        ctx.provide(BranchChoices, choices)
        system = ConsequenceSystem(ctx.service(QuestGen), ctx.service(LivingWorld), index, choices)
        ctx.provide(ConsequenceSystem, system)
        ctx.add_registry(system.chain_rules.claims)
        for name in (
            AUDIT_COLLECTION,
            BRANCH_CHOICES_COLLECTION,
            GENERATED_QUESTS_COLLECTION,
            CHAINS_COLLECTION,
        ):
            ctx.ensure_collection(name)
        ctx.add_system(system)
