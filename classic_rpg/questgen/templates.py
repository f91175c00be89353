"""The template texts of the six RPG archetypes.

Installed as the template registry's *default* layer by the quest-delivery plugin
(``register_default_templates``); any pack registering its own templates for the
same archetype wins over these. This module is data only.

Dialogue here is the same for every player: it is written once per quest, before
any character is matched. Wording that depends on a player's reputation belongs to
personalization/delivery.
"""

from __future__ import annotations

from maid_stdlib.questgen.narrative.default_templates import Templates

__all__ = ["RPG_TEMPLATES"]

THREAT_ELIMINATION: Templates = {
    "title": (
        "Trouble at {location}",
        "{npc}'s Plea for Help",
        "Danger Near {location}",
        "An End to {threat}",
        "A Call to Arms",
    ),
    "summary": (
        "{npc} needs someone to deal with {threat} around {location} before more harm is done.",
        "{npc} needs someone to deal with the danger around {location} before more harm is done.",
        "Something threatens {location}, and {npc} is asking for help to put an end to it.",
    ),
    "description": (
        "{npc} wastes no time on pleasantries. {motivation}. {backstory}.\n\n"
        "The way {npc} sees it, someone has to deal with {threat} before it is too "
        "late: {objectives}.\n\n{stakes}. {npc} looks at you, waiting for an answer.",
        "{backstory}. Nobody around {location} sleeps easily anymore, least of all {npc}.\n\n"
        "{motivation}. {ally} knows something of the danger, but cannot end it alone. "
        "The plan is plain: {objectives}.\n\n{stakes}.",
    ),
    "offer": (
        "You there, you look like you can handle yourself. There is trouble at "
        "{location}, and I cannot deal with it alone. Will you {objective}?",
        "I will not lie to you, this is dangerous work, and nobody else will face "
        "{threat}. Will you help me put a stop to it?",
        "I will not lie to you, this is dangerous work, and nobody else will do it. "
        "Will you help me put a stop to it?",
    ),
    "progress": (
        "Still out there, is it? Every day it goes on, {location} suffers more.",
        "Back already? Tell me the danger is dealt with. I cannot rest until it is.",
    ),
    "completion": (
        "It is over? Thank the stars. {location} owes you a debt, and so do I.",
        "You did it. I can hardly believe it. Take this, and know you have a friend here.",
    ),
}

DIPLOMATIC_RESOLUTION: Templates = {
    "title": (
        "Words Before Blades",
        "{npc}'s Delicate Request",
        "Peace at {location}",
        "A Matter of Diplomacy",
    ),
    "summary": (
        "{npc} hopes a level head can settle the quarrel involving {ally} before it "
        "turns into open conflict.",
        "Tempers are rising around {location}, and {npc} wants someone to broker an understanding.",
    ),
    "description": (
        "{npc} lowers their voice. {backstory}. {motivation}.\n\n"
        "Both sides have their reasons, and neither will listen to the other. "
        "What is needed is patience: {objectives}.\n\n{stakes}.",
        "{motivation}. {npc} has tried reasoning with {ally}, without success.\n\n"
        "{backstory}. An outsider might be heard where {npc} is not, if they "
        "{objective}.\n\n{stakes}. Choose your words carefully.",
    ),
    "offer": (
        "This needs a calm head, not a sharp blade. Would you {objective} and hear both sides out?",
        "I am tired of the shouting. {ally} will not listen to me anymore. Could you "
        "talk some sense into them?",
    ),
    "progress": (
        "Have they agreed to anything yet? Every harsh word makes it harder.",
        "How are the talks going? Be patient with them, but do not let it drag on.",
    ),
    "completion": (
        "An understanding, at last. It is not perfect, but it will hold. Thank you.",
        "I did not think anyone could get them to agree. You have a gift for this.",
    ),
}

SUPPLY_CHAIN: Templates = {
    "title": (
        "Supplies for {npc}",
        "Bound for {destination}",
        "{npc}'s Shortage",
        "Goods in Short Supply",
    ),
    "summary": (
        "{npc} has run short of what they need and is looking for someone to help bring it in.",
        "With supplies running out, {npc} needs a reliable hand for the trip to {destination}.",
    ),
    "description": (
        "{npc} gestures at the nearly empty shelves. {motivation}. {backstory}.\n\n"
        "It is honest work, if not easy: {objectives}.\n\n{stakes}.",
        "{backstory}. Since then, {npc} has been making do with less and less.\n\n"
        "{motivation}. The job is practical enough: {objectives}. "
        "The work will be paid fairly.\n\n{stakes}.",
    ),
    "offer": (
        "I could use a dependable pair of hands. Will you {objective}? You will be paid fairly.",
        "Times are lean, and my stores are nearly empty. Would you help me get what I "
        "need from {destination}?",
    ),
    "progress": (
        "Any luck? I am stretching what little I have left.",
        "Still on the road? Take care, and come back as soon as you can.",
    ),
    "completion": (
        "Just what I needed. Now I can get back to work. Here, you have earned this.",
        "You came through for me. I will not forget it the next time you need something.",
    ),
}

