"""The quest layer's refusal, in a module of its own so the objective tracker and
the turn-in ledger raise it without importing the QuestManager that owns them."""

from __future__ import annotations


class QuestError(Exception):
    """A refused quest operation; the message is meant for the player."""
