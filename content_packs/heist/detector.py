"""The heist story detector: a valuable target is poorly guarded.

A ``VAULT_UNGUARDED`` signal is a real situation, read from the living world each
detection pass:

* an item with ``valuables:`` lies in a room (not carried), its owner is alive;
* nobody who watches that room (``watch:`` in living data) is in it right now --
  the guard's schedule has taken them elsewhere;
* some NPC holds a grudge against the owner (a relationship of kind ``grudge``,
  or trust at or below :data:`GRUDGE_TRUST`) and has an unmet ECONOMIC need.

The situation key is per item and per aggrieved NPC, banded "unguarded": it is
signalled once when the guard leaves and resolved when the guard is back, so a
new day's absence is a new opportunity.
"""

from __future__ import annotations

from collections.abc import Iterator
from uuid import UUID

from content_packs.heist.valuables import HeistValuables, owner_of
from maid_stdlib.living.components import NeedsComponent, Relationships, Wealth, clamp_unit
from maid_stdlib.living.facts import WatchedRooms
from maid_stdlib.story.detectors import Detection, DetectionContext, uid_list
from maid_stdlib.world.components import Item

__all__ = ["GRUDGE_TRUST", "REQUIRED_KEYS", "SIGNAL_TYPE", "detect_heist_opportunities"]

SIGNAL_TYPE = "VAULT_UNGUARDED"
REQUIRED_KEYS = ("mark", "vault", "valuables", "npc_id")
#: Trust at or below which a relationship counts as a grudge without saying so.
GRUDGE_TRUST = -0.4
NEED = "economic"


def _grudges(ctx: DetectionContext, mark: UUID) -> Iterator[tuple[UUID, str, float]]:
    """(NPC, cause, trust) of everyone holding a grudge against ``mark``."""
    key = str(mark)
    for uid, rels in ctx.world.each(Relationships):
        rel = rels.entries.get(key)
        if rel is None or uid == mark or not ctx.is_npc(uid):
            continue
        if rel.kind == "grudge" or rel.trust <= GRUDGE_TRUST:
            yield uid, rel.cause, rel.trust


def detect_heist_opportunities(ctx: DetectionContext) -> Iterator[Detection]:
    world = ctx.world
    watchers = [
        (uid, set(w.rooms)) for uid, w in world.each(WatchedRooms) if world.entity_exists(uid)
    ]
    for item_uid, valuables in world.each(HeistValuables):
        vault = ctx.ws.room_key_of(item_uid)
        mark = owner_of(world, valuables)
        if vault is None or mark is None or not world.entity_exists(mark):
            continue
        guards = [uid for uid, rooms in watchers if vault in rooms]
        if any(ctx.ws.room_key_of(g) == vault for g in guards):
            continue
        wealth = world.try_component(mark, Wealth)
        item = world.try_component(item_uid, Item)
        for giver, cause, trust in _grudges(ctx, mark):
            needs = world.try_component(giver, NeedsComponent)
            state = needs.needs.get(NEED) if needs is not None else None
            if state is None or not state.unmet:
                continue
            # The more desperate, the more likely it becomes a plan.
            pressure = 1.0 - state.value / max(state.threshold, 1e-9)
            yield Detection(
                SIGNAL_TYPE,
                f"heist:{item_uid}:{giver}",
                clamp_unit(0.55 + 0.3 * pressure),
                [giver, mark],
                {
                    "mark": str(mark),
                    "mark_name": ctx.name(mark),
                    "mark_wealth": wealth.gold if wealth is not None else None,
                    "vault": ctx.room_ref(vault),
                    "vault_key": vault,
                    "vault_name": ctx.room_name(vault),
                    "valuables": str(item_uid),
                    "valuables_template": item.template if item is not None else "",
                    "valuables_name": ctx.name(item_uid),
                    "npc_id": str(giver),
                    "npc_name": ctx.name(giver),
                    "grudge": cause or f"{ctx.name(giver)} bears {ctx.name(mark)} a grudge",
                    "trust_level": round(trust, 3),
                    "need": NEED,
                    "need_value": round(state.value, 3),
                    "guards": uid_list(guards),
                    "guard_names": [ctx.name(g) for g in guards],
                },
                band="unguarded",
            )
