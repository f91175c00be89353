"""Content packs: base class, context, discovery and dependency ordering."""

from maid_engine.content.loader import available_packs, collect_packs, order_packs, resolve_pack
from maid_engine.content.pack import ContentPack, PackContext, PackError, PackHost, Services

__all__ = [
    "ContentPack",
    "PackContext",
    "PackError",
    "PackHost",
    "Services",
    "available_packs",
    "collect_packs",
    "order_packs",
    "resolve_pack",
]
