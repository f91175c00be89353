"""Vault: a tiny RPG world for crash tests of trades, narrated turns and turn-ins.

One narrated room (the strongroom, the start room) with the warden, who gives a
quest that pays gold and a brass seal; the stairs above it (the quest's one
objective); an armour item template. Two test commands: ``outfit`` gives the actor
a suit of armour, ``save`` commits the world at once (an early checkpoint, so a
test can start from "everything is on disk"). Load it with
``--pack classic_rpg --pack kits.vault.pack:VaultPack`` (``tests`` on PYTHONPATH,
as :class:`~e2e.server.ServerProcess` sets it).
"""

from __future__ import annotations

from classic_rpg.items.factory import ItemFactory
from maid_engine.commands import CommandContext, command
from maid_engine.content import PackContext
from maid_stdlib.world.datapack import WorldDataPack

ARMOUR = "vault:armour"


@command("outfit", category="test")
def outfit(ctx: CommandContext) -> None:
    """Get a suit of armour.

    Usage: outfit
    """
    ctx.service(ItemFactory).spawn(ARMOUR, holder=ctx.require_actor())
    ctx.send("You are outfitted.")


@command("save", category="test")
async def save(ctx: CommandContext) -> None:
    """Write the world to the database now.

    Usage: save
    """
    entities = await ctx.engine.commit_now()
    ctx.send(f"Saved ({entities} entities).")


class VaultPack(WorldDataPack):
    name = "vault"
    version = "0.1.0"
    requires = ("stdlib", "classic_rpg")
    description = "A narrated strongroom, a warden's quest, armour (a test world)."

    def register(self, ctx: PackContext) -> None:
        super().register(ctx)
        ctx.add_commands([outfit, save])
