"""HeistPack: a second content pack, showing how a pack extends quest generation.

It requires Ironvale and adds Counting-House Lane north of Market Row (world data
in ``areas/``), the living state a heist grows out of (``living.yaml``), a story
detector noticing when the moneylender's strongbox lies unwatched, and for the
quest pipeline the ``heist_opportunity`` seed type, the ``stealth`` objective
pattern, the ``heist`` archetype and its narrative templates (``narrative.yaml``).
A watcher completes (or fails) the "go unseen" objective when the strongbox is
taken. See docs/content-packs.md, "Extending quest generation".

Everything is declared once, in ``register``: the packs it requires (through
Ironvale: the ``stdlib`` and ``classic_rpg`` groups) have registered by then, so
every registry it adds to exists.
"""

from __future__ import annotations

from classic_rpg.events import ItemPickedUpEvent
from classic_rpg.systems.quests.data import pack_quest_problems
from content_packs.heist.chain import heist_follow_up
from content_packs.heist.detector import SIGNAL_TYPE, detect_heist_opportunities
from content_packs.heist.questgen import add_heist_questgen, read_templates
from content_packs.heist.stealth import StealthWatcher
from content_packs.heist.valuables import register_valuables
from maid_engine.content import PackContext
from maid_engine.content.yamllines import YamlProblem, read_yaml
from maid_stdlib.consequences import ConsequenceSystem
from maid_stdlib.living.data import LivingData, parse_living
from maid_stdlib.living.service import add_living_data
from maid_stdlib.questgen import QuestGen
from maid_stdlib.questgen.narrative import TemplateRegistry
from maid_stdlib.story.detectors import Detector, StoryDetectors
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

    def __init__(self) -> None:
        #: Problems of living.yaml and narrative.yaml, found while registering.
        self.file_problems: list[str] = []

    def register(self, ctx: PackContext) -> None:
        super().register(ctx)
        register_valuables(ctx.service(WorldData), self.name)
        # The required context keys are enforced by the QuestGen contract below, not
        # with story.register_signal_type: that table is process-wide, and a pack
        # loaded by one engine must not change what another engine's story layer sees.
        ctx.subscribe(ItemPickedUpEvent, StealthWatcher(ctx.engine).on_picked_up)
        # Broken files are reported, not raised, here: ``maid check-pack`` lists every
        # problem of every file; a server refuses to start in on_world_loaded.
        living = self._read_living()
        templates, problems = read_templates(
            self.path / "narrative.yaml", f"{self.path.name}/narrative.yaml"
        )
        self.file_problems += problems
        if living is not None:
            add_living_data(ctx, living)
        ctx.service(StoryDetectors).add_from(
            self.name, Detector(DETECTOR, SIGNAL_TYPE, detect_heist_opportunities)
        )
        add_heist_questgen(ctx.service(QuestGen), self.name)
        if not problems:
            ctx.service(TemplateRegistry).add_from(self.name, templates)
        ctx.service(ConsequenceSystem).chain_rules.add_from(self.name, heist_follow_up)

    def _read_living(self) -> LivingData | None:
        label = f"{self.path.name}/living.yaml"
        try:
            # Read with its lines, so each problem names where it is written.
            raw = read_yaml(self.path / "living.yaml")
        except YamlProblem as exc:
            at = f"{label}:{exc.line}" if exc.line else label
            self.file_problems.append(f"{at}: cannot read: {exc}")
            return None
        spec, problems = parse_living(raw, label)
        self.file_problems += problems
        return None if spec is None or problems else LivingData(self.name, label, spec)

    def validate_data(self, ctx: PackContext) -> list[str]:
        # quests.yaml is read by the QuestManager at start-up; check it here too.
        return [*super().validate_data(ctx), *self.file_problems, *pack_quest_problems(ctx)]

    async def on_world_loaded(self, ctx: PackContext) -> None:
        await super().on_world_loaded(ctx)
        if self.file_problems:
            raise data_error(self.name, self.file_problems)
        ws = ctx.service(WorldService)
        room, exit_name, target = ENTRANCE
        if ws.has_room(room) and ws.exits_of(room).get(exit_name) != target:
            ws.set_exit(room, exit_name, target)
