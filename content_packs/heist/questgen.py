"""The heist pack's extensions of quest generation, added through the QuestGen registries.

* seed type ``heist_opportunity`` ("A valuable target is poorly guarded");
* a contract mapping the pack's ``VAULT_UNGUARDED`` story signal to it, whose
  grounder resolves the mark, the vault room and the valuables against the world;
* the objective pattern ``stealth``, built on base objective types only:
  VISIT the vault, CUSTOM "go unseen", COLLECT the valuables, DELIVER them to
  whoever wanted them taken;
* the ``heist`` archetype using it;
* narrative and dialogue templates (``narrative.yaml``) for the template path.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from uuid import UUID

from content_packs.heist.detector import REQUIRED_KEYS, SIGNAL_TYPE
from maid_engine.content.yamllines import YamlProblem, line_of, read_yaml
from maid_stdlib.questgen import (
    BranchingPattern,
    NarrativeArcs,
    ObjectiveType,
    QuestArchetype,
    QuestGen,
    QuestObjective,
    QuestSeed,
    QuestSeedTypes,
    SeedGrounding,
    SignalContract,
    StorySignalLike,
    WorldFacts,
)
from maid_stdlib.questgen.narrative import TemplateRegistry
from maid_stdlib.questgen.narrative.templates import check_template

__all__ = [
    "ARCHETYPE_ID",
    "SEED_TYPE",
    "STEALTH_OBJECTIVE",
    "STEALTH_PATTERN",
    "add_heist_questgen",
    "build_stealth",
    "ground_heist",
    "heist_archetype",
    "load_templates",
    "read_templates",
]

SEED_TYPE = "heist_opportunity"
SEED_DESCRIPTION = "A valuable target is poorly guarded"
STEALTH_PATTERN = "stealth"
ARCHETYPE_ID = "heist"
#: Id of the CUSTOM objective the stealth watcher completes (or fails).
STEALTH_OBJECTIVE = "stay-unseen"


def _uuid(value: Any) -> UUID | None:
    try:
        return value if isinstance(value, UUID) else UUID(str(value))
    except ValueError:
        return None


def ground_heist(signal: StorySignalLike, facts: WorldFacts) -> SeedGrounding | None:
    """The mark, the vault and the valuables, as they are in the world now."""
    ctx = signal.context
    giver = facts.resolve_npc(ctx["npc_id"])
    mark = facts.resolve_npc(ctx["mark"])
    vault = facts.resolve_room(ctx.get("vault_key") or ctx["vault"])
    if giver is None or mark is None or vault is None or giver == mark:
        return None
    item = _uuid(ctx["valuables"])
    template = ctx.get("valuables_template") or (facts.template(item) if item else None)
    # The valuables must still lie in the vault: someone may have been quicker.
    if not template or facts.item_room(template) != vault:
        return None
    guards = [
        g
        for g in (facts.resolve_npc(r) for r in ctx.get("guards") or [])
        if g is not None and facts.is_alive(g)
    ]
    item_name = facts.item_name(template)
    if item_name.lower().startswith(("a ", "an ", "the ")):
        item_name = item_name.split(" ", 1)[1]
    return SeedGrounding(
        giver,
        vault,
        {
            "party_a": mark,
            "item_template": template,
            "recipient": giver,
            "subject": f"{facts.name(mark)}'s {item_name}",
            "mood": "resentful",
        },
        involved_npcs=[mark, *guards],
        affected_area=[vault],
    )


def build_stealth(seed: QuestSeed, facts: WorldFacts) -> list[QuestObjective]:
    """Into the vault while it is unwatched, take the valuables, bring them back."""
    vault, template = seed.location, seed.item_template
    recipient = seed.recipient or seed.primary_npc
    if template is None or facts.item_room(template) != vault:
        return []
    if not facts.reachable(facts.room_of(seed.primary_npc), vault):
        return []
    guards = [n for n in seed.involved_npcs if n != seed.party_a and facts.is_alive(n)]
    watcher = " or ".join(facts.name(g) for g in guards) or "anyone"
    room = facts.place(vault)
    item = facts.item_name(template)
    short = item.split(" ", 1)[1] if item.lower().startswith(("a ", "an ")) else item
    return [
        QuestObjective(
            objective_type=ObjectiveType.VISIT,
            order=1,
            target=room,
            target_location=vault,
            description=f"Reach {room} while {watcher} is away from it",
            hints=[f"{watcher} keeps regular hours; watch when the room is left alone."],
        ),
        QuestObjective(
            id=STEALTH_OBJECTIVE,
            objective_type=ObjectiveType.CUSTOM,
            order=2,
            target=f"unseen by {watcher}",
            target_location=vault,
            description=f"Go unseen by {watcher}",
            hints=[f"Take nothing while {watcher} is in {room}."],
        ),
        QuestObjective(
            objective_type=ObjectiveType.COLLECT,
            order=2,
            target=item,
            item_template=template,
            target_location=vault,
            description=f"Take {item} from {room}",
        ),
        QuestObjective(
            objective_type=ObjectiveType.DELIVER,
            order=3,
            target=item,
            item_template=template,
            target_entity_id=recipient,
            target_location=facts.room_of(recipient),
            description=f"Bring the {short} to {facts.name(recipient)}",
        ),
    ]


def heist_archetype() -> QuestArchetype:
    return QuestArchetype(
        archetype_id=ARCHETYPE_ID,
        name="Heist",
        objective_pattern=STEALTH_PATTERN,
        # The choice in a heist is whether to do it at all: no branch point.
        branching=BranchingPattern.LINEAR,
        estimated_steps=4,
        compatible_seed_types=[SEED_TYPE, QuestSeedTypes.JUSTICE, QuestSeedTypes.TRADE_MISSION],
        requires_combat=False,
        requires_social=True,
        narrative_arc=NarrativeArcs.ESCALATION,
        tone=["tense", "clever"],
        # A robbed moneylender does not let it rest.
        chain_potential=0.6,
    )


def load_templates(path: Path) -> dict[str, dict[str, list[str]]]:
    raw = read_yaml(path) or {}
    if not isinstance(raw, dict):
        raise ValueError(f"{path.name}: must map archetype ids to template fields")
    return raw


def read_templates(path: Path, label: str) -> tuple[dict[str, dict[str, list[str]]], list[str]]:
    """The templates file and every problem of it, as "file:line: entry: problem"
    lines (the file is read once; with problems, use none of it)."""
    try:
        raw = load_templates(path)
    except YamlProblem as exc:
        return {}, [f"{label}:{exc.line}: {exc}" if exc.line else f"{label}: {exc}"]
    except ValueError as exc:
        return {}, [f"{label}: {exc}"]
    problems: list[str] = []
    registry = TemplateRegistry()

    def at(value: object, key: object = None) -> str:
        line = line_of(value, key)
        return f"{label}:{line}" if line else label

    for archetype_id, fields in raw.items():
        if not isinstance(fields, dict):
            problems.append(
                f"{at(raw, archetype_id)}: {archetype_id}: must map fields to lists of templates"
            )
            continue
        # The archetype's own reviewed lines that state nothing about the world.
        extra = fields.get("flavour") or []
        flavour = registry.flavour | set([extra] if isinstance(extra, str) else extra)
        for field_name, templates in fields.items():
            if field_name == "flavour":
                continue
            where = f"{archetype_id}.{field_name}"
            items = [templates] if isinstance(templates, str) else templates
            if not isinstance(items, list) or not items:
                problems.append(f"{at(fields, field_name)}: {where}: must be a non-empty list")
                continue
            for i, template in enumerate(items):
                try:
                    check_template(template, "template", flavour)
                except ValueError as exc:
                    place = at(items, i) if items is templates else at(fields, field_name)
                    problems.append(f"{place}: {where}: {exc}")
            try:
                registry.register_templates(
                    {archetype_id: {field_name: items, "flavour": sorted(flavour)}}
                )
            except ValueError as exc:
                if not any(f": {where}: " in p for p in problems):
                    problems.append(f"{at(fields, field_name)}: {where}: {exc}")
    return raw, problems


def add_heist_questgen(qg: QuestGen, pack: str) -> None:
    """The seed type, contract, objective pattern and archetype, added once under
    ``pack`` (a key another pack took is a start-up error naming both)."""
    qg.add_seed_type(pack, SEED_TYPE, SEED_DESCRIPTION)
    qg.add_contract(pack, SignalContract(SIGNAL_TYPE, (SEED_TYPE,), REQUIRED_KEYS, ground_heist))
    qg.add_objective_pattern(
        pack, STEALTH_PATTERN, build_stealth, requires=("item_template", "party_a")
    )
    qg.add_archetype(pack, heist_archetype())
