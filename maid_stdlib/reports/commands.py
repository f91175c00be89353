"""``bug``, ``typo`` and ``idea`` (players file reports) and ``@reports`` (admins read
and close them)."""

from __future__ import annotations

import logging
from uuid import UUID

from maid_engine.accounts.components import PlayerCharacter
from maid_engine.commands import Command, CommandContext, CommandError, Role, command
from maid_engine.store import StoreError
from maid_stdlib.reports.desk import KINDS, Report, ReportDesk, ReportError, stamp
from maid_stdlib.world.look import name_of
from maid_stdlib.world.movement import world_of
from maid_stdlib.world.pager import page
from maid_stdlib.world.text import player_words

log = logging.getLogger("maid.reports")

THANKS = {
    "bug": "Thank you: bug report #{n} is filed for the admins.",
    "typo": "Thank you: typo report #{n} is filed for the admins.",
    "idea": "Thank you: idea #{n} is filed for the admins.",
}
STORE_DOWN = "Your report could not be saved right now; please try again in a moment."


async def _file(ctx: CommandContext, kind: str) -> None:
    actor = ctx.require_actor()
    text = " ".join(player_words(ctx.args).split())
    if not text:
        raise CommandError(f"What is the {kind}? Usage: {kind} <what you found or thought of>")
    ws = world_of(ctx)
    room = ws.room_key_of(actor) or ""
    found = ws.room(room) if room else None
    desk: ReportDesk = ctx.service(ReportDesk)
    try:
        report = await desk.file(
            kind, text, name_of(ws, actor), str(actor), room, found.name if found else ""
        )
    except ReportError as exc:
        raise CommandError(str(exc)) from None
    except StoreError:
        log.warning("could not file a %s report", kind, exc_info=True)
        raise CommandError(STORE_DOWN) from None
    ctx.send(THANKS[kind].format(n=report.number))


@command("bug", category="general", prefix_match=False)
async def bug(ctx: CommandContext) -> None:
    """Report something that does not work as it should.

    Usage: bug <what happened>
    Example: bug the gate guard walks through the wall

    Your name, the room you are in and the time are kept with the report.
    """
    await _file(ctx, "bug")


@command("typo", category="general", prefix_match=False)
async def typo(ctx: CommandContext) -> None:
    """Report a spelling or wording mistake in the game's text.

    Usage: typo <where and what>
    Example: typo the smithy says 'anvill'

    The room you are in is kept with the report.
    """
    await _file(ctx, "typo")


@command("idea", category="general", prefix_match=False)
async def idea(ctx: CommandContext) -> None:
    """Suggest something that would make the game better.

    Usage: idea <your idea>
    """
    await _file(ctx, "idea")


def _line(report: Report) -> str:
    state = "" if report.status == "open" else " |g(closed)|n"
    where = report.room_name or report.room or "nowhere"
    return (
        f"|c#{report.number}|n [{report.kind}]{state} {stamp(report.filed_at)} "
        f"{report.reporter} in {where}: {report.text}"
    )


def _details(report: Report) -> str:
    lines = [
        f"|cReport #{report.number}|n ({report.kind}, {report.status})",
        f"From:  {report.reporter} ({report.reporter_id})",
        f"Where: {report.room_name or '-'} ({report.room or '-'})",
        f"When:  {stamp(report.filed_at)}",
        f"Text:  {report.text}",
    ]
    if report.status == "closed":
        note = f": {report.note}" if report.note else ""
        lines.append(f"Closed by {report.closed_by} at {stamp(report.closed_at)}{note}")
    return "\n".join(lines)


def _number(word: str) -> int:
    try:
        return int(word.lstrip("#"))
    except ValueError:
        raise CommandError(f"'{word}' is not a report number.") from None


async def _close(ctx: CommandContext, desk: ReportDesk, args: list[str]) -> None:
    if not args:
        raise CommandError("Usage: @reports close <n> [note]")
    number = _number(args[0])
    note = player_words(" ".join(args[1:])).strip()
    pc = ctx.world.try_component(ctx.actor, PlayerCharacter) if ctx.actor else None
    by = pc.name if pc is not None else "an admin"
    report = await desk.close(number, by, note)
    ctx.send(f"Report #{number} is closed.")
    reporter = _uuid(report.reporter_id)
    if reporter is not None:
        told = f"Your {report.kind} report #{number} was closed by {by}"
        ctx.engine.sessions.send_to(reporter, told + (f": {note}" if note else "."))


def _uuid(text: str) -> UUID | None:
    try:
        return UUID(text)
    except ValueError:
        return None


@command("@reports", permission=Role.ADMIN, category="admin", needs_character=False)
async def at_reports(ctx: CommandContext) -> None:
    """Read and close the bug, typo and idea reports players filed.

    Usage:
      @reports [bug|typo|idea] [open|all]   list reports (open ones of every kind by default)
      @reports show <n>                     one report in full
      @reports close <n> [note]             close it; the reporter is told if online
    """
    desk: ReportDesk = ctx.service(ReportDesk)
    args = ctx.argv
    verb = args[0].lower() if args else ""
    try:
        if verb == "close":
            await _close(ctx, desk, args[1:])
            return
        if verb == "show":
            if len(args) != 2:
                raise CommandError("Usage: @reports show <n>")
            report = await desk.get(_number(args[1]))
            if report is None:
                raise CommandError(f"There is no report #{args[1].lstrip('#')}.")
            page(ctx, _details(report))
            return
        kind: str | None = None
        status: str | None = "open"
        for word in (a.lower() for a in args):
            if word in KINDS:
                kind = word
            elif word in ("open", "all", "closed"):
                status = None if word == "all" else word
            else:
                raise CommandError(
                    "Usage: @reports [bug|typo|idea] [open|all]  |  @reports show <n>  |  "
                    "@reports close <n> [note]"
                )
        reports = await desk.listing(kind, status)
    except ReportError as exc:
        raise CommandError(str(exc)) from None
    except StoreError:
        log.warning("could not read the reports", exc_info=True)
        raise CommandError("The reports cannot be read right now (database trouble).") from None
    what = f"{status or 'all'} {kind + ' ' if kind else ''}reports"
    if not reports:
        ctx.send(f"No {what}.")
        return
    lines = [f"|c{len(reports)} {what}:|n", *(_line(r) for r in reports)]
    page(ctx, "\n".join(lines))


COMMANDS: list[Command] = [bug, typo, idea, at_reports]
