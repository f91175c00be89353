"""Help that teaches: topic pages from pack data, ``help`` and ``help search``, and
the newbie guide shown on a character's first login (see :mod:`.plugin`)."""

from maid_stdlib.help.topics import HelpTopic, HelpTopics, TopicProblem

__all__ = ["HelpTopic", "HelpTopics", "TopicProblem"]
