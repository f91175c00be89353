"""ReportsPlugin (``stdlib.reports``): ``bug``, ``typo``, ``idea`` and ``@reports``.

Service it provides: ``ReportDesk`` (reports in the ``player_reports`` collection).
"""

from __future__ import annotations

from maid_engine.content import ContentPack, PackContext
from maid_stdlib.reports import commands
from maid_stdlib.reports.desk import COLLECTION, ReportDesk
from maid_stdlib.world.plugin import WorldPlugin

__all__ = ["ReportsPlugin"]


class ReportsPlugin(ContentPack):
    name = "stdlib.reports"
    version = "0.1.0"
    requires = (WorldPlugin,)
    provides = (ReportDesk,)
    description = "Bug, typo and idea reports players file, and @reports for admins."

    def register(self, ctx: PackContext) -> None:
        ctx.provide(ReportDesk, ReportDesk(ctx.engine))
        ctx.ensure_collection(COLLECTION)
        ctx.add_commands(commands.COMMANDS)
