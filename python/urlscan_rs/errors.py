"""The exception hierarchy of urlscan_rs.

Every exception derives from :class:`UrlscanError`. Messages never contain the
API key (it travels only in a request header and is never formatted).
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

__all__ = [
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
    "StateError",
]


class UrlscanError(Exception):
    """Base class of every error raised by urlscan_rs."""

    message: str

    def __init__(self, message: str = "", **attrs: Any) -> None:
        detail = attrs.pop("_detail", None)
        super().__init__(detail or message)
        self.message = message
        self._attrs = attrs
        for k, v in attrs.items():
            setattr(self, k, v)

    def __reduce__(self) -> tuple[Any, ...]:
        # Keyword attributes survive pickling (e.g. across a process pool).
        return (_rebuild, (type(self), self.message, str(self), self._attrs))


def _rebuild(cls: type[UrlscanError], message: str, detail: str, attrs: dict[str, Any]) -> UrlscanError:
    return cls(message, _detail=detail, **attrs)


class ValidationError(UrlscanError, ValueError):
    """The input breaks a documented rule; nothing was sent."""


class TransportError(UrlscanError):
    """Connection, DNS or TLS failure, after retries."""


class RequestTimeout(TransportError, TimeoutError):
    """A request took longer than the client's timeout, after retries."""


class APIError(UrlscanError):
    """The service answered with a non-2xx status.

    Attributes: ``status``, ``message``, ``description``, ``code``, ``errors``,
    ``body`` (the raw body text), ``method`` and ``path`` of the request.
    """

    status: int
    description: str | None
    code: str | None
    errors: Any
    body: str
    method: str | None
    path: str | None

    def __init__(self, message: str = "", **attrs: Any) -> None:
        attrs.setdefault("status", 0)
        attrs.setdefault("description", None)
        attrs.setdefault("code", None)
        attrs.setdefault("errors", None)
        attrs.setdefault("body", "")
        attrs.setdefault("method", None)
        attrs.setdefault("path", None)
        super().__init__(message, **attrs)


class BadRequestError(APIError):
    """HTTP 400: the service refused the request as malformed."""


class ScanRefusedError(BadRequestError):
    """The service refused to scan the URL (DNS error, blocked domain, ...)."""


class AuthenticationError(APIError):
    """The API key was refused: HTTP 401 (unknown key), the 400 "Invalid API key format"
    (a key that is not UUID-shaped, on any endpoint), or no key at all for a call that needs
    one (then nothing was sent and the message names ``URLSCAN_API_KEY`` and ``--api-key``)."""


class PermissionDeniedError(APIError):
    """HTTP 403: e.g. a premium account or the readwrite scope is required."""


class NotFoundError(APIError):
    """HTTP 404: no such object (for scans: "No such scan submission")."""


class ScanPendingError(NotFoundError):
    """The scan exists and has not finished yet (HTTP 404 "Scan is not finished yet")."""


class GoneError(APIError):
    """HTTP 410: the scan was deleted."""


class RateLimitError(APIError):
    """HTTP 429, or a spent quota window with ``fail_fast=True``.

    Attributes from the ``X-Rate-Limit-*`` headers: ``action``, ``scope``,
    ``window``, ``limit``, ``remaining``, ``reset_at`` (an aware datetime) and
    ``reset_after`` (seconds).
    """

    action: str | None
    scope: str | None
    window: str | None
    limit: int | None
    remaining: int | None
    reset_at: datetime | None
    reset_after: float | None

    def __init__(self, message: str = "", **attrs: Any) -> None:
        for k in ("action", "scope", "window", "limit", "remaining", "reset_after"):
            attrs.setdefault(k, None)
        reset = attrs.pop("reset", None)
        if "reset_at" not in attrs:
            attrs["reset_at"] = _parse_time(reset)
        super().__init__(message, **attrs)


class ServerError(APIError):
    """HTTP 5xx."""


class ScanTimeoutError(UrlscanError, TimeoutError):
    """``wait_for_result`` gave up; ``uuid`` names the scan, ``timeout`` the seconds waited."""

    uuid: str
    timeout: float


class DecodeError(UrlscanError):
    """A 2xx answer whose body is not what the interface says."""


class StateError(UrlscanError):
    """A state file the package keeps on disk (a data-dump or feed sync's) is
    locked, read-only or corrupt, or another run syncs the same feed into its
    folder. ``path`` names the file; the message says what to do (wait for the
    other run, make it writable, or rebuild it)."""

    path: str


def _parse_time(value: Any) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(timezone.utc)
    except ValueError:
        return None
