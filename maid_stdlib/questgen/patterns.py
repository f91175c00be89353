"""The built-in objective patterns: CLEAR, INVESTIGATE, NEGOTIATE, CHOICE, ESCORT,
DELIVER, FETCH, CRAFT_AND_DELIVER and MULTI_STAGE.

Each builder reads only the seed's typed fields and the world, and returns []
when the world does not hold what it needs (no threat entities, no lead, no
obtainable item). Higher-level patterns map onto the nine base objective types:
an investigation is TALK + VISIT, a negotiation TALK + a CUSTOM decision.
"""

from __future__ import annotations

from collections.abc import Callable
from uuid import UUID

from maid_stdlib.questgen.facts import WorldFacts
from maid_stdlib.questgen.quest import QuestObjective
from maid_stdlib.questgen.seed import QuestSeed
from maid_stdlib.questgen.text import is_prose, join_names, topic_tokens
from maid_stdlib.questgen.types import ObjectivePatterns
from maid_stdlib.questgen.vocabulary import ObjectiveType
from maid_stdlib.text import (
    counted,
    counted_definite,
    definite,
    indefinite,
    plural,
    strip_article,
    verb_for,
)
from maid_stdlib.text.place import located, place_phrase

__all__ = ["BUILTIN_PATTERNS", "MAX_LEADS", "MAX_THREATS", "MULTI_STAGES"]

#: At most this many threat entities become kill targets (a horde is not a quest).
MAX_THREATS = 8
#: An investigation talks to at most this many people; beyond 3 clues are optional.
MAX_LEADS = 4
MAX_FETCH = 3


def _where_hint(facts: WorldFacts, npc: UUID) -> list[str]:
    room = facts.room_of(npc)
    return [f"{facts.name(npc)} is usually found {located(facts.place(room))}."] if room else []


def _talk(
    facts: WorldFacts,
    npc: UUID,
    description: str,
    order: int,
    optional: bool = False,
    reply: str = "",
) -> QuestObjective:
    return QuestObjective(
        objective_type=ObjectiveType.TALK,
        description=description,
        target=facts.name(npc),
        target_entity_id=npc,
        target_location=facts.room_of(npc),
        order=order,
        optional=optional,
        hints=_where_hint(facts, npc),
        target_template=facts.template(npc),
        reply=reply,
    )


# The replies say what the person does or says once the step is done, from what the
# step itself names and no more: what they know is not invented for them.


def _does(facts: WorldFacts, npc: UUID, rest: str) -> str:
    """ "Mira tells you what she knows.": the person, then what they do."""
    name = _person(facts, npc)
    return f"{name[:1].upper()}{name[1:]} {rest}"


def _says(facts: WorldFacts, npc: UUID, words: str) -> str:
    return _does(facts, npc, f'says, "{words}"')


def _tells(facts: WorldFacts, npc: UUID, topics: set[str], of: str = "") -> str:
    """What someone asked for what they know answers: the word on the topic they
    hold surest, in their words, else that they tell it (what they know then came
    from what they saw, which has no words here)."""
    heard = facts.heard(npc, topics)
    if heard:
        return _says(facts, npc, heard)
    return _does(facts, npc, f"tells you what {_knows(facts, npc)}{of}.")


def _visit(facts: WorldFacts, room: str, description: str, order: int) -> QuestObjective:
    return QuestObjective(
        objective_type=ObjectiveType.VISIT,
        description=description,
        target=facts.room_name(room),
        target_location=room,
        order=order,
    )


def _report(facts: WorldFacts, seed: QuestSeed, order: int, what: str = "") -> QuestObjective:
    giver = seed.primary_npc
    text = f"Report back to {_person(facts, giver)}" + (f" {what}" if what else "")
    return _talk(facts, giver, text, order)


