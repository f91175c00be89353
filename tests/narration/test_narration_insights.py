"""``@state insights`` (builders) and ``state last`` (players): the turn log, shown."""

from __future__ import annotations

from pathlib import Path
from uuid import UUID

import pytest
from fakellm import FakeOpenAIServer
from narration.narrkit import (
    CELLAR,
    NarrationPack,
    block,
    data_pack,
    fast,
    player,
    scripted,
    service,
    settle,
    until,
    write_pack,
)
from narration.telnetkit import Client

from maid_engine.accounts import AccountService
from maid_engine.app import MaidServer
from maid_engine.commands import Role
from maid_engine.config import Settings
from maid_engine.engine import GameEngine
from maid_engine.llm import LiteLLMProvider, LLMResult, LLMTimeout
from maid_engine.net.wrapping import visible_width
from maid_engine.testing import cmd, session_for
from maid_stdlib.narration import LLMService, NarrationConfig
from maid_stdlib.world.pager import MORE_PROMPT

FIRST = block(
    '{"player.hp": -45, "world.day": -1, "player.mana": +5,'
    ' "milestones.rescue_gwen": true, "npc.gwen.trsut": 5}',
    "Aldric smashes the lock.",
)
SECOND = block('{"player.hp": +80, "player.mana": -5}', "Aldric drinks deep.")
THIRD = block('{"world.day": 1}', "Cara sleeps.")
LONG_ACTION = "smash the lock of the cage with the heavy iron bar I found under the straw"

#: What a builder reads; {0}..{2} are the stored latencies, newest turn first.
INSIGHTS = """\
The Cellar: the last 3 turns (of 5 asked), newest first.

Turn 3: Cara - "sleep by the wall"
  Proposed: world.day +1
  Applied:
    - world.day 1 -> 2 (+1)
  Clamped: none
  Refused: none
  Fix strings for the next prompt: none
  Model: scripted; 959 tokens (950 prompt, 9 completion); {0} s

Turn 2: Aldric - "drink the potion"
  Proposed: player.hp +80, player.mana -5
  Read leniently: +N numbers
  Applied:
    - player.hp 60 -> 90 (+30)
  Clamped:
    - player.hp: asked +80, limited to 30 per turn
  Refused:
    - player.mana -5: cooling down [cooldown]
  Fix strings for the next prompt:
    - `player.mana` changed at action 1 and has a cooldown of 2; leave it out
      until action 3.
  Model: scripted; 930 tokens (910 prompt, 20 completion); {1} s

Turn 1: Aldric - "smash the lock of the cage with the heavy …"
  Proposed: player.hp -45, world.day -1, player.mana +5,
      milestones.rescue_gwen true, npc.gwen.trsut +5
  Read leniently: +N numbers
  Applied:
    - player.hp 90 -> 60 (-30)
    - player.mana 20 -> 25 (+5)
    - milestones.rescue_gwen reached
  Clamped:
    - player.hp: asked -45, limited to 30 per turn
  Refused:
    - world.day -1: counters only go up [counter_negative]
    - npc.gwen.trsut +5: no such stat [unknown_path]
  Fix strings for the next prompt:
    - `world.day` is a counter: it only goes up. Send a positive change such
      as +1, or leave it out.
    - `npc.gwen.trsut` is not in the world state. Did you mean
      `npc.gwen.trust`?
  Model: scripted; 840 tokens (800 prompt, 40 completion); {2} s"""


def answer(text: str, prompt: int, completion: int) -> LLMResult:
    return LLMResult(text=text, prompt_tokens=prompt, completion_tokens=completion)


async def three_turns(engine: GameEngine) -> tuple[UUID, UUID]:
    """Aldric acts twice (clamps and refusals both times), then Cara once."""
    fast(engine, scripted(answer(FIRST, 800, 40), answer(SECOND, 910, 20), answer(THIRD, 950, 9)))
    hero, _ = player(engine, "Aldric")
    cara, _ = player(engine, "Cara")
    for who, line in (
        (hero, f"act {LONG_ACTION}"),
        (hero, "act drink the potion"),
        (cara, "act sleep by the wall"),
    ):
        await cmd(engine, who, line)
        await settle(service(engine).drain())
    return hero, cara


async def expected_insights(engine: GameEngine) -> str:
    turns = await service(engine).log.recent(CELLAR, 3)
    return INSIGHTS.format(*(f"{t.latency:.2f}" for t in turns))


async def test_builders_see_every_stored_detail_of_the_last_turns(engine: GameEngine) -> None:
    await three_turns(engine)
    builder, _ = player(engine, "Bryn", role=Role.BUILDER)
    session_for(engine, builder, Role.BUILDER).caps.height = 200  # one page
    out = await cmd(engine, builder, "@state insights", role=Role.BUILDER)
    assert out == await expected_insights(engine)
    assert max(len(line) for line in out.splitlines()) <= 80


