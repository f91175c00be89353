"""Paging and wrapping to the client's window (maid_stdlib/world/pager.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from uuid import UUID

import pytest
from kits.heist import character, make_engine

from maid_engine.commands import CommandContext, Role
from maid_engine.engine import GameEngine
from maid_engine.net.wrapping import visible_width
from maid_engine.testing import FakeSession, cmd, session_for
from maid_stdlib.world.pager import MORE_PROMPT, page, page_height, wrap_for


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[GameEngine]:
    engine = make_engine(tmp_path, store=False)
    async with engine.lifespan():
        yield engine


def numbered(n: int) -> str:
    return "\n".join(f"line {i:03d}" for i in range(1, n + 1))


def window(engine: GameEngine, actor: UUID, width: int, height: int) -> FakeSession:
    session = session_for(engine, actor, Role.ADMIN)
    session.caps.width, session.caps.height = width, height
    return session


def ctx_for(engine: GameEngine, session: FakeSession) -> CommandContext:
    return CommandContext(
        engine=engine, session=session, actor=session.character_id, role=Role.ADMIN
    )


async def test_short_output_is_sent_whole_and_wrapped(engine: GameEngine) -> None:
    hero = character(engine, "Pia")
    session = window(engine, hero, width=30, height=24)
    text = "|wA heading|n then " + " ".join(["word"] * 30)
    page(ctx_for(engine, session), text)
    out = session.take()
    assert MORE_PROMPT not in out
    assert all(visible_width(line, markup=True) <= 30 for line in out.splitlines())
    assert len(out.splitlines()) > 1
    assert out.replace("\n", " ").split() == text.split()


async def test_long_output_pages_with_more_and_next(engine: GameEngine) -> None:
    hero = character(engine, "Pia")
    session = window(engine, hero, width=80, height=12)
    assert page_height(session) == 10
    page(ctx_for(engine, session), numbered(25))
    first = session.take().splitlines()
    assert first[:10] == [f"line {i:03d}" for i in range(1, 11)]
    assert first[-1] == MORE_PROMPT
    assert len(first) == 11
    second = (await cmd(engine, hero, "more", role=Role.ADMIN)).splitlines()
    assert second[:10] == [f"line {i:03d}" for i in range(11, 21)]
    assert second[-1] == MORE_PROMPT
    last = (await cmd(engine, hero, "next", role=Role.ADMIN)).splitlines()
    assert last == [f"line {i:03d}" for i in range(21, 26)]
    assert await cmd(engine, hero, "more", role=Role.ADMIN) == "There is nothing more to show."


async def test_more_all_and_more_stop(engine: GameEngine) -> None:
    hero = character(engine, "Pia")
    session = window(engine, hero, width=80, height=10)
    page(ctx_for(engine, session), numbered(40))
    session.take()
    rest = (await cmd(engine, hero, "more all", role=Role.ADMIN)).splitlines()
    assert rest == [f"line {i:03d}" for i in range(9, 41)]
    page(ctx_for(engine, session), numbered(40))
    session.take()
    assert await cmd(engine, hero, "more stop", role=Role.ADMIN) == "Ok."
    assert await cmd(engine, hero, "more", role=Role.ADMIN) == "There is nothing more to show."


async def test_one_leftover_line_is_not_hidden(engine: GameEngine) -> None:
    hero = character(engine, "Pia")
    session = window(engine, hero, width=80, height=12)
    page(ctx_for(engine, session), numbered(11))
    assert session.take().splitlines() == [f"line {i:03d}" for i in range(1, 12)]


async def test_pages_count_wrapped_lines_not_source_lines(engine: GameEngine) -> None:
    hero = character(engine, "Pia")
    session = window(engine, hero, width=20, height=8)
    # Three long source lines wrap to many screen lines: they must be paged.
    text = "\n".join(" ".join(f"w{j}{i}" for j in range(20)) for i in range(3))
    assert len(wrap_for(session, text)) > page_height(session) + 1
    page(ctx_for(engine, session), text)
    first = session.take().splitlines()
    # The more-prompt is wrapped too: a 20-column window gets it on two lines.
    assert page_height(session) == 8 - 1 - 2
    assert len(first) == 8 - 1
    assert " ".join(first[-2:]) == MORE_PROMPT
    assert all(visible_width(line) <= 20 for line in first)


async def test_nonsense_window_sizes_fall_back(engine: GameEngine) -> None:
    hero = character(engine, "Pia")
    session = window(engine, hero, width=0, height=0)
    assert page_height(session) == 22
    assert all(len(line) <= 80 for line in wrap_for(session, "x " * 200))


async def test_quest_reports_are_paged_to_the_admin_window(engine: GameEngine) -> None:
    admin = character(engine, "Morgan", level=10)
    window(engine, admin, width=40, height=10)
    out = await cmd(engine, admin, "@quest", role=Role.ADMIN)
    lines = out.splitlines()
    assert lines[-1] == MORE_PROMPT
    assert len(lines) == 9
    assert all(visible_width(line, markup=True) <= 40 for line in lines)
    rest = await cmd(engine, admin, "more all", role=Role.ADMIN)
    assert "@quest chain <quest_id>" in rest.replace("\n", " ")
    # Without a session (a script) nothing is paged.
    out = await cmd(engine, None, "@quest", role=Role.ADMIN)
    assert MORE_PROMPT not in out
    assert "@quest backpressure" in out
