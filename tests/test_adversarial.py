"""What a broken or hostile server, or a careless caller, must not do to the client: make a
wait outlive `retry_deadline`, make a walk go on forever, turn a missing answer into an empty
one, or get the API key into a pickle or a message. Each case failed on an earlier version
of the package; each runs sync and async where the two differ in code."""

from __future__ import annotations

import json
import logging
import pickle
import subprocess
import sys
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

import urlscan_rs
from urlscan_rs import AsyncClient, Client, DecodeError, RateLimitError

from .conftest import run
from .loopback import JSON_HEADERS, serve, serve_raw

KEY = "00000000-0000-4000-8000-000000000000"
LIMIT_HEADERS = {
    "x-rate-limit-scope": "user",
    "x-rate-limit-action": "search",
    "x-rate-limit-window": "minute",
    "x-rate-limit-limit": "30",
}
EMPTY_PAGE = b'{"results": [], "total": 0, "has_more": false}'


def limited(headers: dict[str, str], *, then_ok: bool = False) -> Callable[..., tuple[int, dict[str, str], bytes]]:
    """Every request answered 429 with `headers` (or only the first, with `then_ok`)."""
    seen = [0]

    def answer(request: BaseHTTPRequestHandler) -> tuple[int, dict[str, str], bytes]:
        seen[0] += 1
        if then_ok and seen[0] > 1:
            return 200, {**JSON_HEADERS, **LIMIT_HEADERS, "x-rate-limit-remaining": "29"}, EMPTY_PAGE
        return 429, {**JSON_HEADERS, **LIMIT_HEADERS, "x-rate-limit-remaining": "0", **headers}, b'{"status": 429}'

    return answer


def count(url: str, **options: Any) -> int:
    with Client(KEY, base_url=url, **options) as c:
        return c.search("x").count()


async def acount(url: str, **options: Any) -> int:
    async with AsyncClient(KEY, base_url=url, **options) as c:
        return await c.search("x").count()


# -- every wait obeys retry_deadline


@pytest.mark.parametrize("reset", ["2099-01-01T00:00:00.000Z", "9999-12-31T23:59:59.000Z", "in two hours"])
def test_a_429_whose_reset_lies_far_ahead_raises_at_once(reset: str) -> None:
    if reset == "in two hours":
        reset = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(time.time() + 7200))
    with serve_raw(limited({"x-rate-limit-reset": reset})) as srv:
        started = time.monotonic()
        with pytest.raises(RateLimitError) as ei:
            count(srv.url, retry_deadline=5)
        assert time.monotonic() - started < 4  # not the hours the header names
        assert len(srv.requests) == 1
        assert ei.value.reset_at is not None
        started = time.monotonic()
        with pytest.raises(RateLimitError):
            run(acount(srv.url, retry_deadline=5))
        assert time.monotonic() - started < 4


def test_a_spent_window_that_resets_after_the_deadline_is_not_waited_for(caplog: pytest.LogCaptureFixture) -> None:
    """A 200 announcing a spent window with an absurd Reset-After: the next call raises at once,
    sending nothing, instead of announcing a wait of a day."""

    def answer(request: BaseHTTPRequestHandler) -> tuple[int, dict[str, str], bytes]:
        headers = {**LIMIT_HEADERS, "x-rate-limit-remaining": "0", "x-rate-limit-reset-after": "1e9"}
        return 200, {**JSON_HEADERS, **headers}, b'{"results": [], "total": 3, "has_more": false}'

    with serve_raw(answer) as srv, Client(KEY, base_url=srv.url, retry_deadline=30) as c:
        assert c.search("x").count() == 3
        started = time.monotonic()
        with pytest.raises(RateLimitError, match="retry deadline"):
            c.search("x").count()
        assert time.monotonic() - started < 4
        assert len(srv.requests) == 1


