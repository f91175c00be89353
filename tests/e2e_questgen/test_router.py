"""Quest prose over a LiteLLM Router: the first deployment fails, the other writes
the quest; the player sees the model's prose, and the metrics say who served it."""

from __future__ import annotations

from pathlib import Path

import yaml
from e2e_questgen.test_litellm import build_one, valid
from fakellm import Behaviour, FakeOpenAIServer
from ironvale.ironkit import IRONVALE
from kits.engines import questgen_of
from questgen_system.qskit import make_engine, online

from maid_engine.llm import RouterProvider


async def test_quest_prose_is_written_by_the_deployment_that_still_answers(
    tmp_path: Path, fake_llm: FakeOpenAIServer
) -> None:
    with FakeOpenAIServer() as broken:
        broken.set_default(Behaviour("status", status=500))
        fake_llm.respond_with(valid)
        router = tmp_path / "router.yaml"
        router.write_text(
            yaml.safe_dump(
                {
                    "model_list": [
                        {
                            "model_name": "maid",
                            "litellm_params": {
                                "model": "openai/test-model",
                                "api_base": broken.url,
                                "weight": 1000,
                            },
                            "model_info": {"id": "local"},
                        },
                        {
                            "model_name": "maid",
                            "litellm_params": {
                                "model": "openai/test-model",
                                "api_base": fake_llm.url,
                            },
                            "model_info": {"id": "hosted"},
                        },
                    ],
                    "router_settings": {"num_retries": 2, "allowed_fails": 0},
                }
            ),
            encoding="utf-8",
        )
        engine = make_engine(
            tmp_path, quiet=True, world=IRONVALE, llm_router_config=str(router), llm_timeout=5.0
        )
        async with engine.lifespan():
            assert isinstance(engine.llm.provider, RouterProvider)
            _hero, session = await online(engine, "Aldric", room="ironvale:smithy", level=4)
            record = await build_one(engine)
            assert (record.outcome, record.narrative_source) == ("registered", "llm")
            quest = questgen_of(engine).open_quests()[record.quest_id or ""].quest
            assert quest.title == "The Iron Road"
            assert "error" not in session.text().lower()
            served = engine.metrics.registry.get_sample_value(
                "maid_llm_deployment_requests_total",
                {"deployment": "hosted", "purpose": "quest_narrative"},
            )
            assert served == 1
            assert broken.request_count >= 1
