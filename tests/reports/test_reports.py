"""``bug``, ``typo`` and ``idea`` file reports in the database; ``@reports`` lists,
shows and closes them."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from kits.engines import HAMLET, make_engine, room_key, ws_of
from kits.heroes import new_character

from maid_engine.commands import Role
from maid_engine.engine import GameEngine
from maid_engine.store import StoreUnavailable
from maid_engine.testing import cmd, session_for
from maid_stdlib.reports import COLLECTION, ReportDesk
from maid_stdlib.reports.desk import Report, ReportError, stamp


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[GameEngine]:
    built = make_engine(tmp_path, HAMLET, tick=None, seed=None, use_store=True)
    async with built.lifespan() as started:
        yield started


async def test_players_file_reports_with_who_where_and_when(engine: GameEngine) -> None:
    ada = new_character(engine, "Ada")
    assert await cmd(engine, ada, "bug the door |rsticks|n") == (
        "Thank you: bug report #1 is filed for the admins."
    )
    assert await cmd(engine, ada, "typo 'mil' for 'mill'") == (
        "Thank you: typo report #2 is filed for the admins."
    )
    assert await cmd(engine, ada, "idea   a ferry  at the ford ") == (
        "Thank you: idea #3 is filed for the admins."
    )
    doc = await engine.store.documents.get(COLLECTION, "1")
    assert doc is not None
    assert doc["text"] == "the door ||rsticks||n"  # markup made inert
    assert doc["reporter"] == "Ada"
    assert doc["reporter_id"] == str(ada)
    green = room_key(engine, "green")
    assert doc["room"] == green
    room = ws_of(engine).room(green)
    assert room is not None
    assert doc["room_name"] == room.name
    assert doc["filed_at"] == engine.clock.wall()
    assert doc["status"] == "open"
    idea = await engine.store.documents.get(COLLECTION, "3")
    assert idea is not None
    assert idea["text"] == "a ferry at the ford"
    assert "Usage: bug <what" in await cmd(engine, ada, "bug")
    assert "at most 1000 characters" in await cmd(engine, ada, "idea " + "z" * 1001)


async def test_admins_list_show_and_close_reports(engine: GameEngine) -> None:
    ada, boss = new_character(engine, "Ada"), new_character(engine, "Boss")
    await cmd(engine, ada, "bug the door sticks")
    await cmd(engine, ada, "typo mil")
    assert "Huh? '@reports' is not a command." in await cmd(engine, ada, "@reports")
    listing = await cmd(engine, boss, "@reports", role=Role.ADMIN)
    lines = listing.splitlines()
    assert lines[0] == "|c2 open reports:|n"
    when = stamp(engine.clock.wall())
    assert lines[1].startswith(f"|c#1|n [bug] {when} Ada in ")
    assert lines[1].endswith(": the door sticks")
    bugs = await cmd(engine, boss, "@reports bug", role=Role.ADMIN)
    assert "|c1 open bug reports:|n" in bugs
    assert "typo mil" not in bugs
    shown = await cmd(engine, boss, "@reports show 2", role=Role.ADMIN)
    assert shown.startswith("|cReport #2|n (typo, open)")
    assert f"From:  Ada ({ada})" in shown
    closed = await cmd(engine, boss, "@reports close #1 fixed the hinge", role=Role.ADMIN)
    assert closed == "Report #1 is closed."
    told = session_for(engine, ada).text()
    assert "Your bug report #1 was closed by Boss: fixed the hinge" in told
    assert "already closed (by Boss)" in await cmd(
        engine, boss, "@reports close 1", role=Role.ADMIN
    )
    assert "|c1 open reports:|n" in await cmd(engine, boss, "@reports open", role=Role.ADMIN)
    every = await cmd(engine, boss, "@reports all", role=Role.ADMIN)
    assert "[bug] |g(closed)|n" in every
    closed_only = await cmd(engine, boss, "@reports closed bug", role=Role.ADMIN)
    assert "|c1 closed bug reports:|n" in closed_only
    assert "No open idea reports." in await cmd(engine, boss, "@reports idea", role=Role.ADMIN)
    full = await cmd(engine, boss, "@reports show 1", role=Role.ADMIN)
    assert "Closed by Boss at " in full
    assert full.endswith(": fixed the hinge")


@pytest.mark.parametrize(
    ("line", "answer"),
    [
        ("@reports close", "Usage: @reports close <n> [note]"),
        ("@reports close x", "'x' is not a report number."),
        ("@reports close 9", "There is no report #9."),
        ("@reports show", "Usage: @reports show <n>"),
        ("@reports show 9", "There is no report #9."),
        ("@reports bugs", "Usage: @reports [bug||typo||idea] [open||all]"),
    ],
)
async def test_bad_report_requests_are_explained(
    engine: GameEngine, line: str, answer: str
) -> None:
    boss = new_character(engine, "Boss")
    assert answer in await cmd(engine, boss, line, role=Role.ADMIN)


async def test_without_a_database_reports_are_refused(tmp_path: Path) -> None:
    async with make_engine(tmp_path, HAMLET, tick=None, seed=None).lifespan() as engine:
        ada = new_character(engine, "Ada")
        assert "no database" in await cmd(engine, ada, "bug broken")
        assert "no database" in await cmd(engine, ada, "@reports", role=Role.ADMIN)


async def test_a_database_outage_loses_nothing_and_says_so(
    engine: GameEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    ada = new_character(engine, "Ada")

    async def down(*_args: Any, **_kw: Any) -> None:
        raise StoreUnavailable("down")

    monkeypatch.setattr(engine.store.documents, "put", down)
    assert "could not be saved right now" in await cmd(engine, ada, "bug it broke")
    monkeypatch.setattr(engine.store.documents, "query", down)
    assert "cannot be read right now" in await cmd(engine, ada, "@reports", role=Role.ADMIN)
    monkeypatch.undo()
    assert "#1" in await cmd(engine, ada, "bug it broke")


def test_a_report_reads_back_from_its_document() -> None:
    report = Report(4, "idea", "x", "Ada", "id", "r", "R", 1.0)
    doc = {**report.to_doc(), "extra": "ignored"}
    assert Report.from_doc(doc) == report


async def test_reports_outside_known_kinds_are_refused(engine: GameEngine) -> None:
    desk = engine.services.get(ReportDesk)
    with pytest.raises(ReportError, match="Unknown kind"):
        await desk.file("rant", "x", "Ada", "id", "", "")
