"""Account commands: quit, password, @role."""

from __future__ import annotations

import logging

from maid_engine.accounts.bans import Ban, Kind, parse_address, parse_duration
from maid_engine.accounts.errors import AccountError, AuthenticationFailed
from maid_engine.accounts.login import DISCONNECT_REASON_KEY
from maid_engine.accounts.service import AccountService
from maid_engine.commands import Command, CommandContext, CommandError, Role, command
from maid_engine.net.markup import escape_markup
from maid_engine.reliability import DATABASE_UNAVAILABLE
from maid_engine.sessions import Session
from maid_engine.store.errors import StoreUnavailable

log = logging.getLogger("maid.accounts")


# No prefix matching: a stray "q" must not throw a player out of the game.
@command("quit", category="account", prefix_match=False)
def quit_command(ctx: CommandContext) -> None:
    """Leave the game.

    Usage: quit

    Your character is saved and stays where it is.
    """
    if ctx.session is None:
        raise CommandError("There is no connection to close.")
    ctx.session.data[DISCONNECT_REASON_KEY] = "quit"
    ctx.session.close("Goodbye. Come back soon!")


WRONG_CURRENT = "Your current password is not correct; your password is unchanged."


async def _change_password(
    service: AccountService, session: Session, account: str, old: str, new: str
) -> None:
    try:
        await service.change_password(account, old, new, session.peer_host)
    except AuthenticationFailed:
        # The player is logged in: "wrong name or password" (the login screen's
        # answer, which hides whether the name exists) only confuses here.
        message = WRONG_CURRENT
    except AccountError as exc:
        message = str(exc)
    except StoreUnavailable:
        log.warning("password change failed for account %s: database unavailable", account)
        message = DATABASE_UNAVAILABLE
    except Exception:
        log.exception("password change failed for account %s", account)
        message = "Something went wrong changing your password; it has been logged."
    else:
        message = "Your password has been changed."
    if session.connected:
        session.send(message)
        service.engine.sessions.prompt(session)


@command("password", category="account", prefix_match=False)
def password_command(ctx: CommandContext) -> None:
    """Change your account's password.

    Usage: password <old password> <new password>
    """
    argv = ctx.argv
    if len(argv) != 2:
        raise CommandError("Usage: password <old password> <new password>")
    if ctx.session is None or ctx.account_id is None:
        raise CommandError("Only a logged-in player can change a password.")
    try:
        service = ctx.engine.services.get(AccountService)
        # Hashing takes tens of milliseconds; commands run under the world lock, so
        # do it in the background instead of stalling every tick until it is done.
        service.spawn(_change_password(service, ctx.session, ctx.account_id, argv[0], argv[1]))
    except Exception:
        # Handled here because the registry would log the input line, passwords and all.
        log.exception("password command failed for account %s", ctx.account_id)
        raise CommandError("Something went wrong; it has been logged.") from None
    ctx.send("Changing your password...")


def _a(role: Role) -> str:
    name = role.name.lower()
    return f"an {name}" if name[0] in "aeiou" else f"a {name}"


@command("@role", permission=Role.ADMIN, category="admin")
async def role_command(ctx: CommandContext) -> None:
    """Show or change the role of an account.

    Usage: @role <account> [player|builder|admin]

    The account may be named by any of its characters. A changed role takes effect
    at once, also for connections of that account that are playing right now.
    You can change only the roles of accounts below your own role, and only to a
    role below it: admins manage players and builders, owners also manage admins.
    Owners are made and unmade only on the server's command line
    (maid create-admin --owner).
    """
    argv = ctx.argv
    if len(argv) not in (1, 2):
        raise CommandError("Usage: @role <account> [player|builder|admin]")
    service = ctx.engine.services.get(AccountService)
    account = await service.find_account(argv[0])
    if account is None:
        raise CommandError(f"There is no account or character named {argv[0]}.")
    if len(argv) == 1:
        ctx.send(f"{account.name} is {_a(account.role)}.")
        return
    try:
        role = Role.parse(argv[1])
    except ValueError:
        raise CommandError(f"Unknown role {argv[1]!r}: use player, builder or admin.") from None
    if account.key == ctx.account_id:
        raise CommandError("You cannot change your own role.")
    try:
        account = await service.set_role(account.key, role, by=ctx.role)
    except AccountError as exc:
        raise CommandError(str(exc)) from None
    ctx.send(f"{account.name} is now {_a(role)}.")
    for session in ctx.engine.sessions.all():
        if session.account_id == account.key and session is not ctx.session:
            session.send(f"Your role is now {role.name.lower()}.")


