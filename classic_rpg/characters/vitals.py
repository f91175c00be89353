"""Health and mana outside combat: GMCP ``Char.Vitals``, the prompt, healing, and
slow regeneration while not fighting, faster while resting or asleep (real seconds).
(``Char.Status`` is progression's: levels.py.)"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol
from uuid import UUID

from classic_rpg.characters.posture import regen_factor
from classic_rpg.combat.components import Fighting
from classic_rpg.components import Health, Mana
from classic_rpg.events import VitalsChangedEvent
from maid_engine.ecs import System, World
from maid_engine.ports import EventsPort, SessionsPort, WorldPort
from maid_stdlib.text import strip_article
from maid_stdlib.world.components import Describable, Position

if TYPE_CHECKING:
    from maid_engine.sessions import Session


class VitalsHost(WorldPort, SessionsPort, Protocol):
    """What Char.Vitals needs: the character's components and its session."""


def vitals_of(engine: WorldPort, uid: UUID) -> dict[str, Any]:
    world = engine.world
    health = world.try_component(uid, Health)
    mana = world.try_component(uid, Mana)
    return {
        "hp": health.current if health else 0,
        "maxhp": health.maximum if health else 0,
        "mp": mana.current if mana else 0,
        "maxmp": mana.maximum if mana else 0,
    }


def send_vitals(engine: VitalsHost, uid: UUID) -> None:
    if engine.sessions.is_online(uid) and engine.world.has_component(uid, Health):
        engine.sessions.gmcp_to(uid, "Char.Vitals", vitals_of(engine, uid))


class VitalsRelay:
    """Sends Char.Vitals to the owner whenever someone reports a change."""

    def __init__(self, engine: VitalsHost) -> None:
        self.engine = engine

    def on_vitals_changed(self, event: VitalsChangedEvent) -> None:
        send_vitals(self.engine, event.entity_id)


def foe_health(world: World, uid: UUID) -> tuple[UUID, int] | None:
    """Whom ``uid`` is fighting and what share of its health (%) it has left: a
    fight must show how the other side is doing, not only your own hit points."""
    fighting = world.try_component(uid, Fighting)
    if fighting is None or fighting.target is None:
        return None
    health = world.try_component(fighting.target, Health)
    if health is None or health.current <= 0:
        return None
    # Walked away, the fight is over even before the combat system notices.
    here, there = world.try_component(uid, Position), world.try_component(fighting.target, Position)
    if here is None or there is None or here.room != there.room:
        return None
    return fighting.target, max(1, round(100 * health.current / max(1, health.maximum)))


def make_prompt(engine: WorldPort) -> Any:
    """The classic ``<hp mp>`` prompt for characters with vitals; in a fight, the
    foe's name and health follow it (``[bandit scout: 60%]``)."""

    def prompt(session: Session) -> str:
        # After every command of every player: the two components read once each,
        # without vitals_of's dict (what GMCP sends).
        uid = session.character_id
        if uid is None:
            return "> "
        world = engine.world
        health = world.try_component(uid, Health)
        if health is None:
            return "> "
        mana = world.try_component(uid, Mana)
        mp, maxmp = (mana.current, mana.maximum) if mana is not None else (0, 0)
        prompt = f"<{health.current}/{health.maximum}hp {mp}/{maxmp}mp> "
        foe = foe_health(world, uid)
        if foe is None:
            return prompt
        desc = world.try_component(foe[0], Describable)
        name = strip_article(desc.name) if desc is not None and desc.name else "foe"
        return f"{prompt}[{name}: {foe[1]}%] "

    return prompt


class HealHost(WorldPort, EventsPort, Protocol):
    """What healing uses: the character's health and the vitals event."""


def heal(engine: HealHost, uid: UUID, amount: int) -> int:
    """Restore up to ``amount`` health (never above the maximum); returns how much."""
    health = engine.world.try_component(uid, Health)
    if health is None or amount <= 0:
        return 0
    gained = min(amount, health.maximum - health.current)
    if gained > 0:
        health.current += gained
        engine.events.emit(VitalsChangedEvent(uid))
    return gained


#: Told to a resting or sleeping character once their health and mana are full.
FULLY_RESTED = "You feel fully rested. (Type 'stand' to get up.)"


class RegenSystem(System):
    """Every ``interval`` real seconds (the engine's monotonic clock: a player
    waits the same whatever the time scale), everyone not fighting regains 5% of
    their maximum health and mana (at least 1), twice that resting and three times
    asleep. Runs before combat so a death's 50% health is what a test sees right
    after the tick it happened in."""

    phase = "combat"
    interval: float = 10.0
    fraction: float = 0.05

    def __init__(self) -> None:
        self._elapsed = 0.0
        self._last: float | None = None
        #: Entities whose health or mana may be below the maximum: rebuilt at start
        #: up, fed by VitalsChangedEvent (every damage, death and spending path
        #: emits it) and by new Health/Mana components; dropped once full. Scanning
        #: every Health and Mana (10,000s) each interval cost ~10 ms per run.
        self._wounded: set[UUID] = set()

    async def startup(self) -> None:
        engine = self.engine
        world = engine.world
        self._last = engine.clock.monotonic()
        engine.events.subscribe(VitalsChangedEvent, self.on_vitals_changed)
        world.on_changed(Health, self._on_added)
        world.on_changed(Mana, self._on_added)
        for uid, (health,) in world.query(Health):
            if health.current < health.maximum:
                self._wounded.add(uid)
        for uid, (mana,) in world.query(Mana):
            if mana.current < mana.maximum:
                self._wounded.add(uid)

    def on_vitals_changed(self, event: VitalsChangedEvent) -> None:
        self._wounded.add(event.entity_id)

    def _on_added(self, uid: UUID, component: Health | Mana) -> None:
        if component.current < component.maximum:
            self._wounded.add(uid)

    async def update(self, delta: float) -> None:
        now = self.engine.clock.monotonic()
        last, self._last = self._last, now
        if self.interval <= 0 or last is None:
            return
        self._elapsed += max(0.0, now - last)
        if self._elapsed < self.interval:
            return
        # A long stall (a debugger, a suspended host) gives one share, not a burst.
        self._elapsed = min(self._elapsed - self.interval, self.interval)
        engine = self.engine
        world = self.world
        changed: set[UUID] = set()
        full: list[UUID] = []
        for uid in self._wounded:
            if not world.entity_exists(uid):
                full.append(uid)
                continue
            health = world.try_component(uid, Health)
            mana = world.try_component(uid, Mana)
            if world.has_component(uid, Fighting):
                continue
            factor = regen_factor(engine, uid)
            if health is not None and health.current < health.maximum:
                gain = max(1, int(health.maximum * self.fraction)) * factor
                health.current = min(health.maximum, health.current + gain)
                changed.add(uid)
            if mana is not None and mana.current < mana.maximum:
                gain = max(1, int(mana.maximum * self.fraction)) * factor
                mana.current = min(mana.maximum, mana.current + gain)
                changed.add(uid)
            if (health is None or health.current >= health.maximum) and (
                mana is None or mana.current >= mana.maximum
            ):
                full.append(uid)
                if uid in changed and factor > 1:
                    # Whoever lay down to recover is told it is done: the prompt
                    # alone would leave them resting on, not knowing.
                    engine.sessions.send_to(uid, FULLY_RESTED)
        self._wounded.difference_update(full)
        for uid in changed:
            self.engine.events.emit(VitalsChangedEvent(uid))
