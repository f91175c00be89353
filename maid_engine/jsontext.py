"""JSON text made once and written as it is.

A component's data is turned into JSON text when a checkpoint collects it (see
:mod:`maid_engine.changes`) or just before the store writes it
(:func:`maid_engine.store.encode_upserts`); the text is kept as UTF-8 ``bytes``,
which tells the store it is encoded already (a component's data is otherwise a
dict).
"""

from __future__ import annotations

import functools
import json
from typing import Any, TypeAlias

#: The store's JSON encoder. NaN and infinities are not JSON: refused everywhere
#: (ValueError), not only on PostgreSQL.
dump_json = functools.partial(json.dumps, allow_nan=False, ensure_ascii=False)

#: A component's data already turned into JSON text (UTF-8); written as it is.
#: Plain ``bytes``, not a marker subclass of ``str``: an instance of a subclass is
#: tracked by the cyclic garbage collector, and so is a dict holding one, and a
#: busy world's checkpoint keeps thousands of them between ticks, which every
#: young collection then walks. Plain bytes are also smaller than a subclass's
#: text (no second allocation for the characters).
EncodedJSON: TypeAlias = bytes

#: A component's data in a change set: JSON-ready objects, or encoded already.
ComponentData: TypeAlias = dict[str, Any] | bytes
