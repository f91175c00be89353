"""``maid create-admin``: make an administrator (or an owner) without running the server."""

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


async def create_admin(settings: Settings, name: str, password: str, *, owner: bool = False) -> str:
    """Create account ``name`` with the admin role (the owner role with ``owner``),
    or give an existing account that role.

    An existing account keeps its password (neither checked nor changed). This is
    the only way to make an owner, and to unmake one: ``create_admin`` without
    ``owner`` turns an owner back into an admin. Opens the store from ``settings``
    (the server need not run; with SQLite it should not, to avoid waiting on its
    write lock). Returns a message for the user; raises AccountError (InvalidName,
    InvalidPassword) with a message saying what is wrong.
    """
    role = Role.OWNER if owner else Role.ADMIN
    title = role.name.lower()
    key = name_key(name)
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    store = Store(settings.resolved_database_url)
    await store.open()
    try:
        await store.documents.ensure_collection(ACCOUNTS_COLLECTION)
        repo = AccountRepository(store.documents)
        existing = await repo.get(key) if key else None
        if existing is not None:
            if existing.role == role:
                return f"{existing.name} is already an {title}; nothing changed."
            before = existing.role.name.lower()
            existing.role = role
            await repo.put(existing)
            log.info(
                "account %s made %s (was %s) from the command line", existing.name, title, before
            )
            return (
                f"{existing.name} already existed and is now an {title}, no longer "
                f"a{'n' if before[0] in 'aeiou' else ''} {before} (password unchanged)."
            )
        display = validate_name(name)
        check_password_policy(password, display)
        hasher = PasswordHasher.from_settings(settings)
        account = Account(
            key=key,
            name=display,
            password_hash=await hasher.hash(password),
            role=role,
            created_at=time.time(),
        )
        await repo.put(account)
        log.info("%s account %s created from the command line", title, display)
        return (
            f"{title.capitalize()} account {display} created. "
            f"Log in with 'connect {display} <password>'; "
            "a character of the same name is created at the first login."
        )
    finally:
        await store.close()


__all__ = ["AccountError", "create_admin"]
