"""Channels and socials as data: the stdlib's own (``channels.yaml``,
``socials.yaml`` beside this module) and what packs add through ``TalkData``.

A pack adds its own from ``register``::

    ctx.service(TalkData).add_socials(ctx.pack.name, ctx.pack.path / "socials.yaml")
    ctx.service(TalkData).add_channels(ctx.pack.name, ctx.pack.path / "channels.yaml")

Both are extension registries: a key added twice names both packs, and after the
engine started nothing can be added.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    StringConstraints,
    ValidationError,
    model_validator,
)

from maid_engine.content import PackError
from maid_engine.content.registries import Claims
from maid_engine.content.yamllines import YamlProblem, line_at, read_yaml

Key = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9]*$", max_length=20)]
Line = Annotated[str, StringConstraints(min_length=1, max_length=200, strip_whitespace=True)]
HERE = Path(__file__).resolve().parent


class ChannelSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    #: Shown in the tag: "[OOC]".
    name: Annotated[str, StringConstraints(min_length=1, max_length=20)]
    #: A markup colour letter for the tag.
    colour: Annotated[str, StringConstraints(pattern=r"^[rgybmcwxRGYBMCWX]$")] = "c"
    description: Line


class ChannelsFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    channels: dict[Key, ChannelSpec]


class SocialSpec(BaseModel):
    """A social's lines: ``$n`` is whoever does it, ``$N`` whom it is done to."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    actor: Line
    room: Line
    actor_target: Line | None = None
    target: Line | None = None
    room_target: Line | None = None
    actor_self: Line | None = None
    room_self: Line | None = None

    @model_validator(mode="after")
    def _variants(self) -> SocialSpec:
        trio = (self.actor_target, self.target, self.room_target)
        if any(t is not None for t in trio) and not all(t is not None for t in trio):
            raise ValueError("actor_target, target and room_target come together")
        if (self.actor_self is None) != (self.room_self is None):
            raise ValueError("actor_self and room_self come together")
        for name in ("actor", "room", "actor_self", "room_self"):
            text = getattr(self, name)
            if text is not None and "$N" in text:
                raise ValueError(f"{name} has no target to name ($N)")
        return self

    @property
    def targeted(self) -> bool:
        return self.actor_target is not None


class SocialsFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    socials: dict[Key, SocialSpec]


def _read(pack: str, path: Path, model: type[BaseModel]) -> Any:
    """The file validated by ``model``; PackError listing every problem, one a line,
    each at its ``file:line`` (the file named from its pack's folder)."""
    label = f"{path.parent.name}/{path.name}"
    try:
        raw = read_yaml(path)
    except YamlProblem as exc:
        at = f"{label}:{exc.line}" if exc.line else label
        raise PackError(pack, f"{at}: cannot read it: {exc}") from exc
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        lines = []
        for err in exc.errors():
            loc = [p for p in err["loc"] if p != "[key]"]
            line = line_at(raw, loc)
            at = f"{label}:{line}" if line else label
            msg = err["msg"].removeprefix("Value error, ")
            lines.append(f"{at}: {'.'.join(str(p) for p in loc)}: {msg}")
        raise PackError(pack, "\n".join(dict.fromkeys(lines))) from exc


class TalkData:
    """Service: every channel and social, and which pack added it."""

    def __init__(self) -> None:
        self.channels: dict[str, ChannelSpec] = {}
        self.socials: dict[str, SocialSpec] = {}
        self.channel_claims = Claims("channel", keys=lambda: list(self.channels))
        self.social_claims = Claims("social", keys=lambda: list(self.socials))

    def add_channel(self, pack: str, key: str, spec: ChannelSpec) -> None:
        self.channel_claims.claim(pack, key)
        self.channels[key] = spec

    def add_social(self, pack: str, key: str, spec: SocialSpec) -> None:
        self.social_claims.claim(pack, key)
        self.socials[key] = spec

    def add_channels(self, pack: str, path: Path) -> None:
        """Every channel of a YAML file (``channels: {key: {name, colour, description}}``)."""
        data: ChannelsFile = _read(pack, path, ChannelsFile)
        for key, spec in data.channels.items():
            self.add_channel(pack, key, spec)

    def add_socials(self, pack: str, path: Path) -> None:
        """Every social of a YAML file (the format of the stdlib's ``socials.yaml``)."""
        data: SocialsFile = _read(pack, path, SocialsFile)
        for key, spec in data.socials.items():
            self.add_social(pack, key, spec)

    def add_builtin(self, pack: str) -> None:
        """The stdlib's own channels and socials."""
        self.add_channels(pack, HERE / "channels.yaml")
        self.add_socials(pack, HERE / "socials.yaml")
