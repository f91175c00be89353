"""``maid simulate`` as a tool: CLI, determinism, report shape, bots, options."""

from __future__ import annotations

import asyncio
import io
import json
from dataclasses import replace
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest

from classic_rpg.components import CharacterStats, Equipment
from classic_rpg.items.factory import ItemFactory
from classic_rpg.simulate import STYLES, SimulationOptions, run_simulation
from classic_rpg.simulate.bots import create_bots, pick_gear
from classic_rpg.simulate.progress import ProgressBar
from classic_rpg.simulate.runner import _engine
from classic_rpg.simulate.scripted import scripted_answer
from maid_engine.cli import main as maid_main
from maid_engine.llm import LLMRequest
from maid_stdlib.questgen.system import QuestGenerationSystem
from maid_stdlib.world.spawner import spawn_template

REPORT_KEYS = {
    "simulation",
    "story_signals",
    "quests",
    "narrative",
    "rejections",
    "grounding",
    "variety",
    "lifecycle",
    "outcomes",
    "failure_details",
    "offers_by_method",
    "invalidations_by_reason",
    "chains",
    "consequences",
    "feasibility",
    "ticks",
    "targets",
}


def _one_day(**kw: Any) -> dict[str, Any]:
    return asyncio.run(
        run_simulation(SimulationOptions(days=1, progress=False, drain_hours=2, **kw))
    )


def _stable(report: dict[str, Any]) -> dict[str, Any]:
    """The report without what depends on the machine's speed."""
    return {k: v for k, v in report.items() if k not in ("ticks", "simulation")}


def test_cli_writes_the_json_report_and_prints_a_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, trace = tmp_path / "report.json", tmp_path / "trace.txt"
    code = maid_main(
        [
            "simulate",
            "--days",
            "1",
            "--bots",
            "3",
            "--seed",
            "3",
            "--drain-hours",
            "1",
            "--json",
            str(out),
            "--trace",
            str(trace),
            "--no-progress",
        ]
    )
    report = json.loads(out.read_text(encoding="utf-8"))
    lines = trace.read_text(encoding="utf-8").splitlines()
    # Every bot typed commands, and what the game answered is there.
    for name in ("Fighter1", "Explorer1", "Talker1"):
        assert any(f" {name} " in line and " -> " in line for line in lines)
    assert REPORT_KEYS <= set(report)
    assert code == (0 if all(report["targets"].values()) else 1)
    printed = capsys.readouterr().out
    assert printed.startswith("maid simulate: 1 game days of ironvale, seed 3, 3 bots")
    assert "quests per game day" in printed
    assert "feasibility" in printed
    assert [b["style"] for b in report["simulation"]["bots"]] == ["fighter", "explorer", "talker"]


def test_cli_refuses_bad_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    assert maid_main(["simulate", "--styles", "bard", "--no-progress"]) == 2
    assert "unknown bot style" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        maid_main(["simulate", "--llm", "gpt"])


def test_the_same_seed_gives_the_same_report() -> None:
    first, second = _one_day(seed=5), _one_day(seed=5)
    assert first["quests"]["generated"] > 0
    assert _stable(first) == _stable(second)


def test_a_run_does_not_depend_on_the_runs_before_it_nor_on_its_trace(tmp_path: Path) -> None:
    """The acceptance check runs its seeds one after another in one process: each
    must give what it gives alone, and writing a trace must not change it."""

    async def runs() -> list[dict[str, Any]]:
        opts = SimulationOptions(days=1, bots=4, progress=False, drain_hours=2)
        alone = await run_simulation(replace(opts, seed=5, trace=tmp_path / "alone.txt"))
        await run_simulation(replace(opts, seed=1))
        after = await run_simulation(replace(opts, seed=5, trace=tmp_path / "after.txt"))
        untraced = await run_simulation(replace(opts, seed=5))
        return [alone, after, untraced]

    alone, after, untraced = asyncio.run(runs())
    assert alone["quests"]["generated"] > 0
    assert _stable(after) == _stable(alone)
    assert (tmp_path / "after.txt").read_text() == (tmp_path / "alone.txt").read_text()
    assert _stable(untraced) == _stable(alone)


async def test_a_seed_names_the_same_entities_in_every_engine(tmp_path: Path) -> None:
    """Systems order and stagger entities by their UUID (the schedule's departures,
    for one): under a seed, the ids of characters and of things spawned at run time
    are the seed's, not the process's."""

    async def ids(seed: int) -> list[UUID]:
        engine = _engine(SimulationOptions(seed=seed, progress=False), tmp_path / str(seed))
        async with engine.lifespan():
            bots = await create_bots(engine, 2, seed=1)
            crawler = spawn_template(engine, "ironvale:tunnel_crawler", "ironvale:mine_yard")
            return [*(b.uid for b in bots), crawler]

    first, again, other = await ids(5), await ids(5), await ids(6)
    assert first == again
    assert set(first).isdisjoint(other)


