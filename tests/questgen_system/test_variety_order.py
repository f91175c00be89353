"""Launch order: the most important waiting seed first, discounted for each of the
latest quests of its kind, so a rarer trouble gets the day's room before its seed
decays behind the kind the world raises most."""

from __future__ import annotations

from pathlib import Path

import pytest
from questgen_system.qskit import seed_for, started

from maid_stdlib.questgen.pipeline.variety import NOVELTY_DECAY, launch_priority, recent_kinds


async def test_a_kind_seen_lately_waits_behind_a_rarer_one(tmp_path: Path) -> None:
    async with started(tmp_path) as quiet:
        threat = seed_for(quiet, "pell", "threat_response", importance=0.9)
        case = seed_for(quiet, "tamsin", "mystery", importance=0.6)
        fresh = recent_kinds([])
        assert launch_priority(threat, fresh) == pytest.approx(0.9)
        assert launch_priority(threat, fresh) > launch_priority(case, fresh)
        # Three threat quests lately: 0.9 x 0.8^3 = 0.46 < 0.6.
        seen = recent_kinds(["threat_response"] * 3 + ["rescue"])
        assert launch_priority(threat, seen) == pytest.approx(0.9 * NOVELTY_DECAY**3)
        assert launch_priority(case, seen) == pytest.approx(0.6)
        assert launch_priority(case, seen) > launch_priority(threat, seen)
