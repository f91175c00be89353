"""The living world's share of ``@reload <pack>``: the pack's living files again.

What a living file configures (decay rates, thresholds, goal templates,
schedules, routes, factions, presence lines, relationship kinds) is the pack's
and is applied again, exactly as on a restart; what the world grew (need values,
open goals, trust, memories, gossip) is kept (see :mod:`.seeding`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from maid_engine.content import PackError
from maid_stdlib.living.data import LivingData, read_living_file
from maid_stdlib.living.registries import CrisisRule
from maid_stdlib.living.seeding import apply_data, check, npc_index
from maid_stdlib.living.service import LivingWorld


@dataclass
class LivingReload:
    """A :class:`~maid_stdlib.world.reload.ReloadStep` for living data."""

    living: LivingWorld
    #: pack -> (the applied data, the same file read again), between check and apply.
    _fresh: dict[str, list[tuple[LivingData, LivingData]]] = field(default_factory=dict)

    def _files(self, pack: str) -> list[LivingData]:
        return [d for d in self.living.applied_data if d.pack == pack and d.path is not None]

    def check(self, pack: str) -> list[str]:
        problems: list[str] = []
        fresh = []
        index = npc_index(self.living)
        for old in self._files(pack):
            assert old.path is not None
            try:
                new = read_living_file(old.pack, old.path)
            except PackError as exc:
                problems.append(str(exc))
                continue
            problems.extend(check(self.living, new, index))
            fresh.append((old, new))
        self._fresh[pack] = fresh
        return problems

    def apply(self, pack: str) -> list[str]:
        living = self.living
        notes = []
        for old, new in self._fresh.pop(pack, []):
            crises = living.registries.crises
            for rule in old.spec.crises:
                made = CrisisRule(rule.need, rule.below, rule.min_npcs, rule.crisis_type)
                if made in crises:
                    crises.remove(made)  # applied again below
            apply_data(living, new)
            living.applied_data[living.applied_data.index(old)] = new
            count = len(new.spec.npcs)
            notes.append(
                f"living data: {new.file} applied again ({count} NPC{'s' if count != 1 else ''})"
            )
        return notes
