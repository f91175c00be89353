"""AccountService: accounts, their characters, authentication and roles.

Provided as an engine service (``engine.services.get(AccountService)``) by
:func:`maid_engine.accounts.install_accounts`. Accounts live in the ``accounts``
document collection; characters are world entities with a
:class:`~maid_engine.accounts.components.PlayerCharacter` component, persisted by
the engine like every other entity.

Methods that create characters take ``engine.world_lock`` themselves: never call
them while holding it (asyncio locks are not re-entrant).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any, Protocol, cast
from uuid import UUID

from maid_engine.accounts.bans import BanList
from maid_engine.accounts.components import CharacterFactory, PlayerCharacter
from maid_engine.accounts.creation import CharacterWrites, Expected, NewCharacter
from maid_engine.accounts.errors import (
    AccountNotFound,
    AuthenticationFailed,
    LoginThrottled,
    NameTaken,
    RoleChangeRefused,
    TooManyCharacters,
)
from maid_engine.accounts.model import (
    ACCOUNTS_COLLECTION,
    Account,
    AccountRepository,
    CharacterRef,
    MemoryDocuments,
)
from maid_engine.accounts.names import name_key, validate_name
from maid_engine.accounts.passwords import PasswordHasher, check_password_policy
from maid_engine.accounts.throttle import LoginThrottle, ThrottlePolicy, address_key
from maid_engine.commands import Role
from maid_engine.ports import (
    ClockPort,
    DispatchPort,
    ServicesPort,
    SessionsPort,
    SettingsPort,
    StorePort,
    WorldLockPort,
    WorldPort,
)
from maid_engine.turns import give_way

log = logging.getLogger("maid.accounts")

DEFAULT_MAX_CHARACTERS = 5


OWNERS_ON_THE_COMMAND_LINE = (
    "Owners are made and unmade only on the server's command line (maid create-admin)."
)


def check_role_change(actor: Role, current: Role, new: Role) -> None:
    """Raise RoleChangeRefused unless an account with role ``actor`` may change an
    account's role from ``current`` to ``new``.

    The rule: only the roles of accounts below one's own, and only to roles below
    one's own. So admins manage players and builders, owners also manage admins,
    and nobody in the game can make, unmake or demote an owner, nor undo an equal.
    """
    if Role.OWNER in (current, new):
        raise RoleChangeRefused(OWNERS_ON_THE_COMMAND_LINE)
    if current < actor and new < actor:
        return
    if actor is Role.ADMIN:
        raise RoleChangeRefused("Only an owner can make somebody an admin or unmake an admin.")
    below = ", ".join(r.name.lower() for r in Role if r < actor) or "none"
    raise RoleChangeRefused(
        "You can only change the roles of accounts below your own role, and only to "
        f"a role below it ({below})."
    )


class _KeyedLocks:
    """One asyncio.Lock per key, dropped when nobody holds or waits for it."""

    def __init__(self) -> None:
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}

    @contextlib.asynccontextmanager
    async def hold(self, key: str) -> AsyncIterator[None]:
        lock, users = self._locks.get(key, (asyncio.Lock(), 0))
        self._locks[key] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[key]
            if users <= 1:
                del self._locks[key]
            else:
                self._locks[key] = (lock, users - 1)


class AccountHost(
    WorldPort,
    ClockPort,
    SettingsPort,
    StorePort,
    ServicesPort,
    SessionsPort,
    WorldLockPort,
    DispatchPort,
    Protocol,
):
    """What the account service uses of the engine: the world (characters), the
    clocks, the settings (hashing, throttle), the store (accounts) and ``started``
    (before start and without a store there is nowhere to keep accounts), the
    services (a pack's CharacterFactory), the sessions (role changes apply at
    once), and the world lock and safe point for creating characters."""

    @property
    def started(self) -> bool: ...


class AccountService:
    def __init__(
        self,
        engine: AccountHost,
        *,
        hasher: PasswordHasher | None = None,
        throttle: LoginThrottle | None = None,
        clock: Callable[[], float] | None = None,
        max_characters: int = DEFAULT_MAX_CHARACTERS,
    ) -> None:
        self.engine = engine
        self.hasher = hasher or PasswordHasher.from_settings(engine.settings)
        self.throttle = throttle or LoginThrottle(
            ThrottlePolicy.from_settings(engine.settings),
            clock=clock or engine.clock.monotonic,
        )
        self.max_characters = max_characters
        # Name uniqueness spans accounts and characters, so every name reservation
        # (check, then write) runs under one lock; otherwise two connections creating
        # "Aldric" at the same moment would both pass the check.
        self._names_lock = asyncio.Lock()
        # Read-modify-write of one account document (login time, characters, role)
        # must not interleave, or one writer's change would be lost.
        self._account_locks = _KeyedLocks()
        # Password checks from one address run one at a time, so that parallel
        # guesses cannot all pass the throttle before the first failure is counted
        # (this also bounds the hashing one address can make the server do).
        self._address_locks = _KeyedLocks()
        self._memory = MemoryDocuments()
        #: Keys of the accounts known to exist (see _account_keys); only grows,
        #: since accounts are never deleted.
        self._known_keys: set[str] = set()
        self._keys_loaded = False
        #: New characters whose commit is under way (they hold their names).
        self._unsettled: set[UUID] = set()
        self._writes = CharacterWrites(engine, lambda: self.repository.documents)
        self._tasks: set[asyncio.Task[None]] = set()
        #: Banned accounts and addresses, kept next to the accounts.
        self.bans = BanList(lambda: self.repository.documents)

    # -- storage --------------------------------------------------------------------
    @property
    def repository(self) -> AccountRepository:
        engine = self.engine
        if engine.has_store:
            return AccountRepository(engine.store.documents)
        if engine.started:
            return AccountRepository(self._memory)
        raise RuntimeError("the account service needs a started engine")

    async def _update(self, key: str, change: Callable[[Account], None]) -> Account:
        async with self._account_locks.hold(key):
            account = await self.repository.get(key)
            if account is None:
                raise AccountNotFound(key)
            change(account)
            await self.repository.put(account)
            return account

    def _wall(self) -> float:
        return self.engine.clock.wall()

    def wall(self) -> float:
        """Wall-clock now (ban ends are wall-clock times)."""
        return self.engine.clock.wall()

    # -- lookup ---------------------------------------------------------------------
    async def get(self, name: str) -> Account | None:
        """The account called ``name`` (case-insensitive), or None."""
        key = name_key(name)
        if not key:
            return None
        return await self.repository.get(key)

    def character_named(self, name: str) -> tuple[UUID, PlayerCharacter] | None:
        """The player character called ``name`` (case-insensitive), if any."""
        world = self.engine.world
        for uid in world.find_by_name(name):
            pc = world.try_component(uid, PlayerCharacter)
            if pc is not None:
                return uid, pc
        return None

    async def find_account(self, name: str) -> Account | None:
        """The account called ``name``, or owning the character called ``name``."""
        account = await self.get(name)
        if account is not None:
            return account
        found = self.character_named(name.strip())
        if found is not None and found[1].account_id:
            return await self.repository.get(found[1].account_id)
        return None

    async def check_name_available(
        self, name: str, *, own_account: str | None = None, new_account: bool = False
    ) -> None:
        """Raise NameTaken if an account (other than ``own_account``) or anything
        named in the world already uses ``name``.

        With ``new_account`` (an account called ``name`` is about to be made), a
        character left behind by an account that was never written -- its
        ``PlayerCharacter.account_id`` is this name, and no write of it is under
        way -- does not take the name: the new account takes the character over.
        """
        key = name_key(name)
        shown = name.strip()
        if key != own_account and key in await self._account_keys():
            raise NameTaken(f"The name {shown} is already taken.")
        self._free_in_world(key, shown, new_account=new_account)

    async def _account_keys(self) -> set[str]:
        """The keys of every account, read from the store once and then kept.

        Asking the database whether a name is free would cost a read (five round
        trips) per new player. What this set misses (an account another process
        made since) the write of a new account still finds: it reads the account
        documents again in its transaction and refuses the name.
        """
        if not self._keys_loaded:
            self._known_keys.update(await self.repository.documents.keys(ACCOUNTS_COLLECTION))
            self._keys_loaded = True
        return self._known_keys

    def _free_in_world(self, key: str, shown: str, *, new_account: bool) -> UUID | None:
        """Raise NameTaken if something in the world is called ``key``; returns the
        character a new account ``key`` takes over (see check_name_available)."""
        world = self.engine.world
        holders = world.find_by_name(key)
        if not holders:
            return None
        if new_account:
            left = [
                uid
                for uid in holders
                if uid not in self._unsettled
                and (pc := world.try_component(uid, PlayerCharacter)) is not None
                and pc.account_id == key
            ]
            if len(left) == len(holders):
                return left[0]
        if not any(world.has_component(uid, PlayerCharacter) for uid in holders):
            # Not another player's: say so, or the newcomer looks for them in `who`.
            raise NameTaken(f"The name {shown} belongs to someone or something in this world.")
        raise NameTaken(f"The name {shown} is already taken.")

    # -- accounts -------------------------------------------------------------------
    async def create_account(self, name: str, password: str, role: Role = Role.PLAYER) -> Account:
        """Create an account (without characters; the first login adds one)."""
        display = validate_name(name)
        check_password_policy(password, display)
        # Fail fast before paying for a hash; checked again under the lock below.
        await self.check_name_available(display)
        password_hash = await self.hasher.hash(password)
        return await self.create_account_from_hash(display, password_hash, role)

    async def create_player(
        self, name: str, password: str, role: Role = Role.PLAYER
    ) -> tuple[Account, UUID]:
        """Create an account with its first character, named like it (what a new
        player at the login screen gets). Returns the account and the character."""
        display = validate_name(name)
        check_password_policy(password, display)
        # Fail fast before paying for a hash; the write checks again.
        await self.check_name_available(display, new_account=True)
        expected = self.expect_creation()
        try:
            password_hash = await self.hasher.hash(password)
            return await self.create_player_from_hash(display, password_hash, role, expected)
        finally:
            expected.settle()

    def expect_creation(self) -> Expected:
        """Say that a new player is on its way (its password being hashed): a
        commit of new characters under way may wait a moment for it. Settle what
        this returns when it is done or has given up."""
        return self._writes.expect()

    async def create_player_from_hash(
        self,
        name: str,
        password_hash: str,
        role: Role = Role.PLAYER,
        expected: Expected | None = None,
    ) -> tuple[Account, UUID]:
        """:meth:`create_player` with a password the caller already hashed.

        The account document and the character reach the store in one commit
        (shared with the other creations of the moment, see
        :mod:`maid_engine.accounts.creation`): no database read or write here
        besides it. Until it lands the character in the world holds the name.
        ``expected``: what :meth:`expect_creation` gave for this creation, so
        that a commit waiting for it stops waiting once it is queued.
        """
        display = validate_name(name)
        key = name_key(display)
        async with self._names_lock:
            orphan = self._free_in_world(key, display, new_account=True)
            account = Account(
                key=key,
                name=display,
                password_hash=password_hash,
                role=Role.parse(role),
                created_at=self._wall(),
            )
            if orphan is None:
                uid = await self._new_entity(display, account)
            else:
                uid = orphan
                log.warning("account %s takes over its character %s left unwritten", display, uid)
            account.character_ids.append(uid)
            self._unsettled.add(uid)
        try:
            account = await self._writes.write(
                NewCharacter(uid, key, key, new_account=account, adopted=orphan is not None),
                expected,
            )
        finally:
            self._unsettled.discard(uid)
        self._known_keys.add(key)
        log.info(
            "account %s created with its character (role %s)", display, account.role.name.lower()
        )
        return account, uid

    async def create_account_from_hash(
        self, name: str, password_hash: str, role: Role = Role.PLAYER
    ) -> Account:
        """Create an account whose password the caller has already hashed with
        :attr:`hasher` (the interactive login does, to avoid keeping the plain text)."""
        display = validate_name(name)
        async with self._names_lock:
            await self.check_name_available(display)
            account = Account(
                key=name_key(display),
                name=display,
                password_hash=password_hash,
                role=Role.parse(role),
                created_at=self._wall(),
            )
            await self.repository.put(account)
            self._known_keys.add(account.key)
        log.info("account %s created (role %s)", display, account.role.name.lower())
        return account

    async def _check_password(
        self, account: Account | None, typed: str, password: str, ip: str
    ) -> Account:
        """Throttle, then verify; raises LoginThrottled or AuthenticationFailed."""
        address = address_key(ip)
        who = account.key if account else name_key(typed)
        async with self._address_locks.hold(address):
            wait = self.throttle.retry_after(who, address)
            if wait > 0:
                # Only at debug level: a refusal costs the attacker nothing, so one
                # line each would let anybody flood the log.
                log.debug("login throttled for %r from %s (%.0f s to wait)", typed, ip, wait)
                raise LoginThrottled(wait)
            if account is None:
                await self.hasher.verify_dummy(password)
                self._failed(who, address)
                log.info("login failed for unknown name %r from %s", typed, ip)
                raise AuthenticationFailed("unknown")
            if not await self.hasher.verify(password, account.password_hash):
                self._failed(who, address)
                log.info("login failed for %s from %s (wrong password)", account.name, ip)
                raise AuthenticationFailed("password")
            self.throttle.succeeded(who, address)
        return account

    def _failed(self, who: str, address: str) -> None:
        self.throttle.failed(who, address)
        wait = self.throttle.retry_after(who, address)
        if wait > 0:
            # One warning per failure that starts a wait (the refusals during the
            # wait are not logged), so the log shows each step of the backoff.
            log.warning(
                "too many failed logins from %s (%d in all, %d on %r): it waits %.0f s",
                address,
                self.throttle.address_failures(address),
                self.throttle.pair_failures(who, address),
                who,
                wait,
            )

    async def authenticate(self, name: str, password: str, ip: str) -> Account:
        """The account for ``name`` (an account or one of its characters) if
        ``password`` is right.

        Raises LoginThrottled (without looking at the password) when this address
        has too many recent failures (on this account, or on all together), else
        AuthenticationFailed.
        """
        account = await self.find_account(name)
        account = await self._check_password(account, name, password, ip)
        new_hash = None
        if self.hasher.needs_rehash(account.password_hash):
            new_hash = await self.hasher.hash(password)
        now = self._wall()

        def record(a: Account) -> None:
            a.last_login_at = now
            a.last_login_ip = ip
            if new_hash is not None:
                a.password_hash = new_hash

        account = await self._update(account.key, record)
        log.info("account %s logged in from %s", account.name, ip)
        return account

    async def change_password(self, name: str, old: str, new: str, ip: str) -> None:
        account = await self.get(name)
        if account is None:
            raise AccountNotFound(name)
        check_password_policy(new, account.name)
        await self._check_password(account, name, old, ip)
        new_hash = await self.hasher.hash(new)

        def store(a: Account) -> None:
            a.password_hash = new_hash

        await self._update(account.key, store)
        log.info("account %s changed its password", account.name)

    async def set_role(self, name: str, role: Role | str, *, by: Role | None = None) -> Account:
        """Give the account (found by account or character name) ``role``; sessions
        of that account get the new role at once.

        ``by`` is the role of whoever asks (``@role``): the change must then pass
        :func:`check_role_change`, checked against the stored role under the
        account's lock. Without it (code, tests) any change is made.
        """
        new_role = Role.parse(role)
        account = await self.find_account(name)
        if account is None:
            raise AccountNotFound(name.strip())

        def assign(a: Account) -> None:
            if by is not None:
                check_role_change(by, a.role, new_role)
            a.role = new_role

        account = await self._update(account.key, assign)
        for session in self.engine.sessions.all():
            if session.account_id == account.key:
                session.data["role"] = new_role
        log.info("account %s now has role %s", account.name, new_role.name.lower())
        return account

    # -- characters -----------------------------------------------------------------
    async def characters(self, account: Account) -> list[CharacterRef]:
        """The account's characters that exist in the world, in creation order.

        A character whose entity was saved but whose account document was not (a
        crash in between) is found by its ``PlayerCharacter.account_id`` and adopted.
        """
        world = self.engine.world
        refs: list[CharacterRef] = []
        for uid in account.character_ids:
            pc = world.try_component(uid, PlayerCharacter)
            if pc is not None and world.entity_exists(uid):
                refs.append(CharacterRef(uid, pc.name))
        listed = set(account.character_ids)
        orphans = [
            CharacterRef(uid, pc.name)
            for uid, pc in world.each(PlayerCharacter)
            if pc.account_id == account.key and uid not in listed
        ]
        if orphans:
            orphans.sort(key=lambda ref: world.get_component(ref.id, PlayerCharacter).created_at)

            def adopt(a: Account) -> None:
                a.character_ids.extend(r.id for r in orphans if r.id not in a.character_ids)

            updated = await self._update(account.key, adopt)
            account.character_ids = updated.character_ids
            refs.extend(orphans)
        return refs

    def _create_entity(self, name: str, account: Account) -> UUID:
        # Services are keyed by the Protocol class itself, which mypy will not accept
        # as a type[T] argument, hence the cast.
        factory: CharacterFactory | None = self.engine.services.try_get(
            cast(type[Any], CharacterFactory)
        )
        if factory is not None:
            return factory.create_character(name, account.key)
        now = self._wall()
        return self.engine.world.create_entity(
            PlayerCharacter(name=name, account_id=account.key, created_at=now, last_seen=now)
        )

    async def _new_entity(self, name: str, account: Account) -> UUID:
        await give_way()  # the players' commands that came in meanwhile go first
        async with self.engine.world_lock:
            uid = self._create_entity(name, account)
            # Deliver what the factory emitted (e.g. "character created") now,
            # before the character connects, as a command would.
            await self.engine.dispatch_events()
        return uid

    def _character_count(self, account_key: str) -> int:
        return sum(
            1
            for uid, pc in self.engine.world.each(PlayerCharacter)
            if pc.account_id == account_key and self.engine.world.entity_exists(uid)
        )

    async def add_character(self, account: Account, name: str) -> UUID:
        """Create a character for ``account`` and write it to the store at once.

        The character and the account document naming it are written in one
        commit; if that fails the character leaves the world again.
        """
        display = validate_name(name)
        async with self._names_lock:
            if self._character_count(account.key) >= self.max_characters:
                raise TooManyCharacters(self.max_characters)
            await self.check_name_available(display, own_account=account.key)
            uid = await self._new_entity(display, account)
            self._unsettled.add(uid)
        try:
            # The account document is read and written inside the commit: no
            # other change of it (a login time, a role) may land in between.
            async with self._account_locks.hold(account.key):
                updated = await self._writes.write(
                    NewCharacter(uid, name_key(display), account.key)
                )
        finally:
            self._unsettled.discard(uid)
        account.character_ids = updated.character_ids
        log.info("character %s created for account %s", display, account.name)
        return uid

    # -- background work ------------------------------------------------------------
    def spawn(self, coro: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        """Run ``coro`` in the background (work too slow to do under the world lock)."""
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def drain(self) -> None:
        """Wait for background work started with :meth:`spawn`."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)