def _renumber(objectives: list[QuestObjective]) -> list[QuestObjective]:
    """Orders 1, 2, 3... keeping which objectives share a step (a step left out
    leaves no gap)."""
    steps = {order: n for n, order in enumerate(sorted({o.order for o in objectives}), 1)}
    for o in objectives:
        o.order = steps[o.order]
    return objectives


def _reachable_npcs(facts: WorldFacts, seed: QuestSeed, npcs: list[UUID]) -> list[UUID]:
    start = facts.room_of(seed.primary_npc)
    return [n for n in npcs if facts.is_alive(n) and facts.reachable(start, facts.room_of(n))]


def _search_rooms(facts: WorldFacts, seed: QuestSeed) -> list[str]:
    """The seed's rooms and every room of their areas."""
    rooms = list(dict.fromkeys([seed.location, *seed.affected_area]))
    seen = set(rooms)  # a list's ``in`` made this quadratic in a big area
    areas: set[str] = set()
    for room in list(rooms):
        area = facts.area_of(room)
        if area and area not in areas:
            areas.add(area)
            for r in facts.rooms_of_area(area):
                if r not in seen:
                    seen.add(r)
                    rooms.append(r)
    return rooms


def _kill_groups(facts: WorldFacts, threats: list[UUID]) -> list[list[UUID]]:
    groups: dict[str, list[UUID]] = {}
    for uid in threats[:MAX_THREATS]:
        key = facts.template(uid) or facts.name(uid).casefold()
        groups.setdefault(key, []).append(uid)
    # Rank-and-file first, then the ones who stand alone: leaders come last.
    return sorted(groups.values(), key=lambda g: (len(g) == 1, facts.name(g[0])))


def _kill(facts: WorldFacts, group: list[UUID], order: int) -> QuestObjective:
    first = group[0]
    room = facts.room_of(first)
    if len(group) == 1:
        desc, target = f"Defeat {facts.name(first)}", facts.name(first)
        hints = [f"{facts.name(first)} was last seen {located(facts.place(room))}."]
    else:
        many = plural(facts.name(first))
        desc, target = f"Defeat {counted(len(group), many)}", many
        rooms = sorted({located(facts.place(facts.room_of(u))) for u in group})
        hints = [f"The {many} were last seen {join_names(rooms)}."]
    template = facts.template(first)
    keyword = None
    if template is None and len(group) > 1:
        words = strip_article(facts.name(first)).lower().split()
        keyword = words[-1] if words else None
    return QuestObjective(
        objective_type=ObjectiveType.KILL,
        description=desc,
        target=target,
        target_entity_id=first if len(group) == 1 else None,
        target_entity_ids=list(group),
        target_template=template,
        target_keyword=keyword,
        target_location=room,
        quantity=len(group),
        order=order,
        hints=hints,
    )


def _about(threat: str | None) -> str:
    return definite(threat) if threat else "the threat"


def clear_targets(seed: QuestSeed, facts: WorldFacts) -> list[UUID]:
    """The threats a CLEAR quest of ``seed`` would send someone to defeat: those of
    its source in its areas, else anywhere in its region, that the giver's people
    can reach ([] when the threat is gone)."""
    search = _search_rooms(facts, seed)
    threats = facts.threats(seed.threat_source, search)
    if not threats:
        region = facts.region_of(seed.location)
        wider = [r for r in facts.ws.rooms_in_region(region)] if region else []
        threats = facts.threats(seed.threat_source, wider)
    start = facts.room_of(seed.primary_npc)
    return [t for t in threats if facts.reachable(start, facts.room_of(t))]


