"""`maid systems`: the resolved tick order of the configured packs, no database."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

from maid_engine.cli import main
from maid_engine.content import ContentPack, PackContext
from maid_engine.ecs import System
from maid_engine.ecs.schedule import MARKDOWN_BEGIN, MARKDOWN_END


class Waiter(System):
    phase = "living"
    after = ("Ghost",)


class BadSchedulePack(ContentPack):
    name = "bad_schedule"

    def register(self, ctx: PackContext) -> None:
        ctx.add_system(Waiter())


def run_cli(capsys: pytest.CaptureFixture[str], tmp_path: Path, *args: str) -> tuple[int, str, str]:
    code = main(["systems", "--data-dir", str(tmp_path / "data"), *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_prints_the_default_order_without_opening_the_database(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MAID_PACKS", raising=False)
    code, out, err = run_cli(capsys, tmp_path)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["phase", "system", "pack", "after", "/", "before"]
    assert [line.split()[1] for line in lines[1:]] == [
        "RegenSystem",
        "CombatSystem",
        "RespawnSystem",
        "ScheduleSystem",
        "AutonomySystem",
        "SocialFabricSystem",
        "RegroupSystem",
        "PresenceSystem",
        "AmbientSystem",
        "RestockSystem",
        "QuestSystem",
        "StorySignalSystem",
        "QuestGenerationSystem",
        "ConsequenceSystem",
        "QuestGroundingMonitor",
        "MemoryFlushSystem",
        "CrowdSystem",
        "GmcpSystem",
    ]
    # The pack column names the feature plugin that registered the system.
    assert lines[3].split() == [
        "combat",
        "RespawnSystem",
        "classic_rpg.rules",
        "after",
        "CombatSystem",
    ]
    assert lines[12].split() == ["story", "StorySignalSystem", "stdlib.story"]
    # Nothing was opened or created: no data folder, no SQLite file.
    assert not (tmp_path / "data").exists()


def test_pack_option_lists_only_that_packs_systems_and_empty_phases(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = run_cli(capsys, tmp_path, "--pack", "stdlib")
    assert code == 0, err
    rows = [line.split() for line in out.splitlines()[1:]]
    assert rows[0] == ["combat", "-"]
    assert ["quests", "-"] in rows
    assert [r[1] for r in rows if r[1] != "-"] == [
        "ScheduleSystem",
        "AutonomySystem",
        "SocialFabricSystem",
        "RegroupSystem",
        "PresenceSystem",
        "AmbientSystem",
        "StorySignalSystem",
        "QuestGenerationSystem",
        "ConsequenceSystem",
        "QuestGroundingMonitor",
        "MemoryFlushSystem",
        "CrowdSystem",
        "GmcpSystem",
    ]


def test_markdown_prints_the_marked_block(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, _ = run_cli(capsys, tmp_path, "--pack", "stdlib", "--markdown")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == MARKDOWN_BEGIN
    assert lines[-1] == MARKDOWN_END
    assert "| | combat | (none) | | |" in lines
    assert "| 2 | living | AutonomySystem | stdlib.living | after ScheduleSystem |" in lines


def test_a_bad_schedule_is_reported_with_the_systems_named(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = run_cli(capsys, tmp_path, "--pack", f"{__name__}:BadSchedulePack")
    assert code == 3
    assert out == ""
    assert "error: Waiter runs after Ghost, which is not registered" in err


async def test_maid_systems_as_a_real_process(tmp_path: Path) -> None:
    env = {**os.environ, "MAID_DATA_DIR": str(tmp_path / "data")}
    env.pop("MAID_CONFIG", None)
    env.pop("MAID_PACKS", None)
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "maid_engine.cli",
        "systems",
        "--pack",
        "classic_rpg",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )
    out, err = await asyncio.wait_for(proc.communicate(), timeout=60)
    assert proc.returncode == 0, err.decode()
    first = [line.split()[:2] for line in out.decode().splitlines()[1:4]]
    assert first == [
        ["combat", "RegenSystem"],
        ["combat", "CombatSystem"],
        ["combat", "RespawnSystem"],
    ]
    assert not (tmp_path / "data").exists()
