"""The engine's one LLM provider (maid_engine.llm.service) and the quest events."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kits.engines import questgen_of
from questgen_system.qskit import online, pipeline_of, seed_for, until

from maid_engine.config import Settings
from maid_engine.engine import GameEngine
from maid_engine.llm import LiteLLMProvider
from maid_engine.llm.service import LLMService
from maid_engine.metrics import EngineMetrics
from maid_stdlib.questgen.events import QuestGeneratedEvent, QuestOfferedEvent


def test_no_model_means_no_provider_and_templates() -> None:
    service = LLMService.from_settings(Settings(_env_file=None))  # type: ignore[call-arg]
    assert service.provider is None
    assert not service.enabled
    assert service.budget is None
    assert service.limiter is None
    assert service.status() == {"model": None, "cache_entries": 0}


def test_a_model_gets_one_budgeted_provider_without_importing_litellm() -> None:
    settings = Settings(
        llm_model="openai/m",
        llm_api_base="http://127.0.0.1:9",  # type: ignore[call-arg]
        llm_tokens_per_hour=1234,
        _env_file=None,
    )
    now = [100.0]
    service = LLMService.from_settings(settings, EngineMetrics(), clock=lambda: now[0])
    assert isinstance(service.provider, LiteLLMProvider)
    assert service.budget is not None
    assert service.budget.limit == 1234
    service.budget.record(1234)
    assert service.status()["budget_exhausted"] is True
    now[0] += 3600.0  # the service's clock drives the shared budget
    assert service.budget.remaining() == 1234


async def test_the_engine_holds_one_service_found_by_every_user(
    quiet: GameEngine, tmp_path: Path
) -> None:
    engine = quiet
    # The quest pipeline uses the engine's service; it is also provided as a service.
    assert pipeline_of(engine).llm is engine.llm
    assert engine.services.get(LLMService) is engine.llm
    # Every engine builds its own, with the LLM metrics registered even without a model.
    other = GameEngine(Settings(data_dir=tmp_path), use_store=False)
    assert other.llm is not engine.llm
    assert other.llm.provider is None
    assert other.services.get(LLMService) is other.llm
    assert b"maid_llm_requests_total" in other.metrics.render()


async def test_the_quest_events_carry_the_seed_fields(quiet: GameEngine) -> None:
    generated: list[Any] = []
    offered: list[Any] = []
    quiet.events.subscribe(QuestGeneratedEvent, generated.append)
    quiet.events.subscribe(QuestOfferedEvent, offered.append)
    hero, _ = await online(quiet, "Aldric", room="hamlet:mill", level=4)
    system = questgen_of(quiet)
    system.enqueue(seed_for(quiet, "hollin"))
    await until(quiet, lambda: bool(offered))
    [event] = generated
    quest = system.open_quests()[event.quest_id].quest
    assert (event.seed_type, event.archetype_id, event.importance, event.quest_giver_id) == (
        "threat_response",
        "threat_elimination",
        quest.importance,
        quest.quest_giver_id,
    )
    [offer] = offered
    assert (offer.quest_id, offer.character_id, offer.delivery_method) == (
        quest.id,
        hero,
        "direct_offer",
    )
    assert offer.match_score == 0.5
