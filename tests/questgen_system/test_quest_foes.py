"""A generated quest's own foes: spawned for whoever accepts it at a level fitted
to them (or to their group), theirs alone to hunt, gone with the quest, never
left behind by a restart."""

from __future__ import annotations

from pathlib import Path
from uuid import UUID

from kits.engines import npc, npcs, plain, qg_of, qm, questgen_of, room_key, ws_of
from kits.heroes import make_strong, place
from questgen_system.qskit import make_engine, online, seed_for, until

from admin.quest_state import QuestOps
from admin.quest_views import inspect_lines
from classic_rpg.combat.service import CombatService
from classic_rpg.components import CharacterStats
from classic_rpg.groups.service import Groups
from classic_rpg.questgen.challenge import min_level
from classic_rpg.questgen.scaling import group_level
from classic_rpg.systems.quests.foes import QuestFoe, fitted_level, rescale
from maid_engine.engine import GameEngine
from maid_engine.events import CharacterConnectedEvent, CharacterDisconnectedEvent
from maid_engine.testing import cmd, session_for
from maid_stdlib.questgen import GeneratedQuest, ObjectiveType, QuestObjective

WOLF = "hamlet:wolf"


async def _built(engine: GameEngine) -> tuple[GeneratedQuest, QuestObjective]:
    """The wolf quest; without Old Grey (level 5) the wolves (level 2) make it an
    easy one, which a level-1 character may take."""
    system = questgen_of(engine)
    ws_of(engine).remove_from_world(npc(engine, "hamlet:old_grey"))
    engine.world.destroy_entity(npc(engine, "hamlet:old_grey"))
    await engine.dispatch_events()
    system.enqueue(seed_for(engine, "tamsin"))
    await until(engine, lambda: bool(system.open_quests()))
    [oq] = system.open_quests().values()
    [kill] = [
        o for o in oq.quest.objectives if o.objective_type is ObjectiveType.KILL and o.quantity > 1
    ]
    assert kill.target_template == WOLF
    return oq.quest, kill


async def _accept(engine: GameEngine, hero: UUID, quest_id: str) -> None:
    manager = qm(engine)
    manager.offer_quest(hero, quest_id)
    assert "You accept" in await cmd(engine, hero, f"accept {quest_id}")
    await engine.dispatch_events()


def _quarry(engine: GameEngine, owner: UUID | None = None) -> list[UUID]:
    return [
        uid
        for uid, (tag,) in engine.world.query(QuestFoe)
        if engine.world.entity_exists(uid) and (owner is None or tag.owner == owner)
    ]


def theirs_count_words(count: int) -> str:
    return "a grey wolf" if count == 1 else f"{count} grey wolves"


def _level(engine: GameEngine, uid: UUID) -> int:
    return engine.world.get_component(uid, CharacterStats).level


def _kill(engine: GameEngine, killer: UUID, victim: UUID) -> None:
    """The death as combat reports it (the foe falls to ``killer``)."""
    engine.services.get(CombatService).die(victim, killer)
    assert not engine.world.entity_exists(victim)


async def test_a_novice_and_a_veteran_face_their_own_foes_at_their_own_level(
    quiet: GameEngine,
) -> None:
    quest, kill = await _built(quiet)
    assert min_level(quest.difficulty) == 1
    world_wolves = npcs(quiet, WOLF)
    before = {w: _level(quiet, w) for w in world_wolves}
    assert set(before.values()) == {2}
    novice, _ = await online(quiet, "Novice", level=1)
    veteran, veteran_session = await online(quiet, "Veteran", level=8)
    await _accept(quiet, novice, quest.id)
    await _accept(quiet, veteran, quest.id)

    mine, theirs = _quarry(quiet, novice), _quarry(quiet, veteran)
    manager = qm(quiet)
    novice_entry = manager.entry(novice, quest.id)
    veteran_entry = manager.entry(veteran, quest.id)
    assert novice_entry is not None
    assert veteran_entry is not None
    novice_count = manager.quest_for(novice_entry).objective(kill.id).target_count  # type: ignore[union-attr]
    veteran_count = manager.quest_for(veteran_entry).objective(kill.id).target_count  # type: ignore[union-attr]
    assert len(mine) == novice_count
    assert len(theirs) == veteran_count
    # Different foes: the novice's at level 1, the veteran's at the archetype's
    # bound (one and a half times the wolves' level 2), both where the wolves are.
    assert {_level(quiet, f) for f in mine} == {1}
    assert {_level(quiet, f) for f in theirs} == {3}
    assert novice_entry.foes[kill.id].level == 1
    assert veteran_entry.foes[kill.id].level == 3
    ws = ws_of(quiet)
    assert {ws.room_key_of(f) for f in mine + theirs} == {kill.target_location}
    # The world's wolves are as they were for everyone else; the foes are runtime
    # entities no checkpoint writes.
    assert {w: _level(quiet, w) for w in world_wolves} == before
    assert not any(quiet.world.is_persistent(f) for f in mine + theirs)
    # The hunters are told where their quarry stands, once they have accepted.
    told = plain(veteran_session.text())
    quarry = (
        f"Your quarry: {theirs_count_words(veteran_count)} of level 3 at the Copse. "
        "Yours alone to hunt ('kill quarry'); the others of the kind count too."
    )
    assert quarry in told
    assert told.index("You accept") < told.index(quarry)

    # @quest inspect records the foes with the rest of the fitting.
    lines = await inspect_lines(QuestOps(quiet), quest)
    assert f"      foes of {kill.id} (level, own {novice_count}): 2 -> 1" in lines
    assert (
        f"      foes of {kill.id} (level, own {veteran_count}): 2 -> 3 "
        "(bounded by the archetype (rated level 8))"
    ) in lines