def build_clear(seed: QuestSeed, facts: WorldFacts) -> list[QuestObjective]:
    """Learn about the threat, go there, defeat the real threats, report back."""
    search = _search_rooms(facts, seed)
    threats = clear_targets(seed, facts)
    if not threats:
        return []
    objectives: list[QuestObjective] = []
    topics = topic_tokens(seed.threat_source)
    rooms = set(search)
    candidates = _reachable_npcs(facts, seed, seed.involved_npcs)
    if candidates:
        # The one who knows most; of equals, the earliest candidate.
        informant = candidates[
            max(
                range(len(candidates)),
                key=lambda i: (facts.knowledge(candidates[i], topics, rooms), -i),
            )
        ]
        objectives.append(
            _talk(
                facts,
                informant,
                f"Speak with {_person(facts, informant)} about {_about(seed.threat_source)}",
                order=1,
                reply=_tells(facts, informant, topics, f" of {_about(seed.threat_source)}"),
            )
        )
    area = facts.area_of(seed.location)
    place = (
        place_phrase("", facts.area_name(area))
        if area and len(search) > 1
        else facts.place(seed.location)
    )
    if seed.location != facts.room_of(seed.primary_npc):
        # Where the giver stands, the step would be done the moment it is offered.
        objectives.append(_visit(facts, seed.location, f"Travel to {place}", order=2))
    groups = _kill_groups(facts, threats)
    has_rank_and_file = any(len(g) > 1 for g in groups)
    for group in groups:
        order = 4 if has_rank_and_file and len(group) == 1 else 3
        objectives.append(_kill(facts, group, order))
    last = max(o.order for o in objectives)
    objectives.append(_report(facts, seed, last + 1))
    return _renumber(objectives)


def build_investigation(seed: QuestSeed, facts: WorldFacts) -> list[QuestObjective]:
    """Ask people who know something, search the evidence, report (or confront)."""
    topics = topic_tokens(seed.subject, seed.discovery_type)
    rooms = {seed.evidence_location} if seed.evidence_location else set()
    # People near the mystery and people near the giver may both have heard something.
    regions = {facts.region_of(seed.location), facts.region_of(facts.room_of(seed.primary_npc))}
    pool = list(
        dict.fromkeys(
            [
                *seed.involved_npcs,
                *(n for r in sorted(x for x in regions if x) for n in facts.npcs_in_region(r)),
            ]
        )
    )
    pool = [n for n in _reachable_npcs(facts, seed, pool) if n != seed.primary_npc]
    scored = [(facts.knowledge(n, topics, rooms), i, n) for i, n in enumerate(pool)]
    leads = [n for s, _, n in sorted(scored, key=lambda t: (-t[0], t[1])) if s > 0]
    pooled, led = set(pool), set(leads)
    for n in seed.involved_npcs:
        if n in pooled and n not in led:
            led.add(n)
            leads.append(n)
    leads = leads[:MAX_LEADS]
    evidence = seed.evidence_location
    if evidence is not None and evidence == facts.room_of(seed.primary_npc):
        # The giver stands where the evidence is (a paymistress in her pay office):
        # a search there would be done the moment the quest is offered, so the
        # case rests on the people who know something.
        evidence = None
    if not leads and not evidence:
        return []
    objectives: list[QuestObjective] = []
    if leads:
        objectives.append(
            _talk(
                facts,
                leads[0],
                f"Ask {facts.name(leads[0])} what {_knows(facts, leads[0])}",
                order=1,
                reply=_tells(facts, leads[0], topics),
            )
        )
    for i, npc in enumerate(leads[1:], start=2):
        objectives.append(
            _talk(
                facts,
                npc,
                f"Speak with {_person(facts, npc)} as well",
                order=2,
                optional=i > 3,
                reply=_does(facts, npc, f"adds what {_knows(facts, npc)}."),
            )
        )
    if evidence and facts.reachable(facts.room_of(seed.primary_npc), evidence):
        objectives.append(
            _visit(facts, evidence, f"Search {facts.place(evidence)} for evidence", order=2)
        )
    suspect = seed.party_a
    if suspect is not None and suspect != seed.primary_npc and facts.is_alive(suspect):
        objectives.append(
            _talk(
                facts,
                suspect,
                f"Confront {_person(facts, suspect)}",
                order=3,
                optional=True,
                reply=_does(facts, suspect, "hears out what you have found."),
            )
        )
    objectives.append(_report(facts, seed, 3, "with what you found"))
    return objectives


