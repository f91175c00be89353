"""The StorySignal -> QuestSeedType contract.

Each signal type maps to the seed type(s) it can become, names the context keys
it must carry, and has a *grounder* that resolves those keys against the world
into typed seed fields (NPC names and template keys to entity ids, room keys and
area names to room keys). A signal missing a key, or whose key names nothing
real, produces no seed. Packs register contracts for their own signal types.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any
from uuid import UUID

from maid_stdlib.questgen.facts import WorldFacts
from maid_stdlib.questgen.seed import QuestSeed
from maid_stdlib.questgen.signals import StorySignalLike, signal_type_of
from maid_stdlib.questgen.text import topic_tokens
from maid_stdlib.questgen.types import QuestSeedType, QuestSeedTypes
from maid_stdlib.world.components import Item
from maid_stdlib.world.loader import WorldData
from maid_stdlib.world.schema import ThingSpec

__all__ = ["SeedGrounding", "SignalContract", "SignalContracts", "builtin_contracts"]

#: QuestSeed fields a grounder may set through ``SeedGrounding.fields``.
TYPED_FIELDS = frozenset(
    {
        "threat_source", "evidence_location", "subject", "mood", "blocked_goal", "blocker",
        "party_a", "party_b", "faction_a", "faction_b", "rescue_target", "destination",
        "item_template", "recipient", "supplier", "resource_type", "discovery_type",
        "involved_characters", "chain_parent_id",
    }
)  # fmt: skip
assert TYPED_FIELDS <= {f.name for f in fields(QuestSeed)}

RESCUE_WORDS = frozenset({"trap", "trapped", "captured", "captive", "kidnap", "kidnapped",
                          "missing", "lost", "prisoner", "hostage"})  # fmt: skip


@dataclass
class SeedGrounding:
    """A signal resolved against the world: who, where, and the typed fields."""

    primary_npc: UUID
    #: Room key the situation is centred on; None means the giver's room.
    location: str | None = None
    fields: dict[str, Any] = field(default_factory=dict)
    involved_npcs: list[UUID] = field(default_factory=list)
    affected_area: list[str] = field(default_factory=list)
    involved_factions: list[str] = field(default_factory=list)
    #: 0-1 if the signal says how pressing it is (severity), else None.
    urgency: float | None = None

    def __post_init__(self) -> None:
        unknown = set(self.fields) - TYPED_FIELDS
        if unknown:
            raise ValueError(f"not typed QuestSeed fields: {sorted(unknown)}")


Grounder = Callable[[StorySignalLike, WorldFacts], "SeedGrounding | None"]
Classifier = Callable[[Mapping[str, Any]], QuestSeedType]


@dataclass(frozen=True)
class SignalContract:
    signal_type: str
    seed_types: tuple[QuestSeedType, ...]
    required_keys: tuple[str, ...]
    ground: Grounder
    #: Chooses among several seed types (CRISIS: rescue or threat); default: the first.
    classify: Classifier | None = None

    def seed_type_for(self, context: Mapping[str, Any]) -> QuestSeedType:
        if self.classify is not None:
            chosen = self.classify(context)
            if chosen in self.seed_types:
                return chosen
        return self.seed_types[0]


class SignalContracts:
    def __init__(self, contracts: Sequence[SignalContract] = ()) -> None:
        self._contracts: dict[str, SignalContract] = {}
        for contract in contracts:
            self.register(contract)

    def register(self, contract: SignalContract, replace: bool = False) -> None:
        key = contract.signal_type.upper()
        if key in self._contracts and not replace:
            raise ValueError(f"a contract for signal type {key!r} is already registered")
        if not contract.seed_types:
            raise ValueError("a contract needs at least one seed type")
        self._contracts[key] = contract

    def get(self, signal_type: str) -> SignalContract | None:
        return self._contracts.get(signal_type.upper())

    def for_signal(self, signal: StorySignalLike) -> SignalContract | None:
        return self.get(signal_type_of(signal))

    def signal_types(self) -> list[str]:
        return list(self._contracts)

    @staticmethod
    def missing_keys(contract: SignalContract, context: Mapping[str, Any]) -> list[str]:
        return [k for k in contract.required_keys if _blank(context.get(k))]


#: NPCs of a scarcity's affected list a grounding resolves (the neediest first).
MAX_AFFECTED = 32


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str | list | tuple | dict | set) and not value)


# -- helpers of the built-in grounders -------------------------------------------------
def _alive_npcs(signal: StorySignalLike, facts: WorldFacts) -> list[UUID]:
    return [n for n in signal.involved_npcs if facts.is_alive(n) and facts.is_npc(n)]


def _first_alive_npc(signal: StorySignalLike, facts: WorldFacts) -> UUID | None:
    """``_alive_npcs(...)[0]`` without checking everyone after it (a threat's
    signal lists every NPC aware of it: hundreds in a big world)."""
    return next((n for n in signal.involved_npcs if facts.is_alive(n) and facts.is_npc(n)), None)


def _npc(facts: WorldFacts, ref: Any) -> UUID | None:
    uid = facts.resolve_npc(ref)
    return uid if uid is not None and facts.is_alive(uid) else None


def _npcs(facts: WorldFacts, refs: Any, limit: int | None = None) -> list[UUID]:
    items = refs if isinstance(refs, list | tuple | set) else [refs]
    if limit is not None:
        items = list(items)[:limit]
    out: list[UUID] = []
    seen: set[UUID] = set()
    for ref in items:
        uid = _npc(facts, ref)
        if uid is not None and uid not in seen:
            seen.add(uid)
            out.append(uid)
    return out


def _place(facts: WorldFacts, ctx: Mapping[str, Any], key: str) -> list[str]:
    """Rooms of a place key, preferring the story layer's ``<key>_key`` (a plain
    room or area key) over the entity-id reference it puts under ``<key>``."""
    for ref in (ctx.get(f"{key}_key"), ctx.get(key)):
        rooms = facts.resolve_place(ref) if ref is not None else []
        if rooms:
            return rooms
    return []


def _unit(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        words = {"low": 0.3, "minor": 0.3, "medium": 0.5, "moderate": 0.5, "high": 0.8,
                 "severe": 0.9, "critical": 1.0}  # fmt: skip
        return words.get(str(value).strip().lower()) if value is not None else None
    return min(1.0, max(0.0, number))


def _first(primary: list[UUID], *others: UUID | None) -> UUID | None:
    for uid in [*primary, *others]:
        if uid is not None:
            return uid
    return None


def _item_template(facts: WorldFacts, ref: Any) -> str | None:
    """An item template the world knows: the key itself, or one whose name matches."""
    if not isinstance(ref, str) or not ref:
        return None
    if facts.items_with_template(ref) or (":" in ref and facts.item_obtainable(ref)):
        return ref
    wanted = topic_tokens(ref)
    for uid, item in facts.engine.world.each(Item):
        if (
            item.template
            and wanted & topic_tokens(facts.name(uid), item.template.split(":")[-1])
            # Only a thing one can come by: "ore" is not the empty ore crate that
            # lies by the smithy door (nobody can carry it off, and a quest for it
            # had nothing to build on), it is the ore a foe drops.
            and facts.item_obtainable(item.template)
        ):
            return item.template
    # No such thing lies anywhere now, but the world may still make one: loot a
    # foe drops, goods a keeper sells ("iron" -> the ore the bandit chief carries).
    data = facts.engine.services.try_get(WorldData)
    for entry in data.loaded_entries("item") if data is not None else []:
        name = entry.spec.name if isinstance(entry.spec, ThingSpec) else ""
        if wanted & topic_tokens(name, entry.key) and facts.item_obtainable(entry.full_key):
            return entry.full_key
    return None


# -- built-in grounders (one per built-in signal type) --------------------------------------
def _threat(signal: StorySignalLike, facts: WorldFacts) -> SeedGrounding | None:
    ctx = signal.context
    source = str(ctx["threat_source"])
    named = _place(facts, ctx, "threat_location")
    primary = _first_alive_npc(signal, facts)
    if not named or primary is None:
        return None
    rooms = (
        facts.resolve_place(ctx.get("threat_rooms") or [])
        or _place(facts, ctx, "threat_area")
        or named
    )
    location = facts.resolve_room(ctx.get("threat_room_key")) or (
        named[0]
        if len(named) == 1
        # An area was named: centre the quest where most of the threat is.
        else named[
            max(range(len(named)), key=lambda i: (len(facts.threats(source, [named[i]])), -i))
        ]
    )
    return SeedGrounding(
        primary,
        location,
        {"threat_source": source},
        affected_area=[location, *[r for r in rooms if r != location]],
        urgency=_unit(ctx.get("severity")),
    )


def _rivalry(signal: StorySignalLike, facts: WorldFacts) -> SeedGrounding | None:
    ctx = signal.context
    a, b = _npc(facts, ctx["npc_a"]), _npc(facts, ctx["npc_b"])
    if a is None or b is None or a == b:
        return None
    if not (facts.is_npc(a) and facts.is_npc(b)):
        return None  # a rivalry with a player character is not a quest to mediate
    others = [n for n in _alive_npcs(signal, facts) if n not in (a, b) and facts.is_npc(n)]
    primary = _first(others, a)
    assert primary is not None
    return SeedGrounding(
        primary,
        facts.room_of(a),
        {"party_a": a, "party_b": b, "subject": str(ctx["cause"])},
        involved_npcs=[n for n in (a, b) if n != primary],
    )


def _faction(signal: StorySignalLike, facts: WorldFacts) -> SeedGrounding | None:
    ctx = signal.context
    fa, fb = str(ctx["faction_a"]), str(ctx["faction_b"])
    reps = facts.faction_representatives(fa, fb)
    rep_a, rep_b = reps[fa], reps[fb]
    if rep_a is None or rep_b is None:
        return None
    primary = _first_alive_npc(signal, facts) or rep_a
    return SeedGrounding(
        primary,
        facts.room_of(primary),
        {
            "faction_a": fa,
            "faction_b": fb,
            "party_a": rep_a,
            "party_b": rep_b,
            "subject": str(ctx["tension_cause"]),
        },
        involved_npcs=[n for n in (rep_a, rep_b) if n != primary],
        involved_factions=[fa, fb],
    )


def _resource(signal: StorySignalLike, facts: WorldFacts) -> SeedGrounding | None:
    ctx = signal.context
    # The story layer lists the affected neediest first, and in a big world there
    # are hundreds: the giver is found among the first few.
    affected = (
        _npcs(facts, ctx["affected_npcs"], MAX_AFFECTED)
        or _alive_npcs(signal, facts)[:MAX_AFFECTED]
    )
    if not affected:
        return None

    def lowest(npc: UUID) -> float:
        needs = facts.needs(npc)
        return min((s.value for s in needs.values()), default=1.0)

    primary = min(affected, key=lambda n: (lowest(n), str(n)))
    resource = str(ctx["resource_type"])
    fields_: dict[str, Any] = {"resource_type": resource, "subject": resource}
    template = _item_template(facts, ctx.get("item_template") or resource)
    if template is not None:
        fields_["item_template"] = template
    return SeedGrounding(
        primary,
        facts.room_of(primary),
        fields_,
        involved_npcs=[n for n in affected if n != primary],
        urgency=_unit(ctx["shortage_severity"]),
    )


def _trade(signal: StorySignalLike, facts: WorldFacts) -> SeedGrounding | None:
    ctx = signal.context
    supplier, buyer = _npc(facts, ctx["supply_npc"]), _npc(facts, ctx["demand_npc"])
    template = _item_template(facts, ctx["item_type"])
    if supplier is None or buyer is None or template is None:
        return None
    return SeedGrounding(
        buyer,
        facts.room_of(supplier),
        {
            "supplier": supplier,
            "recipient": buyer,
            "item_template": template,
            "resource_type": str(ctx["item_type"]),
        },
        involved_npcs=[supplier],
    )


def _alliance(signal: StorySignalLike, facts: WorldFacts) -> SeedGrounding | None:
    ctx = signal.context
    allies = _npcs(facts, ctx["allied_npcs"])
    if len(allies) < 2:
        return None
    return SeedGrounding(
        allies[0],
        facts.room_of(allies[0]),
        {"party_a": allies[0], "party_b": allies[1], "threat_source": str(ctx["common_threat"])},
        involved_npcs=allies[1:],
    )


def _discovery(signal: StorySignalLike, facts: WorldFacts) -> SeedGrounding | None:
    ctx = signal.context
    room = facts.resolve_room(ctx.get("discovery_location_key") or ctx["discovery_location"])
    primary = _first_alive_npc(signal, facts)
    if room is None or primary is None:
        return None
    kind = str(ctx["discovery_type"])
    return SeedGrounding(
        primary,
        room,
        {"discovery_type": kind, "evidence_location": room, "subject": kind},
        affected_area=[room],
    )


def _goal_blocked(signal: StorySignalLike, facts: WorldFacts) -> SeedGrounding | None:
    ctx = signal.context
    npc = _npc(facts, ctx["npc_id"])
    if npc is None:
        return None
    goal = facts.find_goal(npc, str(ctx.get("blocked_goal_id") or ctx["blocked_goal"]))
    if goal is None:
        return None  # the goal is gone or was never real: nothing to assist with
    fields_: dict[str, Any] = {"blocked_goal": goal.id, "blocker": str(ctx["blocker"])}
    if goal.blocker_source:
        fields_["threat_source"] = goal.blocker_source
    if goal.target:
        fields_["resource_type"] = goal.target
        # What the goal is after, when it is a thing one can carry ("iron"): with
        # a blocker, the way to it is cleared first, then it is brought back.
        template = _item_template(facts, goal.target)
        if template is not None:
            fields_["item_template"] = template
    rooms = [r for r in goal.blocker_rooms if facts.room_exists(r)]
    return SeedGrounding(
        npc, rooms[0] if rooms else facts.room_of(npc), fields_, affected_area=rooms
    )


def _betrayal(signal: StorySignalLike, facts: WorldFacts) -> SeedGrounding | None:
    ctx = signal.context
    betrayer, victim = _npc(facts, ctx["betrayer"]), _npc(facts, ctx["victim"])
    evidence = facts.resolve_room(ctx["evidence_location"])
    if betrayer is None or victim is None or evidence is None:
        return None
    return SeedGrounding(
        victim,
        facts.room_of(victim),
        {
            "party_a": betrayer,
            "party_b": victim,
            "evidence_location": evidence,
            # Not "of <victim>": the victim is the giver, and a sentence about
            # the giver names them once ("Mara wants the truth about the betrayal").
            "subject": "the betrayal",
        },
        involved_npcs=[betrayer],
        affected_area=[evidence],
    )


def _secret(signal: StorySignalLike, facts: WorldFacts) -> SeedGrounding | None:
    ctx = signal.context
    revealer = _npc(facts, ctx["revealer"])
    if revealer is None:
        return None
    subject = ctx["subject"]
    about = _npc(facts, subject)
    fields_: dict[str, Any] = {"subject": facts.name(about) if about else str(subject)}
    if about is not None:
        fields_["party_a"] = about
    evidence = facts.resolve_room(ctx.get("evidence_location"))
    if evidence is not None:
        fields_["evidence_location"] = evidence
    return SeedGrounding(
        revealer, facts.room_of(revealer), fields_, involved_npcs=[about] if about else []
    )


def _power(signal: StorySignalLike, facts: WorldFacts) -> SeedGrounding | None:
    ctx = signal.context
    rising, falling = _npc(facts, ctx["rising_npc"]), _npc(facts, ctx["falling_npc"])
    if rising is None or falling is None:
        return None
    faction = str(ctx["faction"])
    return SeedGrounding(
        falling,
        facts.room_of(falling),
        {"party_a": rising, "party_b": falling, "faction_a": faction, "subject": faction},
        involved_npcs=[rising],
        involved_factions=[faction],
    )


def _unrequited(signal: StorySignalLike, facts: WorldFacts) -> SeedGrounding | None:
    ctx = signal.context
    a, b = _npc(facts, ctx["npc_a"]), _npc(facts, ctx["npc_b"])
    if a is None or b is None:
        return None
    return SeedGrounding(
        a,
        facts.room_of(a),
        {"party_a": a, "party_b": b, "subject": str(ctx["relationship_type"])},
        involved_npcs=[b],
    )


def _crisis_type(ctx: Mapping[str, Any]) -> QuestSeedType:
    words = topic_tokens(str(ctx.get("crisis_type", ""))) | {
        str(ctx.get("crisis_type", "")).lower()
    }
    if words & RESCUE_WORDS or ctx.get("victim"):
        return QuestSeedTypes.RESCUE
    return QuestSeedTypes.THREAT_RESPONSE


def _crisis(signal: StorySignalLike, facts: WorldFacts) -> SeedGrounding | None:
    ctx = signal.context
    rooms = _place(facts, ctx, "affected_area")
    primary = _first_alive_npc(signal, facts)
    if not rooms or primary is None:
        return None
    rescue = _crisis_type(ctx) == QuestSeedTypes.RESCUE
    fields_: dict[str, Any] = {}
    # A crisis of fear names what people feel, not what they fear: "fear" matches
    # no foe, and a seed that took it as its threat was held as if its threat had
    # gone, in place of the real one a related signal (the crawlers in the seam)
    # names. Without a threat of its own the seed takes that one when composed.
    if ctx.get("threat_source"):
        fields_["threat_source"] = str(ctx["threat_source"])
    elif rescue:
        fields_["threat_source"] = str(ctx["crisis_type"])
    if rescue:
        victim = _npc(facts, ctx.get("victim"))
        if victim is None:
            return None
        fields_["rescue_target"] = victim
        fields_["destination"] = facts.room_of(primary)
    return SeedGrounding(
        primary, rooms[0], fields_, affected_area=rooms, urgency=_unit(ctx["severity"])
    )


def _pair_at_odds(people: list[UUID], facts: WorldFacts) -> list[UUID]:
    """The first two of ``people`` (in order) at odds with each other, or []."""
    for i, a in enumerate(people):
        for b in people[i + 1 :]:
            if facts.at_odds(a, b):
                return [a, b]
    return []


def _chain(signal: StorySignalLike, facts: WorldFacts) -> SeedGrounding | None:
    ctx = signal.context
    npcs = _alive_npcs(signal, facts)
    primary = _first(npcs)
    if primary is None:
        return None
    # The subject is the situation the previous quest left behind, never the kind
    # of chain ("follow_up"); without one the seed has no subject, and the
    # coherence rules refuse a follow-up about nothing.
    fields_: dict[str, Any] = {"chain_parent_id": str(ctx["previous_quest_id"])}
    situation = str(ctx.get("situation") or "").strip()
    if situation:
        fields_["subject"] = situation
    # The previous quest's people are the sides of what follows (a social
    # follow-up -- negotiation or choice -- needs two of them): two whom something
    # sets against each other when there are such, since a dispute between
    # friends is no dispute.
    others = npcs[1:]
    sides = (
        _pair_at_odds(others, facts)
        or _pair_at_odds(npcs, facts)
        or (others[:2] if len(others) >= 2 else npcs[:2])
    )
    if len(sides) == 2:
        fields_["party_a"], fields_["party_b"] = sides
    return SeedGrounding(primary, facts.room_of(primary), fields_, involved_npcs=others)


def _reputation(signal: StorySignalLike, facts: WorldFacts) -> SeedGrounding | None:
    ctx = signal.context
    faction = str(ctx["faction"])
    giver = _first_alive_npc(signal, facts) or facts.faction_representative(faction)
    try:
        character = UUID(str(ctx["character_id"]))
    except ValueError:
        return None
    if giver is None or not facts.exists(character):
        return None
    return SeedGrounding(
        giver,
        facts.room_of(giver),
        {
            "faction_a": faction,
            "involved_characters": [character],
            "subject": str(ctx["reputation_level"]),
        },
        involved_factions=[faction],
    )


def builtin_contracts() -> list[SignalContract]:
    T = QuestSeedTypes
    return [
        SignalContract(
            "THREAT_DETECTED", (T.THREAT_RESPONSE,), ("threat_source", "threat_location"), _threat
        ),
        SignalContract(
            "RIVALRY_ESCALATION",
            (T.RIVALRY_INTERVENTION,),
            ("npc_a", "npc_b", "cause", "trust_level"),
            _rivalry,
        ),
        SignalContract(
            "FACTION_TENSION",
            (T.FACTION_CONFLICT,),
            ("faction_a", "faction_b", "tension_cause"),
            _faction,
        ),
        SignalContract(
            "RESOURCE_SCARCITY",
            (T.RESOURCE_CRISIS,),
            ("resource_type", "affected_npcs", "shortage_severity"),
            _resource,
        ),
        SignalContract(
            "TRADE_OPPORTUNITY",
            (T.TRADE_MISSION,),
            ("supply_npc", "demand_npc", "item_type"),
            _trade,
        ),
        SignalContract(
            "ALLIANCE_FORMING", (T.ALLIANCE_QUEST,), ("allied_npcs", "common_threat"), _alliance
        ),
        SignalContract(
            "DISCOVERY",
            (T.DISCOVERY_EXPEDITION,),
            ("discovery_type", "discovery_location"),
            _discovery,
        ),
        SignalContract(
            "GOAL_BLOCKED",
            (T.GOAL_ASSISTANCE,),
            ("blocked_goal", "blocker", "npc_id"),
            _goal_blocked,
        ),
        SignalContract(
            "BETRAYAL",
            (T.MYSTERY, T.COLD_CASE),
            ("betrayer", "victim", "evidence_location"),
            _betrayal,
            # a wrong left unanswered past its first week is a cold case
            classify=lambda c: T.COLD_CASE if c.get("cold") else T.MYSTERY,
        ),
        SignalContract(
            "SECRET_REVEALED",
            (T.MYSTERY, T.JUSTICE),
            ("secret_content", "revealer", "subject"),
            _secret,
            classify=lambda c: T.JUSTICE if c.get("wrongdoing") else T.MYSTERY,
        ),
        SignalContract(
            "POWER_SHIFT", (T.POWER_STRUGGLE,), ("rising_npc", "falling_npc", "faction"), _power
        ),
        SignalContract(
            "UNREQUITED",
            (T.SOCIAL_MANIPULATION,),
            ("npc_a", "npc_b", "relationship_type"),
            _unrequited,
        ),
        SignalContract(
            "CRISIS",
            (T.THREAT_RESPONSE, T.RESCUE),
            ("crisis_type", "affected_area", "severity"),
            _crisis,
            classify=_crisis_type,
        ),
        SignalContract(
            "CONSEQUENCE_CHAIN",
            (T.CONSEQUENCE_CHAIN,),
            ("previous_quest_id", "chain_type", "chain_depth"),
            _chain,
        ),
        SignalContract(
            "REPUTATION_THRESHOLD",
            (T.PLAYER_REPUTATION,),
            ("character_id", "faction", "reputation_level"),
            _reputation,
        ),
    ]
