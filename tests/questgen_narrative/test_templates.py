"""TemplateRegistry and TemplateFallbackGenerator: every archetype, packs win, seeded."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import asdict

import pytest
from questgen_narrative.narrative_helpers import BUILTIN_ARCHETYPES, make_ctx, make_fallback

from classic_rpg.questgen.templates import RPG_TEMPLATES
from maid_engine.llm import ContentFilter
from maid_stdlib.questgen.narrative import (
    QuestDialogueModel,
    QuestNarrativeModel,
    TemplateFallbackGenerator,
    TemplateRegistry,
    register_default_templates,
)
from maid_stdlib.questgen.narrative.default_templates import GENERIC
from maid_stdlib.questgen.narrative.templates import _last_resort, phrases_of
from maid_stdlib.questgen.narrative_context import NarrativeContext, QuestNarrative
from maid_stdlib.text import lint_text, pronouns
from maid_stdlib.text.realiser import clause, clauses, person, place, render, thing


def rendered(templates: Sequence[str], ctx: NarrativeContext, title: bool) -> set[str]:
    return {render(t, phrases_of(ctx), title=title).text for t in templates}


FILTER = ContentFilter()


def assert_valid(narrative: QuestNarrative) -> None:
    """Template prose meets the same limits and filter as model prose."""
    QuestNarrativeModel.model_validate(
        {
            "title": narrative.title,
            "summary": narrative.summary,
            "description": narrative.description,
        }
    )
    QuestDialogueModel.model_validate(asdict(narrative.dialogue))
    texts = [
        narrative.title,
        narrative.summary,
        narrative.description,
        *asdict(narrative.dialogue).values(),
    ]
    assert FILTER.check_all(texts).ok, FILTER.check_all(texts).reasons
    assert all("{" not in t and "}" not in t for t in texts)


def test_the_builtin_archetypes_have_defaults() -> None:
    assert set(RPG_TEMPLATES) == set(BUILTIN_ARCHETYPES)


@pytest.mark.parametrize("archetype", BUILTIN_ARCHETYPES)
def test_each_archetype_generates_valid_grounded_prose(archetype: str) -> None:
    fallback = make_fallback()
    for _ in range(12):  # cover the template variants
        narrative = fallback.generate(make_ctx(archetype_id=archetype), reason="no_model")
        assert narrative.source == "template"
        assert narrative.fallback_reason == "no_model"
        assert narrative.tokens_used == 0
        assert_valid(narrative)
        assert "Hollin" in narrative.title + narrative.summary + narrative.description
    # The archetype's own templates are used, not the generic ones.
    titles = rendered(RPG_TEMPLATES[archetype]["title"], make_ctx(), True)
    generic = rendered(TemplateRegistry().templates("", "title"), make_ctx(), True)
    assert fallback.generate(make_ctx(archetype_id=archetype)).title in titles | generic


@pytest.mark.parametrize("archetype", [*BUILTIN_ARCHETYPES, "heist", ""])
def test_a_bare_context_still_gives_valid_prose(archetype: str) -> None:
    fallback = make_fallback()
    for ctx in (
        NarrativeContext(archetype_id=archetype, giver_name="Mara"),
        NarrativeContext(archetype_id=archetype, giver_name=""),
    ):
        for _ in range(8):
            assert_valid(fallback.generate(ctx))


def test_unknown_archetype_uses_the_generic_set() -> None:
    registry = TemplateRegistry()
    generic = rendered(registry.templates("heist", "title"), make_ctx(), True)
    narrative = make_fallback(defaults=False).generate(make_ctx(archetype_id="heist"))
    assert narrative.title in generic
    assert registry.templates("heist", "offer") == registry.templates(registry.GENERIC, "offer")
    assert not registry.has_templates("heist")


def test_works_without_any_registration() -> None:
    narrative = make_fallback(defaults=False).generate(make_ctx())
    assert_valid(narrative)


@pytest.mark.parametrize("pack_first", [True, False])
def test_pack_registered_templates_win_over_defaults(pack_first: bool) -> None:
    registry = TemplateRegistry()
    if not pack_first:
        register_default_templates(registry, RPG_TEMPLATES)
    registry.register("threat_elimination", title=["The Siege of {location}"])
    registry.register_dialogue_templates(
        {"threat_elimination": {"offer": ["Will you help {npc}, stranger?"]}}
    )
    if pack_first:
        register_default_templates(registry, RPG_TEMPLATES)
    for seed in range(5):
        # A new generator each time: one generator avoids repeating its own titles.
        fallback = TemplateFallbackGenerator(registry, rng=random.Random(seed))
        narrative = fallback.generate(make_ctx())
        assert narrative.title == "The Siege of Hollin's Mill"
        assert narrative.dialogue.offer == "Will you help me, stranger?"
        # Fields the pack did not register keep the defaults.
        assert narrative.dialogue.progress in rendered(
            RPG_TEMPLATES["threat_elimination"]["progress"], make_ctx(), False
        )


def test_packs_register_templates_on_the_generator() -> None:
    fallback = make_fallback()
    fallback.register_templates(
        {
            "heist": {
                "title": ["The {location} Job"],
                "summary": ["{npc} has a plan for a quiet job."],
            }
        }
    )
    fallback.register_dialogue_templates(
        {
            "heist": {
                # Lines with no fact behind them must be reviewed flavour.
                "flavour": ["Keep your voice down, friend.", "Clean work.", "Nobody saw."],
                "offer": ["Keep your voice down, friend."],
                "complete": ["Clean work. Nobody saw."],
            }
        }
    )
    narrative = fallback.generate(make_ctx(archetype_id="heist"))
    assert narrative.title == "The Hollin's Mill Job"
    assert narrative.summary == "Hollin has a plan for a quiet job."
    assert narrative.dialogue.offer == "Keep your voice down, friend."
    assert narrative.dialogue.completion == "Clean work. Nobody saw."
    assert fallback.registry.has_templates("heist")
    assert "heist" in fallback.registry.archetypes


@pytest.mark.parametrize(
    ("templates", "error"),
    [
        ({"title": ["The {dragon} Hunt"]}, r"unknown placeholder \{dragon\}"),
        ({"title": ["The {0} Hunt"]}, r"unknown placeholder \{0\}"),  # positional
        ({"title": ["The {npc.name.x} Hunt"]}, r"unknown placeholder \{npc\.name\.x\}"),
        ({"title": ["The {npc!r} Hunt"]}, "conversions are not allowed"),
        ({"title": ["The {npc:>30} Hunt"]}, "format specs"),
        ({"title": ["The {npc Hunt"]}, "expected '}' before end of string"),  # unbalanced
        ({"title": []}, "no title templates given"),
        ({"title": [""]}, "a template must be a non-empty string"),
        ({"reward": ["1000 gold"]}, "unknown template field 'reward'"),
        ({"offer": ["The mill burned down. Will you help {npc}?"]}, "no fact behind it"),
        ({"title": ["The {npc.shout} Hunt"]}, r"unknown placeholder \{npc\.shout\}"),
    ],
)
def test_bad_templates_are_rejected_at_registration(
    templates: dict[str, list[str]], error: str
) -> None:
    registry = TemplateRegistry()
    with pytest.raises(ValueError, match=error):
        registry.register_templates({"heist": templates})
    assert not registry.has_templates("heist")


def test_registration_is_all_or_nothing() -> None:
    registry = TemplateRegistry()
    with pytest.raises(ValueError, match=r"unknown placeholder \{nope\}"):
        registry.register("heist", title=["Fine {npc}"], summary=["Broken {nope}"])
    assert not registry.has_templates("heist")
    with pytest.raises(ValueError, match="non-dialogue fields"):
        registry.register_dialogue_templates({"heist": {"title": ["Not dialogue"]}})


def test_deterministic_with_a_seeded_random() -> None:
    contexts = [make_ctx(archetype_id=a) for a in (*BUILTIN_ARCHETYPES, "heist")] * 3
    first = [make_fallback(seed=42).generate(c) for c in contexts]
    again = [make_fallback(seed=42).generate(c) for c in contexts]
    other = [make_fallback(seed=43).generate(c) for c in contexts]
    assert first == again
    assert first != other


def test_defaults_are_not_used_when_another_template_has_real_values() -> None:
    # Without a threat or subject, "An End to {threat}" / "The Mystery of {subject}"
    # would read "An End to an Unknown Danger": the other titles are preferred.
    for seed in range(30):
        fallback = make_fallback(seed=seed)
        for archetype in ("threat_elimination", "investigation"):
            narrative = fallback.generate(make_ctx(archetype_id=archetype, threat="", subject=""))
            text = narrative.title + narrative.summary + narrative.description
            assert "nknown" not in text, text


def test_threat_and_subject_are_used_when_present() -> None:
    titles = {
        make_fallback(seed=s).generate(make_ctx(threat="the grey wolves")).title for s in range(40)
    }
    assert "An End to the Grey Wolves" in titles
    subjects = {
        make_fallback(seed=s)
        .generate(make_ctx(archetype_id="investigation", subject="the missing iron"))
        .title
        for s in range(40)
    }
    assert "The Truth about the Missing Iron" in subjects


def test_long_names_still_fit_the_title_limits() -> None:
    ctx = make_ctx(
        giver_name="Aldebrand Ironhand of the Deep Hollow Forge Guild of Smiths",
        locations=("The Great Northern Watchtower Overlooking the Frozen Marshes of Ull",),
        threat="the unusually large and unpleasant marsh goblins from the north",
    )
    for seed in range(20):
        for archetype in (*BUILTIN_ARCHETYPES, "heist"):
            assert_valid(
                make_fallback(seed=seed).generate(
                    NarrativeContext(**{**asdict(ctx), "archetype_id": archetype})
                )
            )


def test_very_long_context_text_is_cut_to_the_limits() -> None:
    ctx = make_ctx(
        motivation="The forge is cold. " * 100,
        stakes="Everything is lost. " * 100,
        objectives=tuple(f"Defeat bandit number {i}" for i in range(200)),
    )
    for seed in range(10):
        assert_valid(make_fallback(seed=seed).generate(ctx))


def test_objectives_read_inside_a_sentence() -> None:
    values = phrases_of(make_ctx(objectives=("Talk to Tamsin", "Hollin must be told")))
    assert values["objective"].forms[""] == "talk to Tamsin"
    assert values["objectives"].forms[""] == "talk to Tamsin and Hollin must be told"
    assert values["ally"].forms[""] == "Tamsin"
    assert values["motivation"].forms[""].endswith("losing money")


def test_reason_and_tokens_are_reported() -> None:
    narrative = make_fallback().generate(make_ctx(), reason="timeout", tokens_used=321)
    assert (narrative.fallback_reason, narrative.tokens_used) == ("timeout", 321)


def test_never_raises_even_if_rendering_breaks(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    fallback = make_fallback()

    def broken(archetype_id: str, field_name: str) -> tuple[str, ...]:
        raise RuntimeError("bug")

    monkeypatch.setattr(fallback.registry, "templates", broken)
    narrative = fallback.generate(make_ctx(), reason="unsafe")
    assert narrative.source == "template"
    assert narrative.fallback_reason == "unsafe"
    assert "Hollin" in narrative.title
    assert_valid(narrative)
    assert "template narrative failed" in caplog.text


@pytest.mark.parametrize("archetype", ["diplomatic_resolution", "faction_choice", "common_cause"])
@pytest.mark.parametrize("seed", range(6))
def test_a_giver_on_one_side_speaks_for_themselves(archetype: str, seed: int) -> None:
    """The giver is one side: the text names the other as the rival, the giver's
    dialogue says "I" and "me", and no sentence about the giver names them twice."""
    steps = [
        clause("Hear Warden Tamsin's side of the dispute", "objective:1"),
        clause("Tell Warden Tamsin that Mara Reed will stand with them", "objective:2"),
        clause("Report back to Mara Reed with your decision", "objective:3"),
    ]
    phrases = {
        "npc": person("Mara Reed", "giver"),
        "rival": person("Warden Tamsin", "rival"),
        "ally": person("Warden Tamsin", "ally"),
        "threat": thing("bandits", "threat"),
        "location": place("the Mill Road", "place"),
        "objective": steps[0],
        "final_objective": steps[-1],
        "objectives": clauses(steps),
    }
    ctx = make_ctx(archetype_id=archetype, giver_name="Mara Reed", phrases=phrases)
    narrative = make_fallback(seed).generate(ctx)
    dialogue = narrative.dialogue
    for text in (dialogue.offer, dialogue.progress, dialogue.completion):
        assert "Mara Reed" not in text, text
        assert lint_text(text, "first", ["Warden Tamsin"], speaker="Mara Reed") == [], text
    for text in (narrative.summary, narrative.description):
        found = lint_text(text, "third", ["Warden Tamsin"], speaker="Mara Reed")
        assert found == [], (text, found)
    assert "between Mara Reed and Warden Tamsin" not in narrative.summary


def test_the_last_resort_text_refers_back_to_the_giver_by_their_pronouns() -> None:
    hollin = person("Hollin", "giver", pronouns=pronouns("he"))
    ctx = NarrativeContext(archetype_id="none", giver_name="Hollin", phrases={"npc": hollin})
    assert "Speak with him to learn" in _last_resort(ctx)["description"]
    bare = NarrativeContext(archetype_id="none", giver_name="Hollin")
    assert "Speak with them to learn" in _last_resort(bare)["description"]


#: How a question the game's people ask begins (an offer or a progress line ending in "?").
_ASKING = ("Will ", "Would ", "Can ", "Could ", "Have ", "Are ", "Is ", "Do ", "Did ")


#: Every template set shipped: the RPG layer's archetypes and the stdlib's generic set.
_SHIPPED = {**{f"rpg:{a}": t for a, t in RPG_TEMPLATES.items()}, "stdlib:generic": GENERIC}


@pytest.mark.parametrize("name", sorted(_SHIPPED))
def test_a_line_ending_in_a_question_mark_asks_a_question(name: str) -> None:
    # "Clear the way and bring me ore?" was a request with a question mark.
    for part, lines in _SHIPPED[name].items():
        for line in lines:
            if not line.rstrip().endswith("?"):
                continue
            last = line.replace(".\n", ". ").rsplit(". ", 1)[-1].strip()
            assert last.startswith(_ASKING), (part, line)
