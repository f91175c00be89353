"""SQL expressions over top-level keys of a JSON document column.

Filters are evaluated by the database on both backends. A bare cast of the extracted
value is not enough: PostgreSQL aborts the whole query when one document holds
``"level": "high"`` and the filter casts ``level`` to a number, and SQLite happily
casts ``"abc"`` to 0 or the number 1 to the string ``"1"``. So every comparison
first checks the JSON type of the value (``jsonb_typeof`` / ``json_type``) and only
then compares the extracted value, inside a CASE so PostgreSQL cannot reorder the
check after the cast. A filter therefore matches only values of the same JSON type
(``True`` never matches ``1``), with ``1`` and ``1.0`` equal as in Python.
"""

from __future__ import annotations

import math
from typing import Any

import sqlalchemy as sa
from sqlalchemy.sql.elements import ColumnElement

from maid_engine.store.errors import unsupported_backend

# JSON type names as reported by each backend's type function.
_TYPE_NAMES: dict[str, dict[str, tuple[str, ...]]] = {
    "postgresql": {
        "string": ("string",),
        "number": ("number",),
        "boolean": ("boolean",),
    },
    "sqlite": {
        "string": ("text",),
        "number": ("integer", "real"),
        "boolean": ("true", "false"),
    },
}


def check_key(key: str) -> None:
    """Reject keys that cannot be addressed as a top-level JSON path."""
    if not isinstance(key, str) or not key:
        raise ValueError(f"document field name must be a non-empty string, not {key!r}")
    # SQLite's JSON path syntax ($."key") has no escape for a double quote.
    if '"' in key or "\\" in key:
        raise ValueError(f"document field name {key!r} may not contain '\"' or '\\'")


def _sqlite_path(key: str) -> str:
    return f'$."{key}"'


def json_type(column: ColumnElement[Any], key: str, dialect: str) -> ColumnElement[str]:
    """The backend's name for the JSON type at ``key``; SQL NULL when the key is absent."""
    if dialect == "postgresql":
        return sa.func.jsonb_typeof(column[key], type_=sa.String())
    return sa.func.json_type(column, _sqlite_path(key), type_=sa.String())


def _type_is(column: ColumnElement[Any], key: str, dialect: str, kind: str) -> ColumnElement[bool]:
    return json_type(column, key, dialect).in_(_TYPE_NAMES[dialect][kind])


def equals(column: ColumnElement[Any], key: str, value: Any, dialect: str) -> ColumnElement[bool]:
    """``document[key] == value`` for a str, int, float, bool or None ``value``.

    ``None`` matches documents where the key is null or absent, like ``doc.get(key)``.
    """
    check_key(key)
    if dialect not in _TYPE_NAMES:
        raise unsupported_backend(dialect)
    field = column[key]
    if value is None:
        return sa.func.coalesce(json_type(column, key, dialect), "null") == "null"

    extracted: ColumnElement[Any]
    literal: ColumnElement[Any]
    if isinstance(value, bool):  # before int: bool is an int subclass
        kind = "boolean"
        extracted = field.as_boolean()
        literal = sa.literal(value, sa.Boolean())
    elif isinstance(value, int | float):
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"cannot filter on {value!r}: not representable in JSON")
        kind = "number"
        # NUMERIC rather than as_integer()/as_float(): an integer cast fails on
        # PostgreSQL for 1.5 or for values beyond 32 bits, and a float cast would
        # lose exactness for large integers.
        extracted = sa.cast(field.as_string(), sa.Numeric())
        literal = sa.literal(value, sa.BigInteger() if isinstance(value, int) else sa.Float())
    elif isinstance(value, str):
        kind = "string"
        extracted = field.as_string()
        literal = sa.literal(value, sa.String())
    else:
        raise TypeError(
            f"cannot filter on {key!r} by a {type(value).__name__}: "
            "only str, int, float, bool and None are supported"
        )
    guarded = sa.case((_type_is(column, key, dialect, kind), extracted), else_=sa.null())
    return guarded == literal


def sort_key(column: ColumnElement[Any], key: str, dialect: str) -> ColumnElement[Any]:
    """An ORDER BY expression for ``document[key]``; null/absent values give SQL NULL.

    Numbers sort numerically and strings as strings on both backends; the order
    between values of different JSON types is backend-defined.
    """
    check_key(key)
    if dialect == "postgresql":
        # Compare as jsonb, which orders numbers numerically; JSON null becomes
        # SQL NULL so it sorts with absent keys.
        return sa.case((json_type(column, key, dialect) == "null", sa.null()), else_=column[key])
    if dialect == "sqlite":
        # Raw json_extract keeps SQL numbers as numbers (no cast to text).
        return sa.func.json_extract(column, _sqlite_path(key))
    raise unsupported_backend(dialect)
