"""Fixtures of the world-state tests: the bandit-camp schema, the example file, a World."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from maid_engine.ecs import World
from maid_stdlib.worldstate import DictStatView, StatSchema, load_schema

EXAMPLE = (
    Path(__file__).resolve().parents[2]
    / "maid_stdlib"
    / "worldstate"
    / "examples"
    / "bandit_camp.yaml"
)

HP_BANDS = [[0, 20, "very weak"], [20, 40, "hurt"], [40, 60, "minor damage"],
            [60, 90, "healthy"], [90, 100, "full health"]]  # fmt: skip

#: The bandit-camp demo schema, as first written (with Gwen's health bands).
SEED_SCHEMA: dict[str, Any] = {
    "world": {
        "day": {"type": "counter", "min": 1, "initial": 1, "desc": "In-game day",
                "max_delta_per_turn": 1, "cooldown": 0},
    },
    "player": {
        "hp": {"min": 0, "max": 100, "initial": 100, "max_delta_per_turn": 30,
               "cooldown": 0, "bands": HP_BANDS},
        "mana": {"min": 0, "max": 50, "initial": 20, "max_delta_per_turn": 15},
    },
    "npcs": {
        "gwen": {
            "name": "Gwen", "keys": "Gwen, ranger, her",
            "desc": "A loyal ranger and the player's ally.",
            "stats": {
                "health": {"min": 0, "max": 100, "initial": 100, "bands": HP_BANDS},
                "trust": {"min": -100, "max": 100, "initial": 20, "max_delta_per_turn": 20,
                          "bands": [[-100, -30, "hostile"], [-30, 30, "wary"],
                                    [30, 100, "ally"]]},
            },
        },
        "milo": {"name": "Milo", "stats": {"trust": {"min": -100, "max": 100, "initial": 0}}},
    },
    "flags": {
        "has_key": {"desc": "Player holds the dungeon key", "initial": False},
        "alarm_raised": {"desc": "The enemy is alerted", "initial": False},
    },
    "milestones": {
        "rescue_gwen": {"desc": "Rescue Gwen from the bandits"},
        "reach_capital": {"desc": "Arrive at the capital city"},
    },
}  # fmt: skip


def seed_data() -> dict[str, Any]:
    return copy.deepcopy(SEED_SCHEMA)


@pytest.fixture
def seed_dict() -> dict[str, Any]:
    """A fresh copy of the bandit-camp schema data, to edit freely."""
    return seed_data()


@pytest.fixture
def example_path() -> Path:
    return EXAMPLE


@pytest.fixture
def schema() -> StatSchema:
    return load_schema(seed_data())


@pytest.fixture
def view() -> DictStatView:
    return DictStatView()


@pytest.fixture
def world() -> World:
    return World()
