"""Accounts, characters and the login flow."""

from maid_engine.accounts.components import CharacterFactory, PlayerCharacter

__all__ = ["CharacterFactory", "PlayerCharacter"]
