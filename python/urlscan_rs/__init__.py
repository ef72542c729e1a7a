"""urlscan_rs: a fast, typed client for the urlscan.io API, sync and async,
with a local emulator of the service for tests and demos."""

import atexit as _atexit
import logging as _logging
from typing import TYPE_CHECKING as _TYPE_CHECKING
from typing import Any as _Any

# _interrupt first, before the heavy imports: in the command's process a Ctrl-C now ends it quietly.
from . import _interrupt, _native, errors, models, query, schema  # noqa: F401 (_interrupt: imported for its guard)
from ._client import AsyncClient, Client, ClientOptions, ScanOptions, SearchIterator
from ._native import __version__
from ._refang import refang
from ._tables import ResultList, to_arrow
from .cache import Cache
from .errors import *  # noqa: F403  (the exception classes, as errors.__all__ names them)
from .errors import __all__ as __all__  # that list by its own name: how type checkers read the star
from .events import parse_notification

# The models exported here too: the first part of models.__all__, where every model is listed.
# BEGIN GENERATED models by `python -m urlscan_rs._generate`: do not edit
from .models import (
    CertificateHit,
    DomainHit,
    HostnameHit,
    IncidentHit,
    Lookup,
    MaliciousObservable,
    Notification,
    NotificationHit,
    Quotas,
    ScanOutcome,
    ScanResult,
    SearchHit,
    Submission,
    User,
    UserAgentGroup,
    VisibilityChange,
)

# END GENERATED models

if _TYPE_CHECKING:
    from . import datadumps as datadumps
    from . import feeds as feeds


def __getattr__(name: str) -> _Any:
    # `urlscan_rs.datadumps` and `urlscan_rs.feeds` are loaded when first used (they bring sqlite3).
    if name in ("datadumps", "feeds"):
        import importlib

        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# Rust threads outlive the interpreter: tell them before it goes away.
_atexit.register(_native._shutdown)


def _hook_log_levels() -> None:
    # Log levels are cached on the Rust side; logging clears its own cache
    # whenever a level changes (Logger.setLevel, logging.disable): clear ours then too.
    manager: _Any = _logging.Logger.manager
    original = getattr(manager, "_clear_cache", None)
    if original is None:  # another Python's logging: levels are read once per logger
        return

    def clear_cache() -> None:
        original()
        _native._reset_log_cache()

    manager._clear_cache = clear_cache


_hook_log_levels()

__all__ = [
    "__version__",
    "Client",
    "AsyncClient",
    "Cache",
    "SearchIterator",
    "ScanOptions",
    "ClientOptions",
    "errors",
    "models",
    "schema",
    "datadumps",
    "feeds",
    "query",
    "refang",
    "to_arrow",
    "ResultList",
    *__all__,
    "parse_notification",
    # BEGIN GENERATED models_all by `python -m urlscan_rs._generate`: do not edit
    "CertificateHit",
    "DomainHit",
    "HostnameHit",
    "IncidentHit",
    "Lookup",
    "MaliciousObservable",
    "Notification",
    "NotificationHit",
    "Quotas",
    "ScanOutcome",
    "ScanResult",
    "SearchHit",
    "Submission",
    "User",
    "UserAgentGroup",
    "VisibilityChange",
    # END GENERATED models_all
]
