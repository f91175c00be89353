"""With a model, a quest's words cost at most two calls per quest players accept:
one call per quest (narrative and dialogue together), and none for a plan the
quality filter refuses for its structure (judged before a word is written)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from classic_rpg.simulate.runner import SimulationOptions, run_simulation


def _run(seed: int) -> dict[str, Any]:
    return asyncio.run(
        run_simulation(
            SimulationOptions(days=2, seed=seed, llm="scripted", progress=False, drain_hours=4)
        )
    )


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_under_two_model_calls_per_accepted_quest(seed: int) -> None:
    report = _run(seed)
    llm = report["llm"]
    assert llm["calls_by_purpose"] == {"quest_narrative": llm["calls"]}  # one call a quest
    assert llm["accepted_quests"] > 0
    assert llm["calls_per_accepted_quest"] < 2, llm
    # Quality refusals name their anti-patterns (one refusal may name several).
    rejections = report["rejections"]
    named = sum(n for key, n in rejections["by_rule"].items() if key.startswith("quality,"))
    assert named >= rejections["by_stage"].get("quality", 0)
