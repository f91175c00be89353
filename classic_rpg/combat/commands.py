"""Combat commands: ``kill``/``attack``, ``flee``, ``wimpy`` and ``consider``.

They only validate and mark the fight; the CombatSystem resolves rounds on the tick.
"""

from __future__ import annotations

from uuid import UUID

from classic_rpg.combat.components import Fighting, Wimpy
from classic_rpg.combat.formulas import defense_of, expected_damage, level_of, offense_of
from classic_rpg.combat.service import CombatService
from classic_rpg.components import CharacterStats, Health
from maid_engine.accounts.components import PlayerCharacter
from maid_engine.commands import Command, CommandContext, CommandError, command
from maid_engine.ecs import World
from maid_stdlib.world.components import NPC
from maid_stdlib.world.movement import here
from maid_stdlib.world.text import DIRECTIONS, capitalize

#: The commands that walk out of a room (recall has its own guard).
_WALKING = frozenset({*DIRECTIONS, "go"})


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
    It does not always work: a failed try costs you your next attack and the fight
    goes on. Getting away costs a little experience (never a level). See also
    "wimpy", which flees for you when your health runs low.
    """
    _ws, actor, _room = here(ctx)
    combat = combat_of(ctx)
    if not combat.is_fighting(actor) and not combat.opponents_of(actor):
        raise CommandError("You are not fighting anyone.")
    for line in combat.run_away(actor):
        ctx.send(line)


def fighting_guard(ctx: CommandContext, cmd: Command) -> str | None:
    """The command guard: nobody walks out of a fight; ``flee`` is the way out,
    with its chance and its cost (walking away would cost nothing)."""
    actor = ctx.actor
    if actor is None or cmd.key not in _WALKING:
        return None
    combat = combat_of(ctx)
    fighting = ctx.world.try_component(actor, Fighting)
    if fighting is None:
        return None
    # A foe just killed leaves the fight marked until the next round: over, unless
    # someone else here is still attacking.
    foe = fighting.target
    if foe is None or not combat.valid_target(actor, foe):
        foe = combat.new_target(actor)
        if foe is None:
            return None
    return f"You are fighting {combat.name(foe)} for your life! (Type 'flee' to try to get away.)"


@command("wimpy", category="combat")
def wimpy(ctx: CommandContext) -> None:
    """Flee on your own when your health falls below a number of hit points.

    Usage:
      wimpy            show your setting
      wimpy <hp>       flee automatically below <hp> health (at most half your maximum)
      wimpy 0          never flee on your own
    """
    actor = ctx.require_actor()
    world = ctx.world
    health = world.try_component(actor, Health)
    if health is None:
        raise CommandError("You have no health to guard.")
    current = world.try_component(actor, Wimpy)
    wanted = ctx.args.strip()
    if not wanted:
        hp = current.hp if current is not None else 0
        if hp <= 0:
            ctx.send("Your wimpy is off: you fight until you flee or fall.")
        else:
            ctx.send(f"Your wimpy is set to {hp} hit points.")
        return
    if not wanted.isdigit():
        raise CommandError("Usage: wimpy <hit points> (a whole number, 0 turns it off).")
    hp = int(wanted)
    limit = health.maximum // 2
    if hp > limit:
        raise CommandError(f"Such cowardice ill becomes you: at most {limit} (half your health).")
    if current is None:
        world.add_component(actor, Wimpy(hp))
    else:
        current.hp = hp
    if hp == 0:
        ctx.send("Wimpy off: you will fight until you flee or fall.")
    else:
        ctx.send(f"Wimpy set to {hp} hit points: below that you will try to flee.")


#: (upper bound of the ratio of your rounds to kill them to theirs to kill you,
#: the ROM-style verdict). "{n}" is their name. Below 1 the ratio is also about
#: the share of your health the fight costs you: "no match" must not cost half
#: of it (a newcomer told so lost 15 of 30 hit points to a scout).
_CONSIDER = (
    (0.1, "You can kill {n} naked and weaponless."),
    (0.25, "{N} is no match for you."),
    (0.5, "{N} looks like an easy kill."),
    (1.0, "The perfect match!"),
    (2.0, "You would need some luck against {n}."),
    (4.0, "{N} laughs at you mercilessly."),
)
_HOPELESS = "Death will thank you for your gift."


def danger_ratio(world: World, actor: UUID, target: UUID) -> float:
    """How many times longer you need to kill ``target`` than it needs to kill
    you, from both sides' health, levels, weapons, armor and attributes."""
    mine = expected_damage(offense_of(world, actor), defense_of(world, target))
    theirs = expected_damage(offense_of(world, target), defense_of(world, actor))
    my_health = world.get_component(actor, Health).current
    their_health = world.get_component(target, Health).current
    my_rounds = their_health / max(mine, 0.01)
    their_rounds = max(my_health, 1) / max(theirs, 0.01)
    return my_rounds / their_rounds


@command("consider", aliases=("con",), category="combat")
def consider(ctx: CommandContext) -> None:
    """Judge how dangerous someone would be to fight.

    Usage: consider <target>      (also: con <target>)
    The verdict weighs both sides' health, level, weapon, armor and attributes:
    from "You can kill it naked and weaponless." to "Death will thank you for
    your gift."
    """
    ws, actor, room = here(ctx)
    wanted = ctx.args.strip()
    if not wanted:
        raise CommandError("Consider whom?")
    target = ws.find_in_room(room, wanted, kinds=(NPC, PlayerCharacter), viewer=actor)
    if target is None:
        raise CommandError(f"You do not see '{wanted}' here.")
    world = ctx.world
    name = combat_of(ctx).name(target)
    theirs = world.try_component(target, CharacterStats)
    if theirs is None or not world.has_component(target, Health):
        ctx.send(f"{capitalize(name)} is not someone you can fight.")
        return
    if not world.has_component(actor, Health):
        raise CommandError("You are in no shape to fight anyone.")
    ratio = danger_ratio(world, actor, target)
    verdict = _HOPELESS
    for limit, text in _CONSIDER:
        if ratio < limit:
            verdict = text
            break
    ctx.send(verdict.format(n=name, N=capitalize(name)))
    diff = theirs.level - level_of(world, actor)
    if diff:
        more = "higher" if diff > 0 else "lower"
        plural = "s" if abs(diff) > 1 else ""
        # The verdict weighs more than levels; where the two point different ways
        # it says which counts, or "no match ... 1 level higher" reads as a slip
        # ("The perfect match!" a level up or down is no contradiction).
        if diff > 0 and ratio < 0.5:
            more += " than you, but your health and gear count for more"
        elif diff < 0 and ratio >= 1.0:
            more += " than you, but health and gear count for more"
        else:
            more += " than you"
        ctx.send(f"({capitalize(name)} is {abs(diff)} level{plural} {more}.)")


COMMANDS: list[Command] = [kill, flee, wimpy, consider]
