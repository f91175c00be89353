"""The template texts of the eight RPG archetypes.

Installed as the template registry's *default* layer by the quest-delivery plugin
(``register_default_templates``); any pack registering its own templates for the
same archetype wins over these. This module is data only.

Each sentence stands on a fact (its slots) or is a reviewed flavour line; a
sentence whose fact the world does not hold is left out, so the alternatives are
written to read well with any subset of their sentences. Summaries and
descriptions talk about the giver; the dialogue is the giver's own voice. The
thanks name what the quest was about (the threat, the item, the goal), so two
givers do not thank the same way.
"""

from __future__ import annotations

from maid_stdlib.questgen.narrative.default_templates import Templates

__all__ = ["RPG_TEMPLATES"]

THREAT_ELIMINATION: Templates = {
    "title": (
        "An End to {threat}",
        "{threat} near {location.short}",
        "{npc.poss} Stand Against {threat}",
        "Trouble near {location.short}",
        "To {goal}",
    ),
    "summary": (
        "{npc} needs someone to deal with {threat} around {location.short}.",
        "{threat} {threat.v_threaten} {location.short}, and {npc} is asking for help.",
        "{npc} wants {threat.the} gone from {location.short}.",
    ),
    "description": (
        "{motivation}. {memory}.\n\n{ally} knows something about {threat.the}. "
        "The plan is plain: {objectives}.\n\n{stakes}. {others} {others.v_be} caught up in it too.",
        "{memory}. {event}. {need}.\n\n{threat} {threat.v_threaten} {location.short}. "
        "What is needed: {objectives}.\n\n{stakes}.",
    ),
    "offer": (
        "{threat} {threat.v_threaten} {location.short}, and I need help. Will you {objective}?",
        "{memory.first}. {need.first}. Will you help me put a stop to {threat.the}?",
        "{threat} {threat.v_be} near {location.short}. Will you {objective}?",
    ),
    "progress": (
        "Are {threat.the} still out there? While they are, {stake.first}.",
        "Back already? Tell me {threat.the} {threat.v_be} dealt with. "
        "I cannot rest until it is done.",
    ),
    "completion": (
        "{threat} gone from {location.short}? Thank you. Now I can {goal} at last.",
        "It is over? Then {threat.the} will trouble {location.short} no more. You have my thanks.",
    ),
}

DIPLOMATIC_RESOLUTION: Templates = {
    "title": (
        "Words between {party_a} and {party_b}",
        "Words with {rival}",
        "{npc.poss} Delicate Request",
        "A Quarrel over {subject}",
        "To {goal}",
    ),
    "summary": (
        "{npc} hopes a level head can settle what is between {party_a} and {party_b}.",
        "{rift} are at odds, and {npc} wants someone to broker an understanding.",
        "{npc} is at odds with {rival} and hopes a level head can broker an understanding.",
    ),
    "description": (
        "{motivation}. {memory}.\n\n{rift} do not trust each other. "
        "What is needed is patience: {objectives}.\n\n{stakes}.",
        "{need}. {memory}.\n\nWhat is needed is a go-between: {objectives}. "
        "Choose your words carefully.",
        "{motivation}. {memory}.\n\n{npc} and {rival} cannot agree. "
        "What is needed is patience: {objectives}.\n\n{stakes}.",
    ),
    "offer": (
        "This needs a calm head, not a sharp blade. Would you {objective}?",
        "{rift} will not listen to each other. Will you {objective}?",
        "{rival} and I will not listen to each other. Will you {objective}?",
    ),
    "progress": (
        "Have {party_a} and {party_b} agreed to anything yet? Both sides will want to be heard.",
        "How are the talks with {party_a} going? {stake.first}, if this drags on.",
        "Has {rival} come round yet? Both sides will want to be heard.",
    ),
    "completion": (
        "{party_a} and {party_b} have an understanding, at last. You have a gift for this.",
        "An understanding between {party_a} and {party_b}. Now I can {goal} at last. Thank you.",
        "{rival} and I have an understanding, at last. You have a gift for this.",
    ),
}

