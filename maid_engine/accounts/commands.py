"""Account commands: quit, password, @role."""

from __future__ import annotations

import logging

from maid_engine.accounts.errors import AccountError, AuthenticationFailed
from maid_engine.accounts.login import DISCONNECT_REASON_KEY
from maid_engine.accounts.service import AccountService
from maid_engine.commands import Command, CommandContext, CommandError, Role, command
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
        raise CommandError(
            f"Unknown role {argv[1]!r}: use player, builder or admin."
        ) from None
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


ACCOUNT_COMMANDS: tuple[Command, ...] = (quit_command, password_command, role_command)
