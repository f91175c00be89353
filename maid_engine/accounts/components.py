"""Components and contracts shared by the account layer and the game packs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol
from uuid import UUID

from maid_engine.ecs import Component


@dataclass
class PlayerCharacter(Component):
    """Marks an entity as a player character owned by an account."""

    name_field = "name"
    name: str = ""
    account_id: str = ""
    created_at: float = 0.0
    last_seen: float = 0.0


class CharacterFactory(Protocol):
    """Creates the world entity of a new character (provided by a game pack).

    Must create the entity synchronously, with a :class:`PlayerCharacter`
    component, and return its id. The account layer saves it immediately.
    """

    def create_character(self, name: str, account_id: str) -> UUID: ...
