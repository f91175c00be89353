"""Two players over real telnet, a real OpenAI-compatible server behind LiteLLM."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakellm import FakeOpenAIServer
from narration.narrkit import CELLAR, NarrationPack, data_pack, service, settle, write_pack
from narration.telnetkit import Client

from maid_engine.app import MaidServer
from maid_engine.config import Settings
from maid_engine.llm import LiteLLMProvider
from maid_stdlib.narration import COLLECTION, LLMService, NarrationConfig

REPLY = (
    "Aldric works the rusted lock loose while Bryn keeps watch on the stairs. "
    "The cage door swings open, and Gwen steps out, rubbing her wrists.\n"
    '```state\n{"milestones.rescue_gwen": true, "npc.gwen.trust": +15, "player.hp": -5}\n```'
)


async def login(port: int, name: str) -> Client:
    client = await Client.connect(port)
    await client.wait_for("What is your name?")
    client.send_line(f"create {name} correct-horse-battery")
    await client.wait_for("The Cellar")
    return client


@pytest.mark.slow  # LiteLLM's import alone takes seconds
async def test_two_players_over_telnet_both_read_the_story_and_the_changes(
    tmp_path: Path,
) -> None:
    root = write_pack(tmp_path / "testpack", start="cellar")
    with FakeOpenAIServer() as llm:
        llm.ok(REPLY)
        settings = Settings(
            data_dir=tmp_path / "data",
            telnet_port=0,
            metrics_port=0,
            scrypt_n=2**10,
            llm_model="openai/test-model",
            llm_api_base=llm.url,
            llm_api_key="sk-test",
        )
        server = MaidServer(
            settings, packs=[NarrationPack, data_pack(root)], announce=lambda _line: None
        )
        async with server.lifespan():
            provider = server.engine.services.get(LLMService).provider
            assert isinstance(provider, LiteLLMProvider)
            await provider.warm_up()  # the import takes seconds; not part of the turn
            svc = service(server.engine)
            svc.config = NarrationConfig(unfolding_after=30.0, timeout=30.0)
            aldric = await login(server.telnet_port, "Aldric")
            bryn = await login(server.telnet_port, "Bryn")
            try:
                aldric.send_line("pick the lock of the cage")
                await aldric.wait_for("You act: pick the lock of the cage")
                await bryn.wait_for("Aldric acts: pick the lock of the cage")
                # Each reads whose values changed: the actor's own, or Aldric's.
                for client, whose in ((aldric, "Your"), (bryn, "Aldric's")):
                    await client.wait_for("Gwen steps out, rubbing her wrists.")
                    await client.wait_for("Changes: ")
                    line = client.text().split("Changes: ", 1)[1].splitlines()[0]
                    assert line == f"✓ rescue gwen; Gwen's trust +15; {whose} hp -5"
                    assert "```" not in client.text()
                await settle(svc.drain())
                for client in (aldric, bryn):
                    data = await client.wait_gmcp("Room.Narration.Changes")
                    assert data["room"] == CELLAR
                    assert data["actor"] == "Aldric"
                    assert len(data["applied"]) == 3
                    assert data["rejected"] == []
                sent = llm.requests[0]["messages"]
                assert any("Aldric: pick the lock of the cage" in m["content"] for m in sent)
                assert any("Also here: Bryn." in m["content"] for m in sent)
                docs = await server.engine.store.documents.query(COLLECTION)
                assert [d["outcome"] for d in docs] == ["ok"]
            finally:
                await aldric.close()
                await bryn.close()
