"""Only the two documented backends have SQL; anything else is a clear StoreError."""

from __future__ import annotations

import pytest

from maid_engine.store import StoreError
from maid_engine.store.filters import equals, sort_key
from maid_engine.store.schema import documents, upsert_statement


@pytest.mark.parametrize(
    "build",
    [
        lambda: upsert_statement("mysql", documents),
        lambda: equals(documents.c.data, "name", "x", "mysql"),
        lambda: sort_key(documents.c.data, "name", "mysql"),
    ],
)
def test_an_unsupported_backend_names_the_supported_ones(build: object) -> None:
    with pytest.raises(StoreError, match=r"unsupported database backend 'mysql'.*postgresql"):
        build()  # type: ignore[operator]
