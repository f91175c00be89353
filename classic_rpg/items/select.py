"""Choosing items by what players type: "sword", "2.sword", "all", "all.ore"."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from uuid import UUID

from maid_stdlib.world.look import name_of
from maid_stdlib.world.service import WorldService, parse_ordinal
from maid_stdlib.world.text import singular


def select(ws: WorldService, candidates: Sequence[UUID], wanted: str) -> tuple[bool, list[UUID]]:
    """(several were asked for, the chosen items) among ``candidates`` in their
    order: "all", "all.ore" or "all ore", "pelts" (a plural: every one), "2 pelts"
    (that many, or none if fewer are there); else one ("ore", "2.ore")."""
    text = wanted.strip().lower()
    if text == "all":
        return True, list(candidates)
    if text.startswith(("all.", "all ")):
        # "all.ore" as in Diku, and "all ore" as people type it.
        words = text[4:].split()
        return True, [u for u in candidates if words and ws.matches(u, words)]
    if counted_ask(text):
        head, _, rest = text.partition(" ")
        count, words = int(head), rest.split()
        matching = [u for u in candidates if ws.matches(u, words)]
        return True, matching[:count] if 0 < count <= len(matching) else []
    words = text.split()
    if words and _plural(ws, candidates, words[-1]):
        return True, [u for u in candidates if ws.matches(u, words)]
    ordinal, words = parse_ordinal(text)
    if not words or ordinal < 1:
        return False, []
    for uid in candidates:
        if ws.matches(uid, words):
            ordinal -= 1
            if ordinal == 0:
                return False, [uid]
    return False, []


def counted_ask(wanted: str) -> bool:
    """Whether ``wanted`` asks for a number of things ("2 pelts")."""
    head, _, rest = wanted.strip().partition(" ")
    return head.isdigit() and bool(rest.strip())


def _plural(ws: WorldService, candidates: Sequence[UUID], word: str) -> bool:
    """Whether ``word`` names several: a plural ("pelts") that is not itself the
    start of a keyword of what is there ("glasses" of a pair of glasses)."""
    if not singular(word):
        return False
    return not any(k.startswith(word) for u in candidates for k in ws.keywords_of(u))


def group_names(ws: WorldService, items: Iterable[UUID]) -> list[str]:
    """Names in first-seen order, repeats folded: "a lump of iron ore (x3)"."""
    counts = Counter(name_of(ws, i) for i in items)
    return [name if n == 1 else f"{name} (x{n})" for name, n in counts.items()]
