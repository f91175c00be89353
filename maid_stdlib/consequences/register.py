"""``register_consequences(ctx)``: the consequence layer of an engine.

Call it from the stdlib pack's ``register`` after ``register_living``,
``register_story`` and ``register_questgen`` (it needs LivingWorld and QuestGen).
"""

from __future__ import annotations

from maid_engine.content import PackContext
from maid_stdlib.consequences.chains import CHAINS_COLLECTION
from maid_stdlib.consequences.sidetable import (
    BRANCH_CHOICES_COLLECTION,
    BranchChoices,
    GeneratedQuestIndex,
)
from maid_stdlib.consequences.system import AUDIT_COLLECTION, ConsequenceSystem
from maid_stdlib.living.service import LivingWorld
from maid_stdlib.questgen.register import GENERATED_QUESTS_COLLECTION, QuestGen

__all__ = ["register_consequences"]


def register_consequences(ctx: PackContext) -> ConsequenceSystem:
    """Provide ``ConsequenceSystem``, ``GeneratedQuestIndex`` and ``BranchChoices``,
    declare ``quest_consequences``, ``quest_branch_choices`` and ``quest_chains``,
    and add the
    ConsequenceSystem (phase consequences). Registering twice returns the first."""
    services = ctx.engine.services
    existing = services.try_get(ConsequenceSystem)
    if existing is not None:
        return existing
    living = services.try_get(LivingWorld)
    qg = services.try_get(QuestGen)
    if living is None or qg is None:
        raise ctx.error(
            "register_consequences needs register_living and register_questgen to have run first"
        )
    index = services.try_get(GeneratedQuestIndex)
    if index is None:
        index = GeneratedQuestIndex(ctx.engine)
        ctx.provide(GeneratedQuestIndex, index)
    choices = BranchChoices(ctx.engine)
    ctx.provide(BranchChoices, choices)
    system = ConsequenceSystem(qg, living, index, choices)
    ctx.provide(ConsequenceSystem, system)
    for name in (
        AUDIT_COLLECTION,
        BRANCH_CHOICES_COLLECTION,
        GENERATED_QUESTS_COLLECTION,
        CHAINS_COLLECTION,
    ):
        ctx.ensure_collection(name)
    ctx.add_system(system)
    return system
