"""The one resolver of admin commands: key, key without its pack, full name,
keyword or a word of the name, the name's start; ambiguity listed, never guessed."""

from __future__ import annotations

import pytest
from kits.heroes import new_character

from maid_engine.accounts.components import PlayerCharacter
from maid_engine.commands import CommandError
from maid_engine.engine import GameEngine
from maid_stdlib.world.components import NPC
from maid_stdlib.world.resolve import describe, find_entities, key_of, resolve_entity
from maid_stdlib.world.service import WorldService


def ws_of(engine: GameEngine) -> WorldService:
    return engine.services.get(WorldService)


async def test_every_way_of_naming_an_npc_finds_it(engine: GameEngine) -> None:
    ws = ws_of(engine)
    hollin = resolve_entity(ws, "hamlet:hollin")
    assert key_of(ws, hollin) == "hamlet:hollin"
    for words in ("hollin", "Hollin", "HAMLET:HOLLIN", "miller", "holl", "  hollin  "):
        assert resolve_entity(ws, words, (NPC,)) == hollin, words
    assert describe(ws, hollin) == "Hollin (hamlet:hollin, hamlet:mill)"


async def test_ambiguity_is_listed_and_nothing_is_said_plainly(engine: GameEngine) -> None:
    ws = ws_of(engine)
    wolves = find_entities(ws, "wolf", (NPC,))
    assert len(wolves) == 2
    with pytest.raises(CommandError) as err:
        resolve_entity(ws, "wolf", (NPC,))
    assert str(err.value) == (
        "'wolf' could be: a grey wolf (hamlet:wolf, hamlet:road_copse); "
        "a grey wolf (hamlet:wolf, hamlet:road_copse). Use the full name or the key."
    )
    with pytest.raises(CommandError, match=r"There is no NPC called 'nobody'\."):
        resolve_entity(ws, "nobody", (NPC,), what="NPC")
    assert find_entities(ws, "   ") == []


async def test_players_by_name_and_a_tighter_tier_wins(engine: GameEngine) -> None:
    ws = ws_of(engine)
    hal = new_character(engine, "Hal")
    hallam = new_character(engine, "Hallam")
    # "hal" is Hal's whole name: the exact tier wins over Hallam's prefix.
    assert resolve_entity(ws, "hal", (PlayerCharacter,)) == hal
    assert resolve_entity(ws, "halla", (PlayerCharacter,)) == hallam
    assert describe(ws, hal).startswith("Hal (player")
    # Players are only found where players are asked for.
    with pytest.raises(CommandError):
        resolve_entity(ws, "hallam", (NPC,))