def test_the_report_is_built_from_the_games_own_counts() -> None:
    report = _one_day(seed=1)
    q, lifecycle = report["quests"], report["lifecycle"]
    assert sum(q["per_game_day"]) == q["generated"]
    assert sum(q["by_archetype"].values()) == q["generated"]
    # The collector's event counts agree with the pipeline's own counter.
    built = sum(report["narrative"]["built"].values())
    assert built == lifecycle["generated"]
    assert report["narrative"]["template_share"] == 1.0
    assert report["rejections"]["rejection_rate"] is not None
    variety = report["variety"]
    assert len(variety["sequence"]) == q["generated"]
    assert 0.0 <= variety["entropy_bits"] <= variety["max_entropy_bits"]
    assert report["consequences"]["applied_events"] == report["consequences"]["batches_applied"]
    assert report["ticks"]["p99_ms"] >= report["ticks"]["p50_ms"]


def test_scripted_llm_writes_the_prose_through_the_real_llm_path() -> None:
    report = _one_day(seed=2, llm="scripted")
    assert report["narrative"]["llm_share"] == 1.0
    assert report["grounding"]["share"] == 1.0


def test_scripted_answers_are_made_of_the_prompts_facts() -> None:
    prompt = (
        '<user_content source="quest_giver">\nGundrik\n</user_content>\n'
        '<user_content source="locations">\n- Old Trade Road\n</user_content>'
    )
    request = LLMRequest([{"role": "user", "content": prompt}], purpose="quest_narrative")
    answer = json.loads(scripted_answer(request))
    assert answer["title"] == "Gundrik's Request"
    assert "Old Trade Road" in answer["summary"]
    assert len(answer["description"]) >= 50
    # The one quest call answers the dialogue too.
    assert {"offer", "progress", "completion"} <= set(answer)
    # Told which titles were used lately, it picks another.
    used = prompt + '\n<user_content source="recent_titles">\n- Gundrik\'s Request\n</user_content>'
    request = LLMRequest([{"role": "user", "content": used}], purpose="quest_narrative")
    assert json.loads(scripted_answer(request))["title"] == "A Task for Gundrik"


def test_persist_runs_on_a_temporary_sqlite_store() -> None:
    report = _one_day(seed=1, persist=True, bots=2)
    assert report["simulation"]["persist"] is True
    assert report["story_signals"]["total"] > 0


async def test_bots_get_the_level_and_kit_of_their_style(tmp_path: Path) -> None:
    engine = _engine(SimulationOptions(progress=False), tmp_path)
    async with engine.lifespan():
        bots = await create_bots(engine, 6, seed=1)
        assert [b.style.name for b in bots] == [
            "fighter",
            "explorer",
            "talker",
            "completionist",
            "quitter",
            "fighter",
        ]
        assert [b.name for b in bots][-1] == "Fighter2"
        items = engine.services.get(ItemFactory)
        for bot in bots:
            stats = engine.world.get_component(bot.uid, CharacterStats)
            assert stats.level == bot.style.level
            worn = engine.world.get_component(bot.uid, Equipment).slots
            gear = pick_gear(engine, bot.style.gear_tier)
            assert items.template_of(worn["weapon"]) == gear.weapon
            assert engine.sessions.is_online(bot.uid)
        # The fighter's tier cap allows Kral's axe; the explorer's does not.
        assert pick_gear(engine, 2).weapon == "ironvale:kral_axe"
        assert pick_gear(engine, 1).weapon == "ironvale:iron_shortsword"
        assert pick_gear(engine, 1).armour == ("ironvale:leather_armour",)
        assert pick_gear(engine, 1).potion == "ironvale:healing_draught"


async def test_the_simulated_engine_is_the_game_as_shipped(tmp_path: Path) -> None:
    """No simulation-only wiring: the packs register every layer of the quest loop."""
    engine = _engine(SimulationOptions(progress=False, llm="scripted"), tmp_path)
    async with engine.lifespan():
        systems = [s for s in engine.systems if isinstance(s, QuestGenerationSystem)]
        assert len(systems) == 1
        assert engine.commands.get("choose") is not None
        assert engine.llm.model == "scripted"
        assert not engine.has_store


def test_styles_span_the_difficulty_tiers() -> None:
    levels = sorted(s.level for s in STYLES.values())
    # easy (2), moderate (4) and hard (7) each have a style within their band.
    for recommended in (2, 4, 7):
        assert any(recommended - 1 <= lv <= recommended + 2 for lv in levels)


def test_progress_bar_only_on_a_terminal() -> None:
    quiet = io.StringIO()
    bar = ProgressBar(10, stream=quiet)
    bar.update(5, "day 1", force=True)
    bar.close()
    assert quiet.getvalue() == ""

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    tty = Tty()
    bar = ProgressBar(10, stream=tty)
    bar.update(5, "day 1/2", force=True)
    bar.close()
    assert "50.0%" in tty.getvalue()
    assert "day 1/2" in tty.getvalue()
