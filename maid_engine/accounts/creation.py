"""Writing new characters (and new accounts) to the store, several at a time.

A new character must be on disk, with its account document naming it, before
its player is told it exists. Each such write is a commit of the whole world
(``StorePort.commit_now``): the world's changes are collected under the world
lock and written with the account documents in one transaction. During a login
storm hundreds of characters are created within seconds; one commit each would
collect the world's changes hundreds of times and hand each write between the
event loop and the database driver a dozen times. So characters created while a
commit is under way wait and go together in the next one: a group commit.

In a storm, though, the single hashing thread hands out one password at a time,
so without more each commit would still carry one character and cost the event
loop a whole transaction's work. A creation therefore says it is on its way
while its password is hashed (:meth:`CharacterWrites.expect`), and a commit
waits a moment (at most ``gather`` seconds) for the creations on their way to
join it, as PostgreSQL's ``commit_delay`` waits for sibling transactions. A
creation with none behind it is written at once.

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


#: How long a commit waits for creations on their way (seconds). A storm's hashing
#: thread finishes a password every few tens of milliseconds, so a commit gathers
#: a handful; a player creating alone never waits.
GATHER_S = 0.2
#: The most characters one commit carries.
MAX_GROUP = 64


class Expected:
    """A creation on its way to the group commit (its password being hashed).

    Settled when its character is queued, or when it gives up before that; a
    commit waiting for creations on their way stops waiting for this one then.
    """

    __slots__ = ("_settled", "_writes")

    def __init__(self, writes: CharacterWrites) -> None:
        self._writes = writes
        self._settled = False

    def settle(self) -> None:
        if not self._settled:
            self._settled = True
            self._writes._arrived()


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

    def __init__(
        self,
        engine: CommitHost,
        memory: Callable[[], Documents],
        *,
        gather: float = GATHER_S,
        max_group: int = MAX_GROUP,
    ) -> None:
        self.engine = engine
        self._memory = memory
        self.gather = gather
        self.max_group = max_group
        self._queue: list[NewCharacter] = []
        self._writer: asyncio.Task[None] | None = None
        #: Creations on their way (see Expected), and a wake-up for a commit
        #: gathering them: one more is queued or gave up.
        self._coming = 0
        self._changed = asyncio.Event()
        #: Commits made and characters written (tests and the storm benchmark).
        self.commits = 0
        self.written = 0

    def expect(self) -> Expected:
        """Say that a creation is on its way (call before hashing its password);
        settle what this returns once it is queued or has given up."""
        self._coming += 1
        return Expected(self)

    def _arrived(self) -> None:
        self._coming -= 1
        self._changed.set()

    async def write(self, item: NewCharacter, expected: Expected | None = None) -> Account:
        """Queue ``item`` and wait until it is on disk; returns its account as
        written. Raises what refused it (NameTaken, AccountNotFound) or what made
        the commit fail (StoreUnavailable, ...). ``expected``: what :meth:`expect`
        gave for this creation."""
        # A waiter cancelled meanwhile (its connection dropped) never reads the
        # outcome: read it here, or asyncio would log an unretrieved exception.
        item.written.add_done_callback(_consume)
        self._queue.append(item)
        self._changed.set()
        if expected is not None:
            expected.settle()
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._drain())
        # The waiter may be cancelled (its connection dropped); the write goes on.
        return await asyncio.shield(item.written)

    @property
    def coming(self) -> int:
        """Creations on their way that are not queued yet."""
        return self._coming

    async def _drain(self) -> None:
        while self._queue:
            await self._gather()
            group = self._queue[: self.max_group]
            del self._queue[: self.max_group]
            await self._write_group(group)

    async def _gather(self) -> None:
        """Wait (at most ``gather`` seconds) while creations on their way may
        still join the next commit."""
        if self.gather <= 0:
            return
        try:
            async with asyncio.timeout(self.gather):
                while self._coming and len(self._queue) < self.max_group:
                    self._changed.clear()
                    await self._changed.wait()
        except TimeoutError:
            pass

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
