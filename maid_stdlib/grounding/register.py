"""``register_grounding(ctx)``: the QuestGroundingMonitor of an engine.

Call it after ``register_consequences`` (they share the GeneratedQuestIndex). The
rules layer then installs its :class:`~maid_stdlib.grounding.port.QuestBoard`
(``monitor.board = ...``) and forwards deaths and acceptance checks.
"""

from __future__ import annotations

from maid_engine.content import PackContext
from maid_stdlib.consequences.sidetable import GeneratedQuestIndex
from maid_stdlib.grounding.monitor import QuestGroundingMonitor
from maid_stdlib.questgen.register import QuestGen

__all__ = ["register_grounding"]


def register_grounding(ctx: PackContext) -> QuestGroundingMonitor:
    """Provide and add the QuestGroundingMonitor (phase grounding). Registering twice
    returns the first."""
    services = ctx.engine.services
    existing = services.try_get(QuestGroundingMonitor)
    if existing is not None:
        return existing
    qg = services.try_get(QuestGen)
    if qg is None:
        raise ctx.error("register_grounding needs register_questgen to have run first")
    index = services.try_get(GeneratedQuestIndex)
    if index is None:
        index = GeneratedQuestIndex(ctx.engine)
        ctx.provide(GeneratedQuestIndex, index)
    monitor = QuestGroundingMonitor(qg, index)
    ctx.provide(QuestGroundingMonitor, monitor)
    ctx.add_system(monitor)
    return monitor