async def test_insights_are_paged_at_80_columns(engine: GameEngine) -> None:
    await three_turns(engine)
    builder, _ = player(engine, "Bryn", role=Role.BUILDER)
    first = await cmd(engine, builder, "@state insights", role=Role.BUILDER)
    assert first.splitlines()[-1] == MORE_PROMPT
    assert len(first.splitlines()) == 23
    rest = await cmd(engine, builder, "more all", role=Role.BUILDER)
    whole = "\n".join(first.splitlines()[:-1] + rest.splitlines())
    assert whole == await expected_insights(engine)
    assert all(visible_width(line) <= 80 for line in whole.splitlines())


async def test_insights_count_is_bounded(engine: GameEngine) -> None:
    await three_turns(engine)
    builder, _ = player(engine, "Bryn", role=Role.BUILDER)
    session_for(engine, builder, Role.BUILDER).caps.height = 200

    async def insights(args: str) -> str:
        return await cmd(engine, builder, f"@state insights{args}", role=Role.BUILDER)

    assert (await insights(" 1")).splitlines()[0] == "The Cellar: the last 1 turn, newest first."
    assert "Turn 2" not in await insights(" 1")
    assert (await insights(" 500")).splitlines()[0] == (
        "The Cellar: the last 3 turns (of 20 asked), newest first."
    )
    usage = "Usage: @state insights [<n>] (1 to 20 turns)"
    assert await insights(" 0") == usage
    assert await insights(" five") == usage
    assert await insights(" 2 3") == usage


async def test_insights_before_any_turn_and_for_players(engine: GameEngine) -> None:
    builder, _ = player(engine, "Bryn", role=Role.BUILDER)
    hero, _ = player(engine, "Aldric")
    assert await cmd(engine, builder, "@state insights", role=Role.BUILDER) == (
        "The Cellar: no turns have been told here yet."
    )
    assert "Huh?" in await cmd(engine, hero, "@state insights")


async def test_a_failed_turn_says_so_and_shows_what_was_stored(engine: GameEngine) -> None:
    fast(engine, scripted(LLMTimeout("slow")))
    hero, _ = player(engine, "Aldric")
    builder, _ = player(engine, "Bryn", role=Role.BUILDER)
    await cmd(engine, hero, "act wait")
    await settle(service(engine).drain())
    assert await cmd(engine, builder, "@state insights", role=Role.BUILDER) == "\n".join(
        [
            "The Cellar: the last 1 turn (of 5 asked), newest first.",
            "",
            'Turn 1: Aldric - "wait"',
            "  Outcome: the model timed out: fallback narration, nothing applied",
            "  Proposed: (no state block)",
            "  Applied: none",
            "  Clamped: none",
            "  Refused: none",
            "  Fix strings for the next prompt: none",
            "  Model: no model call",
        ]
    )
    assert await cmd(engine, hero, "state last") == (
        'Your last turn here: "wait"\n  The story did not answer that one, so nothing changed.'
    )


async def test_players_see_their_own_last_turn_in_plain_words(engine: GameEngine) -> None:
    hero, cara = await three_turns(engine)
    assert await cmd(engine, hero, "state last") == "\n".join(
        [
            'Your last turn here: "drink the potion"',
            "  What changed:",
            "    - hp +30 (limited to 30 per turn)",
            "  What the story could not do:",
            "    - mana: cooling down",
        ]
    )
    assert await cmd(engine, cara, "state last") == "\n".join(
        ['Your last turn here: "sleep by the wall"', "  What changed:", "    - day +1"]
    )
    newcomer, _ = player(engine, "Dara")
    assert await cmd(engine, newcomer, "state last") == "You have not acted here yet."
    assert await cmd(engine, hero, "state lost") == "Usage: state, or state last"


async def test_state_last_shows_a_first_turn_with_goals_and_refusals(engine: GameEngine) -> None:
    fast(engine, scripted(answer(FIRST, 800, 40)))
    hero, _ = player(engine, "Aldric")
    await cmd(engine, hero, f"act {LONG_ACTION}")
    await settle(service(engine).drain())
    out = await cmd(engine, hero, "state last")
    assert out == "\n".join(
        [
            'Your last turn here: "smash the lock of the cage with the heavy iron bar I …"',
            "  What changed:",
            "    - hp -30 (limited to 30 per turn)",
            "    - mana +5",
            "    - rescue gwen: reached",
            "  What the story could not do:",
            "    - day: counters only go up",
            "    - trsut: this place keeps no such count",
        ]
    )
    # No fix strings, codes or model details for players.
    for internal in ("`", "[", "tokens", "player."):
        assert internal not in out


