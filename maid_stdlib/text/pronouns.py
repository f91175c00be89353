"""The pronouns a text uses when it refers back to someone.

A person in data says which set is theirs (``pronouns: she`` on an NPC entry);
without one, "they". Pronouns are a closed class of five forms per set, so a table
says them plainly: ``inflect`` knows some of them from its ``gender()`` setting but
not the determiner ("their" voice) and gives "themself" for the singular they.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["DEFAULT_PRONOUNS", "PRONOUN_KEYS", "PronounKey", "Pronouns", "pronouns"]

PronounKey = Literal["he", "she", "they", "it"]


@dataclass(frozen=True)
class Pronouns:
    """One set: "she" / "her" / "her voice" / "it is hers" / "herself"."""

    subject: str
    object: str
    determiner: str
    possessive: str
    reflexive: str
    #: Verbs agree as after a plural subject ("they are", "they want").
    plural_verbs: bool = False

    def be(self) -> str:
        """ "is" or "are" after :attr:`subject`."""
        return "are" if self.plural_verbs else "is"


_SETS: dict[str, Pronouns] = {
    "he": Pronouns("he", "him", "his", "his", "himself"),
    "she": Pronouns("she", "her", "her", "hers", "herself"),
    "they": Pronouns("they", "them", "their", "theirs", "themselves", plural_verbs=True),
    "it": Pronouns("it", "it", "its", "its", "itself"),
}
PRONOUN_KEYS: tuple[str, ...] = tuple(_SETS)
DEFAULT_PRONOUNS = _SETS["they"]


def pronouns(key: str | None) -> Pronouns:
    """The set named ``key`` ("he", "she", "they", "it"); "they" when unknown or empty."""
    return _SETS.get((key or "").strip().lower(), DEFAULT_PRONOUNS)
