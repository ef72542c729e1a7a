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

# BEGIN GENERATED imports by `python -m urlscan_rs._generate`: do not edit
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

# END GENERATED imports

# The one list of the models. The first part is exported by the top-level package too (what a
# caller meets first: the answers of the client's main methods, a notification, and the hits of
# every search data source, which the generator writes from the core's list); the second part,
# reached from those or from the premium namespaces, is exported here only. The generator writes
# the imports above, and the top-level package's, from these lists.
__all__ = [
    "Submission",
    "ScanResult",
    "ScanOutcome",
    "Lookup",
    "MaliciousObservable",
    "Quotas",
    "User",
    "UserAgentGroup",
    "VisibilityChange",
    "Notification",
    # BEGIN GENERATED hits by `python -m urlscan_rs._generate`: do not edit
    "SearchHit",
    "HostnameHit",
    "IncidentHit",
    "NotificationHit",
    "CertificateHit",
    "DomainHit",
    # END GENERATED hits
]
__all__ += [
    "Model",
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
    "HitStats",
    "Team",
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
]
