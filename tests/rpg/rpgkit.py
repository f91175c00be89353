"""Helpers of the RPG rules tests: a tiny world pack and an engine factory."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kits.engines import make_engine as kits_engine

from maid_engine.content import ContentPack
from maid_engine.engine import GameEngine
from maid_stdlib.world import WorldDataPack

WORLD = Path(__file__).parent / "rpgworld"


class RpgTestWorld(WorldDataPack):
    name = "rpgtest"
    # WorldDataPack's un-annotated default narrows the type to tuple[str] (drop the
    # ignore once maid_stdlib/world/datapack.py annotates it as ClassVar[tuple[str, ...]]).
    requires = ("stdlib", "classic_rpg")

    @property
    def path(self) -> Path:
        return WORLD


def rpg_pack() -> ContentPack:
    from classic_rpg.pack import ClassicRPGContentPack

    return ClassicRPGContentPack()


def make_engine(tmp_path: Path, *, db_url: str | None = None, **kw: Any) -> GameEngine:
    """The test world; no store unless ``db_url`` is given."""
    from maid_stdlib.pack import StdlibContentPack

    packs = kw.pop("packs", None) or [StdlibContentPack(), rpg_pack(), RpgTestWorld()]
    seed = kw.pop("seed", 1)
    return kits_engine(
        tmp_path,
        packs,
        tick=None,
        seed=seed,
        db_url=db_url,
        use_store=db_url is not None,
        settings=kw.pop("settings", None),
    )