def _two_sides(seed: QuestSeed) -> tuple[UUID, UUID] | None:
    if seed.party_a is not None and seed.party_b is not None and seed.party_a != seed.party_b:
        return seed.party_a, seed.party_b
    return None


#: A subject longer than this is a clause ("Selena blames the guard for ..."),
#: which reads wrongly after "the dispute over".
_MAX_TOPIC_WORDS = 4


def _noun_phrase(subject: str | None) -> bool:
    """Whether ``subject`` reads as a topic after "the dispute over" ("iron
    prices"), not a key or a whole clause."""
    return is_prose(subject) and len((subject or "").split()) <= _MAX_TOPIC_WORDS


def _person(facts: WorldFacts, uid: UUID) -> str:
    """A name, or a definite description for a nameless one ("the gate guard")."""
    name = facts.name(uid)
    if name.lower().startswith(("a ", "an ")):
        return definite(strip_article(name))
    return name


def _decision(description: str, target: str, order: int) -> QuestObjective:
    return QuestObjective(
        objective_type=ObjectiveType.CUSTOM,
        description=description,
        target=target,
        order=order,
        choice=True,
    )


def build_negotiation(seed: QuestSeed, facts: WorldFacts) -> list[QuestObjective]:
    """Hear both sides, decide how to settle it, tell the giver."""
    sides = _two_sides(seed)
    if sides is None or len(_reachable_npcs(facts, seed, list(sides))) < 2:
        return []
    a, b = sides
    # A subject that is not prose (an internal key such as a chain's "follow_up")
    # is left out: the dispute is still the two people's.
    about = f" over {seed.subject}" if _noun_phrase(seed.subject) else ""
    # A giver who is one of the sides tells theirs when asking for help: only the
    # other side is a step (a quest never sends the hero to hear its own giver).
    objectives = [
        _talk(
            facts,
            side,
            f"Hear {_person(facts, side)}'s side of the dispute{about}",
            order=1,
            reply=_does(
                facts,
                side,
                f"gives you {facts.pronouns(side).determiner} side of the dispute{about}.",
            ),
        )
        for side in (a, b)
        if side != seed.primary_npc
    ]
    objectives += [
        _decision(
            f"Decide how to settle the dispute between {_person(facts, a)} and {_person(facts, b)}",
            f"the dispute{about}",
            order=2,
        ),
    ]
    objectives.append(_report(facts, seed, 3, "with your decision"))
    return objectives


def _knows(facts: WorldFacts, uid: UUID) -> str:
    """ "she knows", "they know": what the person knows, referred back to."""
    p = facts.pronouns(uid)
    return f"{p.subject} {'know' if p.plural_verbs else 'knows'}"


def _wants(facts: WorldFacts, uid: UUID, side: str) -> str:
    """ "she wants", "the miners want": what the side wants, referred to from the
    person who speaks for it."""
    if side == _person(facts, uid):
        p = facts.pronouns(uid)
        return f"{p.subject} {'want' if p.plural_verbs else 'wants'}"
    return f"{side} {verb_for(side, 'want')}"


def _meet(person: str, side: str, them: str = "them") -> str:
    if side == person:
        return f"Meet {person} and hear {them} out"
    return f"Meet {person} to hear what {side} {verb_for(side, 'want')}"


