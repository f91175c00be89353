"""The settings a character keeps (a leaf module: the world's room rendering reads it)."""

from __future__ import annotations

from dataclasses import dataclass

from maid_engine.ecs import Component


@dataclass
class PlayerOptions(Component):
    """What a player chose with ``config``; stored with the character.

    Absent means every default: colour as the client negotiated, the game's own
    prompt, pages as tall as the window, full room descriptions, the exits line.
    """

    component_name = "PlayerOptions"
    #: None: as the client negotiated; False: never; True: always (ANSI at least).
    color: bool | None = None
    #: The prompt format with tokens (``%h``...); empty: the game's own prompt.
    prompt: str = ""
    #: Lines per page of long output; 0: the window's height (NAWS).
    page_length: int = 0
    #: Rooms shown without their description when walking into them.
    brief: bool = False
    #: The "Exits:" line under a room's description.
    auto_exits: bool = True
