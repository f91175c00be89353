"""Combat commands: ``kill``/``attack``, ``flee`` and ``consider``.

They only validate and mark the fight; the CombatSystem resolves rounds on the tick.
"""

from __future__ import annotations

from classic_rpg.combat.service import CombatService
from classic_rpg.components import CharacterStats, Health
from maid_engine.accounts.components import PlayerCharacter
from maid_engine.commands import Command, CommandContext, CommandError, command
from maid_stdlib.world.components import NPC
from maid_stdlib.world.look import render_room
from maid_stdlib.world.movement import here
from maid_stdlib.world.text import capitalize


def combat_of(ctx: CommandContext) -> CombatService:
    service: CombatService = ctx.service(CombatService)
    return service


@command("kill", aliases=("attack", "k"), category="combat")
def kill(ctx: CommandContext) -> None:
    """Attack someone; the fight goes on in rounds until one of you dies or flees.

    Usage: kill <target>      (also: attack <target>, k <target>; "kill 2.scout")
    """
    ws, actor, room = here(ctx)
    combat = combat_of(ctx)
    wanted = ctx.args.strip()
    if not wanted:
        raise CommandError("Kill whom?")
    target = ws.find_in_room(room, wanted, kinds=(NPC, PlayerCharacter), viewer=actor)
    if target is None:
        raise CommandError(f"You do not see '{wanted}' here.")
    refusal = combat.attack_refusal(actor, target)
    if refusal is not None:
        raise CommandError(refusal)
    name = combat.name(target)
    if combat.target_of(actor) == target:
        raise CommandError(f"You are already fighting {name}!")
    combat.engage(actor, target)
    ctx.send(f"|rYou attack {name}!|n")
    ctx.engine.sessions.send_to(target, f"|r{capitalize(combat.name(actor))} attacks you!|n")
    ws.message_room(
        room, f"{capitalize(combat.name(actor))} attacks {name}!", exclude=(actor, target)
    )


@command("flee", category="combat")
def flee(ctx: CommandContext) -> None:
    """Try to run away from a fight through a random exit.

    Usage: flee
    It does not always work; if it fails, the fight goes on.
    """
    ws, actor, _room = here(ctx)
    combat = combat_of(ctx)
    if not combat.is_fighting(actor) and not combat.opponents_of(actor):
        raise CommandError("You are not fighting anyone.")
    direction = combat.flee(actor)
    if direction is None:
        raise CommandError("|rYou try to flee, but cannot get away!|n")
    new_room = ws.room_key_of(actor)
    ctx.send(f"You flee {direction}!")
    if new_room is not None:
        ctx.send(render_room(ws, new_room, actor))


#: (level difference below which the verdict applies, verdict)
_CONSIDER = (
    (-4, "would be an easy kill."),
    (-1, "is no match for you."),
    (2, "looks like a fair fight."),
    (4, "looks tough."),
    (6, "would be very dangerous."),
)


@command("consider", aliases=("con",), category="combat")
def consider(ctx: CommandContext) -> None:
    """Judge how dangerous someone would be to fight.

    Usage: consider <target>
    """
    ws, actor, room = here(ctx)
    wanted = ctx.args.strip()
    if not wanted:
        raise CommandError("Consider whom?")
    target = ws.find_in_room(room, wanted, kinds=(NPC, PlayerCharacter), viewer=actor)
    if target is None:
        raise CommandError(f"You do not see '{wanted}' here.")
    world = ctx.world
    name = capitalize(combat_of(ctx).name(target))
    theirs = world.try_component(target, CharacterStats)
    if theirs is None or not world.has_component(target, Health):
        ctx.send(f"{name} is not someone you can fight.")
        return
    mine = world.try_component(actor, CharacterStats)
    diff = theirs.level - (mine.level if mine is not None else 1)
    verdict = "would crush you like a bug."
    for limit, text in _CONSIDER:
        if diff < limit:
            verdict = text
            break
    ctx.send(f"{name} {verdict}")


COMMANDS: list[Command] = [kill, flee, consider]
