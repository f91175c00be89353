"""Builder views of the living world: ``@living <npc>`` and ``@story``."""

from __future__ import annotations

from uuid import UUID

from maid_engine.clock import GAME_HOUR
from maid_engine.commands import Command, CommandContext, CommandError, Role, command
from maid_stdlib.living.components import GoalsComponent, NeedsComponent, Relationships
from maid_stdlib.living.gossip import KnownGossip
from maid_stdlib.living.service import LivingWorld
from maid_stdlib.world.components import NPC
from maid_stdlib.world.resolve import resolve_entity
from maid_stdlib.world.service import WorldService


def _find_npc(ctx: CommandContext, wanted: str) -> UUID:
    ws: WorldService = ctx.service(WorldService)
    room = ws.room_key_of(ctx.actor) if ctx.actor is not None else None
    if room is not None:
        found = ws.find_in_room(room, wanted, kinds=(NPC,), viewer=ctx.actor)
        if found is not None:
            return found
    return resolve_entity(ws, wanted, (NPC,), what="NPC")


@command("@living", permission=Role.BUILDER, category="building", needs_character=False)
def at_living(ctx: CommandContext) -> None:
    """Show an NPC's needs, goals, relationships, gossip and latest memories.

    Usage: @living <npc>      e.g. @living gundrik
    """
    if not ctx.args.strip():
        raise CommandError("Usage: @living <npc>")
    living: LivingWorld = ctx.service(LivingWorld)
    world = ctx.world
    uid = _find_npc(ctx, ctx.args.strip())
    lines = [f"|w{living.name_of(uid)}|n ({uid})"]
    needs = world.try_component(uid, NeedsComponent)
    for name, state in needs.needs.items() if needs is not None else ():
        flag = " |rUNMET|n" if state.unmet else ""
        lines.append(f"  need {name}: {state.value:.2f} (threshold {state.threshold:.2f}){flag}")
    goals = world.try_component(uid, GoalsComponent)
    for goal in goals.goals if goals is not None else ():
        blocker = f" -- blocked by {goal.blocker}" if goal.blocker else ""
        lines.append(
            f"  goal {goal.id} [{goal.status}] {goal.description} "
            f"p={goal.priority:.1f} progress={goal.progress:.2f}{blocker}"
        )
    rels = world.try_component(uid, Relationships)
    for target, rel in sorted(rels.entries.items()) if rels is not None else ():
        try:
            who = living.name_of(UUID(target))
        except ValueError:
            who = target
        kind = f" ({rel.kind})" if rel.kind else ""
        lines.append(
            f"  feels about {who}{kind}: trust {rel.trust:+.2f}, affinity {rel.affinity:+.2f}"
        )
    known = world.try_component(uid, KnownGossip)
    for item in sorted(known.items.values(), key=lambda i: -i.confidence) if known else ():
        lines.append(f"  knows ({item.confidence:.2f}): {item.content}")
    now = ctx.engine.clock.game_time
    for memory in living.memory.get_recent(uid, limit=5):
        ago = (now - (memory.game_time or now)) / GAME_HOUR
        lines.append(f"  remembers ({memory.visibility.value}, {ago:.1f}h ago): {memory.content}")
    ctx.send("\n".join(lines))


COMMANDS: list[Command] = [at_living]
