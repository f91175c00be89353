"""HeistPack: a second content pack, showing how a pack extends quest generation.

It requires Ironvale and adds Counting-House Lane north of Market Row (world data
in ``areas/``), the living state a heist grows out of (``living.yaml``), a story
detector noticing when the moneylender's strongbox lies unwatched, and for the
quest pipeline the ``heist_opportunity`` seed type, the ``stealth`` objective
pattern, the ``heist`` archetype and its narrative templates (``narrative.yaml``).
A watcher completes (or fails) the "go unseen" objective when the strongbox is
taken. See docs/content-packs.md, "Extending quest generation".
"""

from __future__ import annotations

from content_packs.heist.chain import heist_follow_up
from content_packs.heist.detector import SIGNAL_TYPE, detect_heist_opportunities
from content_packs.heist.questgen import register_heist_questgen, template_problems
from content_packs.heist.valuables import register_valuables
from maid_engine.content import PackContext, PackError
from maid_stdlib.consequences import ConsequenceSystem
from maid_stdlib.living.data import load_living_data, parse_living
from maid_stdlib.living.service import LivingWorld
from maid_stdlib.questgen import QuestGen
from maid_stdlib.questgen.narrative import TemplateRegistry
from maid_stdlib.story.detectors import StoryDetectors
from maid_stdlib.world.datapack import WorldDataPack, data_error
from maid_stdlib.world.loader import WorldData
from maid_stdlib.world.service import WorldService

__all__ = ["ENTRANCE", "HeistPack"]

#: The exit added to Ironvale's Market Row (its data cannot name a room of ours).
ENTRANCE = ("ironvale:market_row", "north", "heist:counting_lane")
DETECTOR = "heist_opportunity"


class HeistPack(WorldDataPack):
    name = "heist"
    version = "0.1.0"
    requires = ("ironvale",)
    description = "Counting-House Lane: a moneylender, his strongroom and a grudge."

    def register(self, ctx: PackContext) -> None:
        super().register(ctx)
        from classic_rpg.events import ItemPickedUpEvent
        from content_packs.heist.stealth import StealthWatcher

        register_valuables(ctx.service(WorldData), self.name)
        # The required context keys are enforced by the QuestGen contract below, not
        # with story.register_signal_type: that table is process-wide, and a pack
        # loaded by one engine must not change what another engine's story layer sees.
        ctx.subscribe(ItemPickedUpEvent, StealthWatcher(ctx.engine).on_picked_up)
        # What the stdlib has registered by now is extended at once; layers wired
        # after this pack (or by a test's wiring pack) are extended in
        # on_world_loaded, which runs after every pack registered.
        self._extend(ctx, final=False)

    def validate_data(self, ctx: PackContext) -> list[str]:
        # quests.yaml is read by the QuestManager at start-up; check it here too.
        from classic_rpg.systems.quests.data import pack_quest_problems

        return [*super().validate_data(ctx), *self._file_problems(), *pack_quest_problems(ctx)]

    def _file_problems(self) -> list[str]:
        """Problems of living.yaml and narrative.yaml, as "file: entry: problem"."""
        import yaml

        label = f"{self.path.name}/living.yaml"
        try:
            raw = yaml.safe_load((self.path / "living.yaml").read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError) as exc:
            problems = [f"{label}: cannot read: {exc}"]
        else:
            problems = parse_living(raw, label)[1]
        return [
            *problems,
            *template_problems(self.path / "narrative.yaml", f"{self.path.name}/narrative.yaml"),
        ]

    async def on_world_loaded(self, ctx: PackContext) -> None:
        await super().on_world_loaded(ctx)
        ws = ctx.service(WorldService)
        room, exit_name, target = ENTRANCE
        if ws.has_room(room) and ws.exits_of(room).get(exit_name) != target:
            ws.set_exit(room, exit_name, target)
        self._extend(ctx, final=True)

    # -- the layers above the world ---------------------------------------------------
    def _extend(self, ctx: PackContext, *, final: bool) -> None:
        # Broken files are not loaded while registering: raising there would stop
        # ``maid check-pack`` at the first problem instead of reporting them all.
        problems = self._file_problems()
        if problems and final:
            raise data_error(self.name, problems)
        services = ctx.engine.services
        living = services.try_get(LivingWorld)
        if (
            living is not None
            and not problems
            and not any(d.pack == self.name for d in [*living.pending_data, *living.applied_data])
        ):
            load_living_data(ctx, self.path / "living.yaml")
        detectors = services.try_get(StoryDetectors)
        if detectors is not None and DETECTOR not in detectors.names():
            detectors.register(DETECTOR, SIGNAL_TYPE, detect_heist_opportunities)
        qg = services.try_get(QuestGen)
        if qg is not None:
            register_heist_questgen(
                qg, None if problems else _templates(ctx), self.path / "narrative.yaml"
            )
        consequences = services.try_get(ConsequenceSystem)
        if consequences is not None and heist_follow_up not in consequences.chain_rules.rules:
            consequences.chain_rules.register(heist_follow_up)
        if final:
            missing = [
                name
                for name, svc in (
                    ("LivingWorld", living),
                    ("StoryDetectors", detectors),
                    ("QuestGen", qg),
                )
                if svc is None
            ]
            if missing:
                raise PackError(
                    self.name,
                    f"needs {', '.join(missing)} (the stdlib's living "
                    "world, story signals and quest generation)",
                )


def _templates(ctx: PackContext) -> TemplateRegistry | None:
    """The template registry of the quest narrative fallback, if one is installed."""
    return ctx.engine.services.try_get(TemplateRegistry)
