"""The generation pipeline's shape: typed rejections named by their stage, the
service as the only way in, the configuration fixed at construction, and no
import cycle between the system, delivery and the player's preference."""

from __future__ import annotations

import ast
import logging
from pathlib import Path

import pytest
from kits.engines import metric, questgen_of
from questgen_system.qskit import no_holds, pipeline_of, seed_for, started, ticks

from maid_engine.engine import GameEngine
from maid_stdlib.questgen.generation_config import QuestGenerationConfig
from maid_stdlib.questgen.preferences import PreferenceObserver
from maid_stdlib.questgen.rejection import Rejection
from maid_stdlib.questgen.service import QuestGenerationService
from maid_stdlib.questgen.system import QuestGenerationSystem


def test_a_rejection_needs_a_stage_a_reason_and_a_named_rule() -> None:
    rejection = Rejection("plan", "no archetype fits the seed", ("no_archetype",))
    assert rejection.reason == "no archetype fits the seed"
    assert rejection.rule == "no_archetype"
    with pytest.raises(ValueError, match="needs a stage and a reason"):
        Rejection("plan", "", ("no_archetype",))
    with pytest.raises(ValueError, match="needs a stage and a reason"):
        Rejection("", "why", ("no_archetype",))
    with pytest.raises(ValueError, match="needs named rules"):
        Rejection("plan", "why", ())
    with pytest.raises(ValueError, match="needs named rules"):
        Rejection("plan", "why", ("",))


async def test_a_seed_that_cannot_be_planned_is_rejected_by_the_plan_stage(
    quiet: GameEngine, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Nothing called "dragons" threatens the road: no archetype finds targets (and
    # without the holds, which would make the seed wait for its threat, that is a
    # build that failed).
    no_holds(quiet, monkeypatch)
    seed = seed_for(quiet, "pell", threat_source="dragons", importance=0.9)
    planned = await pipeline_of(quiet).stages.plan.plan(seed)
    assert isinstance(planned, Rejection)
    assert planned.stage == "plan"
    assert planned.reason
    assert planned.rules == ("nothing_to_build",)
    with caplog.at_level(logging.INFO, "maid.questgen.system"):
        questgen_of(quiet).enqueue(seed)
        await ticks(quiet, 2)
    assert f"quest for seed {seed.id} rejected at plan: {planned.reason}" in caplog.text
    assert seed.attempt_count == 1


async def test_a_seed_whose_threat_is_gone_waits_without_an_attempt(
    quiet: GameEngine, caplog: pytest.LogCaptureFixture
) -> None:
    seed = seed_for(quiet, "pell", threat_source="dragons", importance=0.9)
    planned = await pipeline_of(quiet).stages.plan.plan(seed)
    assert isinstance(planned, Rejection)
    assert (planned.stage, planned.rules) == ("plan", ("threat_absent",))
    with caplog.at_level(logging.INFO, "maid.questgen.system"):
        questgen_of(quiet).enqueue(seed)
        await ticks(quiet, 2)
    assert "rejected at" not in caplog.text
    assert seed.attempt_count == 0
    assert seed in questgen_of(quiet).pending_seeds()
    assert metric(quiet, "maid_questgen_seed_holds_total", rule="threat_absent") >= 1
    assert metric(quiet, "maid_questgen_rejections_total", stage="plan") == 0


async def test_the_service_is_the_way_in_and_the_system_is_not_a_service(
    quiet: GameEngine,
) -> None:
    service = quiet.services.get(QuestGenerationService)
    assert quiet.services.get(PreferenceObserver) is service
    assert quiet.services.try_get(QuestGenerationSystem) is None
    assert [s for s in quiet.systems if isinstance(s, QuestGenerationSystem)]


async def test_the_configuration_is_the_one_given_at_construction(tmp_path: Path) -> None:
    config = QuestGenerationConfig(max_concurrent_builds=1, generation_interval=600.0)
    async with started(tmp_path, config) as engine:
        assert questgen_of(engine).settings is config
        assert pipeline_of(engine).settings is config
        with pytest.raises(Exception, match="frozen"):
            config.max_concurrent_builds = 2


def test_no_pipeline_module_imports_inside_a_function() -> None:
    """The system, delivery and preference modules import each other at the top
    only: a function-body import was how the old cycle between them was hidden."""
    root = Path(__file__).resolve().parents[2] / "maid_stdlib" / "questgen"
    files = [
        root / name
        for name in (
            "system.py",
            "system_wiring.py",
            "service.py",
            "delivery_service.py",
            "preferences.py",
            "intake.py",
        )
    ] + sorted((root / "pipeline").glob("*.py"))
    found = []
    for path in files:
        for fn in ast.walk(ast.parse(path.read_text())):
            if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                for node in ast.walk(fn):
                    if isinstance(node, ast.Import | ast.ImportFrom):
                        found.append(f"{path.name}:{node.lineno}")
    assert found == []
