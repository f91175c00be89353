"""Plan first, words last: with a model, a plan the quality filter refuses for its
structure is refused before a call is spent on it; every refusal names its rules in
the metrics, the log and the admin report."""

from __future__ import annotations

from pathlib import Path

import pytest
from kits.engines import metric, questgen_of
from questgen_system.qskit import scripted, seed_for, started, ticks

from maid_stdlib.questgen.quality import QuestQualityFilter


async def test_a_refused_plan_costs_no_model_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    async with started(tmp_path) as quiet:
        system = questgen_of(quiet)
        provider = scripted(quiet)
        # Pell has had his share of quests today, whatever the archetype.
        monkeypatch.setattr(QuestQualityFilter, "MAX_PER_NPC_PER_DAY", 0)
        with caplog.at_level("INFO", logger="maid.questgen.system"):
            system.enqueue(seed_for(quiet, "pell"))
            await ticks(quiet, 2)
        assert provider.requests == []
        assert system.build_records() == []
        [record] = system.rejections()
        assert record.rejection.stage == "quality"
        assert record.rejection.rules == ("npc_monopoly",)
        assert record.rejection.reason.endswith(": npc_monopoly")
        rule = metric(
            quiet, "maid_questgen_rejection_rules_total", stage="quality", rule="npc_monopoly"
        )
        assert rule == 1
        assert "rejected at quality" in caplog.text
        rows = [r for r in caplog.records if "rejected at" in r.getMessage()]
        assert getattr(rows[0], "rules", None) == "npc_monopoly"


async def test_template_prose_is_still_judged_after_it_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with started(tmp_path) as quiet:
        system = questgen_of(quiet)
        monkeypatch.setattr(QuestQualityFilter, "MAX_PER_NPC_PER_DAY", 0)
        system.enqueue(seed_for(quiet, "pell"))
        await ticks(quiet, 3)
        [record] = system.build_records()
        assert (record.outcome, record.narrative_source) == ("rejected:quality", "template")
        [rejected] = system.rejections()
        assert rejected.rejection.rules == ("npc_monopoly",)
