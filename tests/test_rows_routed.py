"""Every row of the core's endpoint table reaches a handler of the emulator: its minimal request
(ids filled, no body fields) is routed (no 404 for the route, no 405 for the method), and a
row that declares a rate-limit action is paced under it by the emulator too (the emulator's
action names are its own strings; this holds them to the rows')."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from urlscan_rs import _native
from urlscan_rs.testing import Emulator

from .conftest import emulator, http

ROWS = _native.endpoint_table()
# A value per id kind that the route's pattern takes (what it names need not exist).
IDS = {"Uuid": "00000000-0000-4000-8000-000000000001", "Sha256": "0" * 64}
# A valid value of each kind of required body field the rows have.
SAMPLES = {"ScanUrl": "https://example.com/", "Text": "x", "Str": "x", "Query": "page.domain:example.com"}


emu = emulator(scans=5, seed=3)


def _path(row: dict[str, Any], known: dict[str, str]) -> str:
    """The row's path, its ids filled: ``known`` values by kind or name (a scan, a scanner), else
    one of the id's shape."""
    path = str(row["path"])
    for i, f in enumerate(row["ids"]):
        value = known.get(f["name"]) or known.get(f["kind"]) or IDS.get(f["kind"])
        value = value or (f["choices"][0] if f["choices"] else "0123456789abcdef01234567")
        path = path.replace(f"{{{i}}}", value)
    return path


def _body(row: dict[str, Any]) -> bytes | None:
    """The row's minimal body: its required fields (of a request that creates), by their wire names."""
    if row["method"] not in ("POST", "PUT"):
        return None
    body: dict[str, Any] = {}
    for f in row["body"]:
        if f["required"] and row["creating"] and f["kind"] in SAMPLES:
            where = body
            *outer, last = f["wire"].split(".")
            for part in outer:
                where = where.setdefault(part, {})
            where[last] = SAMPLES[f["kind"]]
    return json.dumps({row["wrapper"]: body} if row["wrapper"] else body).encode()


@pytest.mark.parametrize("row", ROWS, ids=[r["name"] for r in ROWS])
def test_every_row_is_routed_and_paced_under_its_action(emu: Emulator, row: dict[str, Any]) -> None:
    _, _, scanners = http(emu, "GET", "/api/v1/livescan/scanners/")
    _, _, hits = http(emu, "GET", "/api/v1/search/?q=&size=1")
    known = {"scanner_id": json.loads(scanners)["scanners"][0]["_id"], "Uuid": json.loads(hits)["results"][0]["_id"]}
    path = _path(row, known)
    body = _body(row)
    status, headers, content = http(emu, row["method"], path, body, **({"Content-Type": "application/json"} if body else {}))
    assert status != 405, f"{row['name']}: {row['method']} {path} is not a method of the route"
    if status == 404:
        text = content.decode("utf-8", "replace")
        assert "could not find this page" not in text, f"{row['name']}: {row['method']} {path} has no route"
    if row["action"]:
        # Its minimal request is a valid one: counted, under the row's action.
        assert status < 300, (row["name"], status, content[:300])
        assert headers.get("x-rate-limit-action") == row["action"], (row["name"], status, headers)


def test_an_unknown_route_is_told_apart(emu: Emulator) -> None:
    # The check above can fail: a path no row has is the emulator's "no route" answer.
    status, _, content = http(emu, "GET", "/api/v1/no-such-thing/")
    assert status == 404 and "could not find this page" in content.decode()
    status, _, _ = http(emu, "DELETE", "/api/v1/search/")
    assert status == 405
    assert re.search(r"\{\d\}", "".join(_path(r, {}) for r in ROWS)) is None
