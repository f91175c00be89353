"""``score`` (with its extensible sections) and ``describe`` (``help`` lives in
:mod:`maid_stdlib.help`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING
from uuid import UUID

from maid_engine.commands import Command, CommandContext, CommandError, command
from maid_engine.ports import ServicesPort
from maid_stdlib.world.components import Describable
from maid_stdlib.world.look import name_of
from maid_stdlib.world.service import WorldService
from maid_stdlib.world.text import player_words

if TYPE_CHECKING:
    from maid_engine.ports import Host

#: ``provider(engine, character) -> lines``; a str is one line, None/[] adds nothing.
#: Providers are other packs' code, so they get the whole ``Host``; one that reads
#: less may declare a narrower port (``rpg_score`` takes the world only).
ScoreProvider = Callable[["Host", UUID], "Iterable[str] | str | None"]


@dataclass
class ScoreSection:
    key: str
    provider: ScoreProvider
    order: int = 100


class ScoreSheet:
    """The sections ``score`` shows. Other layers add, replace or remove sections::

    engine.services.get(ScoreSheet).add("combat", lambda e, c: [...], order=20)
    """

    def __init__(self) -> None:
        self._sections: dict[str, ScoreSection] = {}

    def add(self, key: str, provider: ScoreProvider, order: int = 100) -> None:
        """Add a section (or replace the one with the same key)."""
        self._sections[key] = ScoreSection(key, provider, order)

    def remove(self, key: str) -> bool:
        return self._sections.pop(key, None) is not None

    def keys(self) -> list[str]:
        return [s.key for s in self._ordered()]

    def _ordered(self) -> list[ScoreSection]:
        return sorted(self._sections.values(), key=lambda s: (s.order, s.key))

    def render(self, engine: Host, character: UUID) -> str:
        lines: list[str] = []
        for section in self._ordered():
            out = section.provider(engine, character)
            if out is None:
                continue
            lines.extend([out] if isinstance(out, str) else out)
        return "\n".join(lines)


def identity_section(engine: ServicesPort, character: UUID) -> list[str]:
    ws = engine.services.get(WorldService)
    lines = [f"|cName:|n  {name_of(ws, character)}"]
    room_key = ws.room_key_of(character)
    room = ws.room(room_key) if room_key else None
    if room is not None:
        lines.append(f"|cRoom:|n  {room.name}")
        area = ws.area(room.area) if room.area else None
        if area is not None:
            lines.append(f"|cArea:|n  {area.name}")
    return lines


def default_score_sheet() -> ScoreSheet:
    sheet = ScoreSheet()
    sheet.add("identity", identity_section, order=0)
    return sheet


@command("score", category="general")
def score(ctx: CommandContext) -> None:
    """Show your character: name, where you are, and what other layers add.

    Usage: score
    """
    actor = ctx.require_actor()
    sheet: ScoreSheet = ctx.service(ScoreSheet)
    ctx.send(sheet.render(ctx.engine, actor))


#: Longest description a player may give their character.
MAX_DESCRIPTION = 400


@command("describe", aliases=("description",), category="general")
def describe(ctx: CommandContext) -> None:
    """Set what others see when they look at you.

    Usage:
      describe <text>    e.g. 'describe A wiry miner with soot on her cheeks.'
      describe           show your description
      describe clear     remove it
    """
    actor = ctx.require_actor()
    desc = ctx.world.try_component(actor, Describable)
    if desc is None:
        raise CommandError("You cannot be described.")
    text = " ".join(ctx.args.split())
    if not text:
        ctx.send(f"Others see: {desc.description or '(nothing special)'}")
        return
    if text.lower() == "clear":
        desc.description = ""
        ctx.send("Your description is cleared.")
        return
    if len(text) > MAX_DESCRIPTION:
        raise CommandError(f"A description is at most {MAX_DESCRIPTION} characters.")
    desc.description = player_words(text).strip()
    ctx.send(f"Others now see: {desc.description}")


COMMANDS: list[Command] = [score, describe]
