"""World state for AI-narrated rooms: "AI proposes, engine clamps".

A room's stat schema (:func:`load_schema`) says which stats, flags and milestones
exist and their rules (milestones and flags may name preconditions, ``requires``).
Each turn the model narrates and appends a ``state`` block of deltas;
:func:`extract_delta` pulls it out, :func:`apply_delta` applies it through a
:class:`StatView` under the rules and returns a :class:`Report` (applied / clamped /
rejected, with fix strings). The context builders turn live values and the previous
report into prompt text; :func:`render_changes` turns a report into the players'
change line; :func:`take_snapshot` / :func:`restore` back undo and retry.

See docs/narrated-rooms.md for the schema format and the rules.
"""

from maid_stdlib.worldstate.apply import (
    Unmet,
    apply_delta,
    current_value,
    instantiate,
    unmet_requires,
)
from maid_stdlib.worldstate.bands import band_label, band_ladder
from maid_stdlib.worldstate.components import (
    ComponentStatView,
    NarratedNPCStats,
    NarratedPlayerStats,
    NarratedRoomState,
)
from maid_stdlib.worldstate.context import (
    applied_delta,
    prompt_sections,
    render_emit_reminder,
    render_emit_rule,
    render_refusals,
    render_stat_guide,
    render_world_state,
    replay_block,
    replay_turn,
)
from maid_stdlib.worldstate.delta import (
    STATE_FENCE,
    BlockReading,
    Reading,
    Unreadable,
    extract_delta,
    neutralise_player_text,
    read_reply,
)
from maid_stdlib.worldstate.lint import lint_schema
from maid_stdlib.worldstate.report import Change, Report, render_changes
from maid_stdlib.worldstate.schema import (
    Condition,
    FlagDef,
    MilestoneDef,
    NPCDef,
    SchemaError,
    StatDef,
    StatSchema,
    load_schema,
    load_schema_file,
)
from maid_stdlib.worldstate.snapshot import Snapshot, restore, take_snapshot
from maid_stdlib.worldstate.view import DictStatView, StatValue, StatView

__all__ = [
    "STATE_FENCE",
    "BlockReading",
    "Change",
    "ComponentStatView",
    "Condition",
    "DictStatView",
    "FlagDef",
    "MilestoneDef",
    "NPCDef",
    "NarratedNPCStats",
    "NarratedPlayerStats",
    "NarratedRoomState",
    "Reading",
    "Report",
    "SchemaError",
    "Snapshot",
    "StatDef",
    "StatSchema",
    "StatValue",
    "StatView",
    "Unmet",
    "Unreadable",
    "applied_delta",
    "apply_delta",
    "band_label",
    "band_ladder",
    "current_value",
    "extract_delta",
    "instantiate",
    "lint_schema",
    "load_schema",
    "load_schema_file",
    "neutralise_player_text",
    "prompt_sections",
    "read_reply",
    "render_changes",
    "render_emit_reminder",
    "render_emit_rule",
    "render_refusals",
    "render_stat_guide",
    "render_world_state",
    "replay_block",
    "replay_turn",
    "restore",
    "take_snapshot",
    "unmet_requires",
]
