"""Answers of the wrong shape, over a real socket: a search page or a list
endpoint whose parts have the wrong JSON type is a DecodeError naming the
path when the page is read; `{}`, null or a missing list reads as `[]`; an
empty body is a DecodeError on every endpoint that answers something."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

import urlscan_rs
from urlscan_rs import AsyncClient, Client

from .conftest import run
from .loopback import JSON_HEADERS, serve_raw

UUID = "00000000-0000-4000-8000-000000000001"
ANSWER: dict[str, bytes] = {"body": b"{}"}


def answer_body(request: BaseHTTPRequestHandler) -> tuple[int, dict[str, str], bytes]:
    return 200, JSON_HEADERS, ANSWER["body"]


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with serve_raw(answer_body) as served:
        yield served.url


@pytest.fixture
def c(base: str) -> Iterator[Client]:
    with Client(UUID, base_url=base, max_retries=0, timeout=5) as client:
        yield client


def answer(doc: Any) -> None:
    ANSWER["body"] = doc if isinstance(doc, bytes) else json.dumps(doc).encode()


def raises(fn: Callable[[], Any], message: str) -> None:
    """A DecodeError whose message is `message` and what follows (found in the
    body, after the core's "unexpected response: ")."""
    with pytest.raises(urlscan_rs.DecodeError) as exc:
        fn()
    text = str(exc.value).removeprefix("unexpected response: ")
    assert text.startswith(message), str(exc.value)


# endpoint -> (call, wrapper key)
LISTS: dict[str, tuple[Callable[[Client], Any], str]] = {
    "channels.list": (lambda c: c.channels.list(), "channels"),
    "saved_searches.list": (lambda c: c.saved_searches.list(), "searches"),
    "saved_searches.results": (lambda c: c.saved_searches.results("abc"), "results"),
    "subscriptions.list": (lambda c: c.subscriptions.list(), "subscriptions"),
    "subscriptions.results": (lambda c: c.subscriptions.results("abc", "scans"), "results"),
    "incidents.states": (lambda c: c.incidents.states("abc"), "incidentstates"),
    "incidents.watchable_attributes": (lambda c: c.incidents.watchable_attributes(), "attributes"),
    "brands.available": (lambda c: c.brands.available(), "kits"),
    "brands.detected": (lambda c: c.brands.detected(), "responses"),
    "livescan.scanners": (lambda c: c.livescan.scanners(), "scanners"),
    "datadumps.list": (lambda c: c.datadumps.list("hours", "api", "20260101"), "files"),
    "available_countries": (lambda c: c.available_countries(), "countries"),
    "user_agents": (lambda c: c.user_agents(), "userAgents"),
    "hostnames.history": (lambda c: list(c.hostnames.history("example.com", limit=10)), "results"),
}


@pytest.mark.parametrize("name", list(LISTS))
def test_list_endpoints(c: Client, name: str) -> None:
    call, key = LISTS[name]
    for empty in ({key: {}}, {key: None}, {}, {key: []}):
        answer(empty)
        assert call(c) == [], (name, empty)
    for wrong, found in (("x", 'a string ("x")'), (5, "a number (5)"), (True, "a boolean (true)"), ({"_id": "a"}, "an object")):
        answer({key: wrong})
        raises(lambda: call(c), f"{key}: expected a list, found {found}")
    answer(b"")
    raises(lambda: call(c), "")
    answer(b"  \n")
    with pytest.raises(urlscan_rs.DecodeError):
        call(c)
    answer("a string")
    with pytest.raises(urlscan_rs.DecodeError):
        call(c)
    if name not in ("available_countries", "incidents.watchable_attributes"):
        answer({key: [{}, "x"]})
        with pytest.raises(urlscan_rs.DecodeError) as exc:
            call(c)
        assert "expected an object, found a string" in str(exc.value) and "[1]" in str(exc.value)


def test_list_elements_know_their_path(c: Client) -> None:
    answer({"channels": [{"_id": "a", "name": "n"}, {"_id": "b", "name": ["x"]}]})
    channels = c.channels.list()
    assert channels[0].name == "n"
    raises(lambda: channels[1].name, 'channels[1].name: expected a string, found a list (["x"])')
    answer({"countries": ["de", 5]})
    with pytest.raises(urlscan_rs.DecodeError):
        c.available_countries()


def test_object_endpoints(c: Client) -> None:
    answer({"channel": {"_id": "a", "isActive": "yes"}})
    ch = c.channels.get("a")
    raises(lambda: ch.is_active, 'isActive: expected a boolean, found a string ("yes")')
    answer({"channel": "x"})
    raises(lambda: c.channels.get("a"), 'channel: expected an object, found a string ("x")')
    answer(b"")
    raises(lambda: c.channels.get("a"), "channels.get: the answer is empty")
    answer(b"")
    raises(lambda: c.incidents.get("abc"), "incidents.get: the answer is empty")
    answer(b"")
    assert c.channels.list is not None and c.saved_searches.delete("abc") is None  # nothing to read


SEARCH_WRONG = [
    ({"results": "x", "total": 1}, 'results: expected a list, found a string ("x")'),
    ({"results": {"a": 1}}, "results: expected a list, found an object"),
    ({"results": [], "total": "many"}, 'total: expected a number, found a string ("many")'),
    ({"results": [], "total": [1]}, "total: expected a number, found a list ([1])"),
    ({"results": [], "has_more": "yes"}, 'has_more: expected a boolean, found a string ("yes")'),
    ({"results": [], "took": {}}, "took: expected a number, found an object ({})"),
    ({"results": [{"_id": "a", "sort": [1]}, 5]}, "results[1]: expected an object, found a number (5)"),
    ({"results": [{"_id": 5}]}, "results[0]._id: expected a string, found a number (5)"),
    ({"results": [{"_id": "a", "sort": "1,a"}], "has_more": True}, 'results[0].sort: expected a list, found a string ("1,a")'),
]


@pytest.mark.parametrize(("page", "message"), SEARCH_WRONG)
def test_search_page_of_the_wrong_shape(c: Client, page: dict[str, Any], message: str) -> None:
    answer(page)
    raises(lambda: list(c.search("x")), message)


def test_search_page_lenient_forms(c: Client) -> None:
    for page in ({"results": {}, "total": None}, {"results": None}, {}, {"results": [], "total": "7", "has_more": None}):
        answer(page)
        it = c.search("x")
        assert list(it) == []
    answer({"results": [{"_id": "a", "sort": [1, "a"], "page": {"domain": 5}}], "total": "1", "has_more": False})
    hits = list(c.search("x"))
    assert hits[0].id == "a"
    raises(lambda: hits[0].page.domain, "results[0].page.domain: expected a string, found a number (5)")


def test_wrong_result_parts_over_the_wire(c: Client) -> None:
    big = {"task": {"uuid": UUID}, "page": ["x"], "data": {"pad": "x" * 40_000}}
    for doc in (big, {"task": {"uuid": UUID}, "page": ["x"]}):  # lazy (large) and small results
        answer(doc)
        r = c.result(UUID)
        assert r.uuid == UUID
        raises(lambda r=r: r.page, 'page: expected an object, found a list (["x"])')


def test_async_wrong_shapes(base: str) -> None:
    async def main() -> None:
        async with AsyncClient(UUID, base_url=base, max_retries=0, timeout=5) as ac:
            answer({"channels": "x"})
            with pytest.raises(urlscan_rs.DecodeError, match="channels: expected a list"):
                await ac.channels.list()
            answer({"results": "x"})
            with pytest.raises(urlscan_rs.DecodeError, match="results: expected a list"):
                async for _ in ac.search("x"):
                    pass
            answer(b"")
            with pytest.raises(urlscan_rs.DecodeError):
                await ac.saved_searches.list()

    run(main())
