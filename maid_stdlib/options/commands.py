"""``config``: show and change the settings kept with your character."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from maid_engine.commands import Command, CommandContext, CommandError, command
from maid_stdlib.options.components import PlayerOptions
from maid_stdlib.options.prompt import MAX_PROMPT, PromptTokens, clean_format
from maid_stdlib.options.session import apply_options

#: Longest page a player may ask for (more is the same as no paging at all).
MAX_PAGE_LENGTH = 500
ON = ("on", "yes", "true", "1")
OFF = ("off", "no", "false", "0")
WINDOW = "0: your window's height"


def _switch(value: str, current: bool) -> bool:
    """``on``/``off``, or the opposite of ``current`` when no value is given."""
    word = value.lower()
    if not word:
        return not current
    if word in ON:
        return True
    if word in OFF:
        return False
    raise CommandError(f"'{value}' is not on or off.")


@dataclass(frozen=True)
class Setting:
    name: str
    aliases: tuple[str, ...]
    describe: str
    show: Callable[[PlayerOptions], str]


def _colour_shown(o: PlayerOptions) -> str:
    return {None: "as your client says", True: "on", False: "off"}[o.color]


SETTINGS = (
    Setting("colour", ("color", "ansi"), "colour codes in what the game sends", _colour_shown),
    Setting("prompt", (), "your prompt ('help prompt')", lambda o: o.prompt.strip() or "default"),
    Setting(
        "pagelength",
        ("pager", "page", "lines"),
        "lines per page of long output",
        lambda o: str(o.page_length) if o.page_length else "your window's height",
    ),
    Setting(
        "brief",
        (),
        "rooms without their description when walking",
        lambda o: "on" if o.brief else "off",
    ),
    Setting(
        "autoexits",
        ("exits",),
        "the exits line under a room",
        lambda o: "on" if o.auto_exits else "off",
    ),
)


def _find(name: str) -> Setting:
    word = name.lower()
    for setting in SETTINGS:
        if word == setting.name or word in setting.aliases:
            return setting
    matches = [s for s in SETTINGS if s.name.startswith(word)]
    if len(matches) == 1:
        return matches[0]
    names = ", ".join(s.name for s in SETTINGS)
    raise CommandError(f"There is no setting '{name}'. Settings: {names}.")


def _listing(options: PlayerOptions) -> str:
    lines = ["Your settings (change one with 'config <setting> <value>'):"]
    width = max(len(s.name) for s in SETTINGS)
    for setting in SETTINGS:
        lines.append(
            f"  |c{setting.name:<{width}}|n  {setting.show(options)}  ({setting.describe})"
        )
    return "\n".join(lines)


def _tokens(ctx: CommandContext) -> str:
    tokens: PromptTokens = ctx.service(PromptTokens)
    listed = ", ".join(f"%{t.letter} {t.description}" for t in tokens.all())
    return f"Prompt tokens: {listed}, %% a percent sign."


def _set(ctx: CommandContext, options: PlayerOptions, setting: Setting, value: str) -> str:
    if setting.name == "colour":
        options.color = _switch(value, options.color is not False)
        return f"Colour is {'on' if options.color else 'off'}."
    if setting.name == "brief":
        options.brief = _switch(value, options.brief)
        return (
            "Brief mode is on: walking shows rooms without their description."
            if (options.brief)
            else "Brief mode is off: rooms show their description."
        )
    if setting.name == "autoexits":
        options.auto_exits = _switch(value, options.auto_exits)
        return f"The exits line is {'shown' if options.auto_exits else 'hidden'} under rooms."
    if setting.name == "pagelength":
        try:
            length = int(value)
        except ValueError:
            raise CommandError(
                "Usage: config pagelength <lines>  (0: your window's height)"
            ) from None
        if not 0 <= length <= MAX_PAGE_LENGTH:
            raise CommandError(f"A page is 0 to {MAX_PAGE_LENGTH} lines (0: your window's height).")
        if 0 < length < 5:
            raise CommandError("A page needs at least 5 lines.")
        options.page_length = length
        return f"Pages are {length} lines long." if length else "Pages are as tall as your window."
    # the prompt
    if not value:
        return f"Your prompt: {options.prompt.strip() or 'default'}\n{_tokens(ctx)}"
    if value.lower() == "default":
        options.prompt = ""
        return "Your prompt is the game's own again."
    if len(value) > MAX_PROMPT:
        raise CommandError(f"A prompt is at most {MAX_PROMPT} characters.")
    options.prompt = clean_format(value)
    return f"Your prompt is now: {options.prompt.strip()}"


@command("config", aliases=("options", "settings"), category="general")
def config(ctx: CommandContext) -> None:
    """Show or change your settings; they are kept with your character.

    Usage:
      config                        every setting and its value
      config colour on|off          colour codes (off: plain text)
      config prompt <format>        your prompt, e.g. <%h/%Hhp %m/%Mmn>; 'default' resets
      config pagelength <lines>     lines per page of long output (0: your window)
      config brief on|off           walking shows rooms without their description
      config autoexits on|off       the exits line under rooms

    An on/off setting without a value is switched over. See 'help prompt' for the
    prompt's tokens.
    """
    actor = ctx.require_actor()
    world = ctx.world
    options = world.try_component(actor, PlayerOptions)
    name, _, value = ctx.args.strip().partition(" ")
    if not name:
        ctx.send(_listing(options or PlayerOptions()))
        return
    setting = _find(name)
    changed = PlayerOptions() if options is None else options
    before = repr(changed)
    message = _set(ctx, changed, setting, value.strip())
    if options is None and repr(changed) != before:
        world.add_component(actor, changed)
    if ctx.session is not None:
        apply_options(ctx.session, changed)
    ctx.send(message)


COMMANDS: list[Command] = [config]
