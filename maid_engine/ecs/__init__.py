"""Entity-component-system core: the World owns the storage (no ECS library)."""

from maid_engine.ecs.component import Component, dump_component, load_component
from maid_engine.ecs.system import System
from maid_engine.ecs.world import ComponentNotFound, EntityNotFound, World

__all__ = [
    "Component",
    "ComponentNotFound",
    "EntityNotFound",
    "System",
    "World",
    "dump_component",
    "load_component",
]
