"""Typed, frozen models of the service's answers.

Every model wraps the JSON the service sent (``raw``) and reads attributes from
it lazily, in snake_case (the wire ``_id`` is ``id``): a declared field is read
natively from the answer's bytes on first access (a nested object becomes a
model over the same bytes). Nothing is dropped: fields this package does not
know are still reachable as attributes (by their snake_case or wire name), in
``raw`` and in ``to_dict()``. Models compare by value, pickle (as their JSON
bytes), and print a short ``repr``.

The modules, each importing only those before it: ``_base`` (the reading rules
and ``Model``), ``scanning``, ``account``, ``premium`` and ``sources`` (the
other data sources' hits and notifications).
"""

from __future__ import annotations

# Pickles name the function that reads them back, from before the models were a package.
from ._base import (
    Model,
    _unpickle,  # noqa: F401
)
from .account import Quotas, ScanOutcome, Screenshot, Team, User
from .premium import (
    Brand,
    BrandSummary,
    Channel,
    DataDumpFile,
    HostnameRecord,
    Incident,
    IncidentObservation,
    IncidentState,
    LiveScanner,
    SavedSearch,
    Subscription,
)
from .scanning import (
    CommunityVerdict,
    EngineVerdicts,
    HitStats,
    Lists,
    Page,
    ScanResult,
    SearchHit,
    Stats,
    Submission,
    Submitter,
    Task,
    UserAgentGroup,
    Verdict,
    VerdictBrand,
    Verdicts,
    VisibilityChange,
    Visible,
)
from .sources import CertificateHit, DomainHit, HostnameHit, IncidentHit, Notification, NotificationHit

__all__ = [
    "Model",
    "Submission",
    "ScanResult",
    "Task",
    "Page",
    "Verdicts",
    "Verdict",
    "EngineVerdicts",
    "CommunityVerdict",
    "VerdictBrand",
    "Visible",
    "Stats",
    "Lists",
    "Submitter",
    "SearchHit",
    "HitStats",
    "Quotas",
    "User",
    "Team",
    "VisibilityChange",
    "UserAgentGroup",
    "ScanOutcome",
    "Screenshot",
    "SavedSearch",
    "Subscription",
    "Channel",
    "Incident",
    "IncidentState",
    "IncidentObservation",
    "HostnameRecord",
    "Brand",
    "BrandSummary",
    "LiveScanner",
    "DataDumpFile",
    "Notification",
    "HostnameHit",
    "IncidentHit",
    "NotificationHit",
    "CertificateHit",
    "DomainHit",
]
