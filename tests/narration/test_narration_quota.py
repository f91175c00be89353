"""A player's LLM quota in narrated rooms: a flood spends only the flooder's share, the
refusal tells them when to come back, and a refusal is not a failed turn."""

from __future__ import annotations

import re
from typing import Any

from narration.narrkit import CELLAR, block, fast, player, scripted, service, settle

from maid_engine.clock import ManualClock
from maid_engine.engine import GameEngine
from maid_engine.llm import LLMLimiter, LLMRequest, LLMResult, ScriptedProvider
from maid_engine.testing import cmd
from maid_stdlib.narration.turn import wait_phrase

ANSWER = block('{"player.hp": -10}', "The straw rustles.")


def costing(tokens: int) -> LLMResult:
    return LLMResult(ANSWER, prompt_tokens=tokens - 100, completion_tokens=100)


def clock_of(engine: GameEngine) -> ManualClock:
    assert isinstance(engine.clock, ManualClock)
    return engine.clock


def limited(engine: GameEngine, **limits: Any) -> tuple[ScriptedProvider, LLMLimiter]:
    limiter = LLMLimiter.from_limits(600, 100_000, clock=clock_of(engine).monotonic, **limits)
    provider = scripted(default=costing(700), limiter=limiter, metrics=engine.metrics)
    fast(engine, provider)
    return provider, limiter


def sample(engine: GameEngine, name: str, **labels: str) -> float:
    value = engine.metrics.registry.get_sample_value(name, labels)
    return 0.0 if value is None else value


def test_the_wait_is_said_in_whole_seconds_or_minutes() -> None:
    assert wait_phrase(39.2) == "in 40 s"
    assert wait_phrase(0.01) == "in 1 s"
    assert wait_phrase(119) == "in 119 s"
    assert wait_phrase(121) == "in 3 min"
    assert wait_phrase(None) == "in a moment"
    assert wait_phrase(float("inf")) == "in a moment"


async def test_a_flooding_player_is_told_to_wait_and_the_room_plays_on(
    engine: GameEngine,
) -> None:
    provider, limiter = limited(engine, character_tokens=1000, quota_window_seconds=600)
    flooder, _ = player(engine, "Bryn")
    other, other_session = player(engine, "Aldric")
    for _ in range(2):  # 700, then 1400 of 1000: the second may overshoot, once
        assert (await cmd(engine, flooder, "rattle the bars")).startswith("|>You act:")
        await settle(service(engine).drain())
    seen_by_room = len(other_session.text())
    clock_of(engine).advance_wall(560)
    for _ in range(20):
        out = await cmd(engine, flooder, "rattle the bars")
        assert out == "The storyteller needs a moment; try again in 40 s."
    await settle(service(engine).drain())
    assert len(provider.requests) == 2
    # The room is not told of actions that will not be narrated.
    assert "Bryn acts" not in other_session.text()[seen_by_room:]
    records = await service(engine).log.recent(CELLAR, 10)
    assert len(records) == 2
    assert sample(engine, "maid_llm_quota_refusals_total", purpose="narration", kind="character")
    assert sample(engine, "maid_llm_errors_total", purpose="narration", kind="quota_exceeded") == 0
    # Someone else still gets the story at once.
    assert (await cmd(engine, other, "act open the cage")).startswith("|>You act:")
    await settle(service(engine).drain())
    assert other_session.text().count("The straw rustles.") == 3
    assert len(provider.requests) == 3
    # Once the first turn's tokens leave the window, the flooder may act again.
    clock_of(engine).advance_wall(40)
    assert (await cmd(engine, flooder, "rattle the bars")).startswith("|>You act:")
    await settle(service(engine).drain())
    assert len(provider.requests) == 4
    assert limiter.characters is not None
    # Both earlier turns were told at t = 0 and left the window together.
    assert limiter.characters.used(str(flooder)) == 700


async def test_a_refusal_inside_the_turn_stores_nothing_and_is_no_failure(
    engine: GameEngine,
) -> None:
    provider, limiter = limited(engine, account_tokens=1000, quota_window_seconds=600)
    hero, session = player(engine, "Bryn")
    svc = service(engine)
    handle = svc.submit_action(hero, "rattle the bars")
    # Another character of the same account spends the rest before the turn's call.
    assert limiter.accounts is not None
    limiter.accounts.reserve("acct-bryn", 0).settle(1000)
    result = await settle(handle)
    assert result.outcome == "quota"
    assert "The storyteller needs a moment; try again in 600 s." not in session.text()
    assert "The storyteller needs a moment; try again in 10 min." in session.text()
    assert "Nothing changed" not in session.text()  # not the failed-turn hint
    assert provider.requests == []
    assert await svc.log.recent(CELLAR, 5) == []
    assert sample(engine, "maid_narrated_turns_total", outcome="quota") == 1
    assert sample(engine, "maid_narrated_turns_total", outcome="llm_error") == 0
    assert sample(engine, "maid_llm_quota_refusals_total", purpose="narration", kind="account")


async def test_narration_is_refused_before_it_touches_the_quest_reserve(
    engine: GameEngine,
) -> None:
    provider, limiter = limited(engine, quest_reserve=95_000)
    assert limiter.budget is not None
    limiter.budget.record(10_000)  # spent by anyone, at t = 0: 90,000 left, all reserve
    clock_of(engine).advance_wall(60)
    hero, session = player(engine, "Bryn")
    out = await cmd(engine, hero, "rattle the bars")
    assert out.startswith("|>You act:")  # the player's own share is untouched
    await settle(service(engine).drain())
    assert re.search(r"The storyteller is worn out for now; try again in 59 min\.", session.text())
    assert provider.requests == []
    assert sample(engine, "maid_narrated_turns_total", outcome="budget") == 1
    assert sample(engine, "maid_llm_quota_refusals_total", purpose="narration", kind="reserve")
    # Quest prose still gets the reserve.
    quest = LLMRequest.from_prompt("A quest, as JSON.", purpose="quest_narrative", kind="quest")
    assert (await provider.complete(quest)).text == ANSWER
