"""GroundingPlugin (``stdlib.grounding``): the QuestGroundingMonitor of an engine.

The rules layer then installs its :class:`~maid_stdlib.grounding.port.QuestBoard`
(``monitor.board = ...``) and forwards deaths and acceptance checks.
"""

from __future__ import annotations

from maid_engine.content import ContentPack, PackContext
from maid_stdlib.consequences.register import ConsequencesPlugin
from maid_stdlib.consequences.sidetable import GeneratedQuestIndex
from maid_stdlib.grounding.monitor import QuestGroundingMonitor
from maid_stdlib.questgen.register import QuestGen, QuestGenPlugin

__all__ = ["GroundingPlugin"]


class GroundingPlugin(ContentPack):
    """Provide and add the QuestGroundingMonitor (phase grounding); it shares the
    consequence layer's GeneratedQuestIndex."""

    name = "stdlib.grounding"
    requires = (QuestGenPlugin, ConsequencesPlugin)
    provides = (QuestGroundingMonitor,)
    description = "Watches that generated quests stay possible in the world as it changes."

    def register(self, ctx: PackContext) -> None:
        monitor = QuestGroundingMonitor(ctx.service(QuestGen), ctx.service(GeneratedQuestIndex))
        ctx.provide(QuestGroundingMonitor, monitor)
        ctx.add_system(monitor)
