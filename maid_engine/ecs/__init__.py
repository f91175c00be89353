"""Entity-component-system core. The only package that imports esper."""

from maid_engine.ecs.component import Component, component_type, dump_component, load_component
from maid_engine.ecs.system import System
from maid_engine.ecs.world import ComponentNotFound, EntityNotFound, World

__all__ = [
    "Component",
    "ComponentNotFound",
    "EntityNotFound",
    "System",
    "World",
    "component_type",
    "dump_component",
    "load_component",
]
