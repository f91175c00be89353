"""Who takes what they are given.

A player takes whatever another player gives them (if they can carry it). An NPC
takes only what something in the game wants it to have -- a quest's delivery to
it, or whatever a pack registers with :meth:`Gifts.add_taker` -- and anything else
stays with the giver, who is told why. Before, an NPC took everything without a
word, and a thing given by mistake (the ore a fetch quest counts in your pack, a
sword to the wrong guard) was gone into an inventory nobody sees.
"""

from __future__ import annotations

from typing import Protocol
from uuid import UUID

__all__ = ["GiftTaker", "Gifts", "TakenHook"]


class GiftTaker(Protocol):
    def __call__(self, giver: UUID, receiver: UUID, template: str) -> int | str | None:
        """How many items made from ``template`` ``receiver`` takes from ``giver``
        now (a positive number); a text: none, and the text (shown to the giver)
        says why; None or 0: no opinion."""


class TakenHook(Protocol):
    def __call__(self, giver: UUID, receiver: UUID, items: list[UUID]) -> list[str]:
        """What ``receiver`` does with ``items`` it has just taken from ``giver``
        (an owner puts its goods back in their place): lines for the giver."""


class Gifts:
    """Service: the takers asked when an NPC is given something, and what is done
    with what it took."""

    def __init__(self) -> None:
        self._takers: list[GiftTaker] = []
        self._taken: list[TakenHook] = []

    def add_taker(self, taker: GiftTaker) -> None:
        self._takers.append(taker)

    def add_taken_hook(self, hook: TakenHook) -> None:
        self._taken.append(hook)

    def taken(self, giver: UUID, receiver: UUID, items: list[UUID]) -> list[str]:
        """Run the hooks on what an NPC took; the lines they have for the giver."""
        return [line for hook in self._taken for line in hook(giver, receiver, items)]

    def answer(
        self, giver: UUID, receiver: UUID, template: str, skip: GiftTaker | None = None
    ) -> tuple[int, str | None]:
        """How many of ``template`` the receiver takes (the most any taker takes),
        and the first reason given for not taking it. ``skip``: a taker not asked
        (what the others want of it)."""
        most = 0
        why: str | None = None
        for taker in self._takers:
            if taker is skip:
                continue
            said = taker(giver, receiver, template)
            if isinstance(said, str):
                if why is None:
                    why = said
            elif said:
                most = max(most, int(said))
        return most, why
