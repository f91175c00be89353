"""Help topics from pack data, ``help search``, the grouped index, typo suggestions
and the newbie guide."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
import yaml
from kits.engines import HAMLET, make_engine
from kits.heroes import new_character
from world.worldkit import connect, disconnect, write_yaml

from maid_engine.commands import Role
from maid_engine.content import ContentPack, PackContext, PackError
from maid_engine.engine import GameEngine
from maid_engine.net.rendering import render_output
from maid_engine.sessions import ColorMode
from maid_engine.testing import FakeSession, cmd, session_for
from maid_stdlib.help import HelpTopics
from maid_stdlib.help.guide import GUIDE_HEADER, NewbieGuide
from maid_stdlib.help.topics import HelpTopic, parse_topics, topic_files


async def test_index_groups_commands_and_topics(engine: GameEngine) -> None:
    hero = new_character(engine, "Ada")
    out = await cmd(engine, hero, "help")
    assert out.startswith("Commands you can use")
    flat = " ".join(out.split())  # the index is wrapped to the window
    general = flat.split("|cGeneral:|n ", 1)[1].split(" |c", 1)[0]
    assert {"help", "look", "score", "who"} <= set(general.split(", "))
    topics = flat.split("Topics (type", 1)[1]
    assert "|cGetting started:|n commands, newbie" in topics
    assert "narrated" in topics
    assert "config" in topics
    # The stdlib has no RPG rules: their topics are not there.
    assert "combat" not in topics


async def test_the_index_names_the_other_words_a_command_answers_to(rpg: GameEngine) -> None:
    # A player looking for "eat" found nothing: it runs drink.
    flat = " ".join((await cmd(rpg, new_character(rpg, "Ada"), "help")).split())
    assert "drink/eat/quaff," in flat
    assert "kill/attack," in flat
    assert " look," in flat  # not "look/l": abbreviations are left out
    assert " inventory," in flat
    assert "inventory/" not in flat


async def test_topics_of_a_later_pack_add_and_replace(rpg: GameEngine) -> None:
    hero = new_character(rpg, "Ada")
    combat = await cmd(rpg, hero, "help combat")
    assert combat.startswith("|cFighting|n  (help combat)")
    assert "flee" in combat
    assert "|gSee also:|n kill, consider, flee, wimpy, death" in combat
    assert (await cmd(rpg, hero, "help fight")) == combat  # a keyword
    assert "near thing" in await cmd(rpg, hero, "help pyrrhic")
    assert "never lost" in await cmd(rpg, hero, "help death")
    topics = rpg.services.get(HelpTopics)
    combat_topic = topics.get("combat")
    assert combat_topic is not None
    assert combat_topic.pack == "classic_rpg.rules"


async def test_a_topic_and_a_command_of_one_name_show_both(rpg: GameEngine) -> None:
    hero = new_character(rpg, "Ada")
    out = await cmd(rpg, hero, "help quests")
    assert out.startswith("|cQuests|n  (help quests)")
    assert "\n\n|wThe command:|n |cquests|n (also: questlog, journal)\n" in out


async def test_command_help_prefixes_and_unknown_words(engine: GameEngine) -> None:
    hero = new_character(engine, "Ada")
    assert (await cmd(engine, hero, "help look")).startswith("|clook|n (also: l)\nLook around")
    assert (await cmd(engine, hero, "help sc")).startswith("|cscore|n")
    assert (await cmd(engine, hero, "help narr")).startswith("|cNarrated rooms|n")
    missing = await cmd(engine, hero, "help lok")
    assert missing.startswith("There is no help on 'lok'. Did you mean 'look'?")
    assert "'help search lok'" in missing
    assert "There is no help on '@shutdown'" in await cmd(engine, hero, "help @shutdown")
    assert "could mean" in await cmd(engine, hero, "help @", role=Role.ADMIN)
    assert "could mean: channels, commands." in await cmd(engine, hero, "help comm")
    assert (await cmd(engine, hero, "help co")).startswith("|cconfig|n")


async def test_help_search_finds_commands_and_topics(engine: GameEngine) -> None:
    hero = new_character(engine, "Ada")
    out = await cmd(engine, hero, "help search colour")
    assert out.splitlines()[0] == "Help that mentions 'colour':"
    assert "|cTopics:|n config (Your settings)" in out
    out = await cmd(engine, hero, "help search tell")
    commands = next(ln for ln in out.splitlines() if ln.startswith("|cCommands:|n"))
    assert commands.split("|n ", 1)[1].split(", ")[0] == "tell"  # named first
    assert "Nothing in the help mentions 'xyzzy'." in await cmd(engine, hero, "help search xyzzy")
    assert "Usage: help search <word>" in await cmd(engine, hero, "help search")
    # Admin commands stay hidden from players in the search too.
    assert "@shutdown" not in await cmd(engine, hero, "help search shut")
    assert "@shutdown" in await cmd(engine, hero, "help search shut", role=Role.ADMIN)


async def test_mistyped_commands_get_suggestions(engine: GameEngine) -> None:
    hero = new_character(engine, "Ada")
    assert (await cmd(engine, hero, "lok")) == "Huh? 'lok' is not a command. Did you mean 'look'?"
    assert "Did you mean 'score'?" in await cmd(engine, hero, "scroe")
    nothing = await cmd(engine, hero, "xyzzy")
    assert nothing == "Huh? 'xyzzy' is not a command. Type 'help' for a list."
    # Commands a player may not use are never suggested.
    assert "'@who'" not in await cmd(engine, hero, "@whoo")
    assert await cmd(engine, hero, "@whoo") == "Huh? '@whoo' is not a command. Did you mean 'who'?"
    assert "Did you mean '@who' or 'who'?" in await cmd(engine, hero, "@whoo", role=Role.ADMIN)


async def test_the_newbie_guide_shows_once(engine: GameEngine) -> None:
    hero = new_character(engine, "Ada", online=False)
    session = await connect(engine, hero)
    text = session.text()
    assert GUIDE_HEADER in text
    assert text.index("Exits:") < text.index(GUIDE_HEADER)  # after the room
    assert "help search" in text
    assert engine.world.has_component(hero, NewbieGuide)
    await disconnect(engine, session)
    again = await connect(engine, hero)
    assert GUIDE_HEADER not in again.text()
    assert "A short guide for new players" in await cmd(engine, hero, "help newbie")


async def test_the_guide_is_kept_with_the_character(tmp_path: Path) -> None:
    engine = make_engine(tmp_path, HAMLET, tick=None, seed=None, use_store=True)
    async with engine.lifespan():
        hero = new_character(engine, "Ada", online=False)
        await connect(engine, hero)
        await engine.save_entities_now()
    again = make_engine(tmp_path, HAMLET, tick=None, seed=None, use_store=True)
    async with again.lifespan():
        assert again.world.has_component(hero, NewbieGuide)
        session = await connect(again, hero)
        assert GUIDE_HEADER not in session.text()


def _pack_with_help(root: Path, files: dict[str, Any]) -> type:
    """A pack that adds nothing but the help files in its folder."""
    for name, data in files.items():
        write_yaml(root / name, data)

    class Helpful(ContentPack):
        name = "helpful"
        requires = ("stdlib",)

        @property
        def path(self) -> Path:
            return root

        def register(self, ctx: PackContext) -> None:
            pass

    return Helpful


async def test_a_pack_adds_and_replaces_topics(tmp_path: Path) -> None:
    pack = _pack_with_help(
        tmp_path / "pack",
        {
            "help.yaml": {"newbie": {"title": "Our guide", "text": "Read the sign."}},
            "help/extra.yaml": {
                "fishing": {
                    "text": "Cast a line.",
                    "keywords": ["fish"],
                    "category": "pastimes",
                    "see_also": "newbie",
                }
            },
        },
    )
    engine = make_engine(tmp_path, [*HAMLET, pack], tick=None, seed=None)
    async with engine.lifespan():
        hero = new_character(engine, "Ada", online=False)
        session = await connect(engine, hero)
        assert "Read the sign." in session.text()
        assert (await cmd(engine, hero, "help fish")).startswith("|cfishing|n  (help fishing)")
        assert "|cPastimes:|n fishing" in await cmd(engine, hero, "help")


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ({"bad": {"title": "No text"}}, "bad: 'text' is required"),
        ({"two words": {"text": "x"}}, "a topic name is one word"),
        ({"odd": {"text": "x", "colour": "red"}}, "unknown field(s) colour"),
        ({"odd": {"text": "x", "keywords": [1]}}, "lists of words"),
        ({"odd": "just text"}, "must be a mapping"),
        ({"odd": {"text": "x", "title": 3}}, "are text"),
        (["a", "list"], "must map topic names"),
    ],
)
def test_bad_topic_entries_are_named(data: Any, problem: str) -> None:
    topics, problems = parse_topics("p", Path("help.yaml"), data)
    assert not topics
    assert problem in str(problems[0])


async def test_a_broken_topic_file_stops_the_start(tmp_path: Path) -> None:
    pack = _pack_with_help(tmp_path / "pack", {"help.yaml": "topic: [unclosed"})
    engine = make_engine(tmp_path, [*HAMLET, pack], tick=None, seed=None)
    with pytest.raises(PackError, match="help topics: cannot read"):
        async with engine.lifespan():
            pass


def test_replacing_a_topic_drops_its_old_keywords() -> None:
    topics = HelpTopics([HelpTopic("a", "A", "first", keywords=("alpha", "b"))])
    topics.add(HelpTopic("b", "B", "own key wins"))
    topics.add(HelpTopic("a", "A2", "second"))
    assert topics.get("alpha") is None
    b = topics.get("b")
    assert b is not None
    assert b.title == "B"
    assert "a" in topics
    assert len(topics) == 2


async def test_idle_output_prompts_only_someone_playing(engine: GameEngine) -> None:
    hero = new_character(engine, "Ada")
    playing = session_for(engine, hero)
    engine.sessions.session_idle_output(playing)
    assert len(playing.prompts) == 1
    at_login = FakeSession()
    engine.sessions.session_idle_output(at_login)
    assert at_login.prompts == []


async def test_staff_categories_come_last(engine: GameEngine) -> None:
    hero = new_character(engine, "Ada")
    out = await cmd(engine, hero, "help", role=Role.ADMIN)
    order = [ln.split(":|n", 1)[0] for ln in out.splitlines() if ln.startswith("|c")]
    commands = order[: order.index("|cAdmin") + 1]
    assert commands[-2:] == ["|cBuilding", "|cAdmin"]
    assert commands.index("|cNarration") < commands.index("|cBuilding")


async def test_pipes_in_help_and_refusals_are_text_not_colour(rpg: GameEngine) -> None:
    """A docstring's "<number|word>" and a key in a refusal show their pipe: "|w" and
    "|g" in them are not white and green."""
    from maid_engine.commands import CommandContext, CommandError, command
    from maid_engine.net.markup import strip_markup

    @command("tension", category="general")
    def tension(ctx: CommandContext) -> None:
        """Test command."""
        raise CommandError("No situation tension:bandits|guard.")

    rpg.commands.add(tension)
    hero = new_character(rpg, "Ada")
    page = await cmd(rpg, hero, "help quest")
    assert "<number||word>" in page
    assert "quest <number|word>" in strip_markup(page)
    refused = await cmd(rpg, hero, "tension")
    assert strip_markup(refused) == "No situation tension:bandits|guard."


REPO = Path(__file__).parents[2]
#: Every pack folder of this repository that ships help pages.
_HELP_FOLDERS = [
    folder
    for root in ("maid_stdlib", "classic_rpg", "content_packs")
    for folder in [REPO / root, *sorted((REPO / root).rglob("*"))]
    if folder.is_dir() and topic_files(folder)
]


def _shipped_topics() -> list[HelpTopic]:
    topics: list[HelpTopic] = []
    for folder in _HELP_FOLDERS:
        for file in topic_files(folder):
            found, problems = parse_topics(folder.name, file, yaml.safe_load(file.read_text()))
            assert not problems, problems
            topics += found
    return topics


def test_shipped_help_pages_are_paragraphs_not_hard_wrapped_lines() -> None:
    """The session wraps to the client's width: a page wrapped by its author at 76
    columns, wrapped again at 40, leaves a word or two alone on every other line.
    Prose lines (at the margin) each end a sentence; indented lines are tables."""
    topics = _shipped_topics()
    assert {t.key for t in topics} >= {"newbie", "combat", "channels", "quests"}
    assert {t.pack for t in topics} >= {"help", "classic_rpg"}  # the folders
    for topic in topics:
        lines = topic.text.rstrip("\n").split("\n")
        for line in lines[:-1]:
            if line and not line[0].isspace():
                assert line.rstrip()[-1] in ".!?:", (topic.pack, topic.key, line)


def test_a_help_page_fills_a_narrow_window() -> None:
    """Rendered for a 40-column client, every shipped page's paragraphs fill their
    lines: no word is left alone on a line that had room for the next one."""
    for topic in _shipped_topics():
        page = render_output(topic.text, ColorMode.NONE, 40)
        _fills_its_lines(page.split("\n"), 40)


def _fills_its_lines(prose: list[str], width: int) -> None:
    for line, after in itertools.pairwise(prose):
        if line[:1].isspace() or after[:1].isspace() or not line.strip() or not after.strip():
            continue  # a table's row, or a paragraph's end
        if not line.rstrip().endswith((".", "?", "!", ":")):
            assert len(line.rstrip()) + 1 + len(after.split()[0]) > width, (line, after)


def test_command_help_is_unwrapped_into_paragraphs() -> None:
    from maid_engine.commands import CommandContext, command

    @command("fathom", category="general")
    def fathom(ctx: CommandContext) -> None:
        """Sound the depth of the water under you: a line
        wrapped in the source.

        Usage: fathom [<dir>]
        The usage line is a line of its own, and so
        is a labelled one.
        Example: fathom north, fathom
        south (an example may run on)

          fathom        sound here
          fathom <dir>  sound the next room
        - a list item stays on its line
        """

    assert fathom.help.split("\n") == [
        "Sound the depth of the water under you: a line wrapped in the source.",
        "",
        "Usage: fathom [<dir>]",
        "The usage line is a line of its own, and so is a labelled one.",
        "Example: fathom north, fathom south (an example may run on)",
        "",
        "  fathom        sound here",
        "  fathom <dir>  sound the next room",
        "- a list item stays on its line",
    ]
