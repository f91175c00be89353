"""Admin tools: the ``@quest`` command group and the admin content pack.

``AdminContentPack`` (entry point ``admin``) registers ``@quest`` (admin role)
and the player's ``questgen on|less|off`` preference (paging is the stdlib's,
:mod:`maid_stdlib.world.pager`). See docs/admin-guide.md.
"""

from admin.pack import AdminContentPack

__all__ = ["AdminContentPack"]
