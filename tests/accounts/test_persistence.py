"""Accounts and characters survive restarts (SQLite and PostgreSQL), and a new
character is on disk before anyone is told it exists."""

from __future__ import annotations

from pathlib import Path
from uuid import UUID

import pytest
from accounts.account_helpers import PASSWORD, Client, build_engine

from maid_engine.accounts import (
    AccountService,
    CharacterFactory,
    InvalidName,
    InvalidPassword,
    PlayerCharacter,
    install_accounts,
)
from maid_engine.accounts.admin_cli import create_admin
from maid_engine.clock import ManualClock
from maid_engine.commands import Role
from maid_engine.config import Settings
from maid_engine.engine import GameEngine
from maid_engine.store import Store


async def test_login_works_after_a_restart(tmp_path: Path, db_url: str) -> None:
    engine = build_engine(tmp_path, db_url)
    await engine.start()
    c = Client(engine)
    await c.open()
    await c.line(f"create Aldric {PASSWORD}")
    uid = c.session.character_id
    assert uid is not None
    account = await engine.services.get(AccountService).get("aldric")
    assert account is not None
    bryn = await engine.services.get(AccountService).add_character(account, "Bryn")
    await engine.services.get(AccountService).set_role("aldric", Role.BUILDER)
    await c.line("quit")
    await engine.stop()

    again = build_engine(tmp_path, db_url)
    await again.start()
    try:
        c = Client(again)
        await c.open()
        await c.line("aldric")
        out = await c.line(PASSWORD)
        assert "1) Aldric  2) Bryn" in out
        await c.line("1")
        assert c.session.character_id == uid
        assert c.session.data["role"] is Role.BUILDER
        pc = again.world.get_component(uid, PlayerCharacter)
        assert (pc.name, pc.account_id) == ("Aldric", "aldric")
        assert again.world.entity_exists(bryn)
        # Uniqueness is still enforced after the restart.
        d = Client(again)
        await d.open()
        assert "already taken" in await d.line(f"create bryn {PASSWORD}")
    finally:
        await again.stop()


async def test_a_new_character_is_saved_immediately(tmp_path: Path, db_url: str) -> None:
    engine = build_engine(tmp_path, db_url)
    await engine.start()
    try:
        c = Client(engine)
        await c.open()
        await c.line(f"create Aldric {PASSWORD}")
        uid = c.session.character_id
        assert uid is not None
        # No checkpoint, no stop: look at the database from outside, as a restarted
        # process after a kill -9 would.
        outside = Store(db_url)
        await outside.open()
        try:
            doc = await outside.documents.get("accounts", "aldric")
            assert doc is not None
            assert doc["characters"] == [str(uid)]
            assert doc["role"] == "player"
            assert PASSWORD not in str(doc)
            stored = await outside.entities.load_all()
            assert stored[uid]["PlayerCharacter"]["name"] == "Aldric"
        finally:
            await outside.close()
    finally:
        await engine.stop()


async def test_rehash_after_the_parameters_change(tmp_path: Path) -> None:
    engine = build_engine(tmp_path, scrypt_n=2**10)
    await engine.start()
    await engine.services.get(AccountService).create_account("Aldric", PASSWORD)
    await engine.stop()
    engine = build_engine(tmp_path, scrypt_n=2**11)
    await engine.start()
    try:
        service = engine.services.get(AccountService)
        before = await service.get("aldric")
        assert before is not None
        assert before.password_hash.startswith("scrypt$1024$")
        await service.authenticate("Aldric", PASSWORD, "127.0.0.1")
        after = await service.get("aldric")
        assert after is not None
        assert after.password_hash.startswith("scrypt$2048$")
        await service.authenticate("Aldric", PASSWORD, "127.0.0.1")
    finally:
        await engine.stop()


