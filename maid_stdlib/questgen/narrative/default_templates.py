"""The generic template texts, used for any archetype no pack wrote templates for.

They name no game's archetype: the archetypes and their own texts belong to the
pack that adds them (the RPG layer installs its six as the registry's *default*
layer with ``register_default_templates``). This module is data only.

Dialogue here is the same for every player: it is written once per quest, before
any character is matched. Wording that depends on a player's reputation belongs to
personalization/delivery (see ``reputation.py``).
"""

from __future__ import annotations

__all__ = ["GENERIC", "Templates"]

Templates = dict[str, tuple[str, ...]]

GENERIC: Templates = {
    "title": (
        "{npc}'s Request",
        "A Task at {location}",
        "Help Wanted at {location}",
        "A Favour for {npc}",
    ),
    "summary": (
        "{npc} needs help near {location}, and there is no one else to ask.",
        "{npc} is looking for someone capable to help with a pressing problem.",
    ),
    "description": (
        "{npc} explains the situation without much ceremony. {motivation}. "
        "{backstory}.\n\nWhat needs doing is simple enough to say: {objectives}. "
        "{stakes}.",
        "{backstory}. {npc} has been waiting for someone who might help.\n\n"
        "{motivation}. The work ahead: {objectives}.\n\n{stakes}.",
    ),
    "offer": (
        "I need help, and you look capable. Will you {objective}? I would not ask if "
        "there were anyone else.",
        "Have you a moment? There is trouble near {location}. I would be grateful if "
        "you could {objective}.",
    ),
    "progress": (
        "Any news? I am still counting on you.",
        "You are back. Is it done yet? I cannot rest until it is.",
    ),
    "completion": (
        "It is done? Thank you. I will not forget this.",
        "You have my thanks. Things can finally settle down around {location}.",
    ),
}
