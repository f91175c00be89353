"""The generic template texts, used for any archetype no pack wrote templates for.

They name no game's archetype: the archetypes and their own texts belong to the
pack that adds them (the RPG layer installs its six as the registry's *default*
layer with ``register_default_templates``). This module is data only.

Every sentence has a slot backed by a fact, or is a line of the reviewed flavour
list (``maid_stdlib.text.realiser.FLAVOUR``); a sentence whose fact is missing is
left out. Description and summary talk about the giver; the dialogue is the
giver speaking (``.first`` forms). Dialogue is the same for every player: it is
written once per quest, before any character is matched.
"""

from __future__ import annotations

__all__ = ["GENERIC", "Templates"]

Templates = dict[str, tuple[str, ...]]

GENERIC: Templates = {
    "title": (
        "{npc.poss} Request",
        "A Task near {location.short}",
        "A Favour for {npc}",
        "{npc} Asks for Help",
    ),
    "summary": (
        "{npc} needs someone to {objective}.",
        "{npc} is looking for someone to help.",
    ),
    "description": (
        "{motivation}. {backstory}.\n\n{npc} asks for this: {objectives}. {stakes}.",
        "{backstory}. {motivation}.\n\nThe work ahead: {objectives}.",
    ),
    "offer": (
        "{motivation.first}. Will you {objective}?",
        "I need someone to {objective}. Will you help?",
    ),
    "progress": (
        "Any news? I still need someone to {objective}.",
        "Is it done yet? {stakes.first}.",
    ),
    "completion": (
        "It is done, then. I asked you to {objective}, and you did. Thank you.",
        "You have my thanks. Now I can {goal} at last.",
    ),
}
