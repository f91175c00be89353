"""``RpgQuestOffers.accepted``: someone has taken a quest on (running, finished or
turned in). The quotas ask it about every open quest many times a tick; the quest
logs are walked again only when one of them changed."""

from __future__ import annotations

from pathlib import Path

from kits.engines import qm
from questgen_system.qskit import make_engine, online

from classic_rpg.questgen.wiring import RpgQuestOffers


async def test_accepted_follows_the_quest_logs_and_walks_them_once_per_change(
    tmp_path: Path,
) -> None:
    engine = make_engine(tmp_path, quiet=True)
    async with engine.lifespan():
        manager = qm(engine)
        offers = RpgQuestOffers(manager)
        walks = 0
        each = engine.world.each

        def counted(ctype: type) -> object:
            nonlocal walks
            walks += 1
            return each(ctype)

        engine.world.each = counted  # type: ignore[assignment,method-assign]
        hero, _ = await online(engine, "Aldric", room="hamlet:warden_hut", level=2)
        assert not offers.accepted("wolf-watch")
        manager.offer_quest(hero, "wolf-watch")
        assert not offers.accepted("wolf-watch")  # offered is not taken on
        await manager.accept_quest(hero, "wolf-watch")
        walks = 0
        for _ in range(20):
            assert offers.accepted("wolf-watch")
            assert not offers.accepted("no-such-quest")
        assert walks == 1
        # Abandoned, it was still taken on once (the log keeps its entry): the logs
        # are walked again, the answer stays.
        manager.abandon_quest(hero, "wolf-watch")
        assert offers.accepted("wolf-watch")
        assert walks == 2
