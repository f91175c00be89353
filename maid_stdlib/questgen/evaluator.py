"""SeedEvaluator: story signals in, enriched quest seeds out.

The filters, in order: the signal contract (known signal type, registered seed
type, required context keys present), the chain-depth circuit
breaker, the importance threshold, grounding against the world (the named NPCs
and places must exist), the per-NPC cooldown, variety (a seed type seen among
the last quests has its importance halved rather than being rejected) and
feasibility (the giver alive and able to reach the place). A signal that fails
any of them returns a :class:`~maid_stdlib.questgen.rejection.Rejection` (stage
``evaluate``) saying why, without side effects.

:class:`SignalThrottle` is the dedup and world-wide rate limit of signals, on
game time; the evaluator applies it first when it has one.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import Any, ClassVar
from uuid import UUID

from maid_engine.clock import GAME_HOUR
from maid_engine.slicing import Steps, run_steps
from maid_stdlib.questgen.contract import SeedGrounding, SignalContracts
from maid_stdlib.questgen.enrich import enrich
from maid_stdlib.questgen.facts import WorldFacts
from maid_stdlib.questgen.history import QuestHistory
from maid_stdlib.questgen.rejection import Rejection
from maid_stdlib.questgen.seed import QuestSeed, seed_expiry
from maid_stdlib.questgen.signals import (
    StorySignalLike,
    chain_depth_of,
    signal_key,
    signal_type_of,
)
from maid_stdlib.questgen.types import QuestSeedType, SeedTypeRegistry

__all__ = ["GroundedSignal", "SeedDraft", "SeedEvaluator", "SignalThrottle"]

#: Typed fields a compound seed takes from its other signals when the lead lacks them.
SHARED_FIELDS = frozenset(
    {
        "threat_source",
        "resource_type",
        "item_template",
        "evidence_location",
        "discovery_type",
        "chain_parent_id",
    }
)
#: ... and these too, when that signal is about the compound seed's giver.
GIVER_FIELDS = frozenset({"blocked_goal", "blocker", "mood"})


class SignalThrottle:
    """Suppress repeats of one (signal type, first NPC) within ``dedup_window``
    and cap accepted signals world-wide to ``global_max`` per ``global_window``.
    All windows are game seconds."""

    def __init__(
        self, dedup_window: float = 60.0, global_window: float = 300.0, global_max: int = 30
    ) -> None:
        self.dedup_window = dedup_window
        self.global_window = global_window
        self.global_max = global_max
        self._seen: dict[tuple[str, UUID | None], float] = {}
        self._accepted: deque[float] = deque()

    def admit(self, signal: StorySignalLike, now: float) -> bool:
        while self._accepted and now - self._accepted[0] >= self.global_window:
            self._accepted.popleft()
        if len(self._accepted) >= self.global_max:
            return False
        npcs = list(signal.involved_npcs)
        key = (signal_type_of(signal), npcs[0] if npcs else None)
        last = self._seen.get(key)
        if last is not None and now - last < self.dedup_window:
            return False
        self._seen[key] = now
        self._accepted.append(now)
        if len(self._seen) > 4096:
            # Forget keys outside the window so a long-running world stays bounded.
            self._seen = {k: t for k, t in self._seen.items() if now - t < self.dedup_window}
        return True


@dataclass
class GroundedSignal:
    """A signal that passed its contract, resolved against the world."""

    signal: StorySignalLike
    seed_type: QuestSeedType
    grounding: SeedGrounding
    chain_depth: int
    #: What the composer relates signals by (NPCs, areas, topics, place words),
    #: computed once.
    links: tuple[set[int], set[str], set[str], set[str]] | None = field(
        default=None, repr=False, compare=False
    )


@dataclass
class _Checked:
    """What passed ``SeedEvaluator.build_seed``'s filters, for building the seed."""

    primary: UUID
    location: str
    fields: dict[str, Any]
    involved: list[UUID]
    factions: list[str]
    area: list[str]
    importance: float


@dataclass
class SeedDraft:
    """A seed that passed every check and drew its id, not yet written out.

    Writing a seed (its motivation, stakes, the threats counted for its difficulty,
    the walk to its place) is most of what a signal's evaluation costs, and the
    intake throws the signal's own seed away whenever a compound seed of the
    signals around it can be built, which in a busy world is most of the time. The
    id is drawn at once, where the eager build drew it, so the world's dice are the
    same whether the draft is written or not."""

    evaluator: SeedEvaluator = field(repr=False)
    parts: Sequence[GroundedSignal]
    lead: GroundedSignal
    checked: _Checked
    seed_id: UUID

    def build(self) -> QuestSeed:
        return self.evaluator.write(self)