def test_a_429_storm_without_a_reset_spends_retries() -> None:
    """Reset-After 0 (or none, or a reset already past) is a failure like any other: max_retries bounds it."""
    for headers in ({"x-rate-limit-reset-after": "0"}, {}, {"x-rate-limit-reset": "2001-01-01T00:00:00.000Z"}):
        with serve_raw(limited(headers)) as srv:
            with pytest.raises(RateLimitError):
                count(srv.url, max_retries=2)
            assert len(srv.requests) == 3, headers
        with serve_raw(limited(headers)) as srv:
            with pytest.raises(RateLimitError):
                run(acount(srv.url, max_retries=2))
            assert len(srv.requests) == 3, headers


def test_windows_a_moment_away_are_not_free_waits() -> None:
    """A server announcing a new window a millisecond away on every 429 is failing, not
    pacing: those 429s spend retries (the old client resent them about 100 times)."""
    seen = [0]

    def answer(request: BaseHTTPRequestHandler) -> tuple[int, dict[str, str], bytes]:
        seen[0] += 1
        reset = f"2099-01-01T00:00:{seen[0] % 60:02d}.000Z"  # a new window name every time
        headers = {**LIMIT_HEADERS, "x-rate-limit-remaining": "0", "x-rate-limit-reset-after": "0.001"}
        return 429, {**JSON_HEADERS, **headers, "x-rate-limit-reset": reset}, b"{}"

    with serve_raw(answer) as srv:
        with pytest.raises(RateLimitError):
            count(srv.url, max_retries=2)
        assert len(srv.requests) == 3  # no free wait: the first send and the two retries


def test_a_window_spent_by_others_is_waited_out_once(caplog: pytest.LogCaptureFixture) -> None:
    """A 429 announcing a reset 1 s ahead is waited out without spending a retry; the same
    window announced again after that wait is a retry."""
    reset = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(time.time() + 60))
    headers = {"x-rate-limit-reset-after": "1", "x-rate-limit-reset": reset}
    with serve_raw(limited(headers, then_ok=True)) as srv:
        assert count(srv.url, max_retries=1) == 0
        assert len(srv.requests) == 2
    with serve_raw(limited(headers)) as srv:
        with pytest.raises(RateLimitError):
            count(srv.url, max_retries=1)
        assert len(srv.requests) == 3  # the free wait, one retry, then the error
    with serve_raw(limited(headers)) as srv:
        with pytest.raises(RateLimitError):
            count(srv.url, max_retries=0)  # no retries: the 429 is raised
        assert len(srv.requests) == 1


def test_a_wait_past_the_deadline_says_so_in_the_log(caplog: pytest.LogCaptureFixture) -> None:
    # (A long wait's WARNING itself: tests/test_messages.py.)
    headers = {"x-rate-limit-reset-after": "6"}
    with serve_raw(limited(headers)) as srv, caplog.at_level(logging.INFO, logger="urlscan_rs"):
        with pytest.raises(RateLimitError):
            count(srv.url, retry_deadline=3)
        assert len(srv.requests) == 1
    assert any("deadline" in r.getMessage() for r in caplog.records)


# -- walks end


def _hit(i: int, sort: list[Any]) -> dict[str, Any]:
    uid = f"{i:08x}-0000-4000-8000-000000000000"
    return {"_id": uid, "sort": sort, "task": {"uuid": uid}, "page": {"domain": "example.com"}}


def paged_search(page_of: Callable[[str | None], tuple[list[dict[str, Any]], dict[str, Any]]]) -> Any:
    """A search answered by `page_of(search_after)` -> (hits, other members)."""

    def answer(method: str, path: str, query: dict[str, list[str]]) -> tuple[int, Any]:
        after = query.get("search_after", [None])[0]
        hits, rest = page_of(after)
        return 200, {"results": hits, **rest}

    return answer


def walk(url: str, **options: Any) -> list[Any]:
    with Client(KEY, base_url=url) as c:
        return list(c.search("x", size=2, **options))


