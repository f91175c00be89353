"""The typed facts a quest's prose may use, collected from the world.

:func:`story_facts` turns the seed, the planned objectives and the world into
:class:`~maid_stdlib.text.realiser.Phrase` values (who, what, where, why, stakes)
for the realiser, each pointing at the :class:`StoryFact` it stands on. A fact
is only made from something the world holds: an open goal and its blocker, an
unmet need, a public memory, a relationship value, a threat in a place, an event
a story signal reported, an objective. Free text from the world (memories, a
goal's blocker) has its room names put in prose form, and is retold in the third
person where the slot talks about the giver.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from uuid import UUID

from maid_stdlib.questgen.facts import WorldFacts
from maid_stdlib.questgen.narrative_context import StoryFact
from maid_stdlib.questgen.quest import QuestObjective
from maid_stdlib.questgen.seed import QuestSeed
from maid_stdlib.questgen.text import is_prose, topic_tokens
from maid_stdlib.questgen.vocabulary import ObjectiveType
from maid_stdlib.text import counted_definite, join, third_person
from maid_stdlib.text.mentions import named_mentions
from maid_stdlib.text.place import with_article
from maid_stdlib.text.realiser import Phrase, clause, clauses, person, place, statement, thing

__all__ = ["StoryFacts", "story_facts"]

#: What an unmet need does to its NPC, in the third person and in their own voice.
NEED_STATES = {
    "economic": ("{name}'s livelihood is failing", "my livelihood is failing"),
    "safety": ("{name} no longer feels safe", "I no longer feel safe"),
    "social": ("{name} feels cut off from everyone", "I feel cut off from everyone"),
    "rest": ("{name} is worn to the bone", "I am worn to the bone"),
    "purpose": ("{name} has lost all sense of purpose", "I have lost all sense of purpose"),
}
#: What the giver loses if nobody acts, per need.
NEED_STAKES = {
    "economic": ("{name} may be ruined", "I may be ruined"),
    "safety": ("someone is going to get hurt", "someone is going to get hurt"),
    "social": ("{name} will be left alone", "I will be left alone"),
    "rest": ("{name} will collapse", "I will collapse"),
    "purpose": ("{name} will give up", "I will give up"),
}
#: Below this trust two people are at odds (a dispute's sides must be).
AT_ODDS = 0.0
MEMORIES = 2


class StoryFacts:
    """The slot values and the facts behind them."""

    def __init__(self) -> None:
        self.values: dict[str, Phrase] = {}
        self.facts: list[StoryFact] = []

    def fact(self, key: str, kind: str, text: str, names: Sequence[str] = ()) -> str:
        if not any(f.key == key for f in self.facts):
            self.facts.append(StoryFact(key, kind, text, tuple(n for n in names if n)))
        return key


def _goal_phrase(description: str, target: str | None, goal_id: str) -> str:
    desc = description.strip() or f"{target or ''}".strip()
    if not desc:
        return goal_id.replace("_", " ")
    return desc[0].lower() + desc[1:]


class _Places:
    """Room and area names in free text replaced by their prose form."""

    def __init__(self, facts: WorldFacts) -> None:
        self.facts = facts

    def __call__(self, text: str) -> str:
        if not text:
            return text
        facts = self.facts
        found = {}
        for room, name in facts.room_names():
            if name and name != room and name in text:
                found[name] = facts.place(room)
        for name, prose in sorted(found.items(), key=lambda kv: -len(kv[0])):
            # "on Old Trade Road, The Broken Wagon": at the landmark, on its road
            if " on " in prose or " in " in prose:
                text = re.sub(rf"\b(?:on|in|at) (?:the )?{re.escape(name)}", f"at {prose}", text)
            text = re.sub(rf"(?:\bthe )?{re.escape(name)}", prose, text)
        areas = {facts.area_name(a) for a in facts.ws.area_keys()}
        for area in sorted((a for a in areas if a and a in text), key=len, reverse=True):
            prose = with_article(area)
            if prose != area:
                text = re.sub(rf"(?<!the )(?<!The )\b{re.escape(area)}\b(?!,)", prose, text)
        return text


def story_facts(
    facts: WorldFacts,
    seed: QuestSeed,
    objectives: Sequence[QuestObjective],
    involved: dict[UUID, str],
    locations: Sequence[str],
) -> StoryFacts:
    """Every slot value the realiser may use for this quest, each with its fact."""
    out = StoryFacts()
    v = out.values
    giver = seed.primary_npc
    # A nameless giver is "the gate guard" in prose, never "a gate guard".
    name = person(facts.name(giver)).forms[""]
    prose = _Places(facts)
    home = facts.room_of(giver)

    v["npc"] = person(
        name,
        out.fact("giver", "npc", f"{name} asks for help", [name]),
        pronouns=facts.pronouns(giver),
    )
    centre = facts.place(seed.location)
    area = facts.area_name(facts.area_of(seed.location))
    v["location"] = place(
        centre,
        out.fact("place", "place", f"the quest is centred on {centre}", [centre]),
        short=with_article(area) if area else centre,
    )
    if area:
        v["area"] = place(with_article(area), out.fact("area", "place", f"{area} is an area"))
    if home:
        where = facts.place(home)
        v["home"] = place(where, out.fact("home", "place", f"{name} is at {where}", [name, where]))
    if locations:
        last = facts.place(locations[-1])
        v["destination"] = place(
            last, out.fact("destination", "place", f"the quest leads to {last}", [last])
        )

    # Why: the giver's goal and its blocker, the unmet need.
    goal = facts.find_goal(giver, seed.blocked_goal) if seed.blocked_goal else None
    goal = goal or facts.find_goal(giver, None)
    needs = facts.needs(giver)
    need = None
    if goal is not None and goal.need in needs and needs[goal.need].unmet:
        need = goal.need
    else:
        unmet = sorted((s.value, n) for n, s in needs.items() if s.unmet)
        need = unmet[0][1] if unmet else None
    if goal is not None:
        wants = _goal_phrase(goal.description, goal.target, goal.id)
        blocker = prose(seed.blocker or goal.blocker or "")
        key = out.fact(
            "goal",
            "goal",
            f"{name} wants to {wants}" + (f", blocked by {blocker}" if blocker else ""),
            [name],
        )
        v["goal"] = clause(wants, key)
        if blocker and is_prose(blocker):
            v["blocker"] = Phrase({"": blocker}, (key,))
    if need is not None:
        third, first = NEED_STATES.get(need, ("", ""))
        if third:
            key = out.fact("need", "need", f"{name}'s {need} need is unmet", [name])
            v["need"] = statement(third.format(name=name), first, key)
            st3, st1 = NEED_STAKES[need]
            business = _business(facts.room_name(home), name) if need == "economic" else ""
            if business:
                st3, st1 = (
                    f"{{name}} may have to close the {business}",
                    (f"I may have to close my {business}"),
                )
            v["stake"] = statement(st3.format(name=name), st1, key)

    # What: the threat, the subject, the item, the people.
    if seed.threat_source and is_prose(seed.threat_source):
        where = with_article(area) if area else centre
        key = out.fact(
            "threat", "threat", f"{seed.threat_source} threaten {where}", [seed.threat_source]
        )
        v["threat"] = thing(seed.threat_source, key)
    if seed.subject and is_prose(seed.subject):
        v["subject"] = thing(
            seed.subject, out.fact("subject", "subject", f"the matter is {seed.subject}")
        )
    if seed.item_template:
        item = facts.item_name(seed.item_template)
        v["item"] = thing(item, out.fact("item", "item", f"{item} is wanted", [item]))
    others = [u for u in seed.involved_npcs if u != giver and facts.is_alive(u)]
    roles = [u for u in involved if u != giver]
    ally = next((u for u in roles if involved[u] != "witness"), None) or next(iter(roles), None)
    if ally is not None:
        who = facts.name(ally)
        v["ally"] = person(
            who,
            out.fact("ally", "npc", f"{who} is involved as {involved[ally]}", [who]),
            pronouns=facts.pronouns(ally),
        )
    if others:
        names = [person(facts.name(u)).forms[""] for u in others[:4]]
        v["others"] = Phrase(
            {"": join(names)},
            (out.fact("others", "npc", f"{join(names)} are caught up in it", names),),
            plural=len(names) > 1,
        )
    sides = (seed.party_a, seed.party_b)
    if giver in sides and None not in sides:
        # The giver is one side: the text names the other as their rival and
        # never has the giver ask for help in a quarrel "between Selena and
        # Captain Voss" as if it were someone else's.
        uid = sides[1] if sides[0] == giver else sides[0]
        assert uid is not None
        who = facts.name(uid)
        trust = facts.trust(giver, uid)
        said = f"{name} is at odds with {who}" + (f" ({trust:.2f})" if trust is not None else "")
        v["rival"] = person(who, out.fact("rival", "relationship", said, [name, who]))
    for side, uid in (("party_a", seed.party_a), ("party_b", seed.party_b)):
        if uid is not None and "rival" not in v:
            who = facts.name(uid)
            v[side] = person(who, out.fact(side, "npc", f"{who} is one side", [who]))
    if seed.party_a is not None and seed.party_b is not None and "rival" not in v:
        a, b = facts.name(seed.party_a), facts.name(seed.party_b)
        pair = (facts.trust(seed.party_a, seed.party_b), facts.trust(seed.party_b, seed.party_a))
        trusts = [t for t in pair if t is not None]
        if trusts and min(trusts) < AT_ODDS:
            low = min(trusts)
            key = out.fact("rift", "relationship", f"{a} and {b} distrust each other ({low:.2f})")
            both = f"{person(a).forms['']} and {person(b).forms['']}"
            v["rift"] = Phrase({"": both}, (key,), plural=True)

    # Memories and reported events.
    told: list[set[str]] = []
    count = 0
    fits = _Retellable(facts, name, seed.threat_source)
    for memory in reversed(facts.public_memories(giver, limit=5)):
        text = prose(memory.content.strip())
        tokens = topic_tokens(text)
        if not text or any(tokens <= t or t <= tokens for t in told) or not fits(text):
            continue
        retold = third_person(text, name, facts.pronouns(giver))
        count += 1
        key = out.fact(f"memory:{count}", "memory", retold or text, [name])
        v["memory" if count == 1 else f"memory{count}"] = statement(retold, text, key)
        told.append(tokens)
        if count >= MEMORIES:
            break
    events = 0
    for signal in seed.source_signals:
        context = getattr(signal, "context", {}) or {}
        for field_name in ("description", "what_happened"):
            text = prose(str(context.get(field_name) or "").strip())
            tokens = topic_tokens(text)
            if not text or any(tokens <= t or t <= tokens for t in told) or not fits(text):
                continue
            retold = third_person(text, name, facts.pronouns(giver))
            events += 1
            key = out.fact(f"event:{events}", "event", retold or text)
            v["event" if events == 1 else f"event{events}"] = statement(retold, text, key)
            told.append(tokens)

    # The steps.
    steps: list[Phrase] = []
    # Joined into one sentence, goods just obtained are "it" in the next step;
    # each step alone (the first, the last) keeps its own words.
    joined: list[Phrase] = []
    before: QuestObjective | None = None
    for i, o in enumerate(sorted(objectives, key=lambda o: o.order), start=1):
        if o.optional:
            continue
        key = out.fact(f"objective:{i}", "objective", o.description)
        steps.append(clause(o.description, key))
        joined.append(clause(_after(before, o), key))
        before = o
    if steps:
        v["objective"] = steps[0]
        v["final_objective"] = steps[-1]
        v["objectives"] = clauses(joined)

    # The composites older templates use.
    if "goal" in v:
        g = v["goal"].forms[""]
        blocked = v.get("blocker")
        tail = f", but the way is blocked by {blocked.forms['']}" if blocked else ""
        v["motivation"] = statement(
            f"{name} wants to {g}{tail}", f"I want to {g}{tail}", *v["goal"].facts
        )
    elif "need" in v:
        v["motivation"] = v["need"]
    elif "threat" in v:
        v["motivation"] = _threat_line(v["threat"], v["location"], name)
    if "stake" in v:
        v["stakes"] = v["stake"]
    if "memory" in v:
        v["backstory"] = v["memory"]
    elif "event" in v:
        v["backstory"] = v["event"]
    return out


def _after(before: QuestObjective | None, step: QuestObjective) -> str:
    """A step as it reads after the one before it: "obtain a lump of iron ore and
    bring it to Gundrik", not "... and bring the lump of iron ore to Gundrik"."""
    if (
        before is None
        or step.objective_type is not ObjectiveType.DELIVER
        or before.objective_type is not ObjectiveType.COLLECT
        or not step.item_template
        or step.item_template != before.item_template
        or not step.target
    ):
        return step.description
    goods = counted_definite(step.quantity, step.target)
    head, found, tail = step.description.partition(f" {goods} ")
    if not found:
        return step.description
    return f"{head} {'it' if step.quantity == 1 else 'them'} {tail}"


