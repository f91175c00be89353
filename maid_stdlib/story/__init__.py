"""Story signals (Doc 07-lite): detectors watch the living world and emit
``StorySignalEvent`` for situations worth a quest. See docs/living-world.md.

Public API:

* ``StorySignal``, ``StorySignalType``, ``REQUIRED_CONTEXT``, ``missing_context``,
  ``register_signal_type``
* events: ``StorySignalEvent``, ``StorySituationResolvedEvent``
* ``StorySignalSystem`` (phase story), ``StoryDetectors`` (registry service:
  ``register`` plain detectors, ``register_sliced`` generator ones), ``Detection``,
  ``DetectionContext``, ``DetectorWork`` (what a sliced detector returns)
* ``StoryPlugin``
"""

from maid_stdlib.story.detectors import (
    Detection,
    DetectionContext,
    DetectorWork,
    StoryDetectors,
)
from maid_stdlib.story.register import StoryPlugin
from maid_stdlib.story.signals import (
    REQUIRED_CONTEXT,
    StorySignal,
    StorySignalEvent,
    StorySignalType,
    StorySituationResolvedEvent,
    missing_context,
    register_signal_type,
)
from maid_stdlib.story.system import StorySignalSystem

__all__ = [
    "REQUIRED_CONTEXT",
    "Detection",
    "DetectionContext",
    "DetectorWork",
    "StoryDetectors",
    "StoryPlugin",
    "StorySignal",
    "StorySignalEvent",
    "StorySignalSystem",
    "StorySignalType",
    "StorySituationResolvedEvent",
    "missing_context",
    "register_signal_type",
]