async def test_create_admin(tmp_path: Path, db_url: str) -> None:
    settings = Settings(data_dir=tmp_path, database_url=db_url, scrypt_n=2**10)
    message = await create_admin(settings, "morgan", "admin-pass-1")
    assert "Admin account Morgan created" in message
    assert "already an admin" in await create_admin(settings, "MORGAN", "ignored")
    with pytest.raises(InvalidName, match="reserved"):
        await create_admin(settings, "admin", "admin-pass-1")
    with pytest.raises(InvalidPassword, match="at least 6"):
        await create_admin(settings, "Nadia", "x")

    engine = build_engine(tmp_path, db_url)
    await engine.start()
    try:
        c = Client(engine)
        await c.open()
        out = await c.line("connect Morgan admin-pass-1")
        assert "Welcome, Morgan." in out  # the first login adds the character
        assert c.session.data["role"] is Role.ADMIN
        await engine.services.get(AccountService).create_account("Orrin", PASSWORD)
        assert "Orrin is now a builder." in await c.line("@role orrin builder")
    finally:
        await engine.stop()
    # An existing account is promoted without touching its password.
    assert "is now an admin" in await create_admin(settings, "orrin", "whatever")
    engine = build_engine(tmp_path, db_url)
    await engine.start()
    try:
        account = await engine.services.get(AccountService).authenticate(
            "orrin", PASSWORD, "127.0.0.1"
        )
        assert account.role is Role.ADMIN
    finally:
        await engine.stop()


async def test_create_admin_makes_and_unmakes_owners(tmp_path: Path, db_url: str) -> None:
    settings = Settings(data_dir=tmp_path, database_url=db_url, scrypt_n=2**10)
    with pytest.raises(InvalidPassword, match="one of the most common ones"):
        await create_admin(settings, "Morgan", "letmein1", owner=True)
    assert "Owner account Morgan created" in await create_admin(
        settings, "Morgan", "admin-pass-1", owner=True
    )
    assert "already an owner" in await create_admin(settings, "morgan", "ignored", owner=True)
    await create_admin(settings, "Nadia", "nadia-pass-1")
    assert "is now an owner, no longer an admin" in await create_admin(
        settings, "nadia", "ignored", owner=True
    )
    # The command line is also where an owner is turned back into an admin.
    assert "is now an admin, no longer an owner" in await create_admin(settings, "NADIA", "ignored")
    engine = build_engine(tmp_path, db_url)
    await engine.start()
    try:
        service = engine.services.get(AccountService)
        morgan = await service.authenticate("morgan", "admin-pass-1", "127.0.0.1")
        nadia = await service.authenticate("nadia", "nadia-pass-1", "127.0.0.1")
        assert (morgan.role, nadia.role) == (Role.OWNER, Role.ADMIN)
        c = Client(engine)
        await c.open()
        assert "Welcome, Morgan." in await c.line("connect Morgan admin-pass-1")
        assert c.session.data["role"] is Role.OWNER
        # The owner may use every admin command, and demote an admin.
        assert "Nadia is now a player." in await c.line("@role nadia player")
    finally:
        await engine.stop()


async def test_character_factory_is_used(tmp_path: Path) -> None:
    made: list[tuple[str, str]] = []

    class Factory:
        def __init__(self, engine: GameEngine) -> None:
            self.engine = engine

        def create_character(self, name: str, account_id: str) -> UUID:
            made.append((name, account_id))
            assert self.engine.world_lock.locked()
            return self.engine.world.create_entity(
                PlayerCharacter(name=name, account_id=account_id)
            )

    engine = build_engine(tmp_path)
    engine.services.provide(CharacterFactory, Factory(engine))  # type: ignore[type-abstract]
    await engine.start()
    try:
        c = Client(engine)
        await c.open()
        await c.line(f"create Aldric {PASSWORD}")
        assert made == [("Aldric", "aldric")]
        assert c.session.character_id is not None
    finally:
        await engine.stop()


async def test_orphaned_character_is_adopted(engine: GameEngine, accounts: AccountService) -> None:
    """A crash between saving the character and the account document leaves a
    character whose account does not list it; the next login finds it."""
    account = await accounts.create_account("Aldric", PASSWORD)
    async with engine.world_lock:
        uid = engine.world.create_entity(PlayerCharacter(name="Aldric", account_id="aldric"))
    refs = await accounts.characters(account)
    assert [r.id for r in refs] == [uid]
    stored = await accounts.get("aldric")
    assert stored is not None
    assert stored.character_ids == [uid]


async def test_without_a_store_accounts_live_in_memory(tmp_path: Path) -> None:
    engine = GameEngine(
        Settings(data_dir=tmp_path, scrypt_n=2**10),
        clock=ManualClock(),
        packs=[],
        use_store=False,
    )
    service = install_accounts(engine)
    assert install_accounts(engine) is service  # idempotent
    with pytest.raises(RuntimeError, match="started engine"):
        await service.get("aldric")
    await engine.start()
    try:
        c = Client(engine)
        await c.open()
        assert "Welcome, Aldric." in await c.line(f"create Aldric {PASSWORD}")
    finally:
        await engine.stop()
