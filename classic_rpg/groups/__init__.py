"""Groups: following a leader, a group with shared experience and quest credit."""
