"""Consequence planning: what completing (or failing) a quest would change.

Planned here as :class:`QuestConsequence` data; applied later by the
consequence layer (WorldMutationBatch). Every consequence names a real NPC, need,
goal or threat: Gundrik's ``economic`` need brought back to 0.7, his blocked
goal completed, his trust (+0.3) and the informant's (+0.15), gossip and a
memory of what was done. Branch options carry their own consequences.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar
from uuid import UUID

from maid_stdlib.living.components import Goal
from maid_stdlib.questgen.archetypes import QuestArchetype
from maid_stdlib.questgen.facts import WorldFacts
from maid_stdlib.questgen.quest import (
    BranchOption,
    ConsequenceType,
    QuestBranch,
    QuestConsequence,
    QuestObjective,
)
from maid_stdlib.questgen.seed import QuestSeed
from maid_stdlib.questgen.text import is_prose, join_names, topic_tokens
from maid_stdlib.questgen.types import ObjectivePatterns
from maid_stdlib.questgen.vocabulary import ObjectiveType
from maid_stdlib.text.morph import definite
from maid_stdlib.text.place import with_article
from maid_stdlib.text.voice import in_own_voice

__all__ = ["ConsequencePlan", "ConsequencePlanner"]

C = ConsequenceType


@dataclass
class ConsequencePlan:
    success: list[QuestConsequence] = field(default_factory=list)
    failure: list[QuestConsequence] = field(default_factory=list)
    chain_potential: float = 0.0


class ConsequencePlanner:
    #: A need a quest answers is brought back to this value.
    SATISFIED: ClassVar[float] = 0.7
    GIVER_TRUST: ClassVar[float] = 0.3
    HELPER_TRUST: ClassVar[float] = 0.15
    FAILURE_TRUST: ClassVar[float] = -0.1
    #: A need the quest was to answer gets worse when nobody does.
    FAILURE_NEED: ClassVar[float] = -0.1
    FACTION_GAIN: ClassVar[float] = 0.1
    #: A band whose leader falls may regroup (chain potential 0.6, as in the Iron Crisis).
    LEADER_CHAIN_BONUS: ClassVar[float] = 0.2

    def plan(
        self,
        seed: QuestSeed,
        archetype: QuestArchetype,
        objectives: Sequence[QuestObjective],
        facts: WorldFacts,
    ) -> ConsequencePlan:
        giver = seed.primary_npc
        name = facts.name(giver)
        deed = self.deed(seed, archetype, objectives, facts)
        plan = ConsequencePlan()
        goal = self._goal(seed, facts)
        completes = goal is not None and self._answers_goal(seed, archetype, goal)

        if goal is not None:
            if completes:
                plan.success.append(
                    QuestConsequence(
                        consequence_type=C.NPC_GOAL_COMPLETE,
                        target_npc=giver,
                        target_key=goal.id,
                        description=f"{name}'s goal is achieved: {goal.description or goal.id}",
                    )
                )
            else:
                plan.success.append(
                    QuestConsequence(
                        consequence_type=C.NPC_GOAL_ADVANCE,
                        target_npc=giver,
                        target_key=goal.id,
                        goal_progress=0.5,
                        description=f"{name} gets closer to: {goal.description or goal.id}",
                    )
                )
        need = self._need(seed, goal, facts)
        if need is not None:
            key, value = need
            # Completing a goal already restores its need by completion_need_delta.
            already = goal.completion_need_delta if completes and goal and goal.need == key else 0.0
            delta = round(self.SATISFIED - value - already, 3)
            if delta > 0:
                plan.success.append(
                    QuestConsequence(
                        consequence_type=C.NPC_NEED_SATISFY,
                        target_npc=giver,
                        target_key=key,
                        need_delta=delta,
                        description=f"{name}'s {key} need recovers to {self.SATISFIED}",
                    )
                )
            plan.failure.append(
                QuestConsequence(
                    consequence_type=C.NPC_NEED_SATISFY,
                    target_npc=giver,
                    target_key=key,
                    need_delta=self.FAILURE_NEED,
                    description=f"{name}'s {key} need gets worse: the job was not done",
                )
            )

        plan.success.append(
            QuestConsequence(
                consequence_type=C.RELATIONSHIP_CHANGE,
                target_npc=giver,
                relationship_delta=self.GIVER_TRUST,
                description=f"{name} trusts the character more",
            )
        )
        for helper in self._helpers(seed, objectives):
            plan.success.append(
                QuestConsequence(
                    consequence_type=C.RELATIONSHIP_CHANGE,
                    target_npc=helper,
                    relationship_delta=self.HELPER_TRUST,
                    description=f"{facts.name(helper)} appreciates the help",
                )
            )
        for faction, role in facts.factions(giver).items():
            plan.success.append(
                QuestConsequence(
                    consequence_type=C.FACTION_STANDING,
                    target_faction=faction,
                    faction_delta=self.FACTION_GAIN,
                    description=f"{facts.faction_name(faction)} hear that one of their own "
                    f"({name}, {role}) was helped",
                )
            )
            break

        kills = [o for o in objectives if o.objective_type is ObjectiveType.KILL]
        cleared = facts.threat_keys([u for o in kills for u in o.target_entity_ids])
        plan.success.append(
            QuestConsequence(
                consequence_type=C.GOSSIP_INJECTION,
                target_npc=giver,
                gossip_content=f"An adventurer {deed}",
                # News of a cleared threat replaces the news of the threat.
                gossip_subject=cleared[0] if cleared else None,
                description=f"Word spreads: someone {deed}",
            )
        )
        plan.success.append(
            QuestConsequence(
                consequence_type=C.MEMORY_CREATION,
                target_npc=giver,
                # In the giver's own voice: "When I needed help, a stranger
                # settled the matter between me and Selena".
                memory_content=f"When I needed help, a stranger {in_own_voice(deed, name)}.",
                description=f"{name} remembers who helped",
            )
        )
        if kills:
            for key in cleared:
                plan.success.append(
                    QuestConsequence(
                        consequence_type=C.WORLD_STATE,
                        world_state_key=key,
                        world_state_value="cleared",
                        description=(
                            f"{seed.threat_source or 'The threat'} no longer holds the place"
                        ),
                    )
                )

        plan.failure.append(
            QuestConsequence(
                consequence_type=C.RELATIONSHIP_CHANGE,
                target_npc=giver,
                relationship_delta=self.FAILURE_TRUST,
                description=f"{name} is let down",
            )
        )
        topic = help_topic(seed, goal)
        plan.failure.append(
            QuestConsequence(
                consequence_type=C.GOSSIP_INJECTION,
                target_npc=giver,
                gossip_content=f"Nobody helped {name}{topic}",
                description="Word spreads that nobody came",
                unattended_only=True,
            )
        )
        plan.failure.append(
            QuestConsequence(
                consequence_type=C.MEMORY_CREATION,
                target_npc=giver,
                memory_content=f"Nobody came when I asked for help{topic}.",
                description=f"{name} remembers being let down",
                unattended_only=True,
            )
        )

        chain = archetype.chain_potential
        if any(len(o.target_entity_ids) == 1 for o in kills) and len(kills) > 1:
            chain += self.LEADER_CHAIN_BONUS
        plan.chain_potential = round(min(1.0, chain), 3)
        return plan

    # -- what the quest is about -------------------------------------------------------
    def deed(
        self,
        seed: QuestSeed,
        archetype: QuestArchetype,
        objectives: Sequence[QuestObjective],
        facts: WorldFacts,
    ) -> str:
        """ "cleared the bandits from Old Trade Road": what completion means, in words."""
        place = with_article(facts.area_name(facts.area_of(seed.location))) or facts.place(
            seed.location
        )
        pattern = archetype.objective_pattern
        if pattern == ObjectivePatterns.CLEAR:
            return f"cleared the {seed.threat_source or 'threat'} from {place}"
        if pattern == ObjectivePatterns.ESCORT and seed.rescue_target:
            return f"brought {facts.name(seed.rescue_target)} home safely"
        if (
            pattern in (ObjectivePatterns.NEGOTIATE, ObjectivePatterns.CHOICE)
            and seed.party_a
            and seed.party_b
        ):
            return (
                f"settled the matter between {facts.name(seed.party_a)} and "
                f"{facts.name(seed.party_b)}"
            )
        if pattern == ObjectivePatterns.INVESTIGATE:
            return f"uncovered the truth about {seed.subject or place}"
        delivered = [o for o in objectives if o.objective_type is ObjectiveType.DELIVER]
        if delivered:
            o = delivered[-1]
            return f"brought {o.target} to {facts.name(o.target_entity_id)}"
        return f"helped {facts.name(seed.primary_npc)}"

    def _goal(self, seed: QuestSeed, facts: WorldFacts) -> Goal | None:
        if seed.blocked_goal:
            goal = facts.find_goal(seed.primary_npc, seed.blocked_goal)
            if goal is not None:
                return goal
        topics = topic_tokens(seed.threat_source, seed.subject, seed.resource_type, seed.blocker)
        for goal in facts.open_goals(seed.primary_npc):
            words = topic_tokens(goal.description, goal.target, goal.blocker, goal.blocker_source)
            if topics & words:
                return goal
        return None

    def _answers_goal(self, seed: QuestSeed, archetype: QuestArchetype, goal: Goal) -> bool:
        """Whether completing the quest removes what blocks the goal (or achieves it)."""
        pattern = archetype.objective_pattern
        if pattern == ObjectivePatterns.CLEAR:
            blockers = topic_tokens(goal.blocker_source, goal.blocker)
            return bool(blockers & topic_tokens(seed.threat_source))
        if pattern in (
            ObjectivePatterns.FETCH,
            ObjectivePatterns.DELIVER,
            ObjectivePatterns.CRAFT_AND_DELIVER,
        ):
            return bool(
                topic_tokens(goal.target) & topic_tokens(seed.item_template, seed.resource_type)
            )
        return False

    def _need(
        self, seed: QuestSeed, goal: Goal | None, facts: WorldFacts
    ) -> tuple[str, float] | None:
        needs = facts.needs(seed.primary_npc)
        if goal is not None and goal.need in needs:
            return goal.need, needs[goal.need].value
        unmet = sorted((s.value, n) for n, s in needs.items() if s.unmet)
        return (unmet[0][1], unmet[0][0]) if unmet else None

    def _helpers(self, seed: QuestSeed, objectives: Sequence[QuestObjective]) -> list[UUID]:
        out: list[UUID] = []
        for o in objectives:
            uid = o.target_entity_id
            if o.objective_type is not ObjectiveType.TALK or uid is None:
                continue
            if uid not in out and uid not in (seed.primary_npc, seed.party_a, seed.party_b):
                out.append(uid)
        return out

    # -- branches ------------------------------------------------------------------------
    def branches(
        self, seed: QuestSeed, objectives: Sequence[QuestObjective], facts: WorldFacts
    ) -> list[QuestBranch] | None:
        """One branch at the decision objective: back one side, the other, or (in a
        dispute between people) broker a compromise. None without a decision point."""
        trigger = next((o for o in objectives if o.choice), None)
        if trigger is None or seed.party_a is None or seed.party_b is None:
            return None
        sides = [(seed.party_a, seed.faction_a), (seed.party_b, seed.faction_b)]
        options: list[BranchOption] = []
        for (npc, faction), (other, other_faction) in ((sides[0], sides[1]), (sides[1], sides[0])):
            label_name = facts.faction_name(faction) if faction else facts.name(npc)
            other_name = facts.faction_name(other_faction) if other_faction else facts.name(other)
            effects = [
                QuestConsequence(
                    consequence_type=C.RELATIONSHIP_CHANGE,
                    target_npc=npc,
                    relationship_delta=0.2,
                    description=f"{facts.name(npc)} is grateful for the support",
                ),
                QuestConsequence(
                    consequence_type=C.RELATIONSHIP_CHANGE,
                    target_npc=other,
                    relationship_delta=-0.15,
                    description=f"{facts.name(other)} feels betrayed",
                ),
                QuestConsequence(
                    consequence_type=C.SOCIAL_INFLUENCE,
                    target_npc=npc,
                    social_influence_delta=0.1,
                    description=f"{facts.name(npc)} gains standing",
                ),
                QuestConsequence(
                    consequence_type=C.GOSSIP_INJECTION,
                    target_npc=npc,
                    gossip_content=f"An adventurer backed {label_name} against {other_name}",
                    description="Word spreads of whose side the adventurer took",
                ),
            ]
            if faction:
                effects.append(
                    QuestConsequence(
                        consequence_type=C.FACTION_STANDING,
                        target_faction=faction,
                        faction_delta=0.15,
                        description=f"{label_name} think better of the character",
                    )
                )
            if other_faction:
                effects.append(
                    QuestConsequence(
                        consequence_type=C.FACTION_STANDING,
                        target_faction=other_faction,
                        faction_delta=-0.1,
                        description=f"{facts.faction_name(other_faction)} resent the choice",
                    )
                )
            options.append(
                BranchOption(
                    id=facts.new_uuid(),
                    label=f"Side with {label_name}",
                    description=(
                        f"Back {label_name} in the matter of {seed.subject or 'the dispute'}"
                    ),
                    follow_up_objectives=[
                        QuestObjective(
                            objective_type=ObjectiveType.TALK,
                            description=(
                                f"Tell {facts.name(npc)} that you stand with "
                                f"{facts.pronouns(npc).object}"
                            ),
                            target=facts.name(npc),
                            target_entity_id=npc,
                            target_location=facts.room_of(npc),
                            order=trigger.order,
                            id=f"{trigger.id}-{len(options) + 1}"[:50],
                        )
                    ],
                    consequences=effects,
                    alignment=faction or facts.name(npc),
                )
            )
        if seed.faction_a is None and seed.faction_b is None:
            a, b = seed.party_a, seed.party_b
            options.append(
                BranchOption(
                    id=facts.new_uuid(),
                    label="Broker a compromise",
                    description=f"Find terms both {facts.name(a)} and {facts.name(b)} can accept",
                    consequences=[
                        QuestConsequence(
                            consequence_type=C.RELATIONSHIP_CHANGE,
                            target_npc=npc,
                            relationship_delta=0.1,
                            description=f"{facts.name(npc)} accepts the compromise",
                        )
                        for npc in (a, b)
                    ]
                    + [
                        QuestConsequence(
                            consequence_type=C.GOSSIP_INJECTION,
                            target_npc=a,
                            gossip_content=f"{join_names([facts.name(a), facts.name(b)])} settled "
                            "their differences",
                            description="Word spreads of the settlement",
                        )
                    ],
                    alignment=None,
                )
            )
        return [
            QuestBranch(
                id=facts.new_uuid(),
                trigger_objective=trigger.id,
                description=trigger.description,
                options=options,
            )
        ]


#: A subject longer than this is a whole clause ("Selena blames the guard for
#: leaving the road"), not a topic that reads after "help with".
_TOPIC_WORDS = 4


def help_topic(seed: QuestSeed, goal: Goal | None) -> str:
    """What the giver asked for help with, as it reads after "asked for help":
    " with the bandits", " to source quality iron", or nothing."""
    if seed.threat_source and is_prose(seed.threat_source):
        return f" with {definite(seed.threat_source)}"
    subject = (seed.subject or "").strip()
    if is_prose(subject) and len(subject.split()) <= _TOPIC_WORDS:
        return f" with {subject}"
    if goal is not None and goal.description.strip():
        text = goal.description.strip().rstrip(".")
        return f" to {text[0].lower()}{text[1:]}"
    return ""
