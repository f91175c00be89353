"""YAML that remembers its lines: plain dicts and lists to readers, lines to
whoever reports a problem."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from maid_engine.content.yamllines import (
    LineDict,
    LineList,
    YamlProblem,
    line_at,
    line_of,
    load_yaml,
    read_yaml,
)

TEXT = """\
area: {key: town}
rooms:
  - key: hall
    exits:
      north: yard
  - key: yard
    colour: red
"""


def test_values_are_plain_and_know_their_lines() -> None:
    data = load_yaml(TEXT)
    assert isinstance(data, LineDict)
    assert json.loads(json.dumps(data)) == data
    assert data["rooms"][1] == {"key": "yard", "colour": "red"}
    assert isinstance(data["rooms"], LineList)
    assert line_of(data) == 1
    assert line_of(data, "rooms") == 2
    assert line_of(data["rooms"], 1) == 6
    assert line_at(data, ["rooms", 1, "colour"]) == 7
    assert line_at(data, ["rooms", 0, "exits", "north"]) == 5
    # A path that goes further than the data stops at the deepest known part.
    assert line_at(data, ["rooms", 0, "exits", "north", "deeper"]) == 5
    assert line_at(data, ["rooms", 9]) == 3  # the list itself
    assert line_of("a string") is None
    assert line_of(data, "nothing") == 1
    assert load_yaml("") is None


def test_bad_yaml_and_bad_files_say_where(tmp_path: Path) -> None:
    with pytest.raises(YamlProblem) as err:
        load_yaml("rooms: [unclosed\n  - x\n")
    assert err.value.line is not None
    assert str(err.value).startswith("invalid YAML at line")
    path = tmp_path / "a.yaml"
    path.write_text(TEXT)
    assert read_yaml(path)["area"] == {"key": "town"}
    with pytest.raises(YamlProblem, match="cannot read"):
        read_yaml(tmp_path / "missing.yaml")
    # Safe: no Python objects.
    with pytest.raises(YamlProblem):
        load_yaml("!!python/object/apply:os.system ['true']")
