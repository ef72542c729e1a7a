"""Property-based tests: whatever bytes or JSON a server sends, the client
answers with a model or a typed UrlscanError (never another exception, never
a hang), and the emulator's query parser never fails on arbitrary input."""

from __future__ import annotations

import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import urlscan_rs
from urlscan_rs import Client
from urlscan_rs.testing import Emulator

from .loopback import JSON_HEADERS, serve_raw

UUID = "00000000-0000-4000-8000-000000000001"
BODY: dict[str, Any] = {"status": 200, "body": b""}


def answer_body(request: BaseHTTPRequestHandler) -> tuple[int, dict[str, str], bytes]:
    return BODY["status"], JSON_HEADERS, BODY["body"]


@pytest.fixture(scope="module")
def scripted() -> Iterator[Client]:
    with serve_raw(answer_body) as served:
        yield Client(UUID, base_url=served.url, max_retries=0, timeout=5)


CALLS = [
    lambda c: c.result(UUID),
    lambda c: list(c.search("", limit=50)),
    lambda c: c.quotas(),
    lambda c: c.user_agents(),
    lambda c: c.available_countries(),
    lambda c: c.scan("https://example.com/"),
    lambda c: c.incidents.get("abc"),
    lambda c: c.saved_searches.list(),
    lambda c: list(c.hostnames.history("example.com", limit=10)),
]

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=12), inner, max_size=6),
    max_leaves=40,
)
KEYS = ["task", "page", "verdicts", "lists", "stats", "results", "total", "has_more", "sort", "_id", "uuid", "limits"]
SHAPED = st.dictionaries(st.sampled_from(KEYS), JSON, max_size=8)


def exercise(value: Any) -> None:
    """Read every documented attribute of what came back, like a user would."""
    items = value if isinstance(value, list) else [value]
    for item in items:
        if isinstance(item, urlscan_rs.models.Model):
            repr(item)
            item.to_dict()
            for name in type(item).fields():
                sub = getattr(item, name)
                if isinstance(sub, urlscan_rs.models.Model):
                    repr(sub)
                    for n in type(sub).fields():
                        getattr(sub, n)
            if isinstance(item, (urlscan_rs.ScanResult, urlscan_rs.SearchHit)):
                item.to_record()
                item._repr_html_()


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=st.binary(max_size=300), status=st.sampled_from([200, 200, 200, 400, 404, 429, 500, 503]), which=st.integers(0, 8))
def test_arbitrary_bytes(scripted: Client, body: bytes, status: int, which: int) -> None:
    BODY.update(status=status, body=body)
    try:
        exercise(CALLS[which](scripted))
    except urlscan_rs.UrlscanError:
        pass


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(doc=st.one_of(JSON, SHAPED), which=st.integers(0, 8))
def test_arbitrary_json(scripted: Client, doc: Any, which: int) -> None:
    BODY.update(status=200, body=json.dumps(doc).encode())
    try:
        exercise(CALLS[which](scripted))
    except urlscan_rs.UrlscanError:
        pass


@pytest.fixture(scope="module")
def qemu() -> Iterator[Emulator]:
    with Emulator(scans=100, seed=9) as e:
        yield e


QUERY_ALPHABET = st.sampled_from(
    list("abcz019 .:*?\"'()[]{}<>=!-+/\\~^&|") + ["AND", " OR ", "NOT ", "TO", "now-7d", "date:", "page.domain:", "_exists_:"]
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(QUERY_ALPHABET, max_size=25))
def test_query_parser_never_fails(qemu: Emulator, parts: list[str]) -> None:
    client = qemu.client(max_retries=0)
    q = "".join(parts)
    try:
        client.search(q, size=5).count()
    except (urlscan_rs.BadRequestError, urlscan_rs.PermissionDeniedError):
        pass  # a parse error (400 with the parser's message) is a valid answer; a 500 or a dropped connection is not
