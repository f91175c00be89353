"""The stages of quest generation, run in this order by the QuestGenerationSystem.

=============  ==========================================  ============================
stage          in -> out                                   module
=============  ==========================================  ============================
intake         story signal -> QuestSeed | Rejection        :mod:`..intake`
queue          QuestSeed -> pending seeds (supersession,    :mod:`.queue`
               eviction, retry backoff)
screen         QuestSeed -> None | Rejection (stale seed)   :mod:`.screen`
plan           QuestSeed -> QuestPlan | Rejection           :mod:`.plan`
narrate        QuestPlan -> Narrated (background task)      :mod:`.narrate`
check          QuestPlan + narrative -> CheckOutcome        :mod:`.check`
               (scores, safety, validation, quality,
               region density)
publish        GeneratedQuest -> GeneratedQuest | Rejection  :mod:`.publish`
               (sink, history, side-table, delivery)
=============  ==========================================  ============================

Beside the line: :mod:`.quotas` (region density, the daily cap, unaccepted
quests), :mod:`.backpressure` (the AutoThrottle and the gauges) and
:mod:`.lifecycle` (open generated quests accepted, turned in, expired). Every
stage gets its collaborators and the frozen
:class:`~maid_stdlib.questgen.generation_config.QuestGenerationConfig` at
construction; ``maid_stdlib.questgen.system_wiring`` builds them all, once.
"""

from maid_stdlib.questgen.pipeline.results import BuildRecord, CheckOutcome, Narrated
from maid_stdlib.questgen.rejection import Rejection

__all__ = ["BuildRecord", "CheckOutcome", "Narrated", "Rejection"]
