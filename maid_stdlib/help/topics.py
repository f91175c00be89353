"""Help topics: pages about the game rather than about one command.

Every loaded pack may ship topics as data, in ``help.yaml`` in its folder and/or in
``help/*.yaml``. A file maps topic keys to entries::

    combat:
      title: Fighting
      category: playing
      keywords: [fight, attack, kill]
      see_also: [flee, death]
      text: |
        Type 'kill <target>' to start a fight...

Packs are read in load order, so a later pack adds topics and replaces an earlier
pack's topic of the same key (Ironvale's ``newbie`` replaces the generic one).
Only ``text`` is required; ``title`` defaults to the key, ``category`` to "general".
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from maid_engine.ports import PackInfo

_FIELDS = {"title", "category", "keywords", "see_also", "text"}

#: Display order of topic categories in the help index; others follow alphabetically.
TOPIC_CATEGORY_ORDER = ("getting started", "playing", "talking", "settings")


@dataclass(frozen=True)
class HelpTopic:
    key: str
    title: str
    text: str
    category: str = "general"
    keywords: tuple[str, ...] = ()
    see_also: tuple[str, ...] = ()
    #: The pack whose data the topic came from (the last one that defined it).
    pack: str = ""

    @property
    def names(self) -> tuple[str, ...]:
        return (self.key, *self.keywords)

    def render(self) -> str:
        lines = [f"|c{self.title}|n  (help {self.key})", self.text.rstrip()]
        if self.see_also:
            lines.append(f"|gSee also:|n {', '.join(self.see_also)}")
        return "\n".join(lines)

    def mentions(self, word: str) -> bool:
        word = word.casefold()
        return any(word in part.casefold() for part in (*self.names, self.title, self.text))


@dataclass(frozen=True)
class TopicProblem:
    pack: str
    file: Path
    message: str

    def __str__(self) -> str:
        return f"{self.file}: {self.message}"


def _words(value: Any) -> tuple[str, ...] | None:
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        return None
    return tuple(v.strip().lower() for v in value)


def parse_topics(pack: str, file: Path, data: Any) -> tuple[list[HelpTopic], list[TopicProblem]]:
    """The topics of one file's parsed YAML, and what is wrong with it."""
    if data is None:
        return [], []
    if not isinstance(data, dict):
        return [], [TopicProblem(pack, file, "must map topic names to entries")]
    topics: list[HelpTopic] = []
    problems: list[TopicProblem] = []
    for raw_key, entry in data.items():
        key = str(raw_key).strip().lower()

        def bad(message: str, key: str = key) -> None:
            problems.append(TopicProblem(pack, file, f"{key}: {message}"))

        if not key or " " in key:
            bad("a topic name is one word")
            continue
        if not isinstance(entry, dict):
            bad("must be a mapping with at least 'text'")
            continue
        unknown = sorted(set(map(str, entry)) - _FIELDS)
        if unknown:
            bad(f"unknown field(s) {', '.join(unknown)} (allowed: {', '.join(sorted(_FIELDS))})")
            continue
        text = entry.get("text")
        if not isinstance(text, str) or not text.strip():
            bad("'text' is required")
            continue
        keywords, see_also = _words(entry.get("keywords")), _words(entry.get("see_also"))
        if keywords is None or see_also is None:
            bad("'keywords' and 'see_also' are lists of words")
            continue
        title = entry.get("title", key)
        category = entry.get("category", "general")
        if not isinstance(title, str) or not isinstance(category, str):
            bad("'title' and 'category' are text")
            continue
        topics.append(
            HelpTopic(
                key=key,
                title=title.strip() or key,
                text=text,
                category=category.strip().lower() or "general",
                keywords=keywords,
                see_also=see_also,
                pack=pack,
            )
        )
    return topics, problems


def topic_files(folder: Path) -> list[Path]:
    """A pack folder's topic files: ``help.yaml`` first, then ``help/*.yaml`` by name."""
    files = [folder / "help.yaml"] if (folder / "help.yaml").is_file() else []
    sub = folder / "help"
    if sub.is_dir():
        files.extend(sorted(p for p in sub.glob("*.yaml") if p.is_file()))
    return files


class HelpTopics:
    """Every topic of the loaded packs, by key and by keyword."""

    def __init__(self, topics: Iterable[HelpTopic] = ()) -> None:
        self._topics: dict[str, HelpTopic] = {}
        self._names: dict[str, str] = {}
        for topic in topics:
            self.add(topic)

    def add(self, topic: HelpTopic) -> None:
        """Add a topic, replacing the one of the same key (and its keywords)."""
        old = self._topics.get(topic.key)
        if old is not None:
            for name in old.keywords:
                if self._names.get(name) == old.key:
                    del self._names[name]
        self._topics[topic.key] = topic
        for name in topic.keywords:
            # A keyword never hides another topic's own key.
            if name not in self._topics or name == topic.key:
                self._names.setdefault(name, topic.key)
        self._names[topic.key] = topic.key

    @classmethod
    def load(cls, packs: Sequence[PackInfo]) -> tuple[HelpTopics, list[TopicProblem]]:
        """Read the topics of ``packs`` in order (later ones replace earlier ones)."""
        found = cls()
        problems: list[TopicProblem] = []
        seen: set[Path] = set()
        for pack in packs:
            folder = pack.path
            if folder in seen:
                continue  # the plugins of one package share its folder
            seen.add(folder)
            for file in topic_files(folder):
                try:
                    data = yaml.safe_load(file.read_text(encoding="utf-8"))
                except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
                    problems.append(TopicProblem(pack.name, file, f"cannot read: {exc}"))
                    continue
                topics, bad = parse_topics(pack.name, file, data)
                problems.extend(bad)
                for topic in topics:
                    found.add(topic)
        return found, problems

    def __len__(self) -> int:
        return len(self._topics)

    def __contains__(self, key: str) -> bool:
        return key.lower() in self._names

    def get(self, name: str) -> HelpTopic | None:
        """The topic called ``name`` (its key or one of its keywords)."""
        key = self._names.get(name.strip().lower())
        return self._topics[key] if key is not None else None

    def starting_with(self, prefix: str) -> list[HelpTopic]:
        prefix = prefix.strip().lower()
        keys = {key for name, key in self._names.items() if name.startswith(prefix)}
        return [self._topics[k] for k in sorted(keys)]

    def all(self) -> list[HelpTopic]:
        return [self._topics[k] for k in sorted(self._topics)]

    def names(self) -> list[str]:
        return sorted(self._names)

    def search(self, word: str) -> list[HelpTopic]:
        """Topics that mention ``word``: those naming it first, then those whose text does."""
        word = word.strip().casefold()
        named = [t for t in self.all() if any(word in n for n in (*t.names, t.title.casefold()))]
        rest = [t for t in self.all() if t not in named and t.mentions(word)]
        return named + rest

    def by_category(self) -> dict[str, list[HelpTopic]]:
        groups: dict[str, list[HelpTopic]] = {}
        for topic in self.all():
            groups.setdefault(topic.category, []).append(topic)
        return {c: groups[c] for c in sorted(groups, key=topic_category_key)}


def topic_category_key(category: str) -> tuple[int, str]:
    try:
        return (TOPIC_CATEGORY_ORDER.index(category), category)
    except ValueError:
        return (len(TOPIC_CATEGORY_ORDER), category)
