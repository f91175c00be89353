"""The web client: a page at ``/`` and a WebSocket transport at ``/ws`` (aiohttp).

Imported only by a server that listens for browsers (``maid run``), like the telnet
transport.
"""

from maid_engine.web.server import STATIC_DIR, WebConnection, WebServer

__all__ = ["STATIC_DIR", "WebConnection", "WebServer"]
