"""Choosing items by what players type: "sword", "2.sword", "all", "all.ore"."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from uuid import UUID

from maid_stdlib.world.look import name_of
from maid_stdlib.world.service import WorldService, parse_ordinal


def select(ws: WorldService, candidates: Sequence[UUID], wanted: str) -> tuple[bool, list[UUID]]:
    """(is "all", the chosen items) among ``candidates`` in their order."""
    text = wanted.strip().lower()
    if text == "all":
        return True, list(candidates)
    if text.startswith(("all.", "all ")):
        # "all.ore" as in Diku, and "all ore" as people type it.
        words = text[4:].split()
        return True, [u for u in candidates if words and ws.matches(u, words)]
    ordinal, words = parse_ordinal(text)
    if not words or ordinal < 1:
        return False, []
    for uid in candidates:
        if ws.matches(uid, words):
            ordinal -= 1
            if ordinal == 0:
                return False, [uid]
    return False, []


def group_names(ws: WorldService, items: Iterable[UUID]) -> list[str]:
    """Names in first-seen order, repeats folded: "a lump of iron ore (x3)"."""
    counts = Counter(name_of(ws, i) for i in items)
    return [name if n == 1 else f"{name} (x{n})" for name, n in counts.items()]