class SeedEvaluator:
    MIN_IMPORTANCE: ClassVar[float] = 0.4
    MIN_INVOLVED_NPCS: ClassVar[int] = 1
    #: Game seconds between two quests from the same NPC.
    COOLDOWN_PER_NPC: ClassVar[float] = GAME_HOUR
    VARIETY_WINDOW: ClassVar[int] = 5
    VARIETY_FACTOR: ClassVar[float] = 0.5
    #: Signals deeper than this in an emergent chain are dropped (circuit breaker).
    MAX_CHAIN_DEPTH: ClassVar[int] = 5
    #: Game seconds the composer reuses a signal's grounding (``ground_cached``).
    #: Each new signal is composed with up to 40 recent ones; grounding all of them
    #: again for every arrival was most of the cost of a signal in a big world.
    #: What a seed is finally built from is checked live by ``build_seed``.
    GROUND_TTL: ClassVar[float] = 60.0
    #: NPCs a seed names besides its giver. A crisis or a threat in a big world is
    #: signalled with everyone affected or aware (hundreds); a quest about them
    #: needs the first few -- the grounders and detectors list the closest first --
    #: and every one more was checked, named in the prose and carried to delivery,
    #: validation and consequences.
    MAX_INVOLVED_NPCS: ClassVar[int] = 24
    #: Rooms a seed names as its affected area (the lead's first): a compound of
    #: signals from all over a big world named hundreds, and every threat in them
    #: was counted for each seed built.
    MAX_AFFECTED_ROOMS: ClassVar[int] = 64

    def __init__(
        self,
        facts: WorldFacts,
        seed_types: SeedTypeRegistry,
        contracts: SignalContracts,
        history: QuestHistory,
        throttle: SignalThrottle | None = None,
    ) -> None:
        self.facts = facts
        self.seed_types = seed_types
        self.contracts = contracts
        self.history = history
        self.throttle = throttle
        #: signal key -> (game time, grounding, the signal): see ``ground_cached``
        self._grounded: dict[object, tuple[float, GroundedSignal | Rejection, StorySignalLike]] = {}

    async def evaluate(
        self, signal: StorySignalLike, min_importance: float | None = None
    ) -> QuestSeed | Rejection:
        """The seed of one signal, or why none. ``min_importance`` lowers the
        importance threshold (the daily floor's wider search); None: ``MIN_IMPORTANCE``."""
        draft = self.draft(signal, min_importance)
        return draft if isinstance(draft, Rejection) else draft.build()

    def draft(
        self, signal: StorySignalLike, min_importance: float | None = None
    ) -> SeedDraft | Rejection:
        """``evaluate`` without writing the seed: every check is made and its id is
        drawn; ``SeedDraft.build`` writes it."""
        now = self.facts.now
        if self.throttle is not None and not self.throttle.admit(signal, now):
            return self._reject("throttled", "throttled")
        grounded = self.ground(signal)
        self._remember(signal, grounded)
        if isinstance(grounded, Rejection):
            return grounded
        threshold = self.MIN_IMPORTANCE if min_importance is None else min_importance
        if signal.importance < threshold:
            return self._reject("importance_below_threshold", "importance below threshold")
        checked = self._checked([grounded], grounded, signal.importance, None, False)
        if isinstance(checked, Rejection):
            return checked
        return SeedDraft(self, [grounded], grounded, checked, self.facts.new_uuid())

    def ground_cached(self, signal: StorySignalLike) -> GroundedSignal | Rejection:
        """``ground(signal)``, reused for ``GROUND_TTL`` game seconds."""
        hit = self._grounded.get(signal_key(signal))
        if hit is not None and hit[2] is signal and self.facts.now - hit[0] < self.GROUND_TTL:
            return hit[1]
        grounded = self.ground(signal)
        self._remember(signal, grounded)
        return grounded

    def _remember(self, signal: StorySignalLike, grounded: GroundedSignal | Rejection) -> None:
        memo = self._grounded
        now = self.facts.now
        memo[signal_key(signal)] = (now, grounded, signal)
        if len(memo) > 512:
            fresh = {k: v for k, v in memo.items() if now - v[0] < self.GROUND_TTL}
            # Keep the newest half if a burst filled it within the TTL.
            self._grounded = fresh if len(fresh) <= 256 else dict(list(fresh.items())[-256:])

    def ground(self, signal: StorySignalLike) -> GroundedSignal | Rejection:
        """Contract, circuit breaker and grounding of one signal (no history checks)."""
        contract = self.contracts.for_signal(signal)
        if contract is None:
            return self._reject(
                "no_contract", f"no contract for signal type {signal_type_of(signal)}"
            )
        missing = self.contracts.missing_keys(contract, signal.context)
        if missing:
            return self._reject("missing_context", f"missing context keys: {', '.join(missing)}")
        seed_type = contract.seed_type_for(signal.context)
        if not self.seed_types.is_registered(seed_type):
            return self._reject(
                "seed_type_unregistered", f"seed type {seed_type!r} is not registered"
            )
        depth = chain_depth_of(signal)
        if depth > self.MAX_CHAIN_DEPTH:
            return self._reject(
                "chain_too_deep", f"chain depth {depth} exceeds {self.MAX_CHAIN_DEPTH}"
            )
        try:
            grounding = contract.ground(signal, self.facts)
        except (KeyError, TypeError, ValueError) as exc:
            return self._reject("grounding_failed", f"grounding failed: {exc}")
        if grounding is None:
            return self._reject("nothing_real", "the signal names nothing real")
        return GroundedSignal(signal, seed_type, grounding, depth)

    def build_seed(
        self,
        parts: Sequence[GroundedSignal],
        lead: GroundedSignal,
        importance: float,
        primary_npc: UUID | None = None,
        *,
        ignore_cooldown: bool = False,
    ) -> QuestSeed | Rejection:
        """Apply the history and feasibility filters and build the enriched seed.

        ``lead`` gives the seed type and location; ``parts`` (which include it)
        contribute typed fields and NPCs. The compound composer calls this too.
        """
        return run_steps(
            self.build_seed_steps(
                parts, lead, importance, primary_npc, ignore_cooldown=ignore_cooldown
            )
        )

    def build_seed_steps(
        self,
        parts: Sequence[GroundedSignal],
        lead: GroundedSignal,
        importance: float,
        primary_npc: UUID | None = None,
        *,
        ignore_cooldown: bool = False,
    ) -> Steps[QuestSeed | Rejection]:
        """``build_seed`` in two steps, the checks and then the seed written (in a
        big world a compound's are milliseconds each): the composer may wait for
        the next tick between them."""
        checked = self._checked(parts, lead, importance, primary_npc, ignore_cooldown)
        if isinstance(checked, Rejection):
            return checked
        yield
        return self._built(parts, lead, checked)

    def draw_seed_id(
        self,
        parts: Sequence[GroundedSignal],
        lead: GroundedSignal,
        importance: float,
        primary_npc: UUID | None = None,
    ) -> bool:
        """What ``build_seed`` does to the world's dice, without the seed: the id it
        would draw is drawn when every check passes. The composer composes every
        cluster of its window in turn (each draws its seed's id from the engine's
        random stream) but keeps only the new signal's: the others need not be
        written out, and a seeded world's later draws stay what they were."""
        if isinstance(self._checked(parts, lead, importance, primary_npc, False), Rejection):
            return False
        self.facts.new_uuid()
        return True

    def _checked(
        self,
        parts: Sequence[GroundedSignal],
        lead: GroundedSignal,
        importance: float,
        primary_npc: UUID | None,
        ignore_cooldown: bool,
    ) -> _Checked | Rejection:
        """``build_seed``'s history and feasibility filters, and what passed them."""
        facts = self.facts
        now = facts.now
        primary = primary_npc or lead.grounding.primary_npc
        if not ignore_cooldown and self.history.recent_quest_from_npc(
            primary, self.COOLDOWN_PER_NPC, now
        ):
            return self._reject("giver_cooldown", "the giver is on cooldown")
        if lead.seed_type in self.history.recent_types(self.VARIETY_WINDOW):
            importance *= self.VARIETY_FACTOR
        if not facts.is_alive(primary) or not facts.is_npc(primary):
            return self._reject("giver_not_alive", "the giver is not a living NPC")
        giver_room = facts.room_of(primary)
        location = lead.grounding.location or giver_room
        if giver_room is None or location is None or not facts.room_exists(location):
            return self._reject("no_place", "no place to ground the quest in")
        if not facts.reachable(giver_room, location):
            return self._reject("unreachable", "the place cannot be reached from the giver")
        claimed = facts.claimed_by_authored(primary, location, *lead.grounding.affected_area)
        if claimed is not None:
            return self._reject("authored_claim", self._claim_reason(claimed))

        fields: dict[str, Any] = {}
        involved: list[UUID] = []
        seen: set[UUID] = set()  # every NPC considered (the list stays ordered)
        factions: list[str] = []
        area: list[str] = []
        area_seen: set[str] = set()
        fields.update(lead.grounding.fields)
        for part in parts:
            if part is lead:
                continue
            # Other signals add context, not structure: the sides of a negotiation
            # or the one to rescue stay the lead's. A blocked goal only counts when
            # it is the giver's own.
            own = part.grounding.primary_npc == primary
            for key, value in part.grounding.fields.items():
                if key in SHARED_FIELDS or (own and key in GIVER_FIELDS):
                    fields.setdefault(key, value)
        parties = {fields.get("party_a"), fields.get("party_b"), fields.get("rescue_target")}
        for part in [lead, *[p for p in parts if p is not lead]]:
            g = part.grounding
            # Once enough NPCs are found the rest are not looked at (a threat's
            # signal names everyone aware of it: hundreds in a big world).
            names = (
                ()
                if len(involved) >= self.MAX_INVOLVED_NPCS
                else chain((g.primary_npc,), g.involved_npcs, part.signal.involved_npcs)
            )
            for npc in names:
                if len(involved) >= self.MAX_INVOLVED_NPCS:
                    break
                if npc in seen or npc == primary:
                    continue
                seen.add(npc)
                if not facts.is_alive(npc) or not facts.is_npc(npc):
                    continue
                # The bandits are what the quest is about, not people it involves
                # (unless a grounder named them as a side).
                if npc not in parties and facts.is_threat(npc):
                    continue
                involved.append(npc)
            factions.extend(f for f in g.involved_factions if f not in factions)
            for room in g.affected_area:
                if len(area) >= self.MAX_AFFECTED_ROOMS:
                    break
                if room not in area_seen and facts.room_exists(room):
                    area_seen.add(room)
                    area.append(room)
        for key in ("party_a", "party_b", "rescue_target", "recipient", "supplier"):
            if fields.get(key) is not None and not facts.is_alive(fields[key]):
                return self._reject("side_not_alive", f"{key} is no longer alive")
        sides = [fields.get(k) for k in ("party_a", "party_b", "rescue_target", "recipient")]
        claimed = facts.claimed_by_authored(*[s for s in sides if isinstance(s, UUID)])
        if claimed is not None:
            return self._reject("authored_claim", self._claim_reason(claimed))
        # Someone merely involved steps aside instead.
        involved = [n for n in involved if facts.claimed_by_authored(n) is None]
        if len(involved) + 1 < self.MIN_INVOLVED_NPCS:
            return self._reject("too_few_npcs", "too few NPCs involved")
        return _Checked(primary, location, fields, involved, factions, area, importance)

    def write(self, draft: SeedDraft) -> QuestSeed:
        """The seed ``draft`` stands for, with the id it drew."""
        return self._built(draft.parts, draft.lead, draft.checked, draft.seed_id)

    def _built(
        self,
        parts: Sequence[GroundedSignal],
        lead: GroundedSignal,
        c: _Checked,
        seed_id: UUID | None = None,
    ) -> QuestSeed:
        facts = self.facts
        now = facts.now
        primary, location, fields, involved = c.primary, c.location, c.fields, c.involved
        factions, area, importance = c.factions, c.area, c.importance
        merged = SeedGrounding(
            primary, location, fields, involved, area, factions, lead.grounding.urgency
        )
        # Only text the story layer marked as tellable: a discovery's description,
        # a betrayal's public memory ("what_happened" is None when it is private).
        texts = [
            str(p.signal.context.get(k) or "")
            for p in parts
            for k in ("description", "what_happened")
        ]
        extra = enrich(facts, primary, merged, location, [t for t in texts if t], importance)
        secondary: list[str] = []
        for p in parts:
            if p.seed_type != lead.seed_type and p.seed_type not in secondary:
                secondary.append(p.seed_type)
        chain_parent = fields.pop("chain_parent_id", None)
        for p in parts:
            chain_parent = chain_parent or p.signal.context.get("previous_quest_id")
        urgency = extra.urgency
        depth = max(p.chain_depth for p in parts)
        mood = fields.pop("mood", None) or extra.mood
        return QuestSeed(
            id=facts.new_uuid() if seed_id is None else seed_id,
            source_signals=[p.signal for p in parts],
            seed_type=lead.seed_type,
            secondary_seed_types=secondary,
            importance=min(1.0, max(0.0, importance)),
            urgency=urgency,
            primary_npc=primary,
            primary_npc_motivation=extra.motivation,
            involved_npcs=involved,
            involved_factions=factions,
            location=location,
            affected_area=area or [location],
            backstory=extra.backstory,
            tension=extra.tension,
            stakes=extra.stakes,
            mood=mood,
            estimated_difficulty=extra.difficulty,
            estimated_duration_minutes=extra.duration_minutes,
            created_at=now,
            expires_at=seed_expiry(now, urgency, follow_up=depth > 0),
            chain_depth=depth,
            chain_parent_id=str(chain_parent) if chain_parent else None,
            **fields,
        )

    def _claim_reason(self, claimed: tuple[UUID | str, str]) -> str:
        ref, title = claimed
        what = self.facts.name(ref) if isinstance(ref, UUID) else self.facts.room_name(ref)
        return f"{what} is part of the hand-written quest '{title}' someone is on"

    @staticmethod
    def _reject(rule: str, reason: str) -> Rejection:
        return Rejection("evaluate", reason, (rule,))
