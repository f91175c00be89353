"""What an account creation costs the database, and how new characters reach it:
one commit carries the account, the character and its components, and the
creations of one moment share it (a group commit)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import cast
from uuid import UUID, uuid4

import pytest
from accounts.account_helpers import PASSWORD, Client, build_engine

from maid_engine.accounts import AccountNotFound, AccountService, NameTaken, PlayerCharacter
from maid_engine.accounts.creation import NewCharacter, Refused, settle
from maid_engine.accounts.model import ACCOUNTS_COLLECTION, Account, MemoryDocuments
from maid_engine.accounts.passwords import PasswordHasher
from maid_engine.engine import GameEngine
from maid_engine.store import Store, StoreUnavailable
from maid_engine.store.roundtrips import RoundTripCounter

# Database round trips of one `create <name> <password>` (connection checkouts with
# their ping, statements, commits, rollbacks, connection resets), measured: one
# transaction reading the account documents again and writing the account, the
# character's entity and components and the clock (9 on SQLite; PostgreSQL's
# connection is pinged at its checkout as well). Before the group commit it was 42:
# the name read twice, the account, the character and the account again each
# written alone. Raise this only knowingly: a login storm pays it 200 times.
MAX_ROUND_TRIPS_PER_CREATION = 9


def _most_round_trips(engine: GameEngine) -> int:
    pinged = 1 if engine.store.dialect == "postgresql" else 0
    return MAX_ROUND_TRIPS_PER_CREATION + pinged


async def _started(tmp_path: Path, db_url: str) -> GameEngine:
    engine = build_engine(tmp_path, db_url)
    await engine.start()
    # The first creation of a process also learns that the collections exist.
    warm = Client(engine)
    await warm.open()
    await warm.line(f"create Warmup {PASSWORD}")
    return engine


async def test_one_creation_makes_few_round_trips(tmp_path: Path, db_url: str) -> None:
    engine = await _started(tmp_path, db_url)
    try:
        c = Client(engine)
        await c.open()
        with RoundTripCounter(engine.store.sql_engine) as trips:
            out = await c.line(f"create Aldric {PASSWORD}")
        assert "Welcome, Aldric." in out
        assert trips.total <= _most_round_trips(engine), (trips.kinds, trips.statements)
        # Exactly one write transaction, and it carried the account and the character.
        assert trips.kinds["commit"] == 1, trips.statements
        outside = Store(db_url)
        await outside.open()
        try:
            doc = await outside.documents.get(ACCOUNTS_COLLECTION, "aldric")
            assert doc is not None
            assert doc["characters"] == [str(c.session.character_id)]
            assert await outside.entities.load(UUID(doc["characters"][0])) is not None
        finally:
            await outside.close()
    finally:
        await engine.stop()


async def test_a_new_character_from_the_menu_is_one_commit(tmp_path: Path) -> None:
    engine = await _started(tmp_path, "")
    accounts = engine.services.get(AccountService)
    try:
        account = await accounts.get("warmup")
        assert account is not None
        with RoundTripCounter(engine.store.sql_engine) as trips:
            uid = await accounts.add_character(account, "Bryn")
        assert trips.total <= _most_round_trips(engine), (trips.kinds, trips.statements)
        assert trips.kinds["commit"] == 1
        stored = await accounts.get("warmup")
        assert stored is not None
        assert uid in stored.character_ids
        assert account.character_ids == stored.character_ids
    finally:
        await engine.stop()


async def test_creations_at_once_share_commits(tmp_path: Path, db_url: str) -> None:
    engine = await _started(tmp_path, db_url)
    accounts = engine.services.get(AccountService)
    password_hash = await accounts.hasher.hash(PASSWORD)
    names = [f"Player{chr(97 + i)}" for i in range(20)]
    try:
        commits_before = accounts._writes.commits
        with RoundTripCounter(engine.store.sql_engine) as trips:
            made = await asyncio.gather(
                *(accounts.create_player_from_hash(n, password_hash) for n in names)
            )
        commits = accounts._writes.commits - commits_before
        assert 1 <= commits < len(names) // 2, commits
        assert trips.kinds["commit"] == commits
        assert trips.total < len(names) * _most_round_trips(engine) // 2
        for name, (account, uid) in zip(names, made, strict=True):
            assert account.character_ids == [uid]
            stored = await accounts.get(name)
            assert stored is not None
            assert stored.character_ids == [uid]
            assert engine.world.get_component(uid, PlayerCharacter).name == name
    finally:
        await engine.stop()


async def test_an_account_written_meanwhile_by_another_process_is_not_overwritten(
    tmp_path: Path, db_url: str
) -> None:
    engine = await _started(tmp_path, db_url)
    accounts = engine.services.get(AccountService)
    password_hash = await accounts.hasher.hash(PASSWORD)
    try:
        # Another server on the same database made "Pell" after our name check.
        theirs = Account(key="pell", name="Pell", password_hash="theirs")
        await engine.store.documents.put(ACCOUNTS_COLLECTION, "pell", theirs.to_doc())
        results = await asyncio.gather(
            accounts.create_player_from_hash("Pell", password_hash),
            accounts.create_player_from_hash("Quill", password_hash),
            return_exceptions=True,
        )
        assert isinstance(results[0], NameTaken), results
        assert "Pell is already taken" in str(results[0])
        stored = await accounts.get("pell")
        assert stored is not None
        assert stored.password_hash == "theirs"
        # Our character named Pell left the world; the other creation went through.
        assert engine.world.find_by_name("pell") == []
        assert not isinstance(results[1], BaseException)
        quill = await accounts.get("quill")
        assert quill is not None
        assert quill.character_ids == [results[1][1]]
        await engine.checkpoint()
        loaded = await engine.store.entities.load_all()
        names = {c["PlayerCharacter"]["name"] for c in loaded.values() if "PlayerCharacter" in c}
        assert "Pell" not in names
        assert "Quill" in names
    finally:
        await engine.stop()


async def test_a_failed_write_frees_the_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = await _started(tmp_path, "")
    accounts = engine.services.get(AccountService)
    password_hash = await accounts.hasher.hash(PASSWORD)
    try:
        real = engine.store.atomic

        def down() -> object:
            raise StoreUnavailable("database unavailable: test")

        monkeypatch.setattr(engine.store, "atomic", down)
        with pytest.raises(StoreUnavailable):
            await accounts.create_player_from_hash("Rook", password_hash)
        assert engine.world.find_by_name("rook") == []
        monkeypatch.setattr(engine.store, "atomic", real)
        _account, uid = await accounts.create_player_from_hash("Rook", password_hash)
        assert engine.world.get_component(uid, PlayerCharacter).name == "Rook"
    finally:
        await engine.stop()


async def test_a_character_left_without_its_account_is_taken_over(tmp_path: Path) -> None:
    # A checkpoint may write a new character just before the commit that carries
    # its account; a crash in between leaves the character alone. Creating the
    # account again gives it that character instead of refusing the name.
    engine = await _started(tmp_path, "")
    try:
        async with engine.world_lock:
            left = engine.world.create_entity(
                PlayerCharacter(name="Sable", account_id="sable", created_at=1.0)
            )
        c = Client(engine)
        await c.open()
        assert "Welcome, Sable." in await c.line(f"create Sable {PASSWORD}")
        assert c.session.character_id == left
        account = await engine.services.get(AccountService).get("sable")
        assert account is not None
        assert account.character_ids == [left]
        # A character of another account does take the name.
        async with engine.world_lock:
            engine.world.create_entity(PlayerCharacter(name="Tarn", account_id="someone"))
        d = Client(engine)
        await d.open()
        assert "already taken" in await d.line(f"create Tarn {PASSWORD}")
    finally:
        await engine.stop()


async def test_names_of_accounts_made_before_a_restart_stay_taken(tmp_path: Path) -> None:
    engine = build_engine(tmp_path)
    await engine.start()
    await engine.services.get(AccountService).create_account("Umber", PASSWORD)
    await engine.stop()
    again = build_engine(tmp_path)
    await again.start()
    try:
        c = Client(again)
        await c.open()
        assert "The name Umber is already taken." in await c.line(f"create UMBER {PASSWORD}")
    finally:
        await again.stop()


async def test_settle_refuses_what_it_cannot_write_and_writes_nothing() -> None:
    docs = MemoryDocuments()
    owner = Account(key="vale", name="Vale", password_hash="h", character_ids=[uuid4()])
    await docs.put(ACCOUNTS_COLLECTION, "vale", owner.to_doc())
    await docs.put(ACCOUNTS_COLLECTION, "wren", Account("wren", "Wren", "h").to_doc())
    fine = NewCharacter(uuid4(), "yarrow", "vale")
    own_name = NewCharacter(uuid4(), "vale", "vale")
    another_account = NewCharacter(uuid4(), "wren", "vale")
    no_account = NewCharacter(uuid4(), "zed", "nobody")
    twice = [
        NewCharacter(uuid4(), "xan", "xan", new_account=Account("xan", "Xan", "h")),
        NewCharacter(uuid4(), "xan", "xan", new_account=Account("xan", "Xan", "h")),
    ]
    group = [fine, own_name, another_account, no_account, *twice]
    with pytest.raises(Refused) as refused:
        await settle(docs, group)
    assert set(refused.value.refused) == {another_account, no_account, twice[1]}
    assert isinstance(refused.value.refused[another_account], NameTaken)
    assert isinstance(refused.value.refused[no_account], AccountNotFound)
    assert await docs.get(ACCOUNTS_COLLECTION, "xan") is None
    written = await settle(docs, [fine, own_name, twice[0]])
    assert written["vale"].character_ids == [*owner.character_ids, fine.uid, own_name.uid]
    stored = await docs.get(ACCOUNTS_COLLECTION, "vale")
    assert stored is not None
    assert len(stored["characters"]) == 3
    assert set(await docs.keys(ACCOUNTS_COLLECTION)) == {"vale", "wren", "xan"}


async def test_a_name_taken_while_the_password_is_typed_is_refused_clearly(
    tmp_path: Path,
) -> None:
    engine = await _started(tmp_path, "")
    try:
        slow = Client(engine)
        await slow.open()
        await slow.line("pell")
        await slow.line("yes")
        await slow.line(PASSWORD)
        fast = Client(engine)
        await fast.open()
        assert "Welcome, Pell." in await fast.line(f"create Pell {PASSWORD}")
        out = await slow.line(PASSWORD)
        assert "The name Pell is already taken." in out
        assert slow.last_prompt == "What is your name? "
        assert slow.session.character_id is None
        account = await engine.services.get(AccountService).get("pell")
        assert account is not None
        assert account.character_ids == [fast.session.character_id]
    finally:
        await engine.stop()


class _GatedHasher:
    """A hasher whose hashes finish when the test says so (one gate a password),
    or fail: a storm's single hashing thread, handing out passwords one by one.
    Every password gets the one hash made up front, so nothing runs in a thread."""

    def __init__(self, password_hash: str) -> None:
        self._hash = password_hash
        self.gates: dict[str, asyncio.Future[bool]] = {}

    def gate(self, password: str) -> asyncio.Future[bool]:
        return self.gates.setdefault(password, asyncio.get_running_loop().create_future())

    async def hash(self, password: str) -> str:
        if not await self.gate(password):
            raise RuntimeError("hashing failed: test")
        return self._hash

    async def verify(self, password: str, encoded: str) -> bool:
        return await self.gate(f"verify {password}")


async def _until(condition: Callable[[], bool]) -> None:
    """Give the loop turns until ``condition`` holds (never the clock's time)."""
    for _ in range(1000):
        if condition():
            return
        await asyncio.sleep(0)
    raise AssertionError("the condition never held")


async def _gated(tmp_path: Path, db_url: str, gather: float) -> tuple[GameEngine, _GatedHasher]:
    engine = await _started(tmp_path, db_url)
    accounts = engine.services.get(AccountService)
    hasher = _GatedHasher(await accounts.hasher.hash(PASSWORD))
    accounts.hasher = cast(PasswordHasher, hasher)
    accounts._writes.gather = gather
    return engine, hasher


async def _two_hashing(
    accounts: AccountService, first: str, second: str
) -> tuple[asyncio.Task[tuple[Account, UUID]], asyncio.Task[tuple[Account, UUID]]]:
    """Two one-line creations, both waiting for their hashes (passwords
    "first-pass-word" and "second-pass-word")."""
    one = asyncio.create_task(accounts.create_player(first, "first-pass-word"))
    two = asyncio.create_task(accounts.create_player(second, "second-pass-word"))
    await _until(lambda: accounts._writes.coming == 2)
    return one, two


async def test_a_commit_waits_for_the_creations_still_hashing(tmp_path: Path, db_url: str) -> None:
    # Without the wait, the first creation's commit carries it alone and the
    # second pays a transaction of its own.
    engine, hasher = await _gated(tmp_path, db_url, gather=60.0)
    accounts = engine.services.get(AccountService)
    writes = accounts._writes
    try:
        before = writes.commits
        first, second = await _two_hashing(accounts, "Ansel", "Berit")
        hasher.gate("first-pass-word").set_result(True)
        await _until(lambda: len(writes._queue) == 1)
        assert writes.coming == 1
        # The commit waits for Berit: many turns later nothing is written yet.
        for _ in range(200):
            await asyncio.sleep(0)
        assert not first.done()
        assert writes.commits == before
        hasher.gate("second-pass-word").set_result(True)
        (_a, a_uid), (_b, b_uid) = await asyncio.wait_for(asyncio.gather(first, second), 30)
        assert writes.commits == before + 1
        assert writes.coming == 0
        for name, uid in (("ansel", a_uid), ("berit", b_uid)):
            stored = await accounts.get(name)
            assert stored is not None
            assert stored.character_ids == [uid]
    finally:
        await engine.stop()


async def test_a_creation_that_gives_up_is_not_waited_for(tmp_path: Path, db_url: str) -> None:
    engine, hasher = await _gated(tmp_path, db_url, gather=60.0)
    accounts = engine.services.get(AccountService)
    writes = accounts._writes
    try:
        first, failing = await _two_hashing(accounts, "Corin", "Dagny")
        hasher.gate("first-pass-word").set_result(True)
        await _until(lambda: len(writes._queue) == 1)
        for _ in range(200):
            await asyncio.sleep(0)
        assert not first.done()
        hasher.gate("second-pass-word").set_result(False)
        _account, uid = await asyncio.wait_for(first, 30)
        with pytest.raises(RuntimeError, match="hashing failed"):
            await failing
        assert writes.coming == 0
        stored = await accounts.get("corin")
        assert stored is not None
        assert stored.character_ids == [uid]
        assert await accounts.get("dagny") is None
        assert engine.world.find_by_name("dagny") == []
    finally:
        await engine.stop()


async def test_a_creation_alone_is_written_at_once(tmp_path: Path) -> None:
    # Nothing on its way: a minute's gathering window is never waited for.
    engine, hasher = await _gated(tmp_path, "", gather=60.0)
    accounts = engine.services.get(AccountService)
    try:
        hasher.gate("lone-pass-word").set_result(True)
        _account, uid = await asyncio.wait_for(
            accounts.create_player("Eirik", "lone-pass-word"), 30
        )
        assert engine.world.get_component(uid, PlayerCharacter).name == "Eirik"
    finally:
        await engine.stop()


async def test_a_commit_waits_no_longer_than_its_window(tmp_path: Path) -> None:
    engine, hasher = await _gated(tmp_path, "", gather=0.05)
    accounts = engine.services.get(AccountService)
    writes = accounts._writes
    try:
        before = writes.commits
        first, stuck = await _two_hashing(accounts, "Freya", "Gorm")
        hasher.gate("first-pass-word").set_result(True)
        await asyncio.wait_for(first, 30)
        assert writes.commits == before + 1
        assert not stuck.done()
        assert writes.coming == 1
        hasher.gate("second-pass-word").set_result(True)
        await asyncio.wait_for(stuck, 30)
        assert writes.commits == before + 2
    finally:
        await engine.stop()


async def test_a_commit_carries_at_most_max_group(tmp_path: Path) -> None:
    engine = await _started(tmp_path, "")
    accounts = engine.services.get(AccountService)
    accounts._writes.max_group = 3
    password_hash = await accounts.hasher.hash(PASSWORD)
    names = [f"Group{chr(97 + i)}" for i in range(7)]
    try:
        before = accounts._writes.commits
        await asyncio.gather(*(accounts.create_player_from_hash(n, password_hash) for n in names))
        assert accounts._writes.commits - before >= 3
        assert accounts._writes.written >= 7
    finally:
        await engine.stop()


async def test_a_player_confirming_a_password_is_waited_for(tmp_path: Path, db_url: str) -> None:
    # The interactive creation checks the repeated password with a hash too; a
    # commit under way waits for it as for a one-line creation.
    engine, hasher = await _gated(tmp_path, db_url, gather=60.0)
    writes = engine.services.get(AccountService)._writes
    try:
        before = writes.commits
        hasher.gate("first-pass-word").set_result(True)
        typing = Client(engine)
        await typing.open()
        await typing.line("hallam")
        await typing.line("yes")
        await typing.line("first-pass-word")
        assert typing.last_prompt == "Type the password again: "
        confirming = asyncio.create_task(typing.line("first-pass-word"))
        await _until(lambda: writes.coming == 1)
        quick = Client(engine)
        await quick.open()
        one_line = asyncio.create_task(quick.line("create Ingrid second-pass-word"))
        await _until(lambda: writes.coming == 2)
        hasher.gate("second-pass-word").set_result(True)
        await _until(lambda: len(writes._queue) == 1)
        for _ in range(200):
            await asyncio.sleep(0)
        assert writes.commits == before
        assert not one_line.done()
        hasher.gate("verify first-pass-word").set_result(True)
        out_a, out_b = await asyncio.wait_for(asyncio.gather(confirming, one_line), 30)
        assert "Welcome, Hallam." in out_a
        assert "Welcome, Ingrid." in out_b
        assert writes.commits == before + 1
    finally:
        await engine.stop()


async def test_a_mistyped_confirmation_is_not_waited_for(tmp_path: Path) -> None:
    engine, hasher = await _gated(tmp_path, "", gather=60.0)
    writes = engine.services.get(AccountService)._writes
    try:
        hasher.gate("first-pass-word").set_result(True)
        hasher.gate("verify other-pass-word").set_result(False)
        c = Client(engine)
        await c.open()
        for line in ("jorunn", "yes", "first-pass-word"):
            await c.line(line)
        out = await c.line("other-pass-word")
        assert "The passwords do not match." in out
        assert writes.coming == 0
    finally:
        await engine.stop()
