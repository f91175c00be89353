"""Socials: ``smile``, ``bow Alice``, ``poke self`` ... from data (``socials.yaml``
and what packs add), each a command of its own; ``socials`` lists them."""

from __future__ import annotations

from maid_engine.accounts.components import PlayerCharacter
from maid_engine.commands import Command, CommandContext, CommandError, command
from maid_stdlib.talk.data import SocialSpec, TalkData
from maid_stdlib.world.components import NPC
from maid_stdlib.world.look import name_of
from maid_stdlib.world.movement import here
from maid_stdlib.world.text import capitalize, player_words

SELF_WORDS = frozenset({"self", "me", "myself"})


def _fill(line: str, actor: str, target: str = "") -> str:
    return capitalize(line.replace("$n", actor).replace("$N", target))


def social_command(key: str, spec: SocialSpec) -> Command:
    """The command doing social ``key``."""

    def run(ctx: CommandContext) -> None:
        ws, actor, room = here(ctx)
        me = name_of(ws, actor)
        words = ctx.args.split()
        if not words:
            ctx.send(_fill(spec.actor, me))
            ws.message_room(room, _fill(spec.room, me), exclude=(actor,))
            return
        if not spec.targeted:
            raise CommandError(f"You cannot {key} at someone; just type '{key}'.")
        wanted = words[0].lower()
        if wanted in SELF_WORDS or ws.matches(actor, [wanted]):
            own, seen = (
                (spec.actor_self, spec.room_self)
                if spec.actor_self is not None and spec.room_self is not None
                else (spec.actor, spec.room)
            )
            ctx.send(_fill(own, me))
            ws.message_room(room, _fill(seen, me), exclude=(actor,))
            return
        target = ws.find_in_room(room, wanted, kinds=(NPC, PlayerCharacter), viewer=actor)
        if target is None:
            raise CommandError(f"You do not see '{player_words(wanted)}' here.")
        them = name_of(ws, target)
        assert spec.actor_target is not None
        assert spec.target is not None
        assert spec.room_target is not None
        ctx.send(_fill(spec.actor_target, me, them))
        ctx.engine.sessions.send_to(target, _fill(spec.target, me, them))
        ws.message_room(room, _fill(spec.room_target, me, them), exclude=(actor, target))

    example = spec.actor.replace("$n", "you")
    usage = f"{key} [<someone>]" if spec.targeted else key
    return Command(
        key=key,
        func=run,
        category="socials",
        prefix_match=False,
        help=f"A social: \"{example}\"\n\nUsage: {usage}\nSee 'socials' for them all.",
    )


@command("socials", category="socials")
def socials(ctx: CommandContext) -> None:
    """List the socials: things to do with or to others ("smile", "bow Alice").

    Usage: socials
    Most take someone here as a target ('wave Bob'); 'self' aims one at yourself.
    """
    data: TalkData = ctx.service(TalkData)
    keys = sorted(data.socials)
    width = max((len(k) for k in keys), default=0) + 2
    per_line = max(1, 72 // width)
    rows = [
        "  " + "".join(k.ljust(width) for k in keys[i : i + per_line]).rstrip()
        for i in range(0, len(keys), per_line)
    ]
    ctx.send("\n".join([f"|cSocials ({len(keys)}):|n", *rows, "Usage: <social> [<someone>]"]))


COMMANDS: list[Command] = [socials]