async def awalk(url: str, **options: Any) -> list[Any]:
    async with AsyncClient(KEY, base_url=url) as c:
        return [h async for h in c.search("x", size=2, **options)]


def cycling(after: str | None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Pages A, B, A, B, ...: valid sort values that go back."""
    a = [_hit(0, [200, "b"]), _hit(1, [100, "a"])]
    b = [_hit(2, [90, "z"]), _hit(3, [80, "y"])]
    return (b if after == "100,a" else a), {"total": 10_000, "has_more": True}


def going_back(after: str | None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Pages whose sort values turn round: 200, 100, then 300 (never the same cursor)."""
    pages = {None: [(200, "b"), (100, "a")], "100,a": [(90, "z"), (80, "y")], "80,y": [(300, "c"), (250, "q")]}
    n = int(after.split(",")[0]) if after and after not in pages else 0
    sorts = pages.get(after) or [(400 + n, "d"), (350 + n, "e")]
    return [_hit(i, list(s)) for i, s in enumerate(sorts)], {"total": 10_000, "has_more": True}


def changing_shape(after: str | None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Ever-new cursors whose sort values change shape every page ([n, "id"], then [n], ...)."""
    n = int(after.split(",")[0]) if after else 1_000
    sort: list[Any] = [n - 1, "a"] if after is None or "," not in after else [n - 1]
    return [_hit(n, [n, "b"]), _hit(n - 1, sort)], {"total": 10_000, "has_more": True}


def over_total(after: str | None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Ever-new pages while the exact total says 5."""
    n = int(after.split(",")[0]) if after else 10_000
    return [_hit(n, [n - 1, "a"]), _hit(n, [n - 2, "a"])], {"total": 5, "has_more": False}


@pytest.mark.parametrize("pages", [cycling, going_back, changing_shape, over_total])
@pytest.mark.parametrize("parallel", [None, 4])
def test_search_walks_that_do_not_move_on_raise(pages: Any, parallel: int | None) -> None:
    with serve(paged_search(pages)) as srv:
        with pytest.raises(DecodeError, match="search walk|advance|shard"):
            walk(srv.url, parallel=parallel)
        assert len(srv.requests) < 30
    with serve(paged_search(pages)) as srv:
        with pytest.raises(DecodeError):
            run(awalk(srv.url, parallel=parallel))
        assert len(srv.requests) < 30


def test_ties_of_the_date_and_a_shrinking_total_are_no_reason_to_stop() -> None:
    """Page ends with the same millisecond (the id's order is the service's) and a total that
    shrinks while the walk runs (scans deleted meanwhile) are a legitimate walk."""
    pages = {
        None: ([(300, "m"), (200, "b")], 7),
        # the same millisecond as the page before, and a total now below the hits handed out
        "200,b": ([(200, "a"), (200, "c")], 3),
    }

    def answer(after: str | None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        sorts, total = pages[after]
        return [_hit(i, list(s)) for i, s in enumerate(sorts)], {"total": total, "has_more": False}

    with serve(paged_search(answer)) as srv:
        assert len(walk(srv.url)) == 4  # the walk ends where the total says, without an error
        assert len(srv.requests) == 2


def test_a_resumed_walk_never_comes_back_to_its_cursor() -> None:
    uid = "2e973dc1-8e9c-4fb5-9b6b-e5d0c1a25e3c"
    start = f"1611489992146,{uid}"

    def pages(after: str | None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        # the first page moves on; the second comes back to the cursor the walk resumed from
        last = [1611489992100, "b"] if after == start else [1611489992146, uid]
        return [_hit(1, [1611489992120, "a"]), _hit(2, last)], {"total": 10_000, "has_more": True}

    with serve(paged_search(pages)) as srv:
        with pytest.raises(DecodeError, match="circle"):
            walk(srv.url, search_after=start)
        assert len(srv.requests) == 2


def test_hostname_walk_whose_page_state_comes_back_raises() -> None:
    def answer(method: str, path: str, query: dict[str, list[str]]) -> tuple[int, Any]:
        state = query.get("pageState", [""])[0]
        rec = {"seen_on": "2026-01-01", "source": "ct", "sub_id": "", "first_seen": "2026-01-01T00:00:00Z"}
        return 200, {"results": [rec], "pageState": "b" if state == "a" else "a"}

    with serve(answer) as srv, Client(KEY, base_url=srv.url) as c:
        with pytest.raises(DecodeError, match="pageState"):
            list(c.hostnames.history("example.com", limit=10))
        assert len(srv.requests) == 3  # "", a, b: then a again

    async def main(url: str) -> None:
        async with AsyncClient(KEY, base_url=url) as ac:
            with pytest.raises(DecodeError, match="pageState"):
                async for _ in ac.hostnames.history("example.com", limit=10):
                    pass

    with serve(answer) as srv:
        run(main(srv.url))
        assert len(srv.requests) == 3


# -- silent answers are errors


@pytest.mark.parametrize("results", ["null", "missing", "{}"])
def test_a_page_without_results_while_hits_are_announced_raises(results: str) -> None:
    def answer(method: str, path: str, query: dict[str, list[str]]) -> tuple[int, Any]:
        page: dict[str, Any] = {"total": 100, "has_more": False}
        if results != "missing":
            page["results"] = None if results == "null" else {}
        return 200, page

    with serve(answer) as srv:
        with pytest.raises(DecodeError, match="results"):
            walk(srv.url)
        with pytest.raises(DecodeError, match="results"):
            run(awalk(srv.url))


def test_a_page_without_results_and_without_hits_is_empty() -> None:
    with serve(lambda m, p, q: (200, {"results": None, "total": 0})) as srv:
        assert walk(srv.url) == []


def test_count_without_a_total_is_not_zero() -> None:
    with serve(lambda m, p, q: (200, {"results": []})) as srv:
        with pytest.raises(DecodeError, match="total"):
            count(srv.url)
        with pytest.raises(DecodeError, match="total"):
            run(acount(srv.url))


@pytest.mark.parametrize("body", [b"", b"{}", b'{"uuid": null}', b'{"uuid": 5}', b"[]"])
def test_methods_that_promise_a_value_refuse_an_empty_answer(body: bytes) -> None:
    def answer(request: BaseHTTPRequestHandler) -> tuple[int, dict[str, str], bytes]:
        path = urlsplit(request.path).path
        if path.startswith(("/dom/", "/responses/")):
            return 200, {"content-type": "text/html"}, b""
        return 200, JSON_HEADERS, body

    uuid = "11111111-2222-4333-8444-555555555555"
    with serve_raw(answer) as srv, Client(KEY, base_url=srv.url) as c:
        for call in (
            lambda: c.livescan.task("de01", "https://example.com"),
            lambda: c.livescan.scan("de01", "https://example.com"),
        ):
            with pytest.raises(DecodeError):
                call()
        with pytest.raises(DecodeError, match="empty"):
            c.dom(uuid)
        with pytest.raises(DecodeError, match="empty"):
            c.response("a" * 64)
        # The hash of nothing is the one response that is empty.
        assert c.response("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855") == ""

    async def main(url: str) -> None:
        async with AsyncClient(KEY, base_url=url) as ac:
            with pytest.raises(DecodeError):
                await ac.livescan.task("de01", "https://example.com")
            with pytest.raises(DecodeError):
                await ac.dom(uuid)

    with serve_raw(answer) as srv:
        run(main(srv.url))


# -- the key stays home


def test_a_pickled_client_holds_no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "5ec12e7a-0000-4000-8000-00000000abcd"
    for cls in (Client, AsyncClient):
        client = cls(secret, base_url="http://127.0.0.1:9")
        data = pickle.dumps(client)
        assert secret.encode() not in data and b"5ec12e7a" not in data
        monkeypatch.setenv("URLSCAN_API_KEY", "from-the-environment-0000")
        back = pickle.loads(data)
        assert back._core._config()["api_key"] == "from-the-environment-0000"


def test_no_cli_message_echoes_a_key() -> None:
    secret = "5ec12e7a-1111-4000-8000-00000000abcd"
    for argv in (
        ["--api-kye", secret, "quotas"],
        ["--apikey", secret, "quotas"],
        [f"--api-kye={secret}", "quotas"],
        ["quotas", "--api-kye", secret],
        [secret],
    ):
        proc = subprocess.run(
            [sys.executable, "-m", "urlscan_rs", *argv], capture_output=True, text=True, timeout=60, check=False
        )
        assert proc.returncode == 2, (argv, proc.stderr)
        assert secret not in proc.stderr + proc.stdout, argv
        assert "5ec12e7a" not in proc.stderr + proc.stdout, argv


def test_sharding_is_opt_in() -> None:
    """The default walk sends the query as given, one request at a time."""
    queries: list[str] = []

    def answer(method: str, path: str, query: dict[str, list[str]]) -> tuple[int, Any]:
        # Slow pages (30 ms, as from a remote service): the old default sharded such walks.
        time.sleep(0.03)
        queries.append(query.get("q", [""])[0])
        after = query.get("search_after", [None])[0]
        start = int(after.split(",")[0]) if after else 300
        hits = [_hit(n, [n, "a"]) for n in range(start - 1, max(start - 21, 0), -1)]
        return 200, {"results": hits, "total": 299, "has_more": False}

    with serve(answer) as srv:
        with Client(KEY, base_url=srv.url) as c:
            assert len(list(c.search("page.domain:x", size=20))) == 299
        assert queries and set(queries) == {"page.domain:x"}


def test_request_target_is_the_given_path() -> None:
    """request() keeps to the base URL's path: encoded dot segments and backslashes are refused."""
    with serve(lambda m, p, q: (200, {})) as srv, Client(KEY, base_url=srv.url) as c:
        for bad in ("/api/%2e%2e/admin", "/api/%2E%2E/x", "/api/..\\x", "/api/.%2e/x"):
            with pytest.raises(urlscan_rs.ValidationError):
                c.request("GET", bad)
        assert srv.requests == []


# -- inputs: one numeric check everywhere

DEAD = "http://127.0.0.1:9"  # nothing is sent: every case fails before a request
UUID = "11111111-2222-4333-8444-555555555555"
HUGE = 2**64


@pytest.mark.parametrize(
    ("name", "make"),
    [
        ("timeout", lambda: Client(KEY, base_url=DEAD, timeout=True)),
        ("max_retries", lambda: Client(KEY, base_url=DEAD, max_retries=True)),
        ("max_retries", lambda: Client(KEY, base_url=DEAD, max_retries=HUGE)),
        ("max_body_bytes", lambda: Client(KEY, base_url=DEAD, max_body_bytes=2**70)),
        ("retry_deadline", lambda: AsyncClient(KEY, base_url=DEAD, retry_deadline=False)),
        ("timeout", lambda: AsyncClient(KEY, base_url=DEAD, timeout=10**400)),
    ],
)
def test_client_numbers_refuse_bools_and_overflow(name: str, make: Callable[[], Any]) -> None:
    with pytest.raises(urlscan_rs.ValidationError, match=name):
        make()


@pytest.mark.parametrize(
    ("name", "call"),
    [
        ("size", lambda c: c.search("", size=True)),
        ("size", lambda c: c.search("", size=HUGE)),
        ("limit", lambda c: c.search("", limit=2**70)),
        ("parallel", lambda c: c.search("", parallel=True)),
        ("limit", lambda c: c.similar(UUID, limit=True)),
        ("concurrency", lambda c: c.results([UUID], concurrency=True)),
        ("concurrency", lambda c: c.bulk_scan(["https://example.com"], concurrency=HUGE)),
        ("limit", lambda c: c.hostnames.history("example.com", limit=True)),
        ("limit", lambda c: c.hostnames.history("example.com", limit=HUGE)),
        ("timeout", lambda c: c.wait_for_result(UUID, timeout=True)),
        ("interval", lambda c: c.wait_for_result(UUID, interval=10**400)),
        ("scan_interval", lambda c: c.incidents.create("example.com", visibility="private", channels=[], scan_interval=HUGE)),
    ],
)
def test_method_numbers_refuse_bools_and_overflow(name: str, call: Callable[[Any], Any]) -> None:
    with Client(KEY, base_url=DEAD, max_retries=0) as c:
        with pytest.raises(urlscan_rs.ValidationError, match=name):
            call(c)

    async def main() -> None:
        async with AsyncClient(KEY, base_url=DEAD, max_retries=0) as ac:
            with pytest.raises(urlscan_rs.ValidationError, match=name):
                out = call(ac)
                if hasattr(out, "__await__"):
                    await out

    run(main())


def test_cli_numbers_out_of_range_exit_2_with_one_line() -> None:
    env = {"URLSCAN_BASE_URL": DEAD, "URLSCAN_API_KEY": KEY, "PATH": "/usr/bin:/bin"}
    proc = subprocess.run(
        [sys.executable, "-m", "urlscan_rs", "search", "x", "--limit", str(10**23)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=env,
    )
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and "limit" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_proxy_schemes_are_ones_the_client_speaks() -> None:
    for bad in ("ftp://proxy.example", "socks4://127.0.0.1:1080", "proxy.example:3128"):
        with pytest.raises(urlscan_rs.ValidationError, match="proxy"):
            Client(KEY, base_url=DEAD, proxy=bad)
    with pytest.raises(urlscan_rs.ValidationError) as ei:
        Client(KEY, base_url=DEAD, proxy="ftp://user:s3cret@proxy.example")
    assert "s3cret" not in str(ei.value)
    for ok in ("http://127.0.0.1:3128", "socks5://127.0.0.1:1080", "socks5h://127.0.0.1:1080"):
        Client(KEY, base_url=DEAD, proxy=ok).close()


def test_ids_in_bodies_are_checked_like_ids_in_paths() -> None:
    with Client(KEY, base_url=DEAD) as c:
        with pytest.raises(urlscan_rs.ValidationError, match="channels"):
            c.incidents.create("example.com", visibility="private", channels=["../x"])
        for bad in (["a b"], ["x/../y"], [""]):
            with pytest.raises(urlscan_rs.ValidationError, match="search_ids"):
                c.subscriptions.create(
                    search_ids=bad,
                    frequency="daily",
                    email_addresses=["soc@example.com"],
                    name="n",
                    is_active=True,
                    ignore_time=False,
                )
        with pytest.raises(urlscan_rs.ValidationError, match="channel_ids"):
            c.subscriptions.update("abc", channel_ids=["ok", "not ok"])


@pytest.mark.parametrize(
    "body",
    [
        {"createdAt": 5},
        {"searchIds": [1]},
        {"searchIds": "abc"},
        {"results": [1]},
        {"changes": {}},
        {"total": True},
        {"total": "3"},
        {"subscriptionId": 7},
        {"datasource": ["scans"]},
        {"createdAt": "yesterday"},
    ],
)
def test_parse_notification_is_strict_on_every_declared_field(body: dict[str, Any]) -> None:
    doc = {"id": "674199e0a1b2c3d4e5f60718", "type": "subscription", "results": [], **body}
    with pytest.raises(DecodeError):
        urlscan_rs.parse_notification(doc)
    with pytest.raises(DecodeError):
        urlscan_rs.parse_notification(json.dumps(doc).encode())


def test_parse_notification_refuses_deep_nesting_as_a_decode_error() -> None:
    with pytest.raises(DecodeError, match="nested"):
        urlscan_rs.parse_notification(b"[" * 100_000)
    deep = '{"id": "a", "type": "incident", "results": [' + "[" * 50_000 + "]" * 50_000 + "]}"
    with pytest.raises(DecodeError):
        urlscan_rs.parse_notification(deep)


def test_missing_or_null_notification_fields_are_none() -> None:
    n = urlscan_rs.parse_notification({"id": "a", "type": "incident", "results": [], "searchIds": None, "createdAt": None})
    assert n.search_ids is None and n.created_at is None and n.total is None


def test_only_live_scans_are_paced_as_live_scans() -> None:
    """A spent live-scan window holds back live scans, not the scanner list or a resource
    (whose paths and names start alike); with fail_fast a paced call would raise at once."""

    def answer(request: BaseHTTPRequestHandler) -> tuple[int, dict[str, str], bytes]:
        path = urlsplit(request.path).path
        if request.command == "POST":
            spent = {**LIMIT_HEADERS, "x-rate-limit-action": "livescan", "x-rate-limit-remaining": "0"}
            return 200, {**JSON_HEADERS, **spent, "x-rate-limit-reset-after": "60"}, json.dumps({"uuid": UUID}).encode()
        if path.endswith("/scanners/"):
            return 200, JSON_HEADERS, b'{"scanners": []}'
        return 200, {"content-type": "text/html"}, b"<html></html>"

    with serve_raw(answer) as srv, Client(KEY, base_url=srv.url, fail_fast=True) as c:
        assert c.livescan.scan("de01", "https://example.com") == UUID
        assert c.livescan.scanners() == []
        assert c.livescan.resource("de01", "dom", UUID) == "<html></html>"
        assert c.request("GET", "/api/v1/livescan/scanners/") == {"scanners": []}
        with pytest.raises(RateLimitError):
            c.livescan.task("de01", "https://example.com")  # the spent window is the live scans'
        with pytest.raises(RateLimitError):
            c.request("POST", "/api/v1/livescan/de01/task/", json={"task": {"url": "https://example.com"}})


def test_no_limit_the_specification_does_not_state() -> None:
    """Incident intervals, counts and expiry, free text and id lengths have no limit in the
    specification or the reference: the client sends them as given (the service decides)."""

    def answer(request: BaseHTTPRequestHandler) -> tuple[int, dict[str, str], bytes]:
        if "/incidents" in request.path:
            return 200, JSON_HEADERS, b'{"incident": {"_id": "i1", "observable": "example.com"}}'
        if "/searches" in request.path:
            return 200, JSON_HEADERS, b'{"search": {"_id": "s1"}}'
        return 200, JSON_HEADERS, json.dumps({"uuid": UUID, "api": "x", "result": "x", "visibility": "public"}).encode()

    long_id = "a" * 200
    with serve_raw(answer) as srv, Client(KEY, base_url=srv.url) as c:
        c.incidents.create(
            "example.com",
            visibility="private",
            channels=[long_id],
            scan_interval=30,
            user_agents_per_interval=20,
            countries_per_interval=11,
            expire_after=2 * 365 * 86_400,
            stop_delay_inactive=10 * 365 * 86_400,
        )
        c.saved_searches.create(datasource="scans", name="n" * 9_000, query="page.domain:x")
        c.scan("https://example.com", tags=["t" * 9_000])
        bodies = [json.loads(b) for b in srv.bodies]
    incident = bodies[0]["incident"]
    assert incident["scanInterval"] == 30 and incident["userAgentsPerInterval"] == 20
    assert incident["expireAfter"] == 2 * 365 * 86_400 and incident["channels"] == [long_id]
    assert len(bodies[1]["search"]["name"]) == 9_000
    assert bodies[2]["tags"] == ["t" * 9_000]
    # What is stated still holds: hostname history's limit is 10..10000, extraPath 2,000 characters.
    with Client(KEY, base_url=DEAD) as c:
        with pytest.raises(urlscan_rs.ValidationError, match="limit"):
            c.hostnames.history("example.com", limit=9)
        with pytest.raises(urlscan_rs.ValidationError, match="extra_path"):
            c.incidents.create("example.com", visibility="private", channels=["a"], extra_path="/" + "a" * 2_000)


def test_cli_messages_still_name_options() -> None:
    """Hiding what could be a key hides no option's name."""
    proc = subprocess.run(
        [sys.executable, "-m", "urlscan_rs", "subscription", "create", "--email-addresses"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2 and "--email-address" in proc.stderr and "hidden" not in proc.stderr, proc.stderr


def test_a_live_scan_resource_is_never_silently_empty() -> None:
    def answer(request: BaseHTTPRequestHandler) -> tuple[int, dict[str, str], bytes]:
        return 200, {"content-type": "application/octet-stream"}, b""

    empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    with serve_raw(answer) as srv, Client(KEY, base_url=srv.url) as c:
        for kind in ("result", "dom", "screenshot"):
            with pytest.raises(DecodeError, match="empty"):
                c.livescan.resource("de01", kind, UUID)
        with pytest.raises(DecodeError, match="empty"):
            c.livescan.resource("de01", "response", "a" * 64)
        assert c.livescan.resource("de01", "response", empty) == b""


def shardable_search(concurrency_limit: str | None) -> tuple[Any, list[int]]:
    """A search service over 400 scans that answers shard queries (`(q) AND task.uuid:(0* OR 1*)`)
    slowly, announcing `concurrency_limit`; the second value holds the most searches that were
    in flight at once."""
    import random
    import re
    import threading

    rng = random.Random(7)
    scans = sorted(
        ((1_700_000_000_000 - i * 1000, f"{rng.getrandbits(128):032x}") for i in range(400)),
        key=lambda s: (s[0], s[1]),
        reverse=True,
    )
    lock, in_flight, most = threading.Lock(), [0], [0]

    def answer(request: BaseHTTPRequestHandler) -> tuple[int, dict[str, str], bytes]:
        with lock:
            in_flight[0] += 1
            most[0] = max(most[0], in_flight[0])
        try:
            time.sleep(0.03)
            query = {k: v[0] for k, v in parse_qs(urlsplit(request.path).query).items()}
            m = re.search(r"task\.uuid:\(([^)]*)\)", query.get("q", ""))
            prefixes = tuple(p.rstrip("*") for p in m.group(1).split(" OR ")) if m else ("",)
            hits = [s for s in scans if s[1].startswith(prefixes)]
            total = len(hits)
            if "search_after" in query:
                ms, uid = query["search_after"].split(",")
                hits = [s for s in hits if (s[0], s[1]) < (int(ms), uid)]
            page = [{"_id": uid, "sort": [ms, uid], "task": {"uuid": uid}} for ms, uid in hits[: int(query["size"])]]
            headers = {**JSON_HEADERS, **LIMIT_HEADERS, "x-rate-limit-remaining": "1000"}
            if concurrency_limit is not None:
                headers["x-rate-limit-concurrency-limit"] = concurrency_limit
            return 200, headers, json.dumps({"results": page, "total": total, "has_more": False}).encode()
        finally:
            with lock:
                in_flight[0] -= 1

    return answer, most


@pytest.mark.parametrize(("announced", "at_most"), [("2", 2), ("1", 1), (None, 16)])
def test_shards_never_exceed_the_concurrency_the_service_announces(announced: str | None, at_most: int) -> None:
    answer, most = shardable_search(announced)
    with serve_raw(answer) as srv, Client(KEY, base_url=srv.url) as c:
        single = [h.id for h in c.search("", size=20, parallel=1)]
        assert len(single) == 400 and most[0] == 1
        assert [h.id for h in c.search("", size=20, parallel=8)] == single
        assert c.rate_limits[0]["concurrency_limit"] == (None if announced is None else int(announced))
    if announced is None:
        assert most[0] > 2  # the shards do run at once: the bound above is what holds them back
    else:
        assert most[0] <= at_most
