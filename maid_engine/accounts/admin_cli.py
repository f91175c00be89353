"""``maid create-admin``: make an administrator without running the server."""

from __future__ import annotations

import logging
import time

from maid_engine.accounts.errors import AccountError
from maid_engine.accounts.model import ACCOUNTS_COLLECTION, Account, AccountRepository
from maid_engine.accounts.names import name_key, validate_name
from maid_engine.accounts.passwords import PasswordHasher, check_password_policy
from maid_engine.commands import Role
from maid_engine.config import Settings
from maid_engine.store import Store

log = logging.getLogger("maid.accounts")


async def create_admin(settings: Settings, name: str, password: str) -> str:
    """Create account ``name`` with the admin role, or promote it if it exists.

    An existing account is promoted as it is: its password is neither checked nor
    changed. Opens the store from ``settings`` (the server need not run; with
    SQLite it should not, to avoid waiting on its write lock). Returns a message
    for the user; raises AccountError (InvalidName, InvalidPassword) with a message
    saying what is wrong.
    """
    key = name_key(name)
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    store = Store(settings.resolved_database_url)
    await store.open()
    try:
        await store.documents.ensure_collection(ACCOUNTS_COLLECTION)
        repo = AccountRepository(store.documents)
        existing = await repo.get(key) if key else None
        if existing is not None:
            if existing.role == Role.ADMIN:
                return f"{existing.name} is already an admin; nothing changed."
            existing.role = Role.ADMIN
            await repo.put(existing)
            log.info("account %s promoted to admin from the command line", existing.name)
            return f"{existing.name} already existed and is now an admin (password unchanged)."
        display = validate_name(name)
        check_password_policy(password, display)
        hasher = PasswordHasher.from_settings(settings)
        account = Account(
            key=key,
            name=display,
            password_hash=await hasher.hash(password),
            role=Role.ADMIN,
            created_at=time.time(),
        )
        await repo.put(account)
        log.info("admin account %s created from the command line", display)
        return (
            f"Admin account {display} created. Log in with 'connect {display} <password>'; "
            "a character of the same name is created at the first login."
        )
    finally:
        await store.close()


__all__ = ["AccountError", "create_admin"]