BAN_USAGE = (
    "Usage: @ban                          the bans in force\n"
    "       @ban <account> [<time>] <reason>\n"
    "       @ban <address> [<time>] <reason>\n"
    "  <account> is an account or one of its characters; <address> an IP address or a\n"
    "  network (203.0.113.0/24); <time> 30m, 12h, 7d or 2w (none: until lifted)."
)


def _ban_line(ban: Ban, now: float) -> str:
    what = f"account {ban.target}" if ban.kind == "account" else f"address {ban.target}"
    return f"  {what}: {ban.reason} (by {ban.by}, {ban.ends(now)})"


async def _ban_target(service: AccountService, word: str, ctx: CommandContext) -> tuple[Kind, str]:
    """("address", network) or ("account", key) for what ``word`` names."""
    address = parse_address(word)
    if address is not None:
        if ctx.session is not None and Ban("address", address, "", "", 0.0).covers_address(
            ctx.session.peer_host
        ):
            raise CommandError("That would ban your own address.")
        return "address", address
    account = await service.find_account(word)
    if account is None:
        raise CommandError(f"There is no account, character or address {word}.")
    if account.key == ctx.account_id:
        raise CommandError("You cannot ban yourself.")
    if account.role >= ctx.role:
        raise CommandError(
            f"{account.name} is {_a(account.role)}: you can only ban accounts below your role."
        )
    return "account", account.key


@command("@ban", permission=Role.ADMIN, category="admin", needs_character=False)
async def ban_command(ctx: CommandContext) -> None:
    """Ban an account or an address, with a reason and, if you like, an end.

    Usage: @ban                          the bans in force
           @ban <account> [<time>] <reason>
           @ban <address> [<time>] <reason>

    <account> is an account or one of its characters, <address> an IP address or
    a network (203.0.113.0/24); <time> is 30m, 12h, 7d or 2w (without it the ban
    holds until @unban). Whoever is connected under the account or from the
    address is thrown out at once; a banned address is refused as it connects, a
    banned account after its password. Bans are kept in the database.
    Examples: @ban Bryn 3d spamming the ooc channel, @ban 203.0.113.7 bot logins
    """
    service = ctx.engine.services.get(AccountService)
    now = service.wall()
    argv = ctx.argv
    if not argv:
        bans = await service.bans.listing(now)
        if not bans:
            ctx.send("No bans are in force.")
            return
        ctx.send("\n".join([f"{len(bans)} ban(s) in force:", *(_ban_line(b, now) for b in bans)]))
        return
    kind, target = await _ban_target(service, argv[0], ctx)
    seconds = parse_duration(argv[1]) if len(argv) > 1 else None
    reason = " ".join(argv[2:] if seconds is not None else argv[1:])
    if not reason:
        raise CommandError(
            "Give a reason: it is shown to the banned player and kept.\n" + BAN_USAGE
        )
    by = ctx.account_id or "admin"
    ban = Ban(kind, target, reason, by, now, None if seconds is None else now + seconds)
    old = await service.bans.add(ban)
    log.warning("%s banned %s %s %s: %s", by, kind, target, ban.ends(now), reason)
    thrown = 0
    for session in ctx.engine.sessions.all():
        hit = (
            session.account_id == target
            if kind == "account"
            else ban.covers_address(session.peer_host)
        )
        if hit and session is not ctx.session:
            session.data[DISCONNECT_REASON_KEY] = "banned"
            session.close(f"You have been banned {ban.ends(now)}: {escape_markup(reason)}")
            thrown += 1
    ctx.send(
        f"{'Replaced the ban of' if old else 'Banned'} {kind} {target} {ban.ends(now)}: {reason}."
        + (f" {thrown} connection(s) closed." if thrown else "")
    )


@command("@unban", permission=Role.ADMIN, category="admin", needs_character=False)
async def unban_command(ctx: CommandContext) -> None:
    """Lift a ban set with @ban.

    Usage: @unban <account | character | address>
    """
    argv = ctx.argv
    if len(argv) != 1:
        raise CommandError("Usage: @unban <account | character | address>")
    service = ctx.engine.services.get(AccountService)
    address = parse_address(argv[0])
    lifted = None
    if address is not None:
        lifted = await service.bans.remove("address", address)
    else:
        account = await service.find_account(argv[0])
        if account is not None:
            lifted = await service.bans.remove("account", account.key)
    if lifted is None:
        raise CommandError(f"{argv[0]} is not banned. (See '@ban' for the list.)")
    log.warning("%s lifted the ban of %s %s", ctx.account_id, lifted.kind, lifted.target)
    ctx.send(f"Lifted the ban of {lifted.kind} {lifted.target} ({lifted.reason}).")


ACCOUNT_COMMANDS: tuple[Command, ...] = (
    quit_command,
    password_command,
    role_command,
    ban_command,
    unban_command,
)
