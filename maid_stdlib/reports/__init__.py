"""Player reports (``bug``, ``typo``, ``idea``) kept in the database for admins
(``@reports``); see :mod:`.plugin`."""

from maid_stdlib.reports.desk import COLLECTION, KINDS, Report, ReportDesk

__all__ = ["COLLECTION", "KINDS", "Report", "ReportDesk"]
