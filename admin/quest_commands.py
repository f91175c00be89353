"""``@quest``: the admin tools of quest generation.

One command, ``@quest``, with eleven subcommands (unambiguous prefixes work:
``@quest list``). Every report reads the live engine through
:class:`~admin.quest_state.QuestOps` and is paged and wrapped to the admin's
client (:mod:`maid_stdlib.world.pager`). See docs/admin-guide.md.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from admin.force import force_generate
from admin.quest_state import QuestOps
from admin.quest_views import (
    backpressure_lines,
    chain_lines,
    grounding_lines,
    inspect_lines,
    list_lines,
    quality_lines,
    seed_status_lines,
)
from maid_engine.commands import Command, CommandContext, CommandError, Role, command
from maid_engine.net.markup import escape_markup
from maid_stdlib.questgen import GeneratedQuest
from maid_stdlib.world.components import NPC
from maid_stdlib.world.pager import page
from maid_stdlib.world.resolve import resolve_entity

__all__ = ["QUEST_COMMANDS", "SUBCOMMANDS", "USAGE", "quest_command"]

SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "list-generated": (
        "[--active|--expired|--all]",
        "generated quests: status, archetype, grounding score",
    ),
    "seed-status": ("", "seed queue depth, builds in flight, seed age histogram"),
    "inspect": (
        "<quest_id>",
        "objectives, consequences, branches, quality scores, narrative source and token cost",
    ),
    "force-generate": (
        "<seed_type> [<npc: key, name or keyword>] [--ignore-cooldown]",
        "queue a seed grounded by the seed type's own grounder on a situation of now "
        "(built-in types: else a synthetic one); it goes through the real pipeline",
    ),
    "quality-report": ("", "average scores, rejection and template fallback rates"),
    "grounding-check": ("<quest_id>", "re-run grounding validation against the world now"),
    "backpressure": ("", "builds in flight, token budget, queue depth, throttle actions"),
    "chain": ("<quest_id>", "the chain's ancestry and descendants, as a tree"),
    "cancel": (
        "<quest_id> [reason]",
        "withdraw a quest (generated or authored): it fails for everyone holding it, "
        "who is told; no consequences apply",
    ),
    "expire": (
        "<quest_id>",
        "end a quest's time now: it expires for everyone holding it, as when its time runs out",
    ),
    "invalidate": (
        "<quest_id> <what changed>",
        "the world changed under the quest: it fails for everyone holding it, who is told why",
    ),
}

USAGE = "Usage: @quest <subcommand> [arguments]\n" + "\n".join(
    f"  @quest {name} {args}".rstrip() + f"\n      {what}"
    for name, (args, what) in SUBCOMMANDS.items()
)

Handler = Callable[[CommandContext, QuestOps, list[str]], Awaitable[list[str]]]


def usage_of(name: str) -> str:
    args, what = SUBCOMMANDS[name]
    return f"Usage: @quest {name} {args}".rstrip() + f"\n  {what}"


def _subcommand(word: str) -> str:
    word = word.lower()
    if word in SUBCOMMANDS:
        return word
    found = [name for name in SUBCOMMANDS if name.startswith(word)]
    if len(found) == 1:
        return found[0]
    if found:
        raise CommandError(f"'{word}' could mean: {', '.join(found)}.")
    raise CommandError(f"Unknown subcommand '{word}'.\n{USAGE}")


def _need_system(ops: QuestOps) -> None:
    if ops.generation is None:
        raise CommandError("Quest generation is not running (no QuestGenerationService).")


def _one_id(name: str, args: list[str]) -> str:
    if len(args) != 1:
        raise CommandError(usage_of(name))
    return args[0]


async def _generated(ops: QuestOps, name: str, args: list[str]) -> GeneratedQuest:
    quest_id = _one_id(name, args)
    if ops.is_authored(quest_id):
        raise CommandError(f"'{quest_id}' is a hand-authored quest, not a generated one.")
    if not ops.is_generated(quest_id):
        raise CommandError(f"No generated quest '{quest_id}'. (See '@quest list-generated --all'.)")
    quest = await ops.quest(quest_id)
    if quest is None:
        raise CommandError(f"Generated quest '{quest_id}' has no side-table record left.")
    return quest


# -- the subcommands ------------------------------------------------------------------
async def _list(ctx: CommandContext, ops: QuestOps, args: list[str]) -> list[str]:
    flags = {"--active": "active", "--expired": "expired", "--all": "all"}
    if len(args) > 1 or (args and args[0].lower() not in flags):
        raise CommandError(usage_of("list-generated"))
    return list_lines(ops, flags[args[0].lower()] if args else "active")


async def _seed_status(ctx: CommandContext, ops: QuestOps, args: list[str]) -> list[str]:
    if args:
        raise CommandError(usage_of("seed-status"))
    _need_system(ops)
    return seed_status_lines(ops)


async def _inspect(ctx: CommandContext, ops: QuestOps, args: list[str]) -> list[str]:
    return await inspect_lines(ops, await _generated(ops, "inspect", args))


async def _force(ctx: CommandContext, ops: QuestOps, args: list[str]) -> list[str]:
    ignore_cooldown = "--ignore-cooldown" in args
    args = [a for a in args if a != "--ignore-cooldown"]
    if not args or any(a.startswith("--") for a in args):
        raise CommandError(usage_of("force-generate"))
    _need_system(ops)
    seed_type, qg = args[0].lower(), ops.qg
    if not qg.seed_types.is_registered(seed_type):
        raise CommandError(
            f"Unknown seed type '{seed_type}'. Registered: "
            f"{', '.join(sorted(qg.seed_types.all()))}."
        )
    if not any(seed_type in a.compatible_seed_types for a in qg.archetypes.all()):
        raise CommandError(f"No archetype accepts seed type '{seed_type}'.")
    giver = None
    if len(args) > 1:
        # The giver by key, name (several words) or keyword, like every admin command.
        giver = resolve_entity(qg.facts.ws, " ".join(args[1:]), (NPC,), what="NPC")
    who = ctx.account_id or (ops.name(ctx.actor) if ctx.actor else "admin")
    result = await force_generate(
        ops,
        seed_type,
        giver,
        by=who,
        forced=ops.admin.forced if ops.admin is not None else None,
        ignore_cooldown=ignore_cooldown,
    )
    if result.seed is None or result.archetype is None:
        lines = [f"Could not ground a {seed_type} seed in the world as it is now. Tried:"]
        # What was tried quotes situation keys ("tension:bandits|guard"): text, not
        # colour codes ("|g" would turn the rest green and lose the g).
        return lines + [f"  - {escape_markup(t)}" for t in result.tried[:30]]
    seed, facts = result.seed, qg.facts
    who_gives, room = facts.name(seed.primary_npc), facts.room_name(seed.location)
    return [
        f"Queued seed {seed.id} ({seed_type}, importance {seed.importance:.2f}) from "
        f"{escape_markup(who_gives)} at {escape_markup(room)}.",
        f"It plans as archetype '{result.archetype.archetype_id}' and is built on the next "
        "tick; see '@quest seed-status' and '@quest list-generated'.",
    ]


async def _quality(ctx: CommandContext, ops: QuestOps, args: list[str]) -> list[str]:
    if args:
        raise CommandError(usage_of("quality-report"))
    return quality_lines(ops)


async def _grounding(ctx: CommandContext, ops: QuestOps, args: list[str]) -> list[str]:
    return await grounding_lines(ops, await _generated(ops, "grounding-check", args))


async def _backpressure(ctx: CommandContext, ops: QuestOps, args: list[str]) -> list[str]:
    if args:
        raise CommandError(usage_of("backpressure"))
    _need_system(ops)
    return backpressure_lines(ops)


async def _chain(ctx: CommandContext, ops: QuestOps, args: list[str]) -> list[str]:
    quest_id = _one_id("chain", args)
    if not ops.is_generated(quest_id):
        raise CommandError(f"No generated quest '{quest_id}'.")
    return chain_lines(ops, quest_id)


def _open_quest(ops: QuestOps, name: str, args: list[str], need_words: bool = False) -> str:
    if not args or (need_words and len(args) < 2):
        raise CommandError(usage_of(name))
    quest_id = args[0]
    manager = ops.manager
    if manager is None or manager.get_quest(quest_id) is None:
        raise CommandError(f"No quest '{quest_id}'. (See 'quests' or '@quest list-generated'.)")
    if not manager.is_open(quest_id):
        status, reason = manager.registry.status(quest_id) or ("closed", "")
        raise CommandError(
            f"'{quest_id}' is already closed: {status}" + (f" ({reason})." if reason else ".")
        )
    return quest_id


async def _invalidated(ops: QuestOps, quest_id: str, reason: str, why: str) -> list[str]:
    """Invalidate through the grounding monitor for a generated quest (its metrics
    and references follow), else through the quest manager; who was told."""
    assert ops.manager is not None
    quest = await ops.quest(quest_id) if ops.is_generated(quest_id) else None
    if quest is not None and ops.monitor is not None and ops.monitor.board is not None:
        affected = ops.monitor.invalidate(quest, reason, why)
    else:
        affected = ops.manager.invalidate_quest(quest_id, reason, why)
    title = ops.manager.get_quest(quest_id)
    name = title.title if title is not None else quest_id
    return [f"'{name}' ({quest_id}) is closed: {why}", f"{len(affected)} character(s) told."]


async def _cancel(ctx: CommandContext, ops: QuestOps, args: list[str]) -> list[str]:
    quest_id = _open_quest(ops, "cancel", args)
    reason = " ".join(args[1:])
    why = "An admin withdrew it" + (f": {reason}." if reason else ".")
    return await _invalidated(ops, quest_id, "cancelled_by_admin", why)


async def _invalidate(ctx: CommandContext, ops: QuestOps, args: list[str]) -> list[str]:
    quest_id = _open_quest(ops, "invalidate", args, need_words=True)
    why = " ".join(args[1:]).rstrip(".") + "."
    return await _invalidated(ops, quest_id, "invalidated_by_admin", why[0].upper() + why[1:])


async def _expire(ctx: CommandContext, ops: QuestOps, args: list[str]) -> list[str]:
    if len(args) != 1:
        raise CommandError(usage_of("expire"))
    quest_id = _open_quest(ops, "expire", args)
    assert ops.manager is not None
    title = ops.manager.get_quest(quest_id)
    holders = ops.manager.holders(quest_id)
    accepted = ops.manager.expire_quest(quest_id)
    # Whoever had it on offer only is told too (the accepted ones read "Quest failed").
    for character, _entry in holders:
        if character not in accepted:
            ops.manager.notify(
                character, f"'{title.title if title else quest_id}' is no longer offered."
            )
    return [
        f"'{title.title if title else quest_id}' ({quest_id}) has expired: "
        f"{len(accepted)} character(s) had accepted it, {len(holders)} held it."
    ]


HANDLERS: dict[str, Handler] = {
    "list-generated": _list,
    "seed-status": _seed_status,
    "inspect": _inspect,
    "force-generate": _force,
    "quality-report": _quality,
    "grounding-check": _grounding,
    "backpressure": _backpressure,
    "chain": _chain,
    "cancel": _cancel,
    "expire": _expire,
    "invalidate": _invalidate,
}


@command("@quest", permission=Role.ADMIN, category="admin", needs_character=False)
async def quest_command(ctx: CommandContext) -> None:
    """Inspect and steer quest generation.

    Usage: @quest                       (lists the subcommands)
           @quest list-generated [--active|--expired|--all]
           @quest seed-status
           @quest inspect <quest_id>
           @quest force-generate <seed_type> [<npc>] [--ignore-cooldown]
           @quest quality-report
           @quest grounding-check <quest_id>
           @quest backpressure
           @quest chain <quest_id>
           @quest cancel <quest_id> [reason]
           @quest expire <quest_id>
           @quest invalidate <quest_id> <what changed>
    """
    words = ctx.argv
    if not words:
        page(ctx, USAGE)
        return
    name = _subcommand(words[0])
    try:
        ops = QuestOps(ctx.engine)
    except LookupError:
        raise CommandError("Quest generation is not installed (no QuestGen service).") from None
    lines = await HANDLERS[name](ctx, ops, words[1:])
    page(ctx, "\n".join(lines))


QUEST_COMMANDS: list[Command] = [quest_command]
