"""Content packs: base class, context, discovery and dependency ordering."""

from maid_engine.content.loader import (
    available_packs,
    collect_packs,
    finish_pack,
    order_packs,
    register_pack,
    register_packs,
    resolve_pack,
)
from maid_engine.content.pack import (
    Claims,
    ContentPack,
    PackContext,
    PackError,
    PackHost,
    PluginGroup,
    Services,
    requirement_name,
)

__all__ = [
    "Claims",
    "ContentPack",
    "PackContext",
    "PackError",
    "PackHost",
    "PluginGroup",
    "Services",
    "available_packs",
    "collect_packs",
    "finish_pack",
    "order_packs",
    "register_pack",
    "register_packs",
    "requirement_name",
    "resolve_pack",
]
