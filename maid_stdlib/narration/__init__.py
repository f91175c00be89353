"""AI-narrated rooms in the MUD: "AI proposes, engine clamps", multiplayer.

A room entry with a ``narrated:`` section (a stat schema file or an inline schema)
becomes a narrated room. In it, ``act <text>`` and any input that is not a command
starts a *turn*: one LLM call narrates what happens and proposes changes to the
world state; :mod:`maid_stdlib.worldstate` checks and clamps them; everyone in the
room reads the narration and one line of changes. Turns of a room run one at a
time in a background task, so no other room, command or tick waits for the model.

Public API:

* :class:`NarrationPlugin` (``stdlib.narration``, in the ``stdlib`` group);
* :class:`NarrationService` (``submit_action``, ``submit_retry``, ``submit_undo``,
  ``drain``, ``rooms``, ``provider``, ``log``, ``config``), :class:`NarrationConfig`,
  :class:`TurnHandle`, :class:`TurnResult`, :class:`NarrationError`;
* :class:`NarratedRoom` (component), :class:`NarratedData` (the data section),
  :class:`RoomSetup`;
* the turn log: :class:`TurnRecord`, ``COLLECTION`` (``narrated_turns``),
  :class:`StoreTurnLog`, :class:`MemoryTurnLog`;
* :class:`LLMService` (the engine's provider, when nothing else provides one);
* :func:`build_messages`, :func:`render_sheet`, :func:`set_value`.

See docs/narrated-rooms.md, "In the MUD".
"""

from maid_stdlib.narration.components import NarratedRoom
from maid_stdlib.narration.config import NarrationConfig
from maid_stdlib.narration.context import Scene, build_messages
from maid_stdlib.narration.jobs import TurnHandle, TurnResult
from maid_stdlib.narration.llm import LLMService
from maid_stdlib.narration.register import NarrationPlugin
from maid_stdlib.narration.rooms import NarratedData, RoomSetup
from maid_stdlib.narration.service import NarrationError, NarrationService
from maid_stdlib.narration.sheet import render_sheet, set_value
from maid_stdlib.narration.turnlog import COLLECTION, MemoryTurnLog, StoreTurnLog, TurnRecord

__all__ = [
    "COLLECTION",
    "LLMService",
    "MemoryTurnLog",
    "NarratedData",
    "NarratedRoom",
    "NarrationConfig",
    "NarrationError",
    "NarrationPlugin",
    "NarrationService",
    "RoomSetup",
    "Scene",
    "StoreTurnLog",
    "TurnHandle",
    "TurnRecord",
    "TurnResult",
    "build_messages",
    "render_sheet",
    "set_value",
]
