"""The simulation report: one JSON-ready dict, and a readable summary of it.

Quality targets (the quest rate and the quality tests), checked in ``targets``:

* 2-5 quests generated in every game day of the run;
* 100% grounded: every entity and room a quest refers to existed when it was
  generated and when it was accepted;
* variety: no more than 2 quests of one archetype in a row (in generation order);
* chains: a chain of depth >= 2, depth as the pipeline counts it (``chain_depth``
  of the deepest follow-up: 0 for a quest of its own, 2 for a follow-up of a
  follow-up, i.e. three quests);
* feasibility: every quest generated during the run was completed by a bot of
  the right level (turned in as perfect, completed or pyrrhic victory), or ended
  as its bot meant it to (a partial success it settled for, an expiry it let
  happen: ``fated``, see the coordinator);
* givers spread: in no game day did one giver give more than 30% of the day's
  quests (at least one quest each: with 2-5 a day, one giver, one quest).

Each missed target gets a reason in ``unmet``, read from the same records: for a
day outside the bounds, what the pipeline saw that day (signals, the signals it
turned down, the seeds held back and the builds rejected, each by rule).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from classic_rpg.simulate.coordinator import SUCCESS, Attempt, QuestInfo
from maid_engine.clock import GAME_DAY
from maid_stdlib.questgen.narrative import QUEST_PURPOSES

#: How a fated attempt ends: settled early (or owned up after half the job), too
#: late, failed (too weak, it told the giver), or still waiting for its quest to
#: run out when the run ended.
FATED_RESULTS = frozenset({"partial_success", "expired", "failed", "waiting_out"})

__all__ = ["PER_DAY", "build_report", "entropy_bits", "longest_run", "percentile", "summary"]

PER_DAY = (2, 5)
MAX_RUN = 2
MIN_CHAIN_DEPTH = 2
#: No giver gives more than this share of a day's quests (at least one quest).
MAX_GIVER_SHARE = 0.3

#: Per-day quest generation counters: report key -> (metric sample, label kept).
DAY_COUNTERS = {
    "rejected_by_rule": "maid_questgen_rejection_rules_total",
    "held_by_rule": "maid_questgen_seed_holds_total",
    "signals_turned_down_by_rule": "maid_questgen_signal_rejections_total",
    "dropped_by_rule": "maid_questgen_seeds_dropped_total",
    "floor_seeds_by_source": "maid_questgen_floor_seeds_total",
    "seeds_by_outcome": "maid_questgen_seeds_total",
}


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (0 for no values)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def longest_run(sequence: list[str]) -> tuple[int, str | None]:
    best, best_item, run = 0, None, 0
    for n, item in enumerate(sequence):
        run = run + 1 if n and sequence[n - 1] == item else 1
        if run > best:
            best, best_item = run, item
    return best, best_item


def entropy_bits(items: Iterable[str]) -> float:
    counts = Counter(items)
    total = sum(counts.values())
    return -sum(c / total * math.log2(c / total) for c in counts.values()) if total else 0.0


def _share(part: float, whole: float) -> float | None:
    return round(part / whole, 4) if whole else None


def _chains(history: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Chains from the QuestHistory's parent links."""
    children: dict[str, list[str]] = {}
    for qid, entry in history.items():
        parent = entry.get("chain_parent_id")
        if parent:
            children.setdefault(parent, []).append(qid)

    def length(qid: str, seen: frozenset[str]) -> int:
        kids = [k for k in children.get(qid, []) if k not in seen]
        return 1 + max((length(k, seen | {k}) for k in kids), default=0)

    roots = [
        q
        for q, e in history.items()
        if not e.get("chain_parent_id") or e["chain_parent_id"] not in history
    ]
    lengths = [length(r, frozenset({r})) for r in roots if children.get(r)]
    depths = [int(e.get("chain_depth") or 0) for e in history.values()]
    return {
        "chains": len(lengths),
        "quests_in_chains": sum(1 for e in history.values() if e.get("chain_parent_id"))
        + len(lengths),
        "max_depth": max(depths, default=0),
        "longest_chain": max(lengths, default=1 if history else 0),
    }


def giver_limit(quests: int) -> int:
    """Most quests one giver may give in a day of ``quests``."""
    return max(1, math.floor(MAX_GIVER_SHARE * quests))


