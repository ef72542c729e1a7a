"""The account and batches: quotas, user and team, screenshots, scan outcomes."""

from __future__ import annotations

import dataclasses
import os
from datetime import datetime
from typing import Any

from ._base import Model, _datetime, _field, _int, _list, _model, _safe_repr
from .scanning import ScanResult, Submission

# ---------------------------------------------------------------- account


class Quotas(Model):
    """Quotas: ``limits[action][window]`` with limit, used, remaining and percent."""

    __slots__ = ()
    scope: str | None = _field("scope")
    """Whose quotas these are: ``user``, ``team``, or ``ip-address`` without a key. Wire: ``scope``."""
    source: str | None = _field("source")
    """The source of the quota limits, e.g. ``user``. Wire: ``source``."""
    limits: dict[str, Any] | None = _field("limits")
    """The limits, ``limits[action][window]`` with ``limit``, ``used``, ``remaining`` and ``percent``; actions such as ``public``,
    ``private``, ``search``, windows ``minute``, ``hour`` and ``day``. Wire: ``limits``."""
    _repr_fields = ("scope",)

    @_safe_repr
    def __repr__(self) -> str:
        # What is left of each action's day, the figure a user looks for first.
        lim = self._raw.get("limits")
        left = []
        for action, windows in (lim or {}).items() if isinstance(lim, dict) else ():
            day = windows.get("day") if isinstance(windows, dict) else None
            if isinstance(day, dict):
                left.append(f"{action}={day.get('remaining')}/{day.get('limit')}")
        return f"Quotas(scope={self.scope!r}, left today: {', '.join(left) or 'unknown'})"

    def remaining(self, action: str, window: str = "day") -> int | None:
        """Requests left for an action in a window, or None when unknown."""
        lim = self._raw.get("limits")
        w = lim.get(action, {}).get(window) if isinstance(lim, dict) else None
        return _int(w.get("remaining")) if isinstance(w, dict) else None


class Team(Model):
    """The team of a user (``user().team``)."""

    __slots__ = ()
    id: str | None = _field("_id")
    """The team's id. Wire: ``_id``."""
    name: str | None = _field("name")
    """The team's name. Wire: ``name``."""
    slug: str | None = _field("slug")
    """The team's slug, e.g. ``example-team``. Wire: ``slug``."""


class User(Model):
    """The user (or team) an API key belongs to (``user()``): products, features and limits."""

    __slots__ = ()
    username: str | None = _field("username")
    """The user's name. Wire: ``username``."""
    email: str | None = _field("email")
    """The user's e-mail address. Wire: ``email``."""
    created_at: datetime | None = _field("createdAt", _datetime)
    """When the user was created, aware in UTC. Wire: ``createdAt``."""
    team: Team = _field("team", _model(Team))
    """The user's team. Wire: ``team``."""
    limits: dict[str, Any] | None = _field("limits")
    """The user's limits, ``limits[action][window]`` as in :class:`Quotas`. Wire: ``limits``."""
    products: list[str] = _field("products", _list)
    """The products the user has, e.g. ``pro``, ``livescan``. Wire: ``products``."""
    features: list[str] = _field("features", _list)
    """The features the user has, e.g. ``country-select``. Wire: ``features``."""
    _repr_fields = ("username", "email", "products")


class Screenshot(bytes):
    """A PNG screenshot: plain ``bytes`` that also display as an image in notebooks."""

    def _repr_png_(self) -> bytes:
        return bytes(self)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the PNG to a file, whole (a temporary file beside it, then renamed)."""
        from .. import _native

        _native.write_whole(path, bytes(self))

    def __reduce__(self) -> tuple[Any, ...]:
        return (Screenshot, (bytes(self),))


# ---------------------------------------------------------------- batch


@dataclasses.dataclass(frozen=True)
class ScanOutcome:
    """One URL of a bulk scan: its submission and result, or the error."""

    url: str
    """The URL, as given."""
    submission: Submission | None
    """The submission's answer (None when the submission failed)."""
    result: ScanResult | None
    """The result (None without ``wait``, or when something failed)."""
    error: BaseException | None
    """What failed (a :class:`~urlscan_rs.errors.UrlscanError`), or None."""

    @property
    def ok(self) -> bool:
        """True when nothing failed."""
        return self.error is None
