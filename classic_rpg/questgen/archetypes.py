"""The eight built-in quest archetypes of a classic RPG.

They are data for the stdlib's ArchetypeRegistry; registering them is the RPG's
call because "clear the threat by force" is an RPG idea of what a quest is.
"""

from __future__ import annotations

from maid_stdlib.questgen import (
    BranchingPattern,
    NarrativeArcs,
    ObjectivePatterns,
    QuestArchetype,
    QuestSeedTypes,
)
from maid_stdlib.questgen.quest import ProgressionMode
from maid_stdlib.questgen.scaling import ScalingBounds

__all__ = ["RPG_ARCHETYPES", "rpg_archetypes"]

T = QuestSeedTypes


def rpg_archetypes() -> list[QuestArchetype]:
    """Fresh copies (the registry may be mutated by packs)."""
    return [
        QuestArchetype(
            archetype_id="threat_elimination",
            name="Threat Elimination",
            objective_pattern=ObjectivePatterns.CLEAR,
            branching=BranchingPattern.LINEAR,
            estimated_steps=3,  # locate -> engage -> confirm
            # Allies facing a common threat ask for it to be dealt with.
            compatible_seed_types=[T.THREAT_RESPONSE, T.RESOURCE_CRISIS, T.ALLIANCE_QUEST],
            requires_combat=True,
            narrative_arc=NarrativeArcs.THREE_ACT,
            tone=["urgent", "heroic"],
            chain_potential=0.4,
            # A fight a group takes on together: a kill counts for every member
            # present who holds the quest.
            progression=ProgressionMode.SHARED_CREDIT,
        ),
        QuestArchetype(
            archetype_id="diplomatic_resolution",
            name="Diplomatic Resolution",
            objective_pattern=ObjectivePatterns.NEGOTIATE,
            branching=BranchingPattern.BRANCHING,
            estimated_steps=4,  # learn sides -> talk to A -> talk to B -> resolve
            compatible_seed_types=[
                T.RIVALRY_INTERVENTION,
                T.FACTION_CONFLICT,
                T.POWER_STRUGGLE,
                T.CONSEQUENCE_CHAIN,
            ],
            requires_social=True,
            narrative_arc=NarrativeArcs.DILEMMA,
            # above the follow-up threshold (0.5): a settled dispute has aftermath
            tone=["political", "nuanced"],
            chain_potential=0.6,
        ),
        QuestArchetype(
            archetype_id="supply_chain",
            name="Supply Chain",
            objective_pattern=ObjectivePatterns.CRAFT_AND_DELIVER,
            branching=BranchingPattern.LINEAR,
            estimated_steps=4,  # source -> gather -> craft/transport -> deliver
            # An order a keeper cannot fill for want of material is a supply run too.
            compatible_seed_types=[
                T.RESOURCE_CRISIS,
                T.TRADE_MISSION,
                T.GOAL_ASSISTANCE,
                T.CRAFTING_REQUEST,
            ],
            requires_exploration=True,
            narrative_arc=NarrativeArcs.JOURNEY,
            tone=["practical", "rewarding"],
            chain_potential=0.2,
        ),
        QuestArchetype(
            archetype_id="investigation",
            name="Investigation",
            objective_pattern=ObjectivePatterns.INVESTIGATE,
            branching=BranchingPattern.OPEN,
            estimated_steps=5,  # initial lead -> 2-3 clues -> confrontation
            compatible_seed_types=[T.MYSTERY, T.JUSTICE, T.DISCOVERY_EXPEDITION, T.COLD_CASE],
            requires_social=True,
            requires_exploration=True,
            narrative_arc=NarrativeArcs.MYSTERY,
            tone=["mysterious", "cerebral"],
            # Above the follow-up threshold (0.5): what an investigation uncovers
            # points somewhere new. At exactly 0.5 the follow-up rule (strictly
            # above the threshold) never fired, and no investigation ever chained.
            chain_potential=0.6,
        ),
        QuestArchetype(
            archetype_id="rescue_mission",
            name="Rescue Mission",
            objective_pattern=ObjectivePatterns.ESCORT,
            branching=BranchingPattern.LINEAR,
            estimated_steps=4,  # learn location -> travel -> rescue -> return
            compatible_seed_types=[T.RESCUE, T.THREAT_RESPONSE],
            requires_combat=True,
            requires_exploration=True,
            narrative_arc=NarrativeArcs.ESCALATION,
            tone=["urgent", "emotional"],
            chain_potential=0.3,
            # Whoever comes, the captive's time runs out alike: only counts scale.
            scaling=ScalingBounds(time=False),
            progression=ProgressionMode.SHARED_CREDIT,
        ),
        QuestArchetype(
            archetype_id="faction_choice",
            name="Faction Choice",
            objective_pattern=ObjectivePatterns.CHOICE,
            branching=BranchingPattern.BRANCHING,
            estimated_steps=5,
            compatible_seed_types=[
                T.FACTION_CONFLICT,
                T.POWER_STRUGGLE,
                T.RIVALRY_INTERVENTION,
                T.CONSEQUENCE_CHAIN,
            ],
            requires_social=True,
            narrative_arc=NarrativeArcs.DILEMMA,
            # above the follow-up threshold (0.5): whoever was not backed reacts
            tone=["political", "consequential"],
            chain_potential=0.6,
        ),
        QuestArchetype(
            archetype_id="common_cause",
            name="Common Cause",
            # Allies are never the two sides of a dispute or a choice: one sends
            # word to the other.
            objective_pattern=ObjectivePatterns.ENVOY,
            branching=BranchingPattern.LINEAR,
            estimated_steps=2,  # carry the word -> bring the answer back
            compatible_seed_types=[T.ALLIANCE_QUEST],
            requires_social=True,
            narrative_arc=NarrativeArcs.JOURNEY,
            tone=["hopeful", "political"],
            chain_potential=0.3,
        ),
        QuestArchetype(
            archetype_id="clearing_the_way",
            name="Clearing the Way",
            # In stages: the way to what the giver lacks is made safe first (the
            # bandits on the mine road), then the thing itself is brought back.
            objective_pattern=ObjectivePatterns.MULTI_STAGE,
            branching=BranchingPattern.LINEAR,
            estimated_steps=6,  # learn -> travel -> defeat -> fetch -> bring back
            # A threat alone is threat_elimination's; a threat with a compound
            # seed's goal behind it counts as a secondary match here.
            compatible_seed_types=[T.GOAL_ASSISTANCE, T.RESOURCE_CRISIS],
            requires_combat=True,
            requires_exploration=True,
            narrative_arc=NarrativeArcs.JOURNEY,
            tone=["determined", "practical"],
            chain_potential=0.3,
            progression=ProgressionMode.SHARED_CREDIT,
        ),
    ]


RPG_ARCHETYPES: tuple[str, ...] = tuple(a.archetype_id for a in rpg_archetypes())