async def test_help_comes_from_the_docstrings(engine: GameEngine) -> None:
    hero, _ = player(engine, "Aldric", role=Role.BUILDER)
    assert "state last   what your last action here changed" in await cmd(
        engine, hero, "help state"
    )
    assert "@state insights [<n>]" in await cmd(engine, hero, "help @state", role=Role.BUILDER)


# -- over real telnet, with the model behind LiteLLM --------------------------------

TELNET_REPLY = (
    "Aldric hammers at the cage lock until it gives, and Gwen slips out.\n"
    '```state\n{"player.hp": -45, "world.day": -1, "milestones.rescue_gwen": true}\n```'
)


async def login(port: int, name: str) -> Client:
    client = await Client.connect(port)
    await client.wait_for("What is your name?")
    client.send_line(f"create {name} correct-horse-battery")
    await client.wait_for("The Cellar")
    return client


async def reply_to(client: Client, line: str, last: str) -> str:
    """What ``line`` showed: everything up to ``last`` and the prompt after it."""
    start = len(client.text())
    client.send_line(line)
    await client.wait_for(last)
    await until(lambda: client.text().endswith("\n> "))
    return client.text()[start:].removesuffix("\n> ")


@pytest.mark.slow  # LiteLLM's import alone takes seconds
async def test_builder_and_player_read_the_turn_over_telnet(tmp_path: Path) -> None:
    root = write_pack(tmp_path / "testpack", start="cellar")
    with FakeOpenAIServer() as llm:
        llm.ok(TELNET_REPLY, prompt_tokens=700, completion_tokens=30)
        settings = Settings(
            data_dir=tmp_path / "data",
            telnet_port=0,
            metrics_port=0,
            scrypt_n=2**10,
            llm_model="openai/test-model",
            llm_api_base=llm.url,
            llm_api_key="sk-test",
        )
        server = MaidServer(
            settings, packs=[NarrationPack, data_pack(root)], announce=lambda _line: None
        )
        async with server.lifespan():
            provider = server.engine.services.get(LLMService).provider
            assert isinstance(provider, LiteLLMProvider)
            await provider.warm_up()
            svc = service(server.engine)
            svc.config = NarrationConfig(unfolding_after=30.0, timeout=30.0)
            aldric = await login(server.telnet_port, "Aldric")
            bryn = await login(server.telnet_port, "Bryn")
            await server.engine.services.get(AccountService).set_role("Bryn", Role.BUILDER)
            try:
                aldric.send_line("break the cage lock with the iron bar")
                await aldric.wait_for("Gwen slips out.")
                await settle(svc.drain())
                turn = (await svc.log.recent(CELLAR, 1))[0]
                assert (turn.prompt_tokens, turn.completion_tokens) == (700, 30)
                seen = await reply_to(aldric, "state last", "- day: counters only go up")
                assert seen == "\n".join(
                    [
                        'Your last turn here: "break the cage lock with the iron bar"',
                        "  What changed:",
                        "    - hp -30 (limited to 30 per turn)",
                        "    - rescue gwen: reached",
                        "  What the story could not do:",
                        "    - day: counters only go up",
                    ]
                )
                usage = f"{turn.model}; 730 tokens (700 prompt, 30 completion)"
                seen = await reply_to(bryn, "@state insights", f"Model: {usage}")
                assert seen == "\n".join(
                    [
                        "The Cellar: the last 1 turn (of 5 asked), newest first.",
                        "",
                        'Turn 1: Aldric - "break the cage lock with the iron bar"',
                        "  Proposed: player.hp -45, world.day -1, milestones.rescue_gwen true",
                        "  Applied:",
                        "    - player.hp 90 -> 60 (-30)",
                        "    - milestones.rescue_gwen reached",
                        "  Clamped:",
                        "    - player.hp: asked -45, limited to 30 per turn",
                        "  Refused:",
                        "    - world.day -1: counters only go up [counter_negative]",
                        "  Fix strings for the next prompt:",
                        "    - `world.day` is a counter: it only goes up. Send a positive change"
                        " such",
                        "      as +1, or leave it out.",
                        f"  Model: {usage}; {turn.latency:.2f} s",
                    ]
                )
                assert all(len(line) <= 80 for line in seen.splitlines())
                # Players cannot ask for the builders' view.
                seen = await reply_to(aldric, "@state insights", "Huh?")
                assert "Huh? '@state' is not a command." in seen
                assert "Proposed" not in seen
            finally:
                await aldric.close()
                await bryn.close()