def build_choice(seed: QuestSeed, facts: WorldFacts) -> list[QuestObjective]:
    """Meet both camps, choose one, tell the giver."""
    sides = _two_sides(seed)
    if sides is None or len(_reachable_npcs(facts, seed, list(sides))) < 2:
        return []
    a, b = sides
    name_a = facts.faction_name(seed.faction_a) if seed.faction_a else _person(facts, a)
    name_b = facts.faction_name(seed.faction_b) if seed.faction_b else _person(facts, b)
    objectives = [
        _talk(
            facts,
            side,
            _meet(_person(facts, side), name, facts.pronouns(side).object),
            order=1,
            reply=_does(facts, side, f"tells you what {_wants(facts, side, name)}."),
        )
        for side, name in ((a, name_a), (b, name_b))
        if side != seed.primary_npc  # the giver says what they want when asking
    ]
    objectives.append(
        _decision(f"Choose whether to back {name_a} or {name_b}", f"{name_a} or {name_b}", order=2)
    )
    objectives.append(_report(facts, seed, 3, "with your choice"))
    return objectives


def build_envoy(seed: QuestSeed, facts: WorldFacts) -> list[QuestObjective]:
    """Carry the giver's word to the ally on the other side, bring the answer back.

    Allies are never two sides of a dispute or a choice: what they need from a
    go-between is a message. The giver must be one of the two."""
    sides = _two_sides(seed)
    giver = seed.primary_npc
    if sides is None or giver not in sides:
        return []
    ally = sides[1] if sides[0] == giver else sides[0]
    if not _reachable_npcs(facts, seed, [ally]):
        return []
    common = seed.threat_source if seed.threat_source and is_prose(seed.threat_source) else ""
    against = f" against {definite(common)}" if common else ""
    other = _person(facts, ally)
    them = facts.pronouns(ally).object
    word = f"Tell {other} that {_person(facts, giver)} will stand with {them}{against}"
    answer = f"Tell {_person(facts, giver)} I will stand with {facts.pronouns(giver).object}"
    return [
        _talk(facts, ally, word, order=1, reply=_says(facts, ally, f"{answer}{against}.")),
        _report(facts, seed, 2, f"with {other}'s answer"),
    ]


def build_escort(seed: QuestSeed, facts: WorldFacts) -> list[QuestObjective]:
    """Find the one in danger, deal with whoever holds them, bring them back."""
    victim = seed.rescue_target
    if victim is None or not facts.is_alive(victim):
        return []
    where = facts.room_of(victim)
    destination = seed.destination or facts.room_of(seed.primary_npc)
    start = facts.room_of(seed.primary_npc)
    if where is None or destination is None or not facts.reachable(start, where):
        return []
    if not facts.reachable(where, destination):
        return []
    name = facts.name(victim)
    objectives = [_visit(facts, where, f"Find {name} at {facts.place(where)}", order=1)]
    order = 2
    if seed.threat_source:
        threats = facts.threats(seed.threat_source, [where])
        for group in _kill_groups(facts, threats):
            objectives.append(_kill(facts, group, order))
        if threats:
            order += 1
    objectives.append(
        QuestObjective(
            objective_type=ObjectiveType.ESCORT,
            description=f"Bring {name} safely to {facts.place(destination)}",
            target=name,
            target_entity_id=victim,
            target_location=destination,
            order=order,
            target_template=facts.template(victim),
        )
    )
    objectives.append(_report(facts, seed, order + 1, f"that {name} is safe"))
    return objectives


def _collect(facts: WorldFacts, template: str, quantity: int, order: int) -> QuestObjective:
    room = facts.item_room(template)
    name = facts.item_name(template)
    found = indefinite(strip_article(name))
    found = f"{found[0].upper() + found[1:]} can be found at {facts.place(room)}."
    hints = [found] if room else []
    label = counted(quantity, name)
    return QuestObjective(
        objective_type=ObjectiveType.COLLECT,
        description=f"Obtain {label}",
        target=name,
        item_template=template,
        target_location=room,
        quantity=quantity,
        order=order,
        hints=hints,
    )


def _where_to_get(facts: WorldFacts, supplier: UUID, template: str, material: str) -> str:
    """What a supplier tells of a material: where it lies, when it lies anywhere
    (the collect step after it sends the hero there); else what they know of it."""
    room = facts.item_room(template)
    if room is None:
        return f"tells you what {_knows(facts, supplier)} of {material}."
    return f"tells you {material} can be had at {facts.place(room)}."


