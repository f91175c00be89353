"""Hamlet: the small neutral world the stdlib tests run on (see pack.py)."""
