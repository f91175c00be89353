"""Text of the ``@quest`` reports (pure formatting over :class:`QuestOps`).

Reports are plain lines; the command pages and wraps them to the client. Markup
is limited to a few highlights, because admins read these in every client.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from admin.quest_state import QuestOps, QuestRow
from classic_rpg.questgen.terms import rpg_terms
from maid_engine.net.markup import escape_markup
from maid_stdlib.questgen import GeneratedQuest, QuestConsequence
from maid_stdlib.questgen.objectives import grounding_problems
from maid_stdlib.questgen.quest import QuestObjective
from maid_stdlib.questgen.vocabulary import QuestState

__all__ = [
    "backpressure_lines",
    "chain_lines",
    "duration",
    "grounding_lines",
    "inspect_lines",
    "list_lines",
    "quality_lines",
    "seed_status_lines",
]

#: Seed age buckets (upper bound in game seconds, label).
AGE_BUCKETS = (
    (600.0, "< 10m"),
    (3600.0, "10m-1h"),
    (6 * 3600.0, "1-6h"),
    (24 * 3600.0, "6-24h"),
    (float("inf"), "> 24h"),
)
BAR_WIDTH = 20


def duration(seconds: float) -> str:
    """Game time, short: "45s", "12m", "3.5h", "2.0d"."""
    s = abs(seconds)
    if s < 60:
        return f"{s:.0f}s"
    if s < 3600:
        return f"{s / 60:.0f}m"
    if s < 48 * 3600:
        return f"{s / 3600:.1f}h"
    return f"{s / 86400:.1f}d"


def _ratio(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0%}"


def _holders(ops: QuestOps, quest_id: str) -> str:
    label = {
        QuestState.AVAILABLE: "offered",
        QuestState.IN_PROGRESS: "in progress",
        QuestState.COMPLETED: "ready to turn in",
    }
    parts = [f"{ops.name(c)}: {label.get(s, s.value)}" for c, s in ops.holders(quest_id)]
    return "; ".join(parts) or "nobody"


# -- list-generated ------------------------------------------------------------------
def list_lines(ops: QuestOps, which: str) -> list[str]:
    rows = ops.rows(which)
    lines = [f"Generated quests ({which}): {len(rows)}"]
    if not rows:
        lines.append("  none" + ("" if which == "all" else " (try --all)"))
    for r in rows:
        lines.append(f"  {r.quest_id} [{r.status}] grounding {r.grounding:.2f}")
        title = f'"{r.title}"' if r.title else "(untitled)"
        lines.append(
            f"      {r.archetype_id}: {title} from {r.giver}, "
            f"{duration(ops.now - r.created_at)} ago"
            + (f", chain depth {r.chain_depth}" if r.chain_depth else "")
        )
    return lines


# -- seed-status -------------------------------------------------------------------
def seed_status_lines(ops: QuestOps) -> list[str]:
    generation = ops.generation
    assert generation is not None
    now, facts = ops.now, ops.qg.facts
    in_flight = generation.in_flight_ids()
    seeds = generation.pending_seeds()
    waiting = sum(1 for s in seeds if s.id not in in_flight)
    depth = generation.queue_depth()
    lines = [
        f"Seed queue: depth {depth} ({depth - waiting} arrived "
        f"for the next tick, {waiting} waiting), builds in flight {len(in_flight)} of "
        f"{generation.settings.max_concurrent_builds}"
    ]
    counts = [0] * len(AGE_BUCKETS)
    for seed in seeds:
        age = now - seed.created_at
        counts[next(i for i, (top, _) in enumerate(AGE_BUCKETS) if age < top)] += 1
    biggest = max(counts, default=0) or 1
    lines.append("Seed ages (game time):")
    for (_, label), n in zip(AGE_BUCKETS, counts, strict=True):
        bar = "#" * (round(n / biggest * BAR_WIDTH) if n else 0)
        lines.append(f"  {label:>7} {bar:<{BAR_WIDTH}} {n}")
    if seeds:
        lines.append("Pending seeds, most important first:")
    for seed in sorted(seeds, key=lambda s: (-s.importance, s.created_at)):
        flag = "  [building]" if seed.id in in_flight else ""
        lines.append(
            f"  {seed.seed_type} from {facts.name(seed.primary_npc)}: importance "
            f"{seed.importance:.2f}, age {duration(now - seed.created_at)}, expires "
            f"in {duration(seed.expires_at - now)}, attempts {seed.attempt_count}"
            f"{flag}"
        )
    outcomes: dict[str, int] = {}
    for record in generation.build_records():
        outcomes[record.outcome] = outcomes.get(record.outcome, 0) + 1
    if outcomes:
        lines.append("Recent builds: " + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())))
    return lines


# -- inspect -------------------------------------------------------------------------
def _consequence(c: QuestConsequence, ops: QuestOps) -> str:
    payload = [
        f"{name.removesuffix('_delta').removesuffix('_amount')} {value:+g}"
        for name in (
            "relationship_delta",
            "faction_delta",
            "goal_progress",
            "need_delta",
            "economic_amount",
            "social_influence_delta",
        )
        if isinstance(value := getattr(c, name), float | int)
    ]
    who = ops.name(c.target_npc) if c.target_npc else (c.target_faction or "")
    extra = (
        f" ({who}{', ' if who and payload else ''}{', '.join(payload)})" if who or payload else ""
    )
    return f"    - {c.consequence_type.value}{extra}: {c.description}"


def _adjustment_lines(ops: QuestOps, quest_id: str) -> list[str]:
    """How the quest was fitted to each acceptance (per-character difficulty)."""
    entry = ops.entry(quest_id)
    adjustments = entry.adjustments if entry is not None else []
    lines = [f"Fitted to characters: {len(adjustments)}"]
    for adj in adjustments:
        who = ", ".join(ops.name(c) for c in adj.characters) or "nobody"
        bounded = f", wanted x{adj.wanted:.2f}" if abs(adj.wanted - adj.factor) > 1e-6 else ""
        lines.append(
            f"  - {who}: work x{adj.factor:.2f}{bounded}, time /{adj.time_factor:.2f}, "
            f"rewards x{adj.reward_factor:.2f}; {adj.reason}"
        )
        for t in adj.terms:
            note = f" ({t.note})" if t.note else ""
            lines.append(f"      {t.what}: {t.before:g} -> {t.after:g}{note}")
    return lines


async def inspect_lines(ops: QuestOps, quest: GeneratedQuest) -> list[str]:
    facts, now = ops.qg.facts, ops.now
    records = ops.records_for(quest.id)
    fallback = next((r.fallback_reason for r in records if r.fallback_reason), None)
    source = quest.narrative_source + (f" (fallback: {fallback})" if fallback else "")
    seeds = ", ".join([quest.seed_type, *quest.secondary_seed_types])
    limit = f"{quest.time_limit:g}h" if quest.time_limit else "none"
    terms = rpg_terms(quest)
    lines = [
        f'{quest.id}  "{quest.title}"',
        f"  status: {ops.status(quest.id)} -- {_holders(ops, quest.id)}",
        f"  seed: {seeds} (seed {str(quest.seed_id)[:8]}); archetype {quest.archetype_id}",
        f"  giver: {facts.name(quest.quest_giver_id)} at "
        f"{facts.room_name(facts.room_of(quest.quest_giver_id)) or 'nowhere'}",
        f"  motivation: {quest.quest_giver_motivation}",
        f"  difficulty {quest.difficulty.value} (level {terms.level_requirement}+), time "
        f"limit {limit}, expires in {duration(quest.expiry - now)}; region {quest.region}",
        f"  narrative source: {source}; token cost {quest.tokens_used}",
        f"  quality: grounding {quest.grounding_score:.2f}, coherence "
        f"{quest.coherence_score:.2f}, novelty {quest.novelty_score:.2f}",
        f"  chain: depth {quest.chain_depth}, parent {quest.chain_parent_id or '-'}, "
        f"potential {quest.chain_potential:.2f}",
        f"  summary: {quest.summary}",
        "Objectives:",
    ]
    lines += [objective_line(o, facts.room_name(o.target_location)) for o in quest.objectives]
    lines.append(f"Narrative facts: {len(quest.narrative_facts)}")
    lines += [f"  - {f}" for f in quest.narrative_facts]
    lines.append("Narrative sentences (and the facts each used):")
    for t in quest.narrative_trace:
        lines.append(f"  [{t.field} <- {', '.join(t.facts) or 'nothing'}] {t.text}")
    r = quest.rewards
    lines.append(
        f"Rewards: {r.gold} gold, {terms.experience} experience, items: "
        f"{', '.join(r.item_template_ids) or '-'}"
    )
    lines += _adjustment_lines(ops, quest.id)
    for title, items in (
        ("Consequences on success", quest.consequences),
        ("Consequences on failure", quest.failure_consequences),
    ):
        lines.append(f"{title}: {len(items)}")
        lines += [_consequence(c, ops) for c in items]
    lines.append(f"Branches: {len(quest.branches or [])}")
    for branch in quest.branches or []:
        lines.append(f"  at <{branch.trigger_objective}>: {branch.description}")
        for option in branch.options:
            lines.append(
                f"    * {option.label}: {len(option.consequences)} consequences"
                + (f", alignment {option.alignment}" if option.alignment else "")
            )
    audits = await ops.audits(quest.id)
    lines.append(f"Consequence batches applied: {len(audits)}")
    for doc in audits:
        who = ", ".join(ops.qg.facts.name(_uuid(c)) for c in doc.get("character_ids", []))
        lines.append(
            f"  - {doc.get('outcome')} by {who or 'the world'}: {doc.get('status')}, "
            f"{len(doc.get('mutations') or [])} mutations"
        )
    return lines


def _uuid(value: Any) -> Any:
    try:
        return UUID(str(value))
    except ValueError:
        return None


# -- grounding-check ---------------------------------------------------------------
async def grounding_lines(ops: QuestOps, quest: GeneratedQuest) -> list[str]:
    accepted = any(s.active or s is QuestState.TURNED_IN for _, s in ops.holders(quest.id))
    result = await ops.qg.validator.validate(quest, accepted=accepted, offered=True)
    verdict = "|gVALID|n" if result.valid else "|rINVALID|n"
    lines = [
        f"Grounding check of {quest.id}: {verdict} (checked as "
        f"{'accepted' if accepted else 'an offer'}; status {ops.status(quest.id)})",
        f"  grounding score when built: {quest.grounding_score:.2f}",
    ]
    lines += [f"  error: {e}" for e in result.errors]
    lines += [f"  warning: {w}" for w in result.warnings]
    lines.append("Objectives:")
    for o in quest.objectives:
        problems = grounding_problems([o], ops.qg.facts, accepted=accepted)
        mark = "ok" if not problems else "!!"
        lines.append(f"  {mark} <{o.id}> {o.description}")
        lines += [f"       {p}" for p in problems]
    if ops.monitor is not None:
        why = ops.monitor.explain(quest)
        lines.append(f"Grounding monitor: {why or 'nothing in the world contradicts it'}.")
    return lines


# -- quality-report ----------------------------------------------------------------
def _by_label(metric: Any) -> dict[str, float]:
    out: dict[str, float] = {}
    for family in metric.collect():
        for sample in family.samples:
            if sample.name.endswith("_total"):
                key = ",".join(sample.labels.values()) or "-"
                out[key] = out.get(key, 0.0) + sample.value
    return out


def _counts(values: dict[str, float]) -> str:
    return ", ".join(f"{k} {v:g}" for k, v in sorted(values.items()) if v) or "none"


def quality_lines(ops: QuestOps) -> list[str]:
    rows = ops.rows("all")
    entries = [e for e in (ops.entry(r.quest_id) for r in rows) if e is not None]
    lines = [f"Quality report: {len(rows)} generated quests"]
    if entries:
        n = len(entries)
        lines.append(
            f"  average grounding {sum(e.grounding_score for e in entries) / n:.2f}, coherence "
            f"{sum(e.coherence_score for e in entries) / n:.2f}, novelty "
            f"{sum(e.novelty_score for e in entries) / n:.2f}"
        )
    statuses: dict[str, float] = {}
    archetypes: dict[str, float] = {}
    for r in rows:
        statuses[r.status] = statuses.get(r.status, 0) + 1
        archetypes[r.archetype_id] = archetypes.get(r.archetype_id, 0) + 1
    lines.append(f"  by status: {_counts(statuses)}")
    lines.append(f"  by archetype: {_counts(archetypes)}")
    generation = ops.generation
    if generation is None:
        return [*lines, "Quest generation is not running: no pipeline figures."]
    m = generation.metrics
    fallback_ratio, rejection_ratio = generation.alert_ratios()
    built, fallbacks = _by_label(m.quests_built), _by_label(m.template_fallbacks)
    rejected = _by_label(m.rejections)
    total_built, total_rejected = sum(built.values()), sum(rejected.values())
    finished = total_built + total_rejected
    fallback_rate = sum(fallbacks.values()) / total_built if total_built else None
    lines += [
        "Pipeline since start-up:",
        f"  built {total_built:g} (narrative: {_counts(built)})",
        f"  template fallback rate {_ratio(fallback_rate)} (reasons: {_counts(fallbacks)})",
        f"  rejected {total_rejected:g} (stages: {_counts(rejected)}); rejection rate "
        f"{_ratio(total_rejected / finished if finished else None)}",
        f"  rejected by rule: {_counts(_by_label(m.rejection_rules))}",
        f"  seeds held (cycles waited) by rule: {_counts(_by_label(m.seed_holds))}",
        f"  seeds dropped by rule: {_counts(_by_label(m.seeds_dropped))}",
        f"  signals turned down by rule: {_counts(_by_label(m.signal_rejections))}",
        f"  found by the daily floor's wider search: {_counts(_by_label(m.floor_seeds))}",
        f"  seeds: {_counts(_by_label(m.seeds))}",
        f"  signals: {_counts(_by_label(m.signals))}",
        f"Alert window ({generation.settings.alert_window:g}s): template fallback ratio "
        f"{_ratio(fallback_ratio)}, rejection ratio "
        f"{_ratio(rejection_ratio)}; alerts: "
        f"{', '.join(sorted(generation.throttle_state().alerts)) or 'none'}",
    ]
    latest = generation.rejections()[-5:]
    if latest:
        lines.append("Latest rejections:")
        lines += [
            f"  {r.at:.0f}s {r.rejection.stage} ({', '.join(r.rejection.rules)}): "
            f"{escape_markup(r.rejection.reason)}"
            for r in reversed(latest)
        ]
    return lines


# -- backpressure --------------------------------------------------------------------
def backpressure_lines(ops: QuestOps) -> list[str]:
    generation = ops.generation
    assert generation is not None
    cfg, state = generation.settings, generation.throttle_state()
    snap = generation.throttle_snapshot()
    mode = f"|yTEMPLATE-ONLY ({state.reason})|n" if state.template_only else "normal"
    spike = "on" if snap["queue_spike"] else "off"
    p99 = snap.get("llm_latency_p99")
    regions: dict[str, int] = {}
    for r in ops.rows("active"):
        entry = ops.entry(r.quest_id)
        region = entry.region if entry is not None and entry.region else "-"
        regions[region] = regions.get(region, 0) + 1
    lines = [
        f"Backpressure: {mode}",
        f"  builds in flight: {len(generation.in_flight_ids())} of {cfg.max_concurrent_builds}"
        f" (launches blocked: {'yes' if state.launches_blocked else 'no'})",
        f"  seed queue: {generation.queue_depth()}, template-only above "
        f"{cfg.queue_spike_threshold} "
        f"until back to {cfg.queue_spike_recover}; spike mode {spike}",
        f"  token budget: {snap['token_budget_remaining']} of {snap['token_budget_limit']} left, "
        f"{snap['token_budget_used']} used (recovers in "
        f"{duration(float(snap['token_budget_recovers_in'] or 0))})",
        f"  LLM p99 latency: {'n/a' if p99 is None else f'{p99:.2f}s'} (threshold "
        f"{cfg.latency_p99_threshold:g}s); quests per cycle {state.max_quests_per_cycle} of "
        f"{cfg.max_quests_per_cycle}",
        f"  actions: {', '.join(sorted(state.actions)) or 'none'}; alerts: "
        f"{', '.join(sorted(state.alerts)) or 'none'}",
        f"  unaccepted quests: {generation.unaccepted_quests()} of {cfg.max_pending_quests}; active"
        f" per region (max {cfg.max_active_quests_per_region}): "
        + (", ".join(f"{k} {v}" for k, v in sorted(regions.items())) or "none"),
    ]
    status = dict(generation.llm_status())
    unusable = status.pop("unusable", None)
    if unusable:
        lines.append(
            f"  |rLLM: the configured model could not be used at start-up, so quests and "
            f"narration run on templates (MAID_LLM_ON_FAILURE=templates): {unusable}|n"
        )
    lines.append("  LLM service: " + ", ".join(f"{k} {v}" for k, v in status.items()))
    return lines


# -- chain -------------------------------------------------------------------------
def _node(row: QuestRow, asked: str) -> str:
    mark = "  <-- this one" if row.quest_id == asked else ""
    title = f' "{row.title}"' if row.title else ""
    return f"{row.quest_id} [{row.status}] {row.archetype_id}{title}{mark}"


def chain_lines(ops: QuestOps, quest_id: str) -> list[str]:
    root = ops.chain_root(quest_id)
    children = ops.children()
    ancestry = [e.quest_id for e in ops.qg.history.chain_of(quest_id)]
    lines = [
        f"Chain of {quest_id}: depth {max(0, len(ancestry) - 1)}, ancestry "
        + (" -> ".join(ancestry) if ancestry else quest_id)
    ]
    seen: set[str] = set()

    def walk(node: str, prefix: str, last: bool, top: bool) -> None:
        if node in seen:  # a cycle in bad data must not loop forever
            return
        seen.add(node)
        branch = "" if top else ("`-- " if last else "|-- ")
        lines.append(prefix + branch + _node(ops.row(node), quest_id))
        kids = children.get(node, [])
        inner = prefix if top else prefix + ("    " if last else "|   ")
        for i, kid in enumerate(kids):
            walk(kid, inner, i == len(kids) - 1, False)

    walk(root, "  ", True, True)
    below, todo = set(), list(children.get(quest_id, []))
    while todo:
        kid = todo.pop()
        if kid not in below:
            below.add(kid)
            todo.extend(children.get(kid, []))
    lines.append(f"{max(0, len(ancestry) - 1)} ancestor(s), {len(below)} descendant(s)")
    return lines


def objective_line(o: QuestObjective, room_name: str = "") -> str:
    """One objective for ``@quest inspect``: order, kind, text, count, place, flags, id."""
    flags = [f for f, on in (("optional", o.optional), ("choice", o.choice)) if on]
    where = f" @ {room_name}" if o.target_location and room_name else ""
    # "Defeat 3 bandit scouts" says its count already; "x3" would say it twice.
    said = str(o.quantity) in o.description.split()
    count = f" x{o.quantity}" if o.quantity > 1 and not said else ""
    return (
        f"  {o.order}. [{o.objective_type.value}] {o.description}{count}{where}"
        + (f" ({', '.join(flags)})" if flags else "")
        + f"  <{o.id}>"
    )