async def test_only_your_own_quarry_counts_and_nobody_else_may_fight_it(
    quiet: GameEngine,
) -> None:
    quest, kill = await _built(quiet)
    hero, _ = await online(quiet, "Hunter", level=2)
    stranger, _ = await online(quiet, "Stranger", level=2)
    await _accept(quiet, hero, quest.id)
    manager = qm(quiet)
    mine = _quarry(quiet, hero)
    assert mine
    copse = room_key(quiet, "road_copse")
    place(quiet, stranger, copse)
    make_strong(quiet, hero, level=2)
    place(quiet, hero, copse)
    await quiet.dispatch_events()

    # A stranger may not fight the hunter's quarry, and the quarry leaves them be.
    combat = quiet.services.get(CombatService)
    refusal = combat.attack_refusal(stranger, mine[0])
    assert refusal == "A grey wolf is Hunter's quarry, not yours."
    assert not combat.will_aggress(mine[0], stranger)
    assert combat.will_aggress(mine[0], hero)
    look = await cmd(quiet, stranger, "look")
    hunted = (
        f"{'A grey wolf is' if len(mine) == 1 else 'Two grey wolves are'} here, hunted by Hunter."
    )
    assert hunted in look
    # The hunter reads the quarry as theirs, not as hunted by themselves.
    own_look = await cmd(quiet, hero, "look")
    yours = f"{'A grey wolf is' if len(mine) == 1 else 'Two grey wolves are'} here: your quarry."
    assert yours in own_look
    assert "hunted by" not in own_look
    assert hunted in await cmd(quiet, stranger, "look")

    # The hunter's quarry counts for them, and the world's wolves (the real
    # threat) still do; the hunter's quarry counts for nobody else's quest.
    other, _ = await online(quiet, "Other", level=2)
    await _accept(quiet, other, quest.id)
    entry = manager.entry(hero, quest.id)
    other_entry = manager.entry(other, quest.id)
    assert entry is not None
    assert other_entry is not None
    place(quiet, other, copse)
    _kill(quiet, other, mine[0])
    await quiet.dispatch_events()
    assert other_entry.objectives[kill.id].count == 0
    assert entry.objectives[kill.id].count == 0
    _kill(quiet, hero, mine[1])
    await quiet.dispatch_events()
    assert entry.objectives[kill.id].count == 1
    assert manager.foes.tag_of(mine[1]) is None
    world_wolf = next(w for w in npcs(quiet, WOLF) if manager.foes.tag_of(w) is None)
    _kill(quiet, hero, world_wolf)
    await quiet.dispatch_events()
    assert entry.objectives[kill.id].count == 2


