"""Writing new characters (and new accounts) to the store, several at a time.

A new character must be on disk, with its account document naming it, before
its player is told it exists. Each such write is a commit of the whole world
(``StorePort.commit_now``): the world's changes are collected under the world
lock and written with the account documents in one transaction. During a login
storm hundreds of characters are created within seconds; one commit each would
collect the world's changes hundreds of times and hand each write between the
event loop and the database driver a dozen times. So characters created while a
commit is under way wait and go together in the next one: a group commit.

Inside the transaction the account documents are read again, so that an account
created meanwhile by another process on the same database (or ``maid
create-admin``) is never overwritten: such a character is refused with
NameTaken, the others of its group are written without it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol
from uuid import UUID

from maid_engine.accounts.errors import AccountError, AccountNotFound, NameTaken
from maid_engine.accounts.model import ACCOUNTS_COLLECTION, Account, Documents
from maid_engine.ports import TransactionWrites, WorldLockPort, WorldPort

log = logging.getLogger("maid.accounts")


@dataclass(eq=False)
class NewCharacter:
    """One character waiting to be written with its account."""

    uid: UUID
    #: The key its name is stored under (no other account may use it).
    name_key: str
    account_key: str
    #: The account to create, already listing the character; None: an existing
    #: account, to which the character is added.
    new_account: Account | None = None
    #: The character existed before (an orphan the new account takes over): a
    #: failed write must not destroy it.
    adopted: bool = False
    written: asyncio.Future[Account] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )


class Refused(Exception):
    """Some characters of a group cannot be written (their names are taken)."""

    def __init__(self, refused: dict[NewCharacter, AccountError]) -> None:
        super().__init__(f"{len(refused)} new character(s) refused")
        self.refused = refused


async def settle(documents: Documents, group: list[NewCharacter]) -> dict[str, Account]:
    """Write the account documents of ``group`` (read again first, in one query);
    returns them by key. Raises Refused, writing nothing, if any name is taken."""
    keys = {item.account_key for item in group} | {item.name_key for item in group}
    stored = await documents.get_many(ACCOUNTS_COLLECTION, keys)
    accounts: dict[str, Account] = {}
    refused: dict[NewCharacter, AccountError] = {}
    for item in group:
        holder = stored.get(item.name_key)
        if item.new_account is not None:
            if holder is not None or item.account_key in accounts:
                refused[item] = NameTaken(f"The name {item.new_account.name} is already taken.")
            else:
                accounts[item.account_key] = item.new_account
            continue
        if holder is not None and item.name_key != item.account_key:
            refused[item] = NameTaken(
                f"The name {holder.get('name', item.name_key)} is already taken."
            )
            continue
        account = accounts.get(item.account_key)
        if account is None:
            doc = stored.get(item.account_key)
            if doc is None:
                refused[item] = AccountNotFound(item.account_key)
                continue
            account = accounts[item.account_key] = Account.from_doc(item.account_key, doc)
        if item.uid not in account.character_ids:
            account.character_ids.append(item.uid)
    if refused:
        raise Refused(refused)
    await documents.put_many(ACCOUNTS_COLLECTION, {k: a.to_doc() for k, a in accounts.items()})
    return accounts


def _consume(future: asyncio.Future[Account]) -> None:
    if not future.cancelled():
        future.exception()


class CommitHost(WorldPort, WorldLockPort, Protocol):
    """What the group commit uses: the world (a character that could not be
    written leaves it), its lock and a commit of the world with the operation's
    own writes (``StorePort.commit_now``)."""

    @property
    def has_store(self) -> bool: ...

    def commit_now(self, writes: TransactionWrites | None = None) -> Awaitable[int]: ...


class CharacterWrites:
    """The group commit of new characters (see the module's docstring).

    ``memory`` gives the documents to use when the engine runs without a store
    (nothing is on disk then; the accounts live in memory).
    """

    def __init__(self, engine: CommitHost, memory: Callable[[], Documents]) -> None:
        self.engine = engine
        self._memory = memory
        self._queue: list[NewCharacter] = []
        self._writer: asyncio.Task[None] | None = None
        #: Commits made and characters written (tests and the storm benchmark).
        self.commits = 0
        self.written = 0

    async def write(self, item: NewCharacter) -> Account:
        """Queue ``item`` and wait until it is on disk; returns its account as
        written. Raises what refused it (NameTaken, AccountNotFound) or what made
        the commit fail (StoreUnavailable, ...)."""
        # A waiter cancelled meanwhile (its connection dropped) never reads the
        # outcome: read it here, or asyncio would log an unretrieved exception.
        item.written.add_done_callback(_consume)
        self._queue.append(item)
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._drain())
        # The waiter may be cancelled (its connection dropped); the write goes on.
        return await asyncio.shield(item.written)

    async def _drain(self) -> None:
        while self._queue:
            group, self._queue = self._queue, []
            await self._write_group(group)

    async def _write_group(self, group: list[NewCharacter]) -> None:
        while group:
            try:
                accounts = await self._commit(group)
            except Refused as exc:
                # Out of the world before the others are committed again, or the
                # next commit would write them without an account.
                await self._undo(list(exc.refused))
                for item, error in exc.refused.items():
                    item.written.set_exception(error)
                group = [item for item in group if item not in exc.refused]
                continue
            except BaseException as exc:
                if isinstance(exc, Exception):
                    await self._undo(group)
                for item in group:
                    if not item.written.done():
                        item.written.set_exception(exc)
                if not isinstance(exc, Exception):
                    raise
                return
            self.commits += 1
            self.written += len(group)
            for item in group:
                item.written.set_result(accounts[item.account_key])
            return

    async def _undo(self, items: list[NewCharacter]) -> None:
        """Take characters that will not be written out of the world: their players
        are told it failed, and their names must be free to try again."""
        async with self.engine.world_lock:
            for item in items:
                if not item.adopted:
                    self.engine.world.destroy_entity(item.uid)
        log.warning("%d new character(s) not written and removed again", len(items))

    async def _commit(self, group: list[NewCharacter]) -> dict[str, Account]:
        if not self.engine.has_store:
            return await settle(self._memory(), group)
        result: dict[str, Account] = {}

        async def writes(tx: Any) -> None:
            result.update(await settle(tx.documents, group))

        async with self.engine.world_lock:
            pending = self.engine.commit_now(writes)
        await pending
        return result
