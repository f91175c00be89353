"""English text for generated prose: morphology, place names, voice, and a lint.

Generic over any world: nothing here names a game's content. The quest narrative
realiser uses it today; NPC dialogue can use the same pieces.

- :mod:`.morph`: articles, plurals, possessives, verb agreement, sentence case
  (the morphology comes from ``inflect``);
- :mod:`.place`: a room's short prose form ("the Broken Wagon on the Old Trade Road");
- :mod:`.voice`: a first-person memory retold in the third person;
- :mod:`.pronouns`: "he", "her", "their" for someone the text refers back to;
- :mod:`.lint`: the defects a generated text must not have.
"""

from maid_stdlib.text.lint import Defect, lint_text
from maid_stdlib.text.morph import (
    counted,
    counted_definite,
    definite,
    indefinite,
    is_plural,
    join,
    plural,
    possessive,
    sentence_case,
    strip_article,
    verb_for,
)
from maid_stdlib.text.place import place_phrase
from maid_stdlib.text.pronouns import Pronouns, pronouns
from maid_stdlib.text.voice import is_first_person, third_person

__all__ = [
    "Defect",
    "Pronouns",
    "counted",
    "counted_definite",
    "definite",
    "indefinite",
    "is_first_person",
    "is_plural",
    "join",
    "lint_text",
    "place_phrase",
    "plural",
    "possessive",
    "pronouns",
    "sentence_case",
    "strip_article",
    "third_person",
    "verb_for",
]
