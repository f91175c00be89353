"""The report desk: filing, listing and closing player reports in the document store.

A report is one document of the ``player_reports`` collection, keyed by its number
("17"); numbers count up from 1 and are never reused. Commands run under the world
lock, one at a time, so reading the highest number and writing the next cannot race.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from maid_engine.ports import ClockPort, StorePort

COLLECTION = "player_reports"
KINDS = ("bug", "typo", "idea")
STATUSES = ("open", "closed")
#: Longest report text kept (longer text is refused, not cut).
MAX_TEXT = 1000


@dataclass
class Report:
    number: int
    kind: str
    text: str
    reporter: str
    reporter_id: str
    room: str
    room_name: str
    filed_at: float
    status: str = "open"
    closed_by: str = ""
    closed_at: float = 0.0
    note: str = ""

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> Report:
        fields = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in doc.items() if k in fields})

    def to_doc(self) -> dict[str, Any]:
        return asdict(self)


def stamp(seconds: float) -> str:
    """A wall-clock time as admins read it: "2026-12-02 16:30 UTC"."""
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M UTC")


class DeskHost(StorePort, ClockPort, Protocol):
    """What the desk uses: the document store and the wall clock."""


class ReportError(Exception):
    """A report request that cannot be done (the message says why)."""


class ReportDesk:
    def __init__(self, engine: DeskHost) -> None:
        self.engine = engine

    def _documents(self) -> Any:
        if not self.engine.has_store:
            raise ReportError("Reports cannot be kept on this server (it has no database).")
        return self.engine.store.documents

    async def next_number(self) -> int:
        docs = self._documents()
        last = await docs.query(COLLECTION, order_by="number", descending=True, limit=1)
        return int(last[0]["number"]) + 1 if last else 1

    async def file(
        self, kind: str, text: str, reporter: str, reporter_id: str, room: str, room_name: str
    ) -> Report:
        if kind not in KINDS:
            raise ReportError(f"Unknown kind of report '{kind}' ({', '.join(KINDS)}).")
        if len(text) > MAX_TEXT:
            raise ReportError(f"A report is at most {MAX_TEXT} characters; please shorten it.")
        report = Report(
            number=await self.next_number(),
            kind=kind,
            text=text,
            reporter=reporter,
            reporter_id=reporter_id,
            room=room,
            room_name=room_name,
            filed_at=self.engine.clock.wall(),
        )
        await self._documents().put(COLLECTION, str(report.number), report.to_doc())
        return report

    async def get(self, number: int) -> Report | None:
        doc = await self._documents().get(COLLECTION, str(number))
        return Report.from_doc(doc) if doc is not None else None

    async def listing(self, kind: str | None = None, status: str | None = "open") -> list[Report]:
        """Reports of ``kind`` (None: every kind) in ``status`` (None: any), oldest first."""
        where: dict[str, Any] = {}
        if kind is not None:
            where["kind"] = kind
        if status is not None:
            where["status"] = status
        docs = await self._documents().query(COLLECTION, where, order_by="number")
        return [Report.from_doc(d) for d in docs]

    async def close(self, number: int, by: str, note: str = "") -> Report:
        report = await self.get(number)
        if report is None:
            raise ReportError(f"There is no report #{number}.")
        if report.status == "closed":
            raise ReportError(f"Report #{number} is already closed (by {report.closed_by}).")
        report.status, report.closed_by, report.note = "closed", by, note
        report.closed_at = self.engine.clock.wall()
        await self._documents().put(COLLECTION, str(number), report.to_doc())
        return report
