"""Staff commands of the rules layer: ``@advance`` raises a character's level."""

from __future__ import annotations

from classic_rpg.characters.levels import MAX_LEVEL, Progression, xp_for_level
from classic_rpg.components import CharacterStats
from maid_engine.accounts.components import PlayerCharacter
from maid_engine.commands import Command, CommandContext, CommandError, Role, command
from maid_stdlib.world.look import name_of
from maid_stdlib.world.movement import world_of
from maid_stdlib.world.resolve import resolve_entity

USAGE = f"Usage: @advance <character> <level> (2 to {MAX_LEVEL})"


@command("@advance", permission=Role.ADMIN, category="admin", needs_character=False)
def advance(ctx: CommandContext) -> None:
    """Raise a character to a level, as if they had earned it.

    Usage: @advance <character> <level>

    The character gets the experience that level needs and goes up one level at a
    time, as earned levels go: maximum health and mana grow with each and are full
    afterwards, and a player online sees each level reached. For trying later
    content without the climb; a level is never taken away.
    """
    argv = ctx.argv
    if len(argv) != 2:
        raise CommandError(USAGE)
    try:
        level = int(argv[1])
    except ValueError:
        raise CommandError(USAGE) from None
    if not 2 <= level <= MAX_LEVEL:
        raise CommandError(USAGE)
    ws = world_of(ctx)
    target = resolve_entity(ws, argv[0], (PlayerCharacter,), what="character")
    stats = ctx.world.try_component(target, CharacterStats)
    name = name_of(ws, target)
    if stats is None:
        raise CommandError(f"{name} has no level to raise.")
    if stats.level >= level:
        raise CommandError(
            f"{name} is already level {stats.level}; @advance only raises a level "
            "(taking levels back would take back what each one gave)."
        )
    before = stats.level
    progression: Progression = ctx.service(Progression)
    missing = xp_for_level(level) - stats.experience
    if missing > 0:
        progression.award_experience(target, missing, "(granted by the staff)")
    # Experience already past the level (stats set by hand): the levels alone.
    while stats.level < level:
        progression.level_up(target)
    ctx.send(f"{name} goes from level {before} to level {stats.level}.")


COMMANDS: list[Command] = [advance]
