"""WorldDataPack: the base class of content packs whose world is data files.

    class IronvalePack(WorldDataPack):
        name = "ironvale"
        requires = ("stdlib",)

The pack's folder holds ``pack.yaml`` (start room) and ``areas/*.yaml``. Data is
read and validated after every pack registered (so extension sections of any
loaded pack are known), then spawned in :meth:`on_world_loaded`. A subclass that
overrides ``register`` must call ``super().register(ctx)``.
"""

from __future__ import annotations

import logging
from typing import ClassVar

from maid_engine.content import ContentPack, PackContext, PackError
from maid_stdlib.world.loader import WorldData
from maid_stdlib.world.service import WorldService
from maid_stdlib.world.spawner import spawn_pack

log = logging.getLogger("maid.world")

#: How many problems a start-up error lists before summarising the rest.
MAX_LISTED_PROBLEMS = 20


class WorldDataPack(ContentPack):
    requires: ClassVar[tuple[str, ...]] = ("stdlib",)

    def register(self, ctx: PackContext) -> None:
        ctx.service(WorldData).declare(self)

    def validate_data(self, ctx: PackContext) -> list[str]:
        """Every problem of the pack's data, as "file: entry: problem" lines.

        This is the hook ``maid_engine.packcheck.check_pack`` calls; it only reads.
        """
        return list(ctx.service(WorldData).load(self.name).problems)

    async def on_world_loaded(self, ctx: PackContext) -> None:
        data = ctx.service(WorldData)
        loaded = data.load(self.name)
        if loaded.problems:
            raise data_error(self.name, loaded.problems)
        world = ctx.service(WorldService)
        report = spawn_pack(
            ctx.engine, data, loaded, fallback_room=loaded.start_room or world.start_room
        )
        world.rebuild_index()
        if loaded.start_room is not None:
            world.start_room = loaded.start_room
        log.info(
            "pack %s: world built (%d created, %d refreshed, %d kept, %d removed)",
            self.name,
            report.created,
            report.refreshed,
            report.kept,
            report.removed,
        )


def data_error(pack: str, problems: list[str]) -> PackError:
    """One PackError listing the problems (the first ones if there are many)."""
    if len(problems) == 1:
        message = f"invalid data: {problems[0]}"
    else:
        listed = "\n  ".join(problems[:MAX_LISTED_PROBLEMS])
        more = len(problems) - MAX_LISTED_PROBLEMS
        tail = f"\n  ... and {more} more (run 'maid check-pack' for all)" if more > 0 else ""
        message = f"{len(problems)} problems in its data:\n  {listed}{tail}"
    error = PackError(pack, message)
    # The file of the first problem, without its line ("areas/town.yaml:12").
    error.file = (
        problems[0].split(": ", 1)[0].rsplit(":", 1)[0]
        if ".yaml:" in problems[0]
        else (problems[0].split(": ", 1)[0])
    )
    return error
