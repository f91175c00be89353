"""An unreadable state block, end to end through LiteLLM and a fake OpenAI server:
refused in the players' change line and the builders' GMCP report, fed back to the
model with a fix on the next turn, stored in the turn log, counted in a metric."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from fakellm import FakeOpenAIServer
from narration.narrkit import CELLAR, fast, player, service, settle

from maid_engine.commands import Role
from maid_engine.engine import GameEngine
from maid_engine.llm import LLMLimiter
from maid_engine.llm.litellm_provider import LiteLLMProvider
from maid_engine.testing import cmd
from maid_stdlib.narration import COLLECTION, TurnRecord
from maid_stdlib.worldstate.context import REFUSALS_HEADER


@pytest.fixture(scope="session")
def litellm_loaded() -> Any:
    # Sync on purpose: a session-scoped async fixture would live on another loop.
    from maid_engine.llm.litellm_provider import import_litellm

    return import_litellm()


@pytest.fixture
async def fake_llm(litellm_loaded: Any) -> AsyncIterator[FakeOpenAIServer]:
    from maid_engine.llm.litellm_provider import close_litellm_clients

    with FakeOpenAIServer() as server:
        yield server
        # LiteLLM's cached HTTP clients must close on this test's loop.
        await close_litellm_clients()


UNREADABLE = (
    "Gwen snatches the key from your belt.\n"
    "```state\n"
    "{\n"
    '  "player.hp": -15 "flags.has_key": true\n'
    "}\n"
    "```"
)
LENIENT = "Gwen laughs.\n```state\n{'player.hp': -5, \"npc.gwen.trust\": +5,}"


async def act(engine: GameEngine, actor: Any, line: str) -> TurnRecord:
    await cmd(engine, actor, line)
    svc = service(engine)
    await settle(svc.drain())
    [latest] = await svc.log.recent(CELLAR, 1)
    doc = await engine.store.documents.get(COLLECTION, latest.key)
    assert doc is not None
    return TurnRecord.model_validate(doc)


async def test_an_unreadable_block_is_refused_fed_back_stored_and_counted(
    engine: GameEngine, fake_llm: FakeOpenAIServer
) -> None:
    fake_llm.ok(UNREADABLE).ok(LENIENT)
    provider = LiteLLMProvider(
        "openai/test-model",
        api_base=fake_llm.url,
        api_key="sk-test",
        timeout=5.0,
        limiter=LLMLimiter.from_limits(600, 1_000_000),
    )
    fast(engine, provider)
    hero, hero_session = player(engine, "Aldric")
    builder, builder_session = player(engine, "Bea", role=Role.BUILDER)

    first = await act(engine, hero, "act guard the key")

    # The players: the narration, and the refusal in the change line (line and key).
    reason = "line 2, at `player.hp`: expected a comma between entries"
    for session in (hero_session, builder_session):
        text = session.text()
        assert "Gwen snatches the key from your belt." in text
        assert f"|wChanges:|n |rstate block refused — {reason}|n" in text
        assert "```" not in text
    # The builders' report (GMCP): the refusal with its reason and fix.
    package, data = builder_session.gmcp[-1]
    assert package == "Room.Narration.Changes"
    assert data["applied"] == []
    [refused] = data["rejected"]
    assert (refused["path"], refused["code"], refused["reason"]) == (
        "state block",
        "unreadable",
        reason,
    )
    assert refused["requested"] == '"player.hp": -15 "flags.has_key": true'
    fix = refused["fix"]
    assert fix.startswith(f"Your state block could not be read at {reason.split(':')[0]}")
    assert 'Send one object of "path": change pairs' in fix
    assert data["lenient"] == []

    # The turn log: the reply as sent and the report with the refusal.
    assert first.reply == UNREADABLE
    report = first.parsed_report()
    assert report is not None
    assert report.delta == {}
    assert [(c.code, c.reason, c.fix) for c in report.rejected] == [("unreadable", reason, fix)]

    second = await act(engine, hero, "act reach for the key")

    # The next prompt carries the fix, in the refusals section at the end.
    sent = fake_llm.requests[1]["messages"][-1]["content"]
    assert REFUSALS_HEADER in sent
    assert f"- {fix}]" in sent
    assert REFUSALS_HEADER not in fake_llm.requests[0]["messages"][-1]["content"]
    # A lenient block is read as meant, and the report says what was forgiven.
    report = second.parsed_report()
    assert report is not None
    assert [(c.path, c.actual) for c in report.applied] == [
        ("player.hp", -5),
        ("npc.gwen.trust", 5),
    ]
    assert report.lenient == [
        "mixed quotes",
        "+N numbers",
        "trailing commas",
        "missing closing fence",
    ]
    assert builder_session.gmcp[-1][1]["lenient"] == report.lenient

    # The builders' insights say both: what could not be read, and what was forgiven.
    insights = " ".join(
        (await cmd(engine, builder, "@state insights 2", role=Role.BUILDER)).split()
    )
    assert "Proposed: (a state block that could not be read: see Refused)" in insights
    assert f"state block {refused['requested']}: {reason} [unreadable]" in insights
    assert "Read leniently: mixed quotes, +N numbers, trailing commas, missing closing fence" in (
        insights
    )

    metrics = engine.metrics.render().decode()
    assert 'maid_narrated_state_blocks_total{read="unreadable"} 1.0' in metrics
    assert 'maid_narrated_state_blocks_total{read="lenient"} 1.0' in metrics
    assert 'maid_narrated_changes_total{kind="rejected"} 1.0' in metrics
