"""urlscan_rs: a fast, typed client for the urlscan.io API, sync and async,
with a local emulator of the service for tests and demos."""

import atexit

from . import _native, errors, models
from ._client import AsyncClient, Client, SearchIterator
from ._native import __version__
from .errors import (
    APIError,
    AuthenticationError,
    BadRequestError,
    DecodeError,
    GoneError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    RequestTimeout,
    ScanPendingError,
    ScanRefusedError,
    ScanTimeoutError,
    ServerError,
    TransportError,
    UrlscanError,
    ValidationError,
)
from .models import (
    Quotas,
    ScanOutcome,
    ScanResult,
    SearchHit,
    Submission,
    User,
    UserAgentGroup,
    VisibilityChange,
)

# Rust threads outlive the interpreter: tell them before it goes away.
atexit.register(_native._shutdown)

__all__ = [
    "__version__",
    "Client",
    "AsyncClient",
    "SearchIterator",
    "errors",
    "models",
    "UrlscanError",
    "ValidationError",
    "TransportError",
    "RequestTimeout",
    "APIError",
    "BadRequestError",
    "ScanRefusedError",
    "AuthenticationError",
    "PermissionDeniedError",
    "NotFoundError",
    "ScanPendingError",
    "GoneError",
    "RateLimitError",
    "ServerError",
    "ScanTimeoutError",
    "DecodeError",
    "Quotas",
    "ScanOutcome",
    "ScanResult",
    "SearchHit",
    "Submission",
    "User",
    "UserAgentGroup",
    "VisibilityChange",
]
