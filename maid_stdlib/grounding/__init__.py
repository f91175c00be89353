"""Quest grounding: open generated quests stay
true to the world. See docs/consequences.md.

Public API: ``QuestGroundingMonitor`` (phase grounding), ``QuestBoard`` and ``Holder``
(what the rules layer provides), ``GroundingPlugin``.
"""

from maid_stdlib.grounding.monitor import QuestGroundingMonitor
from maid_stdlib.grounding.port import Holder, QuestBoard
from maid_stdlib.grounding.register import GroundingPlugin

__all__ = ["GroundingPlugin", "Holder", "QuestBoard", "QuestGroundingMonitor"]