def _deliver(
    facts: WorldFacts, template: str, recipient: UUID, quantity: int, order: int, why: str = ""
) -> QuestObjective:
    name = facts.item_name(template)
    return QuestObjective(
        objective_type=ObjectiveType.DELIVER,
        description=f"Bring {counted_definite(quantity, name)} to {_person(facts, recipient)}{why}",
        target=name,
        item_template=template,
        target_entity_id=recipient,
        target_location=facts.room_of(recipient),
        quantity=quantity,
        order=order,
        hints=_where_hint(facts, recipient),
    )


def _to_be_had(facts: WorldFacts, template: str) -> bool:
    """An item a new quest may send someone for: one lying about that no open quest
    already wants, or one a rules layer sells or drops. (``item_obtainable`` alone
    would let two quests race for the same lump.)"""
    return facts.items_to_spare(template) > 0 or facts.item_supplied(template)


def build_deliver(seed: QuestSeed, facts: WorldFacts) -> list[QuestObjective]:
    template, recipient = seed.item_template, seed.recipient
    if template is None or recipient is None or not _to_be_had(facts, template):
        return []
    objectives = [
        _collect(facts, template, 1, order=1),
        _deliver(facts, template, recipient, 1, order=2),
    ]
    if recipient != seed.primary_npc:
        objectives.append(_report(facts, seed, 3))
    return objectives


def build_fetch(seed: QuestSeed, facts: WorldFacts) -> list[QuestObjective]:
    template = seed.item_template
    if template is None:
        return []
    source = facts.item_room(template)
    # Ask for no more than lies about to be picked up and no other open quest
    # wants: a lump already handed to an NPC still exists but nobody can bring it
    # back, and two quests on the same three lumps leave one of them short.
    available = facts.items_to_spare(template)
    if not _to_be_had(facts, template):
        return []
    quantity = max(1, min(MAX_FETCH, available or 1))
    objectives: list[QuestObjective] = []
    if source is not None and source != facts.room_of(seed.primary_npc):
        objectives.append(_visit(facts, source, f"Go to {facts.place(source)}", order=1))
    objectives.append(_collect(facts, template, quantity, order=2))
    objectives.append(_deliver(facts, template, seed.primary_npc, quantity, order=3))
    return _renumber(objectives)


def build_craft_and_deliver(seed: QuestSeed, facts: WorldFacts) -> list[QuestObjective]:
    """Source the material, gather it, bring it to whoever works it."""
    template = seed.item_template
    if template is None or not _to_be_had(facts, template):
        return []
    objectives: list[QuestObjective] = []
    supplier = seed.supplier
    material = plural(facts.item_name(template))
    if supplier is not None and supplier != seed.primary_npc and facts.is_alive(supplier):
        objectives.append(
            _talk(
                facts,
                supplier,
                f"Ask {_person(facts, supplier)} where to get {material}",
                order=1,
                reply=_does(facts, supplier, _where_to_get(facts, supplier, template, material)),
            )
        )
    objectives.append(_collect(facts, template, 1, order=2))
    crafter = seed.primary_npc
    objectives.append(_deliver(facts, template, crafter, 1, order=3, why=" so the work can go on"))
    if seed.recipient is not None and seed.recipient not in (crafter, supplier):
        objectives.append(
            _talk(
                facts,
                seed.recipient,
                f"Tell {_person(facts, seed.recipient)} the order is under way",
                order=4,
                reply=_does(facts, seed.recipient, "nods at the news that the order is under way."),
            )
        )
    return _renumber(objectives)


Builder = Callable[[QuestSeed, WorldFacts], list[QuestObjective]]


def _is_report(o: QuestObjective, giver: UUID) -> bool:
    return o.objective_type is ObjectiveType.TALK and o.target_entity_id == giver


