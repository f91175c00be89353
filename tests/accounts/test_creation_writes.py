"""What an account creation costs the database, and how new characters reach it:
one commit carries the account, the character and its components, and the
creations of one moment share it (a group commit)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from uuid import UUID, uuid4

import pytest
from accounts.account_helpers import PASSWORD, Client, build_engine

from maid_engine.accounts import AccountNotFound, AccountService, NameTaken, PlayerCharacter
from maid_engine.accounts.creation import NewCharacter, Refused, settle
from maid_engine.accounts.model import ACCOUNTS_COLLECTION, Account, MemoryDocuments
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