def _delta(
    after: dict[str, dict[str, float]], before: dict[str, dict[str, float]], name: str
) -> dict[str, int]:
    """One counter's growth between two samples, by label ("stage,rule" -> "rule")."""
    now, then = after.get(name, {}), before.get(name, {})
    out: Counter[str] = Counter()
    for key, value in now.items():
        grown = int(value - then.get(key, 0.0))
        if grown > 0:
            out[key.split(",")[-1]] += grown
    return dict(sorted(out.items(), key=lambda kv: (-kv[1], kv[0])))


def _days(
    collector: Any,
    per_day: list[int],
    givers: list[Counter[str]],
    signals: list[tuple[float, str, int, str]],
    start: float,
) -> list[dict[str, Any]]:
    """What quest generation saw each game day."""
    ends = list(collector.day_ends)
    last = collector.metrics()["maid_questgen_"]
    while len(ends) < len(per_day):
        ends.append(last)
    rows = []
    before: dict[str, dict[str, float]] = {}
    for day, n in enumerate(per_day):
        after = ends[day]
        lo, hi = start + day * GAME_DAY, start + (day + 1) * GAME_DAY
        row: dict[str, Any] = {
            "day": day + 1,
            "quests": n,
            "givers": dict(givers[day].most_common()),
            "signals": sum(1 for s in signals if lo <= s[0] < hi),
        }
        for key, name in DAY_COUNTERS.items():
            row[key] = _delta(after, before, name)
        rows.append(row)
        before = after
    return rows


def _top(counts: dict[str, int], n: int = 3) -> str:
    return ", ".join(f"{k} {v}" for k, v in list(counts.items())[:n]) or "none"


def _unmet(report: dict[str, Any]) -> dict[str, str]:
    """A reason for every missed target."""
    ok, out = report["targets"], {}
    if not ok["quests_per_day"]:
        lo, hi = PER_DAY
        parts = []
        for row in report["days"]:
            n = row["quests"]
            if lo <= n <= hi:
                continue
            parts.append(
                f"day {row['day']}: {n} quest(s) from {row['signals']} signal(s); "
                f"signals turned down: {_top(row['signals_turned_down_by_rule'])}; "
                f"seeds held: {_top(row['held_by_rule'])}; "
                f"seeds dropped: {_top(row['dropped_by_rule'])}; "
                f"the floor's wider search found: {_top(row['floor_seeds_by_source'])}; "
                f"builds rejected: {_top(row['rejected_by_rule'])}"
            )
        out["quests_per_day"] = f"outside {lo}-{hi} a day: " + " | ".join(parts)
    if not ok["grounded"]:
        first = report["grounding"]["ungrounded"][:3]
        out["grounded"] = "; ".join(
            f"{u['quest_id']} at {u['when']}: {', '.join(u['problems'])}" for u in first
        )
    if not ok["variety"]:
        v = report["variety"]
        out["variety"] = f"{v['longest_run']} {v['longest_run_archetype']} quests in a row"
    if not ok["chain_depth"]:
        c = report["chains"]
        out["chain_depth"] = (
            f"the deepest follow-up has depth {c['max_depth']} (< {MIN_CHAIN_DEPTH}); "
            f"{c['chain_signals']} chain signal(s) in the run"
        )
    if not ok["feasibility"]:
        rows = report["feasibility"]["not_completed"]
        out["feasibility"] = f"{len(rows)} not completed: " + "; ".join(
            f"{r['quest_id']}: {r['reason']}" for r in rows[:3]
        )
    if not ok["givers_spread"]:
        out["givers_spread"] = "; ".join(
            f"day {row['day']}: {giver} gave {n} of {row['quests']}"
            for row in report["days"]
            for giver, n in row["givers"].items()
            if n > giver_limit(row["quests"])
        )
    return out


