"""Group commands: ``follow``, ``unfollow``, ``group``, ``ungroup``, ``gtell``."""

from __future__ import annotations

from uuid import UUID

from classic_rpg.components import CharacterStats, Health, Mana
from classic_rpg.groups.service import Groups
from maid_engine.accounts.components import PlayerCharacter
from maid_engine.commands import Command, CommandContext, CommandError, command
from maid_stdlib.world.movement import here

_SELF = ("self", "me", "myself")


def groups_of(ctx: CommandContext) -> Groups:
    service: Groups = ctx.service(Groups)
    return service


def _player_here(ctx: CommandContext, wanted: str) -> UUID:
    ws, actor, room = here(ctx)
    target = ws.find_in_room(room, wanted, kinds=(PlayerCharacter,), viewer=actor)
    if target is None:
        raise CommandError(f"You do not see a player called '{wanted}' here.")
    return target


def _stop_following(ctx: CommandContext, groups: Groups, actor: UUID) -> None:
    leader = groups.unfollow(actor)
    if leader is None:
        raise CommandError("You are not following anyone.")
    ctx.send(f"You stop following {groups.name(leader)}.")
    groups.tell(leader, f"{groups.name(actor)} stops following you.")


@command("follow", category="group")
def follow(ctx: CommandContext) -> None:
    """Follow another player: when they walk out, you walk after them.

    Usage:
      follow <player>     follow them (they must be here)
      follow self         stop following (also: unfollow)
    A leader can then add you to their group ("group <you>").
    """
    groups = groups_of(ctx)
    actor = ctx.require_actor()
    wanted = ctx.args.strip()
    if not wanted:
        leader = groups.leader_followed(actor)
        if leader is None:
            raise CommandError("Follow whom? (follow <player>; follow self to stop)")
        ctx.send(f"You are following {groups.name(leader)}.")
        return
    if wanted.lower() in _SELF:
        _stop_following(ctx, groups, actor)
        return
    target = _player_here(ctx, wanted)
    if groups.leader_followed(actor) == target:
        raise CommandError(f"You are already following {groups.name(target)}.")
    # No circles: nobody may follow someone who (through others) follows them.
    seen: set[UUID] = set()
    step = groups.leader_followed(target)
    while step is not None and step not in seen:
        if step == actor:
            raise CommandError(f"{groups.name(target)} is following you already.")
        seen.add(step)
        step = groups.leader_followed(step)
    groups.follow(actor, target)
    ctx.send(f"You now follow {groups.name(target)}.")
    groups.tell(target, f"{groups.name(actor)} now follows you.")


@command("unfollow", category="group")
def unfollow(ctx: CommandContext) -> None:
    """Stop following whoever you follow (and leave their group).

    Usage: unfollow       (same as: follow self)
    """
    _stop_following(ctx, groups_of(ctx), ctx.require_actor())


def _roster(ctx: CommandContext, groups: Groups, members: list[UUID]) -> list[str]:
    world = ctx.world
    leader = members[0]
    lines = [f"{groups.name(leader)}'s group:"]
    for uid in members:
        stats = world.try_component(uid, CharacterStats)
        health = world.try_component(uid, Health)
        mana = world.try_component(uid, Mana)
        level = stats.level if stats is not None else 1
        hp = f"{health.current}/{health.maximum} hp" if health is not None else ""
        mp = f"{mana.current}/{mana.maximum} mp" if mana is not None else ""
        role = "  (leader)" if uid == leader else ""
        here = "" if ctx.engine.sessions.is_online(uid) else "  (away)"
        lines.append(f"  [{level:>2}] {groups.name(uid):<14} {hp:>13} {mp:>11}{role}{here}")
    return lines


@command("group", aliases=("party",), category="group")
def group(ctx: CommandContext) -> None:
    """See your group, or add a follower of yours to it.

    Usage:
      group               the group: level, health and mana of each member
      group <player>      (leader) add someone who follows you
      group leave         leave your group (also: ungroup)
    Members share the experience of kills made together, and quest credit where
    the quest says so (see "help quests").
    """
    groups = groups_of(ctx)
    actor = ctx.require_actor()
    wanted = ctx.args.strip()
    if not wanted:
        members = groups.group_of(actor)
        if not members:
            raise CommandError(
                "You are not in a group. (Have someone follow you, then 'group <name>'.)"
            )
        for line in _roster(ctx, groups, members):
            ctx.send(line)
        return
    if wanted.lower() == "leave":
        _leave(ctx, groups, actor)
        return
    if wanted.lower() in _SELF:
        raise CommandError("You are always in your own group.")
    target = _player_here(ctx, wanted)
    leader = groups.leader_of(actor)
    if leader not in (None, actor):
        raise CommandError(f"Only the leader, {groups.name(leader)}, can add members.")
    if groups.leader_of(target) == actor:
        raise CommandError(f"{groups.name(target)} is already in your group.")
    if groups.leader_followed(target) != actor:
        raise CommandError(f"{groups.name(target)} is not following you.")
    if groups.leader_of(target) is not None:
        raise CommandError(f"{groups.name(target)} is in another group.")
    groups.add(actor, target)
    ctx.send(f"{groups.name(target)} joins your group.")
    groups.tell(target, f"You join {groups.name(actor)}'s group.")
    for other in groups.members_of(actor):
        if other != target:
            groups.tell(other, f"{groups.name(target)} joins the group.")


def _leave(ctx: CommandContext, groups: Groups, actor: UUID) -> None:
    leader = groups.leader_of(actor)
    if leader is None:
        raise CommandError("You are not in a group.")
    groups.leave(actor)
    if leader == actor:
        ctx.send("You disband your group.")
    else:
        ctx.send(f"You leave {groups.name(leader)}'s group.")


@command("ungroup", category="group")
def ungroup(ctx: CommandContext) -> None:
    """Leave your group, or (leader) remove someone from it.

    Usage:
      ungroup             leave your group (a leader disbands it)
      ungroup <player>    (leader) remove a member
    """
    groups = groups_of(ctx)
    actor = ctx.require_actor()
    wanted = ctx.args.strip()
    if not wanted:
        _leave(ctx, groups, actor)
        return
    if groups.leader_of(actor) != actor:
        raise CommandError("You are not leading a group.")
    wanted_l = wanted.lower()
    target = next(
        (m for m in groups.members_of(actor) if groups.name(m).lower().startswith(wanted_l)),
        None,
    )
    if target is None:
        raise CommandError(f"Nobody called '{wanted}' is in your group.")
    groups.leave(target, told=(actor,))
    ctx.send(f"You remove {groups.name(target)} from your group.")
    groups.tell(target, f"{groups.name(actor)} removes you from the group.")


@command("gtell", aliases=("gt",), category="group")
def gtell(ctx: CommandContext) -> None:
    """Say something to everyone in your group, wherever they are.

    Usage: gtell <message>      (also: gt <message>)
    """
    groups = groups_of(ctx)
    actor = ctx.require_actor()
    text = ctx.args.strip()
    if not text:
        raise CommandError("Tell your group what?")
    members = groups.group_of(actor)
    if not members:
        raise CommandError("You are not in a group.")
    ctx.send(f"|gYou tell the group: '{text}'|n")
    for other in members:
        if other != actor:
            groups.tell(other, f"|g{groups.name(actor)} tells the group: '{text}'|n")


COMMANDS: list[Command] = [follow, unfollow, group, ungroup, gtell]
