"""Typed, frozen models of the service's answers.

Every model wraps the JSON the service sent (``raw``) and reads attributes from
it lazily, in snake_case (the wire ``_id`` is ``id``): a declared field is read
natively from the answer's bytes on first access (a nested object becomes a
model over the same bytes). Nothing is dropped: fields this package does not
know are still reachable as attributes (by their snake_case or wire name), in
``raw`` and in ``to_dict()``. Models compare by value, pickle (as their JSON
bytes), and print a short ``repr``.

The modules, each importing only those before it: ``_base`` (the reading rules
and ``Model``), ``scanning`` (scans and the account) and ``premium`` (premium
objects, the other data sources' hits and notifications).
"""

from __future__ import annotations

# Pickles name the function that reads them back, from before the models were a package.
from .._relations import Relationship
from ._base import (
    Model,
    _unpickle,  # noqa: F401
)
from .premium import (
    Brand,
    BrandSummary,
    CertificateHit,
    Channel,
    DataDumpFile,
    DomainHit,
    HostnameHit,
    HostnameRecord,
    Incident,
    IncidentHit,
    IncidentObservation,
    IncidentState,
    LiveScanner,
    MaliciousObservable,
    Notification,
    NotificationHit,
    SavedSearch,
    Subscription,
)
from .scanning import (
    CommunityVerdict,
    Download,
    EngineVerdicts,
    HitStats,
    Lists,
    Lookup,
    Page,
    Quotas,
    ScanOutcome,
    ScanResult,
    Screenshot,
    SearchHit,
    Stats,
    Submission,
    Submitter,
    Task,
    Team,
    User,
    UserAgentGroup,
    Verdict,
    VerdictBrand,
    Verdicts,
    VisibilityChange,
    Visible,
)

__all__ = [
    "Model",
    "Submission",
    "ScanResult",
    "Download",
    "Relationship",
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
    "Lookup",
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
    "MaliciousObservable",
    "DataDumpFile",
    "Notification",
    "HostnameHit",
    "IncidentHit",
    "NotificationHit",
    "CertificateHit",
    "DomainHit",
]