def _not_completed_reason(
    info: QuestInfo, mine: list[Attempt], closed: tuple[str, str] | None, levels: list[int]
) -> str:
    proper = [a for a in mine if a.counts]
    if proper:
        last = proper[-1]
        return f"{last.result}: {last.reason}" if last.reason else last.result
    refused = [a for a in mine if a.result == "not_offered"]
    ended = [
        a for a in mine if a.result not in ("abandoned", "gave_up", "in_progress", "not_offered")
    ]
    if refused and not ended:
        return "never offered to a bot of the right level that asked: " + "; ".join(
            f"{a.bot} (L{a.level}): {a.reason}" for a in refused
        )
    if ended:
        last = ended[-1]
        return f"{last.result} while a {last.style} had it, before a proper attempt: {last.reason}"
    band = f"{info.min_level}-{info.recommended_level + 2}"
    if closed is not None:
        status, why = closed
        return (
            f"{status}{f' ({why})' if why else ''} before a bot of the right level "
            f"(levels {band}) took it"
        )
    if not any(info.min_level <= lv <= info.recommended_level + 2 for lv in levels):
        return f"no bot of the right level (levels {band}; bots start at {levels})"
    return f"no bot of the right level (levels {band}) was free"


def _feasibility(
    quests: dict[str, QuestInfo],
    attempts: list[Attempt],
    status_of: Callable[[str], tuple[str, str] | None],
    end: float,
    bots: list[dict[str, Any]],
) -> dict[str, Any]:
    rows = []
    completed = attempted = due = fated = 0
    levels = sorted({b["level_start"] for b in bots})
    for qid, info in quests.items():
        if info.generated_at > end:
            continue
        due += 1
        mine = [a for a in attempts if a.quest_id == qid]
        if any(a.counts for a in mine):
            attempted += 1
        if any(a.counts and a.result in SUCCESS for a in mine):
            completed += 1
            continue
        if any(a.counts and a.fate and a.result in FATED_RESULTS for a in mine):
            # The bot meant it to end so (settled early, came too late): what a
            # player does, not a quest no one could finish.
            fated += 1
            continue
        rows.append(
            {
                "quest_id": qid,
                "archetype": info.archetype_id,
                "recommended_level": info.recommended_level,
                "reason": _not_completed_reason(info, mine, status_of(qid), levels),
                "attempts": [a.document() for a in mine],
            }
        )
    fates: dict[str, Counter[str]] = {}
    for a in attempts:
        if a.counts:
            fates.setdefault(a.fate or "played", Counter())[a.result] += 1
    return {
        "quests": due,
        "attempted": attempted,
        "completed": completed,
        "fated": fated,
        # What each fate of the proper attempts came to (see the coordinator).
        "fates": {f: dict(sorted(c.items())) for f, c in sorted(fates.items())},
        "not_completed": rows,
    }


def _llm(samples: dict[str, dict[str, float]], records: Iterable[Any]) -> dict[str, Any]:
    """Model calls for quest prose (``maid_llm_requests_total`` of the quest
    purposes, whatever their outcome) against the quests some character accepted."""
    by_purpose: Counter[str] = Counter()
    for key, value in samples.get("maid_llm_requests_total", {}).items():
        purpose = key.split(",")[0]
        if purpose in QUEST_PURPOSES:
            by_purpose[purpose] += int(value)
    calls = sum(by_purpose.values())
    accepted = sum(1 for r in records if r.grounded_at_acceptance)
    return {
        "calls": calls,
        "calls_by_purpose": dict(sorted(by_purpose.items())),
        "accepted_quests": accepted,
        "calls_per_accepted_quest": round(calls / accepted, 3) if accepted else None,
    }


