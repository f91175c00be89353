"""Persistent storage: JSON documents and ECS entities on SQLite or PostgreSQL.

    store = Store("sqlite+aiosqlite:///data/maid.db")
    await store.open()                      # connects and migrates to the newest schema
    await store.documents.ensure_collection("accounts")
    await store.documents.put("accounts", "alice", {"name": "Alice"})
    await store.entities.save(EntityChangeSet(upserts={entity_id: {"Health": {"hp": 3}}}))
    async with store.atomic() as tx:        # one transaction for both
        ...
    await store.close()

Every database failure is a StoreError; StoreUnavailable means the database could
not be reached (retry later with the same Store).
"""

from maid_engine.jsontext import EncodedJSON
from maid_engine.store.database import Store, Transaction
from maid_engine.store.documents import DocumentStore
from maid_engine.store.entities import EntityChangeSet, EntityStore, encode_upserts
from maid_engine.store.errors import CollectionNotFound, StoreError, StoreUnavailable

__all__ = [
    "CollectionNotFound",
    "DocumentStore",
    "EncodedJSON",
    "EntityChangeSet",
    "EntityStore",
    "Store",
    "StoreError",
    "StoreUnavailable",
    "Transaction",
    "encode_upserts",
]
