"""``help``: the index, a command's help, topic pages and ``help search``."""

from __future__ import annotations

import difflib

from maid_engine.commands import Command, CommandContext, CommandError, command
from maid_engine.net.markup import escape_markup
from maid_stdlib.help.topics import HelpTopic, HelpTopics
from maid_stdlib.world.pager import page

#: Display order of command categories: these first, then others alphabetically,
#: then the staff's (building, admin) last.
CATEGORY_ORDER = (
    "general", "movement", "communication", "items", "combat", "group", "shops", "quests",
)  # fmt: skip
STAFF_CATEGORIES = ("building", "admin")


def _category_key(category: str) -> tuple[int, str]:
    if category in CATEGORY_ORDER:
        return (CATEGORY_ORDER.index(category), category)
    if category in STAFF_CATEGORIES:
        return (len(CATEGORY_ORDER) + 1 + STAFF_CATEGORIES.index(category), category)
    return (len(CATEGORY_ORDER), category)


def command_page(cmd: Command) -> str:
    aliases = f" (also: {', '.join(cmd.aliases)})" if cmd.aliases else ""
    # A docstring is plain text: "<number|word>" must not turn the rest white.
    return f"|c{cmd.key}|n{aliases}\n{escape_markup(cmd.help) or 'No help written yet.'}"


def _visible(ctx: CommandContext) -> list[Command]:
    return ctx.engine.commands.visible_to(ctx.role)


def _index_name(cmd: Command) -> str:
    """A command as the index lists it: its key, and the other words that run it
    ("drink/eat/quaff": a player looking for ``eat`` finds it), but not the
    abbreviations and signs ("l", "inv", "'")."""
    words = [a for a in cmd.aliases if len(a) >= 3 and a.isalpha() and not cmd.key.startswith(a)]
    return "/".join([cmd.key, *sorted(words)])


def index(ctx: CommandContext, topics: HelpTopics) -> str:
    groups: dict[str, list[str]] = {}
    for cmd in _visible(ctx):
        groups.setdefault(cmd.category, []).append(_index_name(cmd))
    lines = ["Commands you can use (type 'help <command>' for details):"]
    for category in sorted(groups, key=_category_key):
        lines.append(f"|c{category.capitalize()}:|n {', '.join(sorted(groups[category]))}")
    if len(topics):
        lines.append("Topics (type 'help <topic>'; 'help search <word>' searches everything):")
        for category, found in topics.by_category().items():
            lines.append(f"|c{category.capitalize()}:|n {', '.join(t.key for t in found)}")
    return "\n".join(lines)


def search(ctx: CommandContext, topics: HelpTopics, word: str) -> str:
    """Commands and topics that mention ``word``: names first, then help texts."""
    word = word.strip().casefold()
    if not word:
        raise CommandError("Usage: help search <word>")
    visible = _visible(ctx)
    named = [c for c in visible if any(word in n for n in c.names)]
    in_text = [c for c in visible if c not in named and word in c.help.casefold()]
    found_topics = topics.search(word)
    if not named and not in_text and not found_topics:
        return f"Nothing in the help mentions '{word}'."
    lines = [f"Help that mentions '{word}':"]
    if named or in_text:
        lines.append("|cCommands:|n " + ", ".join(c.key for c in [*named, *in_text]))
    if found_topics:
        lines.append("|cTopics:|n " + ", ".join(f"{t.key} ({t.title})" for t in found_topics))
    return "\n".join(lines)


def _topic_with_command(topic: HelpTopic, cmd: Command | None) -> str:
    if cmd is None:
        return topic.render()
    # Labelled, so the command's page does not read as more of the topic's.
    return f"{topic.render()}\n\n|wThe command:|n {command_page(cmd)}"


def lookup(ctx: CommandContext, topics: HelpTopics, wanted: str) -> str:
    """The page ``help <wanted>`` shows."""
    topic = topics.get(wanted)
    matches = ctx.engine.commands.match(wanted, ctx.role)
    visible = [c for c in matches if c.permission <= ctx.role]
    exact = [c for c in visible if wanted in c.names]
    if topic is not None:
        # A topic and a command of the same name ("quests"): the topic, then the command.
        return _topic_with_command(topic, exact[0] if exact else None)
    if len(visible) == 1:
        return command_page(visible[0])
    if len(visible) > 1:
        raise CommandError(f"'{wanted}' could mean: {', '.join(c.key for c in visible)}.")
    prefixed = topics.starting_with(wanted)
    if len(prefixed) == 1:
        return prefixed[0].render()
    if prefixed:
        raise CommandError(f"'{wanted}' could mean: {', '.join(t.key for t in prefixed)}.")
    names = [n for c in _visible(ctx) for n in c.names if len(n) > 1] + topics.names()
    close = difflib.get_close_matches(wanted, names, n=3, cutoff=0.66)
    hint = f" Did you mean {' or '.join(repr(n) for n in close)}?" if close else ""
    raise CommandError(
        f"There is no help on '{wanted}'.{hint} Type 'help' for a list, or 'help search {wanted}'."
    )


@command("help", aliases=("?",), category="general", needs_character=False)
def help_(ctx: CommandContext) -> None:
    """List the commands and topics, show one of them, or search the help.

    Usage:
      help                  every command you may use and every topic, by category
      help <command>        how to use that command
      help <topic>          a page about the game (try 'help newbie' or 'help combat')
      help search <word>    commands and topics that mention a word
    """
    topics: HelpTopics = ctx.service(HelpTopics)
    wanted = " ".join(ctx.args.lower().split())
    if not wanted:
        page(ctx, index(ctx, topics))
        return
    verb, _, rest = wanted.partition(" ")
    if verb == "search" and (rest or "search" not in topics):
        page(ctx, search(ctx, topics, rest))
        return
    page(ctx, lookup(ctx, topics, wanted))


COMMANDS: list[Command] = [help_]