async def test_a_group_of_three_gets_the_group_rating(quiet: GameEngine) -> None:
    quest, _ = await _built(quiet)
    leader, _ = await online(quiet, "Leader", level=1)
    second, _ = await online(quiet, "Second", level=1)
    third, _ = await online(quiet, "Third", level=1)
    groups = quiet.services.get(Groups)
    groups.add(leader, second)
    groups.add(leader, third)
    await _accept(quiet, leader, quest.id)

    adjustment = qg_of(quiet).history.adjustment_of(quest.id, leader)
    assert adjustment is not None
    assert set(adjustment.characters) == {leader, second, third}
    assert adjustment.reason.startswith("a group of 3 (levels 1, 1, 1) rated level 3 against")
    # Three level-1 characters fight like a level-3 one: their foes are level 3.
    assert group_level([1, 1, 1]) == 3
    foes = _quarry(quiet, leader)
    assert foes
    assert {_level(quiet, f) for f in foes} == {3}
    # A solo level-1 character on the same quest gets level-1 foes.
    solo, _ = await online(quiet, "Solo", level=1)
    await _accept(quiet, solo, quest.id)
    assert {_level(quiet, f) for f in _quarry(quiet, solo)} == {1}
    # Group members present share the hunt: the quarry lets them fight it.
    combat = quiet.services.get(CombatService)
    assert combat.attack_refusal(second, foes[0]) is None


async def test_the_foes_go_away_with_the_quest_and_with_their_hunter(quiet: GameEngine) -> None:
    quest, _kill_objective = await _built(quiet)
    hero, session = await online(quiet, "Hunter", level=2)
    await _accept(quiet, hero, quest.id)
    foes = _quarry(quiet, hero)
    assert foes
    # Logging out takes them away; logging in brings back the ones still owed.
    quiet.events.emit(CharacterDisconnectedEvent(hero, session.id))
    await quiet.dispatch_events()
    assert _quarry(quiet, hero) == []
    quiet.events.emit(CharacterConnectedEvent(hero, session_for(quiet, hero).id))
    await quiet.dispatch_events()
    back = _quarry(quiet, hero)
    assert len(back) == len(foes)
    # Abandoning the quest removes them.
    qm(quiet).abandon_quest(hero, quest.id)
    await quiet.dispatch_events()
    assert _quarry(quiet, hero) == []
    assert not any(quiet.world.entity_exists(f) for f in back)


async def test_the_sweep_removes_foes_nobody_hunts(quiet: GameEngine) -> None:
    quest, _ = await _built(quiet)
    hero, _ = await online(quiet, "Hunter", level=2)
    await _accept(quiet, hero, quest.id)
    foes = _quarry(quiet, hero)
    manager = qm(quiet)
    assert manager.foes.sweep(lambda uid: True) == 0
    assert manager.foes.sweep(lambda uid: False) == len(foes)
    assert _quarry(quiet, hero) == []


async def test_a_restart_leaves_no_foes_behind_and_the_hunter_gets_them_back(
    tmp_path: Path,
) -> None:
    engine = make_engine(tmp_path, quiet=True, use_store=True)
    async with engine.lifespan():
        quest, kill = await _built(engine)
        hero, _ = await online(engine, "Hunter", level=8)
        await _accept(engine, hero, quest.id)
        owed = len(_quarry(engine, hero))
        assert owed
        wolves = len(npcs(engine, WOLF))
        await questgen_of(engine).flush()
    # No clean shutdown could have removed them: they were never written.
    engine = make_engine(tmp_path, quiet=True, use_store=True)
    async with engine.lifespan():
        assert _quarry(engine) == []
        assert len(npcs(engine, WOLF)) == wolves - owed
        entry = qm(engine).entry(hero, quest.id)
        assert entry is not None
        assert entry.foes[kill.id].level == 3
        session = session_for(engine, hero)
        engine.events.emit(CharacterConnectedEvent(hero, session.id))
        await engine.dispatch_events()
        assert len(_quarry(engine, hero)) == owed


def test_a_foe_level_stays_within_the_archetype_bounds() -> None:
    assert fitted_level(2, 1, 0.5, 1.5) == 1
    assert fitted_level(2, 8, 0.5, 1.5) == 3
    assert fitted_level(4, 1, 0.5, 1.5) == 2
    assert fitted_level(2, 8, 1.0, 1.0) == 2
    assert fitted_level(1, 9, 0.5, 1.0) == 1


async def test_rescaling_moves_health_damage_and_experience_with_the_level(
    quiet: GameEngine,
) -> None:
    from classic_rpg.combat.components import CombatProfile
    from classic_rpg.components import Health

    wolf = npcs(quiet, WOLF)[0]
    world = quiet.world
    health = world.get_component(wolf, Health).maximum
    profile = world.get_component(wolf, CombatProfile)
    xp, high = profile.xp_value, profile.damage_max
    rescale(quiet, wolf, 4)
    assert _level(quiet, wolf) == 4
    assert world.get_component(wolf, Health).maximum == health * 2
    assert profile.xp_value == xp * 2
    assert profile.damage_max == high * 2
    rescale(quiet, wolf, 4)
    assert _level(quiet, wolf) == 4
