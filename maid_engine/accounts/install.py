"""Wiring the account layer into an engine."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from maid_engine.accounts.bans import MODERATION_COLLECTION
from maid_engine.accounts.commands import ACCOUNT_COMMANDS
from maid_engine.accounts.login import LoginFlow, LoginHost
from maid_engine.accounts.model import ACCOUNTS_COLLECTION
from maid_engine.accounts.passwords import common_passwords
from maid_engine.accounts.service import DEFAULT_MAX_CHARACTERS, AccountHost, AccountService
from maid_engine.commands.command import CommandsPort
from maid_engine.events import EngineStartedEvent, EngineStoppingEvent


class InstallHost(AccountHost, LoginHost, CommandsPort, Protocol):
    """What wiring accounts in needs: what the service and the login screen use,
    plus the command registry and declaring the ``accounts`` collection."""

    def declare_collection(self, name: str) -> None: ...


def install_accounts(
    engine: InstallHost,
    *,
    clock: Callable[[], float] | None = None,
    max_characters: int = DEFAULT_MAX_CHARACTERS,
    max_failures: int = 3,
) -> AccountService:
    """Provide the AccountService, the login flow and the account commands.

    Call it before ``engine.start()`` (it declares the ``accounts`` collection,
    which the engine creates when the store opens). Calling it again returns the
    service already installed. ``clock`` is the monotonic clock of the login
    throttle (default: the engine clock's).
    """
    existing = engine.services.try_get(AccountService)
    if existing is not None:
        return existing
    engine.declare_collection(ACCOUNTS_COLLECTION)
    engine.declare_collection(MODERATION_COLLECTION)
    service = AccountService(engine, clock=clock, max_characters=max_characters)
    engine.services.provide(AccountService, service)
    engine.sessions.login = LoginFlow(engine, service, max_failures=max_failures)
    for cmd in ACCOUNT_COMMANDS:
        engine.commands.add(cmd, pack="accounts")

    async def finish_background_work(_event: EngineStoppingEvent) -> None:
        await service.drain()

    def read_common_passwords(_event: EngineStartedEvent) -> None:
        # Read once, at start: the first account created would otherwise pay for
        # it on the event loop, and its 1.5 MiB is the server's, not a player's.
        common_passwords()

    engine.events.subscribe(EngineStartedEvent, read_common_passwords)
    engine.events.subscribe(EngineStoppingEvent, finish_background_work)
    return service