INVESTIGATION: Templates = {
    "title": (
        "The Mystery of {subject}",
        "The Mystery at {location}",
        "Shadows in {location}",
        "What {npc} Doesn't Know",
        "Questions Without Answers",
    ),
    "summary": (
        "Something does not add up around {location}, and {npc} wants the truth found.",
        "{npc} wants the truth about {subject} and needs someone to dig for it.",
        "{npc} has questions nobody will answer and needs someone to dig deeper.",
    ),
    "description": (
        "{npc} speaks quietly, glancing about. {backstory}. {motivation}.\n\n"
        "There must be answers somewhere. A careful eye might find them: "
        "{objectives}.\n\n{stakes}.",
        "{motivation}. {npc} has heard rumours, half-truths and silence.\n\n"
        "{backstory}. {ally} may know more than they let on. "
        "Start there: {objectives}.\n\n{stakes}.",
    ),
    "offer": (
        "Something strange is going on, and nobody will tell me what. "
        "Will you {objective} and find out the truth?",
        "Keep this between us. Nobody can explain {subject}, and I need someone who "
        "asks the right questions.",
        "Keep this between us. Something is wrong around {location}, and I need "
        "someone who asks the right questions.",
    ),
    "progress": (
        "Found anything yet? Even a small clue would help.",
        "Keep digging. The answer is out there somewhere, I am sure of it.",
    ),
    "completion": (
        "So that is the truth of it. It is not what I expected, but I am glad to know.",
        "You found it. At last, I understand what happened. Thank you.",
    ),
}

RESCUE_MISSION: Templates = {
    "title": (
        "Rescue at {destination}",
        "{npc}'s Desperate Plea",
        "Bring Them Home",
        "No One Left Behind",
    ),
    "summary": (
        "Someone {npc} cares about is in danger, and every hour counts.",
        "{npc} begs for help to bring someone back safely from {destination}.",
    ),
    "description": (
        "{npc} can barely keep their voice steady. {motivation}. {backstory}.\n\n"
        "There is no time to waste: {objectives}.\n\n{stakes}. Please hurry.",
        "{backstory}. Since then, {npc} has not rested.\n\n{motivation}. "
        "The way is dangerous, but someone has to go: {objectives}.\n\n{stakes}.",
    ),
    "offer": (
        "Please, you have to help me. Will you {objective}? There is no one else I can ask.",
        "Every hour counts. Whoever is out there at {destination} cannot wait much "
        "longer. I am begging you, go.",
    ),
    "progress": (
        "Is there any news? Please tell me there is still hope.",
        "You are back, but alone? Please, do not give up on them.",
    ),
    "completion": (
        "You brought them back! I do not know how to thank you. I never will.",
        "Safe, after all of it. Whatever you need, you have only to ask.",
    ),
}

FACTION_CHOICE: Templates = {
    "title": (
        "A Choice at {location}",
        "Divided Loyalties",
        "{npc}'s Side of the Story",
        "The Weight of Choosing",
    ),
    "summary": (
        "Lines are being drawn around {location}, and {npc} wants you on the right side of them.",
        "{npc} asks for help in a struggle where every choice will be remembered.",
    ),
    "description": (
        "{npc} chooses their words with care. {backstory}. {motivation}.\n\n"
        "Others, {ally} among them, will tell the story differently. Hear them out if "
        "you must, but the path {npc} offers is this: {objectives}.\n\n"
        "{stakes}. Whatever you decide, people will remember it.",
        "{motivation}. {backstory}.\n\nThere is no choice here that pleases everyone. "
        "{npc} asks only that you {objective}, and then decide.\n\n{stakes}.",
    ),
    "offer": (
        "You will hear many versions of this story. Hear mine first, and then "
        "{objective}. Will you?",
        "Sooner or later everyone around {location} picks a side. I hope you will stand with us.",
    ),
    "progress": (
        "Have you made up your mind? People are watching what you do.",
        "Take your time, but not too long. The longer this goes, the worse it gets.",
    ),
    "completion": (
        "It is decided, then. Not everyone will thank you, but it had to be done.",
        "You made your choice and saw it through. That counts for something here.",
    ),
}

RPG_TEMPLATES: dict[str, Templates] = {
    "threat_elimination": THREAT_ELIMINATION,
    "diplomatic_resolution": DIPLOMATIC_RESOLUTION,
    "supply_chain": SUPPLY_CHAIN,
    "investigation": INVESTIGATION,
    "rescue_mission": RESCUE_MISSION,
    "faction_choice": FACTION_CHOICE,
}
