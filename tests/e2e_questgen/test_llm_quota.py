"""One player's flood of narrated actions, through real LiteLLM against the local
OpenAI-compatible server (``tests/fakellm.py``, real HTTP), with the default LLM
settings: the flood spends only the flooder's quota, a second player still gets
narration, and quest prose is still written by the model.

The attack this reproduces: 130 ``act``s by one player took the hour's budget from
186,720 tokens to 0 (about 1,436 tokens a turn), and every player's narration and
all model quest prose failed for up to an hour.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from e2e_questgen.test_litellm import build_one, valid
from fakellm import Behaviour, FakeOpenAIServer
from narration.narrkit import NarrationPack, block
from questgen_system.qskit import QuestgenTuning

from maid_engine.clock import ManualClock
from maid_engine.config import Settings
from maid_engine.engine import GameEngine
from maid_engine.llm.service import LLMService
from maid_engine.testing import cmd, session_for
from maid_stdlib.narration import NarrationService
from maid_stdlib.world import WorldCharacterFactory, WorldService

CELLAR = "ironvale:camp_cellar"
#: What one narrated turn cost in the attack: prompt and completion tokens.
PROMPT_TOKENS, COMPLETION_TOKENS = 1_200, 236
TURN_TOKENS = PROMPT_TOKENS + COMPLETION_TOKENS
TOLD = "Gwen watches you from her cage."


def answer(body: dict[str, Any]) -> Behaviour:
    if body.get("response_format"):  # quest prose asks for a JSON object
        return valid(body)
    return Behaviour(
        "ok",
        text=block('{"npc.gwen.trust": +1}', TOLD),
        prompt_tokens=PROMPT_TOKENS,
        completion_tokens=COMPLETION_TOKENS,
    )


def engine_on(tmp_path: Path, server: FakeOpenAIServer, **settings: Any) -> GameEngine:
    return GameEngine(
        Settings(
            data_dir=tmp_path,
            random_seed=7,
            llm_model="openai/test-model",
            llm_api_base=server.url,
            llm_api_key="sk-test",
            llm_timeout=5.0,
            **settings,
        ),
        clock=ManualClock(tick_game_seconds=60.0),
        packs=["ironvale", QuestgenTuning(quiet=True), NarrationPack],
        use_store=False,
    )


def player(engine: GameEngine, name: str) -> Any:
    uid = engine.services.get(WorldCharacterFactory).create_character(name, f"acct-{name}")
    engine.services.get(WorldService).move(uid, CELLAR, reason="test")
    return uid


async def act(engine: GameEngine, who: Any, line: str) -> str:
    out = await cmd(engine, who, line)
    await engine.services.get(NarrationService).drain()
    return out


async def test_a_flood_spends_only_the_flooders_quota(
    tmp_path: Path, fake_llm: FakeOpenAIServer
) -> None:
    fake_llm.respond_with(answer)
    engine = engine_on(tmp_path, fake_llm)
    async with engine.lifespan():
        budget = engine.services.get(LLMService).budget
        assert budget is not None
        flooder, other = player(engine, "Mallory"), player(engine, "Aldric")
        outs = [await act(engine, flooder, f"act shake the bars, time {n}") for n in range(130)]
        told = [o for o in outs if o.startswith("|>You act:")]
        refused = [o for o in outs if not o.startswith("|>You act:")]
        # The default character quota is 8,000 tokens per 10 minutes: 5 turns leave
        # 820 of it, so a 6th is told (going over once), and the other 124 are refused.
        assert len(told) == 6
        assert set(refused) == {"The storyteller needs a moment; try again in 10 min."}
        assert fake_llm.request_count == 6
        flood_cost = 6 * TURN_TOKENS
        assert budget.used() == flood_cost == 8_616
        assert budget.remaining() == 200_000 - 8_616
        # Another player gets the story, through the same model, at once.
        assert (await act(engine, other, "act whisper to Gwen")).startswith("|>You act:")
        assert fake_llm.request_count == 7
        assert fake_llm.last_request is not None
        assert "whisper to Gwen" in str(fake_llm.last_request["messages"])
        # And quest prose is still written by the model.
        record = await build_one(engine)
        assert (record.outcome, record.narrative_source) == ("registered", "llm")
        assert fake_llm.request_count == 8  # one call for the quest
        # Still refused while the flooder's turns are in the window.
        assert isinstance(engine.clock, ManualClock)
        assert engine.clock.monotonic() < 600
        assert not (await act(engine, flooder, "act shake the bars")).startswith("|>You act:")
        assert fake_llm.request_count == 8


async def test_when_narration_has_spent_its_share_quests_still_get_prose(
    tmp_path: Path, fake_llm: FakeOpenAIServer
) -> None:
    fake_llm.respond_with(answer)
    # A small hourly budget, half of it kept for quests: many players, one turn each.
    engine = engine_on(tmp_path, fake_llm, llm_tokens_per_hour=20_000, llm_quest_reserve=0.5)
    async with engine.lifespan():
        budget = engine.services.get(LLMService).budget
        assert budget is not None
        players = [player(engine, f"Player{n}") for n in range(10)]
        for who in players:
            assert (await act(engine, who, "act count the bars")).startswith("|>You act:")
        told = fake_llm.request_count
        assert 0 < told < 10
        for who in players[told:]:
            session = session_for(engine, who)
            assert "The storyteller is worn out for now; try again in 60 min." in session.text()
        assert budget.remaining() > 0
        record = await build_one(engine)
        assert (record.outcome, record.narrative_source) == ("registered", "llm")
        assert fake_llm.request_count == told + 1
