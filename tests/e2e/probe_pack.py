"""A tiny content pack for crash tests: a per-character counter players can bump.

Load it next to the normal packs with ``--pack ironvale --pack probe_pack:ProbePack``
(``tests/e2e`` must be on PYTHONPATH; :class:`~e2e.server.ServerProcess` puts
``tests`` there, so use ``e2e.probe_pack:ProbePack``).

``bump`` adds one to the character's :class:`ProbeCounter` and answers
``Counter: N``. The counter only changes through commands and is persisted by the
checkpoint like any other component, so after a crash the restored value tells
exactly how old the restored state is.
"""

from __future__ import annotations

from dataclasses import dataclass

from maid_engine.commands import CommandContext, command
from maid_engine.content import ContentPack, PackContext
from maid_engine.ecs import Component


@dataclass
class ProbeCounter(Component):
    component_name = "ProbeCounter"
    count: int = 0


@command("bump", category="test")
def bump(ctx: CommandContext) -> None:
    """Add one to your probe counter.

    Usage: bump
    """
    actor = ctx.require_actor()
    counter = ctx.world.try_component(actor, ProbeCounter)
    if counter is None:
        counter = ProbeCounter()
        ctx.world.add_component(actor, counter)
    counter.count += 1
    ctx.send(f"Counter: {counter.count}")


@command("probe", category="test")
def probe(ctx: CommandContext) -> None:
    """Show your probe counter.

    Usage: probe
    """
    actor = ctx.require_actor()
    counter = ctx.world.try_component(actor, ProbeCounter)
    ctx.send(f"Counter: {counter.count if counter is not None else 0}")


class ProbePack(ContentPack):
    name = "probe"
    version = "0.1.0"
    requires = ("stdlib",)
    description = "Test-only: a persistent counter per character."

    def register(self, ctx: PackContext) -> None:
        ctx.add_commands([bump, probe])
