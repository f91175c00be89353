"""Quest grounding: open generated quests stay
true to the world. See docs/consequences.md.

Public API: ``QuestGroundingMonitor`` (phase grounding), ``QuestBoard`` and ``Holder``
(what the rules layer provides), ``register_grounding(ctx)``.
"""

from maid_stdlib.grounding.monitor import QuestGroundingMonitor
from maid_stdlib.grounding.port import Holder, QuestBoard
from maid_stdlib.grounding.register import register_grounding

__all__ = ["Holder", "QuestBoard", "QuestGroundingMonitor", "register_grounding"]
