"""Notifications: the payload a webhook receives (see the README's "Events" section).

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

__all__ = ["parse_notification", "NOTIFICATION_TYPES"]

NOTIFICATION_TYPES = ("subscription", "incident")
"""The values of a notification's ``type``."""


def parse_notification(body: bytes | bytearray | memoryview | str | dict[str, Any]) -> Notification:
    """A notification from a webhook body (``bytes`` or ``str`` of JSON) or an
    already decoded ``dict``.

    Raises :class:`urlscan_rs.DecodeError` saying why when the body is not a
    notification: not JSON, not a JSON object, no string ``id``, a ``type``
    other than "subscription" or "incident", or no ``results`` list.
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
    return Notification(obj)


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as e:
        raise DecodeError(f"notification: invalid JSON: {e}") from None


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
