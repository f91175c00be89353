"""The words of a threat sighting are made once per threat map, however many NPCs
see the threat: a busy road's dozens of passers-by learn the same sentence."""

from __future__ import annotations

from pathlib import Path

import pytest
from kits.engines import living_of, ws_of
from living.livingkit import hamlet_pack, make_engine, npc, run_hours

from maid_stdlib.living import KnownGossip
from maid_stdlib.text import place

KEY = "threat:bandits:hamlet:mill_road"
WATCHERS = ("hollin", "pell", "tamsin", "marta")


async def test_every_watcher_learns_the_sighting_made_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[str] = []
    real = place.located

    def counted(prose: str) -> str:
        made.append(prose)
        return real(prose)

    monkeypatch.setattr("maid_stdlib.living.autonomy.located", counted)
    engine = make_engine(tmp_path, [hamlet_pack(tmp_path / "p")])
    async with engine.lifespan():
        for key in WATCHERS:
            ws_of(engine).move(npc(engine, key), "hamlet:road_copse")
        await run_hours(engine, 0.5)
        contents = {
            engine.world.get_component(npc(engine, key), KnownGossip).items[KEY].content
            for key in WATCHERS
        }
        living = living_of(engine)
        memories = {
            m.content
            for key in WATCHERS
            for m in living.memory.get_recent(npc(engine, key), tags=["threat"])
        }
    assert contents == {"Bandits have been seen on the Mill Road."}
    # One threat map (nothing moved nor died), one group: its words made once,
    # not once for each of the four watchers and again for their memories.
    assert memories == {"I learned that bandits are on the Mill Road."}
    assert made == ["the Mill Road"]
