"""The messages of one narrated turn.

Order, after :mod:`maid_stdlib.worldstate.context`: the narrator's instructions
with the emit rule (system); the scene with the World State and the stat guide
(system); the replayed history, where each past reply carries a block rebuilt from
what was *applied*; then the action, with the previous turn's refusals directly
above the reminder at the very end, closest to where the model starts writing.

Player text is never trusted: it is defused (:func:`neutralise_player_text`, so no
typed fence can plant a ``state`` block) and wrapped by :func:`isolate` as data.
Only the model's reply is ever parsed for a block.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from maid_engine.llm import SYSTEM_ISOLATION_NOTE, isolate
from maid_stdlib.narration.turnlog import OK, TurnRecord
from maid_stdlib.worldstate import (
    Report,
    StatSchema,
    StatView,
    neutralise_player_text,
    prompt_sections,
    replay_turn,
)

NARRATOR = (
    "You are the narrator of one place in a multiplayer text adventure. Players type "
    "what their characters do; you tell what happens next, in two to five sentences of "
    "vivid, concrete prose. Everyone present reads the same text, so write in the third "
    "person and name the character who acts. Never decide what other players' "
    "characters do, say or feel. Stay inside the story: no game terms, no mention of "
    "rules, numbers or of being a narrator."
)

#: Longest player text put in a prompt (the command refuses longer input anyway).
MAX_ACTION_CHARS = 500


@dataclass
class Scene:
    """What the model is told about the place (read under the world lock)."""

    room_name: str
    description: str
    actor_name: str
    premise: str = ""
    others: list[str] = field(default_factory=list)
    npcs: list[str] = field(default_factory=list)


def action_block(actor_name: str, text: str) -> str:
    """A player's action as isolated data."""
    clean = neutralise_player_text(text)[:MAX_ACTION_CHARS]
    return isolate("player_action", f"{actor_name}: {clean}", max_chars=MAX_ACTION_CHARS + 64)


def _scene_text(scene: Scene) -> str:
    lines = [f"Scene: {scene.room_name}.", scene.description.strip()]
    if scene.premise:
        lines.append(scene.premise)
    lines.append(f"Acting now: {scene.actor_name}.")
    if scene.others:
        lines.append("Also here: " + ", ".join(scene.others) + ".")
    if scene.npcs:
        lines.append("Others present: " + ", ".join(scene.npcs) + ".")
    return "\n".join(line for line in lines if line)


def history_messages(history: Iterable[TurnRecord]) -> list[dict[str, Any]]:
    """Past turns, oldest first, as user/assistant pairs; failed turns are left out
    (a fallback narration is not story), and each reply carries only what was applied."""
    out: list[dict[str, Any]] = []
    for turn in history:
        if turn.outcome != OK or not turn.narration:
            continue
        told = replay_turn(turn.narration, turn.parsed_report())
        out.append({"role": "user", "content": action_block(turn.actor_name, turn.player_text)})
        out.append({"role": "assistant", "content": told})
    return out


def build_messages(
    schema: StatSchema,
    view: StatView,
    scene: Scene,
    action: str,
    *,
    present_npcs: Sequence[str] = (),
    history: Sequence[TurnRecord] = (),
    previous: Report | None = None,
) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The chat messages of a turn, and the world-state sections by name (stored with
    the turn, so what the model was told can be read back)."""
    sections = prompt_sections(schema, view, present_npcs, previous)
    system = [NARRATOR, SYSTEM_ISOLATION_NOTE]
    if "world_state_rule" in sections:
        system.append(sections["world_state_rule"])
    setting = [_scene_text(scene)]
    setting += [sections[k] for k in ("world_state", "world_state_guide") if k in sections]
    if "world_state" in sections:
        setting.append(f'In the world state, "You" and player.* mean {scene.actor_name}.')
    closing = [f"What {scene.actor_name} does now:", action_block(scene.actor_name, action)]
    closing += [
        sections[k] for k in ("world_state_refusals", "world_state_reminder") if k in sections
    ]
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "\n\n".join(system)},
        {"role": "system", "content": "\n\n".join(setting)},
        *history_messages(history),
        {"role": "user", "content": "\n\n".join(closing)},
    ]
    return messages, sections