SUPPLY_CHAIN: Templates = {
    "title": (
        "{item.a} for {npc}",
        "{npc.poss} Shortage",
        "In Need of {item.a}",
        "To {goal}",
    ),
    "summary": (
        "{npc} needs {item} and is looking for someone to bring it in.",
        "{motivation}, and a reliable hand would help.",
    ),
    "description": (
        "{motivation}. {memory}.\n\nThe job is simple: {objectives}.\n\n{stakes}.",
        "{memory}. {need}.\n\nThe job is practical enough: {objectives}. {stakes}.",
    ),
    "offer": (
        "I could use a dependable pair of hands. Will you {objective}?",
        "{need.first}. Would you bring me {item}?",
    ),
    "progress": (
        "Any luck with {item.the}? {stake.first}, if it does not come.",
        "Still on the road? Take care, and come back as soon as you can.",
    ),
    "completion": (
        "{item} at last. Now I can {goal}. Here, you have earned this.",
        "Just what I needed: {item}. You came through for me.",
    ),
}

INVESTIGATION: Templates = {
    "title": (
        "The Truth about {subject}",
        "Questions near {location.short}",
        "What {npc} Wants to Know",
        "{npc.poss} Questions",
        "To {goal}",
    ),
    "summary": (
        "{npc} wants the truth about {subject} and needs someone to dig for it.",
        "{npc} wants answers about what is happening around {location.short}.",
        "{npc} has questions about {subject} and wants them answered.",
    ),
    "description": (
        "{memory}. {event}.\n\n{npc} wants the truth found. {ally} may know more. "
        "Start there: {objectives}.\n\n{stakes}.",
        "{motivation}. {memory}.\n\nA careful eye might find answers: {objectives}.",
    ),
    "offer": (
        "Keep this between us. I want the truth about {subject}. Will you {objective}?",
        "{memory.first}. Will you {objective} and find out the truth?",
        "I need someone who asks the right questions. Will you {objective}?",
    ),
    "progress": (
        "Found anything yet? Even a small clue would help.",
        "Have you spoken with {ally} yet? Even a small clue would help.",
    ),
    "completion": (
        "So that is the truth about {subject}. I am glad to know.",
        "You found it. Now I know what happened around {location.short}. Thank you.",
    ),
}

RESCUE_MISSION: Templates = {
    "title": (
        "Bring {ally} Home",
        "{npc.poss} Plea for {ally}",
        "Rescue at {destination.short}",
        "Bring Back {ally}",
    ),
    "summary": (
        "{ally} is in danger, and {npc} begs for help to bring {ally.them} back safely.",
        "{npc} needs someone to {objective}.",
    ),
    "description": (
        "{motivation}. {memory}.\n\nEvery hour counts: {objectives}. Please hurry.\n\n{stakes}.",
        "{memory}. {threat} {threat.v_hold} {ally}.\n\nWhat is needed: {objectives}.",
    ),
    "offer": (
        "Please, you have to help me. Will you {objective}? There is no one else I can ask.",
        "{ally} cannot wait much longer. Will you {objective}?",
    ),
    "progress": (
        "Is there any news of {ally}? Please hurry.",
        "You are back, but alone? Please, do not give up on {ally}.",
    ),
    "completion": (
        "You brought {ally} back! I do not know how to thank you.",
        "{ally} is safe, after all of it. Whatever you need, you have only to ask.",
    ),
}