class _Retellable:
    """Whether a memory or a reported event may be retold in this quest's text.

    Not when it names someone or something the world does not know by that name
    (a player character, a quest title in quotes: the text is written once for
    every player, and names only the world's own people and places), nor when it
    says the quest's own threat is gone: a quest about bandits on the road does
    not also say the bandits are gone from it.
    """

    _GONE = re.compile(r"\b(?:are|is) (?:gone|no longer)\b|\bno longer (?:hold|threaten)", re.I)

    def __init__(self, facts: WorldFacts, giver: str, threat: str | None) -> None:
        self.facts = facts
        self.threat = topic_tokens(threat) if threat else set()
        self.threat_words = (threat or "").lower().split()
        # Every room's and area's name, and the giver's: the world's text is kept
        # by the facts (thousands of names in a big world, for each quest).
        self.places = f"{facts.place_names()} | {giver}" if giver else facts.place_names()

    def __call__(self, text: str) -> bool:
        if any(q in text for q in '"\u201c\u201d'):
            return False
        if self.threat and self._GONE.search(text) and self.threat & topic_tokens(text):
            return False
        # A word the text also uses in lower case, or the threat's own words, is
        # an ordinary word opening a sentence ("Bandits have been seen..."), not a name.
        common = [*re.findall(r"\b[a-z][a-z'-]*", text), *self.threat_words]
        for mention in named_mentions(text, common):
            if mention in self.places or self.facts.resolve_npc(mention) is not None:
                continue
            return False
        return True


def _threat_line(threat: Phrase, where: Phrase, name: str) -> Phrase:
    t = threat.forms[""]
    verb = threat.form("v_threaten")
    w = where.forms["short"]
    return statement(f"{t} {verb} {w}", f"{t} {verb} {w}", *threat.facts)


def _business(room_name: str, name: str) -> str:
    prefix = f"{name}'s "
    if room_name.startswith(prefix):
        return room_name[len(prefix) :].strip().lower()
    return ""
