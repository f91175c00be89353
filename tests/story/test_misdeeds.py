"""Misdeeds: a wrong an NPC does when its need drives it to and the moment is right
(living data's ``misdeeds:``). The victim finds it out -- what, not who -- and the
story layer raises a BETRAYAL with the culprit to find, which quest generation reads
as an investigation."""

from __future__ import annotations

from pathlib import Path

from kits.engines import hamlet_engine, hv
from kits.quests import SignalLog, build

from maid_engine.clock import GAME_DAY
from maid_stdlib.living import LivingWorld, NeedsComponent
from maid_stdlib.living.api import set_need
from maid_stdlib.living.facts import Misdeed, Misdeeds

TAKEN = "My strongbox is lighter than it was last night."


async def test_a_need_drives_a_theft_once_and_a_culprit_is_to_be_found(tmp_path: Path) -> None:
    engine = hamlet_engine(tmp_path, rpg=True)
    async with engine.lifespan():
        signals = SignalLog(engine)
        living = engine.services.get(LivingWorld)
        trader, keeper = hv("pell"), hv("marta")
        deed = Misdeed("theft", ["need_low:economic"], str(keeper), TAKEN, "economic", 0.4, 2.0)
        engine.world.add_component(trader, Misdeeds([deed]))

        # Not driven to it: nothing happens.
        await engine.run_ticks(120)
        assert not signals.of("BETRAYAL")
        assert not living.memory.with_tag("betrayal")

        # His need runs low: he does it, once, and is relieved for it.
        set_need(engine.world, trader, "economic", 0.1)
        await engine.run_ticks(60)
        [memory] = living.memory.with_tag("betrayal")
        assert memory.npc_id == keeper
        assert memory.subject_id == trader
        assert memory.content == TAKEN
        assert memory.is_public  # she tells of it; it names nobody
        relieved = engine.world.get_component(trader, NeedsComponent).value("economic")
        assert relieved is not None
        assert relieved >= 0.45
        [signal] = signals.of("BETRAYAL")
        assert signal.context["betrayer"] == str(trader)
        assert signal.context["victim"] == str(keeper)
        assert signal.context["what_happened"] == TAKEN

        # Quest generation makes an investigation of it.
        quest = await build(engine, [signal])
        assert quest.archetype_id == "investigation"

        # Driven again within the next two days: he waits.
        set_need(engine.world, trader, "economic", 0.1)
        await engine.run_ticks(600)
        assert len(living.memory.with_tag("betrayal")) == 1
        # After them he may do it again.
        clock_days = engine.clock.game_time / GAME_DAY
        await engine.run_ticks(round(2 * GAME_DAY / 60))
        set_need(engine.world, trader, "economic", 0.1)
        await engine.run_ticks(60)
        assert len(living.memory.with_tag("betrayal")) == 2, clock_days