def _clear_stage(seed: QuestSeed, facts: WorldFacts) -> tuple[str, list[QuestObjective]]:
    return f"Deal with {_about(seed.threat_source)}", build_clear(seed, facts)


def _beyond_the_threat(seed: QuestSeed, facts: WorldFacts, template: str) -> bool:
    """Whether the thing lies where the way is cleared, or a foe in the way carries
    it: the ore past the crawlers, the iron the bandits took. Ore only a bandit
    chief at the other end of the valley drops is no reason to clear a mine."""
    rooms = set(_search_rooms(facts, seed))
    if any(facts.room_of(uid) in rooms for uid in facts.items_with_template(template)):
        return True
    threats = set(clear_targets(seed, facts))
    return any(uid in threats for uid in facts.droppers_of(template))


def _supply_stage(seed: QuestSeed, facts: WorldFacts) -> tuple[str, list[QuestObjective]]:
    template = seed.item_template or ""
    if not template or not _beyond_the_threat(seed, facts, template):
        return "", []
    name = facts.item_name(template)
    if seed.recipient is not None and seed.recipient != seed.primary_npc:
        return f"Bring {definite(name)} to {facts.name(seed.recipient)}", build_deliver(seed, facts)
    return f"Bring back {plural(name)}", build_fetch(seed, facts)


#: The stages a multi-stage quest is made of, in the order they are done: first
#: the way is made safe, then what the giver lacks is brought along it.
MULTI_STAGES: tuple[Callable[[QuestSeed, WorldFacts], tuple[str, list[QuestObjective]]], ...] = (
    _clear_stage,
    _supply_stage,
)


def build_multi_stage(seed: QuestSeed, facts: WorldFacts) -> list[QuestObjective]:
    """A quest in stages, each unlocked when the one before is done: every stage is
    another pattern's objectives (named by ``stage``), ordered after the stage
    before. A stage's report to the giver is left out but for the last stage's:
    the hero reports once, at the end. Fewer than two stages the world can ground
    is not a multi-stage quest ([])."""
    giver = seed.primary_npc
    stages = [(name, objectives) for name, objectives in (s(seed, facts) for s in MULTI_STAGES)]
    stages = [(name, objectives) for name, objectives in stages if objectives]
    if len(stages) < 2:
        return []
    out: list[QuestObjective] = []
    base = 0
    for n, (name, objectives) in enumerate(stages, start=1):
        last = n == len(stages)
        steps = [o for o in objectives if last or not _is_report(o, giver)]
        if not steps:
            return []
        label = f"Stage {n} of {len(stages)}: {name}"
        for o in _renumber(steps):
            o.order += base
            o.stage = label
            out.append(o)
        base = max(o.order for o in out)
    return out


#: pattern -> (builder, QuestSeed fields it requires)
BUILTIN_PATTERNS: dict[str, tuple[Builder, tuple[str, ...]]] = {
    ObjectivePatterns.CLEAR: (build_clear, ("threat_source",)),
    ObjectivePatterns.INVESTIGATE: (build_investigation, ()),
    ObjectivePatterns.NEGOTIATE: (build_negotiation, ("party_a", "party_b")),
    ObjectivePatterns.CHOICE: (build_choice, ("party_a", "party_b")),
    ObjectivePatterns.ENVOY: (build_envoy, ("party_a", "party_b")),
    ObjectivePatterns.ESCORT: (build_escort, ("rescue_target",)),
    ObjectivePatterns.DELIVER: (build_deliver, ("item_template", "recipient")),
    ObjectivePatterns.FETCH: (build_fetch, ("item_template",)),
    ObjectivePatterns.CRAFT_AND_DELIVER: (build_craft_and_deliver, ("item_template",)),
    ObjectivePatterns.MULTI_STAGE: (build_multi_stage, ("threat_source", "item_template")),
}
