"""JSON text made once and written as it is.

A component's data is turned into JSON text when a checkpoint collects it (see
:mod:`maid_engine.changes`) or just before the store writes it
(:func:`maid_engine.store.encode_upserts`); the marker type tells the store the
text is encoded already, where a plain ``str`` would be a mistake to refuse.
"""

from __future__ import annotations

import functools
import json
from typing import Any

#: The store's JSON encoder. NaN and infinities are not JSON: refused everywhere
#: (ValueError), not only on PostgreSQL.
dump_json = functools.partial(json.dumps, allow_nan=False, ensure_ascii=False)


class EncodedJSON(str):
    """A component's data already turned into JSON text; written as it is."""

    __slots__ = ()


#: A component's data in a change set: JSON-ready objects, or encoded already.
ComponentData = dict[str, Any] | EncodedJSON
