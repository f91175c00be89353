"""Ironvale: the mining village of the Iron Crisis, and the Old Trade Road."""