def build_report(
    *,
    options: dict[str, Any],
    start: float,
    end: float,
    days: int,
    collector: Any,
    coordinator: Any,
    bots: list[dict[str, Any]],
    tick_ms: list[float],
    bot_ms: list[float],
    wall: float,
) -> dict[str, Any]:
    records = collector.quests
    in_run = [r for r in records.values() if r.generated_at <= end]
    per_day = [0] * days
    givers_by_day: list[Counter[str]] = [Counter() for _ in range(days)]
    for r in in_run:
        day = min(days - 1, int((r.generated_at - start) // GAME_DAY))
        per_day[day] += 1
        givers_by_day[day][r.giver] += 1
    history = collector.history()
    ordered = sorted(
        in_run, key=lambda r: (history.get(r.quest_id, {}).get("sequence", 0), r.generated_at)
    )
    sequence = [r.archetype_id for r in ordered]
    run, run_item = longest_run(sequence)
    metrics = collector.metrics()
    qgm, cm, gm = (
        metrics["maid_questgen_"],
        metrics["maid_consequence_"],
        metrics["maid_grounding_"],
    )
    llm = _llm(metrics["maid_llm_"], records.values())
    built = qgm.get("maid_questgen_quests_built_total", {})
    rejections = qgm.get("maid_questgen_rejections_total", {})
    n_built, n_rejected = sum(built.values()), sum(rejections.values())
    batches = cm.get("maid_consequence_batches_total", {})
    grounded_gen = [r for r in records.values() if not r.grounded_at_generation]
    accepted = [
        (r, who, p) for r in records.values() for who, p in r.grounded_at_acceptance.items()
    ]
    ungrounded = [
        {"quest_id": r.quest_id, "when": "generation", "problems": r.grounded_at_generation}
        for r in records.values()
        if r.grounded_at_generation
    ]
    ungrounded += [
        {"quest_id": r.quest_id, "when": f"acceptance by {who}", "problems": p}
        for r, who, p in accepted
        if p
    ]
    fully = [
        r
        for r in records.values()
        if not r.grounded_at_generation and not any(r.grounded_at_acceptance.values())
    ]
    chains = _chains(history)
    chains.update(
        chain_signals=len(collector.chain_events),
        chain_signals_by_type=dict(Counter(t for t, _ in collector.chain_events)),
    )
    feasibility = _feasibility(
        coordinator.quests, coordinator.attempts, coordinator.manager.registry.status, end, bots
    )
    signals = [s for s in collector.signals if s[0] <= end]
    report: dict[str, Any] = {
        "simulation": {
            **options,
            "bots_option": options.get("bots"),
            "start_game_time": start,
            "end_game_time": end,
            "wall_seconds": round(wall, 2),
            "ticks": len(tick_ms),
            "bots": bots,
        },
        "story_signals": {
            "total": len(signals),
            "by_type": dict(sorted(Counter(s[1] for s in signals).items())),
            "from_consequences_by_type": dict(
                sorted(Counter(s[1] for s in signals if s[2] > 0).items())
            ),
        },
        "quests": {
            "generated": len(in_run),
            "per_game_day": per_day,
            "target_per_day": list(PER_DAY),
            "generated_after_end": len(records) - len(in_run),
            "by_archetype": dict(sorted(Counter(r.archetype_id for r in in_run).items())),
            "by_seed_type": dict(sorted(Counter(r.seed_type for r in in_run).items())),
            "by_difficulty": dict(sorted(Counter(r.difficulty for r in in_run).items())),
            "by_giver": dict(sorted(Counter(r.giver for r in in_run).items())),
            "giver_share": {
                k: _share(n, len(in_run)) for k, n in Counter(r.giver for r in in_run).most_common()
            },
            "max_giver_share_per_day": [
                _share(max(g.values(), default=0), n)
                for g, n in zip(givers_by_day, per_day, strict=True)
            ],
        },
        "days": _days(collector, per_day, givers_by_day, signals, start),
        "narrative": {
            "built": {k: int(v) for k, v in built.items()},
            "template_share": _share(built.get("template", 0), n_built),
            "llm_share": _share(built.get("llm", 0), n_built),
            "template_fallbacks_by_reason": {
                k: int(v) for k, v in qgm.get("maid_questgen_template_fallbacks_total", {}).items()
            },
            # The text lint over every generated quest's texts (0 defects is the bar).
            "lint": collector.lint.as_dict(),
            # Names in model prose that no fact of the quest holds (target < 1.3%).
            "unmatched_mentions": {
                "mentions": collector.mentions,
                "count": len(collector.unmatched),
                "rate": _share(len(collector.unmatched), collector.mentions),
                "examples": [f"{q}: {n}" for q, n in collector.unmatched[:10]],
            },
        },
        "llm": llm,
        "rejections": {
            "by_stage": {k: int(v) for k, v in sorted(rejections.items())},
            "by_rule": {
                k: int(v)
                for k, v in sorted(qgm.get("maid_questgen_rejection_rules_total", {}).items())
            },
            "rejection_rate": _share(n_rejected, n_built + n_rejected),
            "signals_by_outcome": {
                k: int(v) for k, v in qgm.get("maid_questgen_signals_total", {}).items()
            },
            "seeds_by_outcome": {
                k: int(v) for k, v in qgm.get("maid_questgen_seeds_total", {}).items()
            },
            "held_by_rule": {
                k: int(v) for k, v in sorted(qgm.get("maid_questgen_seed_holds_total", {}).items())
            },
            "signals_turned_down_by_rule": {
                k: int(v)
                for k, v in sorted(qgm.get("maid_questgen_signal_rejections_total", {}).items())
            },
            "dropped_by_rule": {
                k: int(v)
                for k, v in sorted(qgm.get("maid_questgen_seeds_dropped_total", {}).items())
            },
            "floor_seeds_by_source": {
                k: int(v) for k, v in sorted(qgm.get("maid_questgen_floor_seeds_total", {}).items())
            },
        },
        "grounding": {
            "share": _share(len(fully), len(records)),
            "at_generation": {"grounded": len(grounded_gen), "of": len(records)},
            "at_acceptance": {
                "grounded": sum(1 for _, _, p in accepted if not p),
                "of": len(accepted),
            },
            "ungrounded": ungrounded,
        },
        "variety": {
            "sequence": sequence,
            "longest_run": run,
            "longest_run_archetype": run_item,
            "entropy_bits": round(entropy_bits(sequence), 3),
            "max_entropy_bits": round(math.log2(len(set(sequence))), 3) if sequence else 0.0,
            "distinct_archetypes": len(set(sequence)),
            "archetype_share": {
                k: _share(n, len(sequence)) for k, n in Counter(sequence).most_common()
            },
            "missing_archetypes": [a for a in collector.archetypes() if a not in set(sequence)],
        },
        "lifecycle": dict(sorted(collector.lifecycle.items())),
        "outcomes": dict(sorted(collector.outcomes.items())),
        "outcome_share": {
            k: _share(n, sum(collector.outcomes.values()))
            for k, n in collector.outcomes.most_common()
        },
        "failure_details": dict(collector.fail_details.most_common(10)),
        "offers_by_method": dict(sorted(collector.offers.items())),
        "invalidations_by_reason": {
            k: int(v) for k, v in gm.get("maid_grounding_invalidations_total", {}).items()
        },
        "chains": chains,
        "consequences": {
            "batches_applied": int(batches.get("applied", 0)),
            "batches_rolled_back": int(batches.get("conflict", 0) + batches.get("failed", 0)),
            "batches_invalid": int(batches.get("invalid", 0)),
            "applied_events": collector.consequences_applied,
            # Each failure's words: nobody came, or someone tried and failed.
            "failures": collector.failures,
        },
        "feasibility": feasibility,
        "ticks": {
            "p50_ms": round(percentile(tick_ms, 0.5), 3),
            "p99_ms": round(percentile(tick_ms, 0.99), 3),
            "max_ms": round(max(tick_ms, default=0.0), 3),
            "bots_p50_ms": round(percentile(bot_ms, 0.5), 3),
            "bots_p99_ms": round(percentile(bot_ms, 0.99), 3),
        },
    }
    report["targets"] = {
        "quests_per_day": all(PER_DAY[0] <= n <= PER_DAY[1] for n in per_day),
        "grounded": report["grounding"]["share"] == 1.0,
        "variety": run <= MAX_RUN,
        "chain_depth": chains["max_depth"] >= MIN_CHAIN_DEPTH,
        "feasibility": not feasibility["not_completed"],
        "givers_spread": all(
            n <= giver_limit(per_day[d]) for d, g in enumerate(givers_by_day) for n in g.values()
        ),
    }
    report["unmet"] = _unmet(report)
    return report


def summary(report: dict[str, Any]) -> str:
    """The report in a few readable lines."""
    sim, q, g = report["simulation"], report["quests"], report["grounding"]
    v, c, f = report["variety"], report["chains"], report["feasibility"]
    nar, rej, ticks = report["narrative"], report["rejections"], report["ticks"]
    ok = report["targets"]

    def mark(key: str) -> str:
        return "ok  " if ok[key] else "MISS"

    def pct(x: float | None) -> str:
        return "n/a" if x is None else f"{100 * x:.0f}%"

    bots = ", ".join(
        f"{b['name']} (L{b['level_start']}->{b['level_end']}"
        f"{', retired' if b.get('retired') else ''})"
        for b in sim["bots"]
    )
    lines = [
        f"maid simulate: {sim['days']} game days of {', '.join(sim['packs'])}, seed "
        f"{sim['seed']}, {sim['bots_option']} bots, {sim['ticks']} ticks in "
        f"{sim['wall_seconds']:.1f} s",
        f"  bots: {bots}",
        f"  story signals: {report['story_signals']['total']} "
        + ", ".join(f"{k} {n}" for k, n in report["story_signals"]["by_type"].items()),
        f"[{mark('quests_per_day')}] quests per game day: {q['per_game_day']} "
        f"(target {q['target_per_day'][0]}-{q['target_per_day'][1]}); {q['generated']} in all",
        "         by archetype: " + ", ".join(f"{k} {n}" for k, n in q["by_archetype"].items()),
        "         by seed type: " + ", ".join(f"{k} {n}" for k, n in q["by_seed_type"].items()),
        "         missing archetypes: " + (", ".join(v["missing_archetypes"]) or "none"),
        f"[{mark('givers_spread')}] givers: "
        + ", ".join(f"{k} {pct(s)}" for k, s in q["giver_share"].items())
        + f"; top giver's share per day {[pct(s) for s in q['max_giver_share_per_day']]}",
        f"         narrative: template {pct(nar['template_share'])}, LLM "
        f"{pct(nar['llm_share'])}; rejected {pct(rej['rejection_rate'])} of builds "
        + str(rej["by_stage"]),
        "         rejected by rule: " + _top(rej["by_rule"], 8),
        "         seeds held (cycles) by rule: " + _top(rej["held_by_rule"], 8),
        "         signals turned down by rule: " + _top(rej["signals_turned_down_by_rule"], 8),
        "         seeds dropped (the world moved on) by rule: " + _top(rej["dropped_by_rule"], 8),
        "         the floor's wider search found: " + _top(rej["floor_seeds_by_source"], 8),
        f"         model calls: {report['llm']['calls']} for "
        f"{report['llm']['accepted_quests']} accepted quests "
        f"({report['llm']['calls_per_accepted_quest']} each)",
        f"         text lint: {nar['lint']['defects']} defect(s) in {nar['lint']['texts']} texts "
        + str(nar["lint"]["by_kind"])
        + f"; model names without a fact: {nar['unmatched_mentions']['count']} of "
        f"{nar['unmatched_mentions']['mentions']}",
        f"[{mark('grounded')}] grounded: {pct(g['share'])} (generation "
        f"{g['at_generation']['grounded']}/{g['at_generation']['of']}, acceptance "
        f"{g['at_acceptance']['grounded']}/{g['at_acceptance']['of']})",
        f"[{mark('variety')}] variety: longest run {v['longest_run']} "
        f"({v['longest_run_archetype']}), entropy {v['entropy_bits']:.2f} of "
        f"{v['max_entropy_bits']:.2f} bits",
        f"[{mark('chain_depth')}] chains: {c['chains']} chain(s), max depth {c['max_depth']}, "
        f"longest {c['longest_chain']} quest(s); {c['chain_signals']} chain signal(s)",
        f"[{mark('feasibility')}] feasibility: {f['completed']}/{f['quests']} completed by a bot "
        f"of the right level ({f['attempted']} attempted, {f['fated']} ended as the bot chose)",
    ]
    lines += [
        f"         - {row['quest_id']} ({row['archetype']}): {row['reason']}"
        for row in f["not_completed"][:10]
    ]
    lines.append(
        "  fates: "
        + "; ".join(
            f"{fate} " + ", ".join(f"{k} {n}" for k, n in results.items())
            for fate, results in f["fates"].items()
        )
    )
    cons = report["consequences"]
    lines += [
        "  lifecycle: " + ", ".join(f"{k} {n}" for k, n in report["lifecycle"].items()),
        "  outcomes: " + ", ".join(f"{k} {n}" for k, n in report["outcomes"].items()),
        f"  consequence batches: {cons['batches_applied']} applied, "
        f"{cons['batches_rolled_back']} rolled back, {cons['batches_invalid']} invalid",
        f"  tick time: p50 {ticks['p50_ms']:.2f} ms, p99 {ticks['p99_ms']:.2f} ms "
        f"(bots p50 {ticks['bots_p50_ms']:.2f} ms)",
    ]
    lines += [f"  unmet {key}: {why}" for key, why in report["unmet"].items()]
    return "\n".join(lines)
