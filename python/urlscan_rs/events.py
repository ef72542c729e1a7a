"""Notifications: the payload a webhook receives (see the guide's "Events" page, docs/guide/events.md).

>>> import urlscan_rs
>>> n = urlscan_rs.parse_notification(b'{"id": "674199e0a1b2c3d4e5f60718", "type": "incident", "results": []}')
>>> n.type, n.results
('incident', [])
"""

from __future__ import annotations

import json
from typing import Any

from .errors import DecodeError
from .models import Notification
from .models._base import MAX_NESTING, _too_deep

__all__ = ["parse_notification", "NOTIFICATION_TYPES"]

NOTIFICATION_TYPES = ("subscription", "incident")
"""The values of a notification's ``type``."""


def parse_notification(body: bytes | bytearray | memoryview | str | dict[str, Any]) -> Notification:
    """A notification from a webhook body (``bytes`` or ``str`` of JSON) or an
    already decoded ``dict``.

    Raises :class:`urlscan_rs.DecodeError` saying why when the body is not a
    notification: not JSON (or nested too deeply to read), not a JSON object,
    no string ``id``, a ``type`` other than "subscription" or "incident", no
    ``results`` list of objects, or any declared field of the wrong type (a
    field may be missing or null: the lenient rule; it may not be wrong).
    """
    if isinstance(body, (bytes, bytearray, memoryview)):
        try:
            text = bytes(body).decode("utf-8")
        except UnicodeDecodeError as e:
            raise DecodeError(f"notification: the body is not UTF-8 text ({e})") from None
        obj = _loads(text)
    elif isinstance(body, str):
        obj = _loads(body)
    elif isinstance(body, dict):
        obj = body
    else:
        raise DecodeError(f"notification: expected bytes, str or dict, got {type(body).__name__}")
    if not isinstance(obj, dict):
        raise DecodeError(f"notification: expected a JSON object, got {_json_kind(obj)}")
    if _too_deep(obj):
        raise DecodeError(f"notification: nested deeper than {MAX_NESTING} levels, too deeply to read")
    nid = obj.get("id")
    if not isinstance(nid, str) or not nid:
        got = "no id" if "id" not in obj else f"id {nid!r}"
        raise DecodeError(f"notification: expected a string id, got {got}")
    kind = obj.get("type")
    if kind not in NOTIFICATION_TYPES:
        raise DecodeError(f'notification {nid}: type must be "subscription" or "incident", got {kind!r}')
    if not isinstance(obj.get("results"), list):
        got = _json_kind(obj["results"]) if "results" in obj else "none"
        raise DecodeError(f"notification {nid}: results must be a list, got {got}")
    _check_fields(nid, obj)
    notification = Notification(obj)
    _ = notification.created_at  # its format is checked where it is read
    return notification


# The declared fields besides id, type and results (docs/guide/events.md, "The notification payload").
_STRING_FIELDS = (
    "createdAt",
    "frequency",
    "subscriptionId",
    "subscriptionName",
    "incidentId",
    "observable",
    "channelId",
    "datasource",
)
_LIST_FIELDS = {"searchIds": (str, "strings"), "changes": (dict, "objects"), "results": (dict, "objects")}


def _check_fields(nid: str, obj: dict[str, Any]) -> None:
    """Every declared field is of its type, or missing or null."""

    def wrong(key: str, expected: str, got: Any) -> DecodeError:
        return DecodeError(f"notification {nid}: {key} must be {expected}, got {_json_kind(got)}")

    for key in _STRING_FIELDS:
        v = obj.get(key)
        if v is not None and not isinstance(v, str):
            raise wrong(key, "a string or null", v)
    for key, (kind, what) in _LIST_FIELDS.items():
        v = obj.get(key)
        if v is None:
            continue
        if not isinstance(v, list):
            raise wrong(key, f"a list of {what}", v)
        for i, item in enumerate(v):
            if not isinstance(item, kind):
                raise wrong(f"{key}[{i}]", "a string" if kind is str else "an object", item)
    total = obj.get("total")
    if total is not None and (isinstance(total, bool) or not isinstance(total, int)):
        raise wrong("total", "an integer or null", total)


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as e:
        raise DecodeError(f"notification: invalid JSON: {e}") from None
    except RecursionError:
        raise DecodeError("notification: the JSON is nested too deeply to read") from None


def _json_kind(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, (int, float)):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "an array"
    if isinstance(v, dict):
        return "an object"
    return type(v).__name__
