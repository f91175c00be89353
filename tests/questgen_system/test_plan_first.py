"""Plan first, words last: a plan the quality filter refuses for its structure is
refused before a word is written (with a model, before a call is spent on it);
every refusal names its rules in the metrics, the log and the admin report."""

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
        # Whatever the archetype, the quest could not be done in its time.
        monkeypatch.setattr(QuestQualityFilter, "_impossible", lambda _self, _quest: True)
        with caplog.at_level("INFO", logger="maid.questgen.system"):
            system.enqueue(seed_for(quiet, "pell"))
            await ticks(quiet, 2)
        assert provider.requests == []
        assert system.build_records() == []
        [record] = system.rejections()
        assert record.rejection.stage == "quality"
        assert record.rejection.rules == ("impossible_quest",)
        assert record.rejection.reason.endswith(": impossible_quest")
        rule = metric(
            quiet, "maid_questgen_rejection_rules_total", stage="quality", rule="impossible_quest"
        )
        assert rule == 1
        assert "rejected at quality" in caplog.text
        rows = [r for r in caplog.records if "rejected at" in r.getMessage()]
        assert getattr(rows[0], "rules", None) == "impossible_quest"


async def test_template_prose_is_judged_on_the_plan_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with started(tmp_path) as quiet:
        system = questgen_of(quiet)
        monkeypatch.setattr(QuestQualityFilter, "_impossible", lambda _self, _quest: True)
        system.enqueue(seed_for(quiet, "pell"))
        await ticks(quiet, 3)
        # No model, and still nothing is written for a plan the rules refuse.
        assert system.build_records() == []
        [rejected] = system.rejections()
        assert rejected.rejection.stage == "quality"
        assert rejected.rejection.rules == ("impossible_quest",)


async def test_a_seed_only_the_run_of_recent_quests_blocks_waits_unspent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with started(tmp_path) as quiet:
        system = questgen_of(quiet)
        blocked = ["combat_fatigue", "archetype_repetition"]
        monkeypatch.setattr(QuestQualityFilter, "archetype_blocked", lambda self, a: blocked)
        seed = seed_for(quiet, "pell")
        system.enqueue(seed)
        await ticks(quiet, 3)
        # Three of a kind in a row: the seed waits for another kind of quest to break
        # the run, no attempt spent, no rejection counted.
        assert seed in system.pending_seeds()
        assert seed.attempt_count == 0
        assert system.rejections() == []
        held = metric(quiet, "maid_questgen_seed_holds_total", rule="combat_fatigue")
        assert held >= 1
        # Once the run is broken, it is built at the next cycle (a held seed, urgent
        # or not, waits for the generation interval).
        monkeypatch.setattr(QuestQualityFilter, "archetype_blocked", lambda self, a: [])
        await ticks(quiet, 6)
        [record] = system.build_records()
        assert record.outcome == "registered"