FACTION_CHOICE: Templates = {
    "title": (
        # Not the bare "{party_a} or {party_b}": the decision objective of a later
        # choice between the same two says that, and would read as this quest's title.
        "Taking Sides: {party_a} or {party_b}",
        "A Choice near {location.short}",
        "{npc.poss} Side of the Story",
        "To {goal}",
    ),
    "summary": (
        "{rift} are at odds, and {npc} wants you to hear both and choose.",
        "{npc} asks for help in a struggle between {party_a} and {party_b}.",
        "{npc} is at odds with {rival} and wants you to hear {rival} out, then choose a side.",
    ),
    "description": (
        "{motivation}. {memory}.\n\n{rift} do not trust each other. Both must be heard: "
        "{objectives}.\n\n{stakes}. Whatever you decide, people will remember it.",
        "{need}. {memory}.\n\nWhat is asked is simple: {objectives}.",
        "{motivation}. {memory}.\n\n{npc} and {rival} do not trust each other. "
        "Both must be heard: {objectives}.\n\n{stakes}. Whatever you decide, people will "
        "remember it.",
    ),
    "offer": (
        "You will hear two sides of this story. Will you {objective}?",
        "{rift} will not both have their way. Will you {objective}?",
        "{rival} and I will not both have our way. Will you {objective}?",
    ),
    "progress": (
        "Have you made up your mind? Take your time, but not too long.",
        "Have you heard both {party_a} and {party_b} yet? {stake.first}.",
        "Have you heard {rival} out yet? {stake.first}.",
    ),
    "completion": (
        "It is decided between {party_a} and {party_b}, then. Not everyone will thank you, "
        "but it had to be done.",
        "It is decided between {rival} and me, then. Not everyone will thank you, "
        "but it had to be done.",
        "You made your choice and saw it through. Now I can {goal} at last.",
    ),
}

COMMON_CAUSE: Templates = {
    "title": (
        "A Word for {ally}",
        "{npc} and {ally} against {threat}",
        "{npc.poss} Message to {ally}",
        "To {goal}",
    ),
    "summary": (
        "{npc} means to stand with {ally} against {threat.the} and needs someone to carry "
        "the word.",
        "{npc} needs a messenger to carry word to {ally}.",
    ),
    "description": (
        "{event}. {memory}.\n\nThe message is plain: {objectives}.\n\n{stakes}.",
        "{memory}. {need}.\n\n{threat} {threat.v_threaten} {location.short}. "
        "The message is plain: {objectives}.",
    ),
    "offer": (
        "{ally} should hear this from someone I trust. Will you {objective}?",
        "{threat} {threat.v_threaten} {location.short}. Will you {objective}?",
    ),
    "progress": (
        "Have you spoken with {ally} yet?",
        "What did {ally} say? {stake.first}, if we do not stand together.",
    ),
    "completion": (
        "So {ally} will stand with me. Thank you.",
        "{ally} and I will face {threat.the} together, then. You have my thanks.",
    ),
}

CLEARING_THE_WAY: Templates = {
    "title": (
        "The Way to {item.a}",
        "{threat} and {npc.poss} Shortage",
        "Clearing the Way for {npc}",
        "To {goal}",
    ),
    "summary": (
        "{npc} needs {item}, and {threat.the} stand in the way.",
        "{threat} {threat.v_threaten} {location.short}; {npc} needs the way clear and {item} "
        "brought back.",
    ),
    "description": (
        "{motivation}. {memory}.\n\nFirst {threat.the} must be dealt with; then {item} can "
        "be brought in. The plan: {objectives}.\n\n{stakes}.",
        "{memory}. {need}.\n\nWhat is needed: {objectives}.\n\n{stakes}.",
    ),
    "offer": (
        "{threat} {threat.v_be} between me and {item}. Will you {objective}?",
        "{need.first}. Will you clear the way and bring me {item}?",
    ),
    "progress": (
        "Are {threat.the} still in the way? Without {item}, {stake.first}.",
        "Back already? {threat} first, then {item.the}.",
    ),
    "completion": (
        "The way is clear and {item} is here. Now I can {goal}.",
        "{item} at last, and {threat.the} gone besides. You have my thanks.",
    ),
}

RPG_TEMPLATES: dict[str, Templates] = {
    "threat_elimination": THREAT_ELIMINATION,
    "diplomatic_resolution": DIPLOMATIC_RESOLUTION,
    "supply_chain": SUPPLY_CHAIN,
    "investigation": INVESTIGATION,
    "rescue_mission": RESCUE_MISSION,
    "faction_choice": FACTION_CHOICE,
    "common_cause": COMMON_CAUSE,
    "clearing_the_way": CLEARING_THE_WAY,
}
