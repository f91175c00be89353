"""Admin tools: the ``@quest`` command group, paging, and the admin content pack.

``AdminContentPack`` (entry point ``admin``) registers ``@quest`` (admin role),
the pager's ``more``/``next`` and the player's ``questgen on|less|off``
preference. See docs/admin-guide.md.
"""

from admin.pack import AdminContentPack

__all__ = ["AdminContentPack"]
