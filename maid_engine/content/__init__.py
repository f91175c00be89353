"""Content packs: base class, context, discovery and dependency ordering, and the
extension registries packs add to (who added what; locked after start-up)."""

from maid_engine.content.errors import PackError
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
    ContentPack,
    PackContext,
    PackHost,
    PluginGroup,
    Services,
    requirement_name,
)
from maid_engine.content.registries import (
    Claims,
    Registries,
    RegistryLocked,
    RegistryRow,
    render_registries,
)

__all__ = [
    "Claims",
    "ContentPack",
    "PackContext",
    "PackError",
    "PackHost",
    "PluginGroup",
    "Registries",
    "RegistryLocked",
    "RegistryRow",
    "Services",
    "available_packs",
    "collect_packs",
    "finish_pack",
    "order_packs",
    "register_pack",
    "register_packs",
    "render_registries",
    "requirement_name",
    "resolve_pack",
]
