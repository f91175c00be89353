"""The player's opt-out of generated quests: ``questgen on|less|off``.

The preference is a persisted component on the character entity (per character,
not per account: each character plays differently). Delivery reads it through
:func:`offer_policy`, never through the component directly, so the meaning of each
mode lives in one place:

========  ===========================================================
``on``    the default: offers as usual
``less``  match scores are halved and at most one unaccepted offer is
          held at a time (the lower of that and the system's own cap)
``off``   no generated offers at all; quests already accepted go on
========  ===========================================================

Hand-authored quests are unaffected: the preference is about the generator
pestering a player, not about content a player seeks out.

How the generation system uses it (before personalising for a character)::

    policy = offer_policy(world, character_id)
    if not policy.offers:                         # "off"
        continue
    if pending >= policy.max_pending(MAX_PENDING_OFFERS_PER_PLAYER):
        continue
    score = policy.scale(personalized.match_score)  # "less" halves it
    if score > MIN_MATCH_SCORE: deliver(...)

:func:`set_questgen_mode` also sets the personalization layer's
``PlayProfile.preference`` (on -> normal, less -> fewer, off -> off), which the
personalizer honours (fewer: one pending offer and a higher minimum match score;
off: not eligible). It does so through the :class:`PreferenceObserver` service
(the quest generation service provides it), so this module needs nothing of the
generation pipeline.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol
from uuid import UUID

from maid_engine.commands import Command, CommandContext, CommandError, command
from maid_engine.ecs import Component
from maid_engine.ports import ClockPort, ServicesPort, WorldPort
from maid_stdlib.questgen.personalization import PlayProfile, QuestPreference

if TYPE_CHECKING:
    from maid_engine.ecs import World

__all__ = [
    "ALIASES",
    "LESS_MAX_PENDING",
    "LESS_SCORE_FACTOR",
    "PREFERENCE_COMMANDS",
    "OfferPolicy",
    "PreferenceObserver",
    "QuestGenMode",
    "QuestGenPreference",
    "offer_policy",
    "parse_mode",
    "questgen_mode",
    "set_questgen_mode",
]

#: ``less``: multiply match scores by this...
LESS_SCORE_FACTOR = 0.5
#: ...and hold at most this many unaccepted generated offers.
LESS_MAX_PENDING = 1


class QuestGenMode(enum.StrEnum):
    ON = "on"
    LESS = "less"
    OFF = "off"


@dataclass
class QuestGenPreference(Component):
    """Present only on characters who changed the default (``on``)."""

    component_name = "QuestGenPreference"
    mode: str = QuestGenMode.ON.value
    #: Game time of the last change (for support questions: "since when?").
    changed_at: float = 0.0


@dataclass(frozen=True)
class OfferPolicy:
    """What a character's preference means for delivery."""

    mode: QuestGenMode

    @property
    def offers(self) -> bool:
        """Whether the character may be offered generated quests at all."""
        return self.mode is not QuestGenMode.OFF

    def scale(self, match_score: float) -> float:
        if self.mode is QuestGenMode.OFF:
            return 0.0
        if self.mode is QuestGenMode.LESS:
            return match_score * LESS_SCORE_FACTOR
        return match_score

    def max_pending(self, system_cap: int) -> int:
        """The pending-offer cap to enforce for this character."""
        if self.mode is QuestGenMode.OFF:
            return 0
        if self.mode is QuestGenMode.LESS:
            return min(system_cap, LESS_MAX_PENDING)
        return system_cap


#: The personalization layer's words for the same modes (``PlayProfile.preference``).
ALIASES = {"normal": QuestGenMode.ON, "fewer": QuestGenMode.LESS}
_PROFILE_WORD = {QuestGenMode.ON: "normal", QuestGenMode.LESS: "fewer", QuestGenMode.OFF: "off"}


def parse_mode(word: str) -> QuestGenMode:
    """``on``/``less``/``off`` (or ``normal``/``fewer``); ValueError otherwise."""
    word = word.strip().lower()
    return ALIASES.get(word) or QuestGenMode(word)


def questgen_mode(world: World, character: UUID) -> QuestGenMode:
    """The character's mode; ``on`` when unset, unknown or the entity is gone.

    Without a QuestGenPreference the personalization layer's own setting
    (``PlayProfile.preference``) is read, so either command's choice holds."""
    if not world.entity_exists(character):
        return QuestGenMode.ON
    pref = world.try_component(character, QuestGenPreference)
    word = pref.mode if pref is not None else _profile_word(world, character)
    try:
        return parse_mode(word) if word else QuestGenMode.ON
    except ValueError:
        return QuestGenMode.ON


def _profile_word(world: World, character: UUID) -> str | None:
    prof = world.try_component(character, PlayProfile)
    return str(prof.preference.value) if prof is not None else None


def offer_policy(world: World, character: UUID) -> OfferPolicy:
    return OfferPolicy(questgen_mode(world, character))


class PreferenceObserver:
    """Told at once when a character changes the preference; provided as a service
    under this class by the quest generation service (its personalizer reads
    ``PlayProfile.preference``, and offers not yet made are dropped when the
    character opts out). A base class rather than a Protocol so it can be the
    service's key."""

    def preference_changed(self, character: UUID, preference: QuestPreference) -> None:
        """Called after the character's preference component changed."""


class ModeHost(WorldPort, ClockPort, ServicesPort, Protocol):
    """What setting a character's quest mode uses: the character, game time, and
    the preference observer when one is provided."""


def set_questgen_mode(engine: ModeHost, character: UUID, mode: QuestGenMode) -> None:
    """Store the mode, and tell the :class:`PreferenceObserver`, if any, at once."""
    world, now = engine.world, engine.clock.game_time
    pref = world.try_component(character, QuestGenPreference)
    if pref is None:
        world.add_component(character, QuestGenPreference(mode.value, now))
    else:
        pref.mode = mode.value
        pref.changed_at = now
    observer = engine.services.try_get(PreferenceObserver)
    if observer is not None:
        observer.preference_changed(character, QuestPreference(_PROFILE_WORD[mode]))


_EXPLAIN = {
    QuestGenMode.ON: "People may approach you with work that needs doing.",
    QuestGenMode.LESS: "You will be approached less often, and with one request at a time.",
    QuestGenMode.OFF: "Nobody will approach you with new requests. Quests you have "
    "already taken on are not affected.",
}


@command("questgen", category="settings", prefix_match=False)
def questgen_command(ctx: CommandContext) -> None:
    """Choose how often you are offered quests that arise in the world.

    Usage: questgen              (show your setting)
           questgen on|less|off  ("normal" and "fewer" also work)

    "less" halves how often you are offered such quests and keeps at most one
    unanswered offer; "off" stops them. Quests you accepted carry on either way,
    and quests you seek out yourself are never affected.
    """
    actor = ctx.require_actor()
    arg = ctx.args.strip().lower()
    if not arg:
        mode = questgen_mode(ctx.world, actor)
        ctx.send(f"Generated quests: |w{mode.value}|n. {_EXPLAIN[mode]}")
        return
    try:
        mode = parse_mode(arg)
    except ValueError:
        raise CommandError("Usage: questgen on|less|off") from None
    set_questgen_mode(ctx.engine, actor, mode)
    ctx.send(f"Generated quests are now |w{mode.value}|n. {_EXPLAIN[mode]}")


PREFERENCE_COMMANDS: list[Command] = [questgen_command]
