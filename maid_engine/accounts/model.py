"""The account record and where it is kept.

Accounts are documents in the ``accounts`` collection, keyed by the casefolded
name. The password hash is part of the document but never part of ``repr()``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol
from uuid import UUID

from maid_engine.commands import Role

ACCOUNTS_COLLECTION = "accounts"
DOC_VERSION = 1


@dataclass
class Account:
    key: str
    name: str
    password_hash: str = field(repr=False)
    role: Role = Role.PLAYER
    character_ids: list[UUID] = field(default_factory=list)
    created_at: float = 0.0
    last_login_at: float = 0.0
    last_login_ip: str = ""

    def to_doc(self) -> dict[str, Any]:
        return {
            "v": DOC_VERSION,
            "name": self.name,
            "password": self.password_hash,
            # By name, not number, so the stored data stays readable and survives a
            # renumbering of the enum.
            "role": self.role.name.lower(),
            "characters": [str(c) for c in self.character_ids],
            "created_at": self.created_at,
            "last_login_at": self.last_login_at,
            "last_login_ip": self.last_login_ip,
        }

    @classmethod
    def from_doc(cls, key: str, doc: dict[str, Any]) -> Account:
        return cls(
            key=key,
            name=str(doc.get("name") or key.capitalize()),
            password_hash=str(doc.get("password", "")),
            role=Role.parse(doc.get("role", "player")),
            character_ids=[UUID(c) for c in doc.get("characters", [])],
            created_at=float(doc.get("created_at", 0.0)),
            last_login_at=float(doc.get("last_login_at", 0.0)),
            last_login_ip=str(doc.get("last_login_ip", "")),
        )


class CharacterRef(NamedTuple):
    id: UUID
    name: str


class Documents(Protocol):
    """The part of the DocumentStore the account layer uses."""

    async def get(self, collection: str, key: str) -> dict[str, Any] | None: ...

    async def put(self, collection: str, key: str, doc: dict[str, Any]) -> None: ...

    async def delete(self, collection: str, key: str) -> bool: ...

    async def get_many(self, collection: str, keys: Iterable[str]) -> dict[str, dict[str, Any]]: ...

    async def put_many(self, collection: str, items: Mapping[str, dict[str, Any]]) -> None: ...

    async def keys(self, collection: str) -> list[str]: ...


class MemoryDocuments:
    """Stand-in for the DocumentStore when the engine runs without a store
    (``use_store=False``): accounts then live as long as the process."""

    def __init__(self) -> None:
        self._data: dict[tuple[str, str], dict[str, Any]] = {}

    async def get(self, collection: str, key: str) -> dict[str, Any] | None:
        doc = self._data.get((collection, key))
        return dict(doc) if doc is not None else None

    async def put(self, collection: str, key: str, doc: dict[str, Any]) -> None:
        self._data[(collection, key)] = dict(doc)

    async def delete(self, collection: str, key: str) -> bool:
        return self._data.pop((collection, key), None) is not None

    async def get_many(self, collection: str, keys: Iterable[str]) -> dict[str, dict[str, Any]]:
        found = {key: self._data.get((collection, key)) for key in keys}
        return {key: dict(doc) for key, doc in found.items() if doc is not None}

    async def put_many(self, collection: str, items: Mapping[str, dict[str, Any]]) -> None:
        for key, doc in items.items():
            self._data[(collection, key)] = dict(doc)

    async def keys(self, collection: str) -> list[str]:
        return [key for (name, key) in self._data if name == collection]


class AccountRepository:
    """Reads and writes account documents (no game logic, no engine needed)."""

    def __init__(self, documents: Documents) -> None:
        self.documents = documents

    async def get(self, key: str) -> Account | None:
        doc = await self.documents.get(ACCOUNTS_COLLECTION, key)
        return Account.from_doc(key, doc) if doc is not None else None

    async def put(self, account: Account) -> None:
        await self.documents.put(ACCOUNTS_COLLECTION, account.key, account.to_doc())
