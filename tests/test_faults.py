"""Fault injection in the emulator (``Emulator.inject``), and what the real
client makes of each fault over a real socket. Faults are counted (``count``,
``every``), never timed: no test relies on a sleep being long enough."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

import urlscan_rs
from urlscan_rs.testing import Emulator

from .conftest import emulator, run
from .loopback import JSON_HEADERS, serve_raw

SEARCH = "/api/v1/search"
QUOTAS = "/api/v1/quotas"


# An emulator of one's own per test: faults and counters start empty.
emu = emulator("function", scans=20, scan_duration=0)


def search(client: urlscan_rs.Client) -> list[Any]:
    return list(client.search("", limit=5))


def call(client: urlscan_rs.Client, path: str) -> Any:
    """One GET through the client: quotas or a page of search."""
    return client.quotas() if path == QUOTAS else search(client)


def submitted(emu: Emulator, client: urlscan_rs.Client) -> str:
    """A finished scan (scan_duration=0); returns its uuid."""
    uuid = str(client.scan("https://www.example.org/").uuid)
    assert emu.stats()["submissions"] == 1
    return uuid


def raw_get(emu: Emulator, path: str) -> bytes:
    """Everything the emulator sends for one GET, read off a plain socket."""
    host, port = emu.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nAPI-Key: {emu.api_key}\r\nConnection: close\r\n\r\n".encode())
        data = b""
        try:
            while chunk := s.recv(65536):
                data += chunk
        except ConnectionResetError:
            pass
        return data


# ---------------------------------------------------------------- the plan


def test_plan_counts_and_clears(emu: Emulator) -> None:
    assert emu.faults_remaining() == 0
    emu.inject("status", status=503, count=2, path=SEARCH)
    emu.inject("malformed", path=QUOTAS)
    emu.inject("reset", count=None, method="DELETE")
    assert emu.faults_remaining() == 4  # 2 + 1 + 1 for the unlimited one
    with pytest.raises(urlscan_rs.DecodeError):
        emu.client(max_retries=0).quotas()
    assert emu.faults_remaining() == 3 and emu.stats()["faults"] == 1
    emu.clear_faults()
    assert emu.faults_remaining() == 0
    emu.client(max_retries=0).quotas()
    assert emu.stats()["faults"] == 1  # clearing keeps the count


def test_every_nth_request(emu: Emulator) -> None:
    emu.inject("malformed", every=2, count=None, path=QUOTAS)
    client = emu.client(max_retries=0)
    outcomes = []
    for _ in range(6):
        try:
            client.quotas()
            outcomes.append("ok")
        except urlscan_rs.DecodeError:
            outcomes.append("bad")
    assert outcomes == ["ok", "bad"] * 3
    search(client)  # another path neither matches nor advances the fault
    assert emu.stats()["faults"] == 3


def test_probability_is_deterministic_per_seed() -> None:
    def pattern(seed: int) -> list[bool]:
        with Emulator(scans=5, scan_duration=0) as e:
            e.inject("malformed", probability=0.5, seed=seed, count=None, path=QUOTAS)
            client = e.client(max_retries=0)
            out = []
            for _ in range(24):
                try:
                    client.quotas()
                    out.append(False)
                except urlscan_rs.DecodeError:
                    out.append(True)
            assert e.stats()["faults"] == sum(out)
            return out

    first = pattern(11)
    assert pattern(11) == first
    assert 0 < sum(first) < 24


def test_first_affecting_fault_applies(emu: Emulator) -> None:
    emu.inject("html_error", path="/api/v1/result/")  # does not match quotas
    emu.inject("status", status=504, path=QUOTAS)
    emu.inject("malformed", path=QUOTAS)
    client = emu.client(max_retries=0)
    with pytest.raises(urlscan_rs.ServerError) as exc:
        client.quotas()
    assert exc.value.status == 504
    with pytest.raises(urlscan_rs.DecodeError):
        client.quotas()
    assert emu.faults_remaining() == 1


@pytest.mark.parametrize(
    ("kind", "opts"),
    [
        ("explode", {}),
        ("status", {"count": 0}),
        ("status", {"every": 0}),
        ("status", {"status": 200}),
        ("status", {"probability": 1.5}),
        ("status", {"path": "api/v1/search"}),
        ("stall", {}),
        ("stall", {"seconds": -1}),
        ("redirect", {}),
        ("reset", {"location": "http://example.com/"}),
        ("truncate", {"seconds": 1}),
        ("rate_limit", {"status": 503}),
    ],
)
def test_bad_options(emu: Emulator, kind: Any, opts: dict[str, Any]) -> None:
    with pytest.raises(urlscan_rs.ValidationError):
        emu.inject(kind, **opts)
    assert emu.faults_remaining() == 0


# ---------------------------------------------------------------- 5xx and 429


def test_503_burst_is_retried(emu: Emulator) -> None:
    emu.inject("status", status=503, count=2, path=SEARCH)
    assert len(search(emu.client(max_retries=3))) == 5
    assert emu.stats()["faults"] == 2 and emu.faults_remaining() == 0


def test_503_burst_outlasts_one_retry(emu: Emulator) -> None:
    emu.inject("status", status=503, count=2, path=SEARCH)
    with pytest.raises(urlscan_rs.ServerError) as exc:
        search(emu.client(max_retries=1))
    assert exc.value.status == 503 and exc.value.message == "Service Unavailable"
    assert emu.stats()["faults"] == 2


def test_503_burst_async(emu: Emulator) -> None:
    emu.inject("status", status=502, count=2, path=QUOTAS)

    async def main() -> Any:
        async with emu.async_client(max_retries=2) as client:
            return await client.quotas()

    assert run(main()).scope == "team"
    assert emu.stats()["faults"] == 2


def test_429_storm_is_waited_out(emu: Emulator) -> None:
    emu.inject("rate_limit", count=2, seconds=0, path=SEARCH)
    assert len(search(emu.client(max_retries=3))) == 5
    assert emu.stats()["faults"] == 2


def test_429_waits_for_reset_after(emu: Emulator) -> None:
    emu.inject("rate_limit", count=1, seconds=1, path=QUOTAS)
    started = time.monotonic()
    emu.client(max_retries=1).quotas()
    assert time.monotonic() - started >= 0.9  # X-Rate-Limit-Reset-After: 1 was honoured
    assert emu.stats()["faults"] == 1


@pytest.mark.parametrize("opts", [{"fail_fast": True}, {"max_retries": 0}])
def test_429_raises_with_limit_details(emu: Emulator, opts: dict[str, Any]) -> None:
    emu.inject("rate_limit", count=2, seconds=2, path=SEARCH)
    with pytest.raises(urlscan_rs.RateLimitError) as exc:
        search(emu.client(**opts))
    e = exc.value
    assert (e.status, e.action, e.scope, e.window, e.limit, e.remaining) == (429, "search", "user", "minute", 5000, 0)
    assert e.reset_after == 2 and e.reset_at is not None
    assert emu.stats()["faults"] == 1  # not retried


def test_429_on_scan_names_its_visibility(emu: Emulator) -> None:
    emu.inject("rate_limit", seconds=0, method="POST", path="/api/v1/scan")
    with pytest.raises(urlscan_rs.RateLimitError) as exc:
        emu.client(max_retries=0).scan("https://www.example.org/", visibility="unlisted")
    assert exc.value.action == "unlisted" and exc.value.limit == 500
    assert emu.stats()["submissions"] == 0


# ---------------------------------------------------------------- broken connections


def test_reset_on_result_is_retried(emu: Emulator) -> None:
    client = emu.client(max_retries=2)
    uuid = submitted(emu, client)
    emu.inject("reset", method="GET", path="/api/v1/result/")
    assert str(client.result(uuid).uuid) == uuid
    assert emu.stats()["faults"] == 1


def test_reset_on_result_without_retries(emu: Emulator) -> None:
    client = emu.client(max_retries=0)
    uuid = submitted(emu, client)
    emu.inject("reset", path="/api/v1/result/")
    with pytest.raises(urlscan_rs.TransportError) as exc:
        client.result(uuid)
    assert not isinstance(exc.value, urlscan_rs.RequestTimeout)


def test_reset_on_scan_is_not_resent(emu: Emulator) -> None:
    emu.inject("reset", method="POST", path="/api/v1/scan")
    before = emu.stats()["requests"]
    with pytest.raises(urlscan_rs.TransportError):
        emu.client(max_retries=3).scan("https://www.example.org/")
    stats = emu.stats()
    assert stats["requests"] - before == 1  # sent once, never re-sent
    assert stats["submissions"] == 0  # the handler never ran
    assert stats["faults"] == 1


def test_reset_sends_nothing_at_all(emu: Emulator) -> None:
    emu.inject("reset", path=QUOTAS)
    assert raw_get(emu, QUOTAS) == b""


def test_stall_beyond_the_timeout(emu: Emulator) -> None:
    emu.inject("stall", seconds=5, path=QUOTAS)
    started = time.monotonic()
    with pytest.raises(urlscan_rs.RequestTimeout):
        emu.client(max_retries=0, timeout=0.5).quotas()
    assert time.monotonic() - started < 4


def test_stall_once_then_the_retry_succeeds(emu: Emulator) -> None:
    emu.inject("stall", seconds=5, count=1, method="GET", path=QUOTAS)
    started = time.monotonic()
    assert emu.client(max_retries=2, timeout=0.5).quotas().scope == "team"
    assert time.monotonic() - started < 4  # the retry did not wait for the stall
    assert emu.stats()["faults"] == 1


def test_slow_body(emu: Emulator) -> None:
    emu.inject("slow", seconds=0.3, path=QUOTAS)
    assert emu.client(max_retries=0, timeout=10).quotas().scope == "team"
    emu.inject("slow", seconds=5, path=QUOTAS)
    with pytest.raises(urlscan_rs.RequestTimeout):
        emu.client(max_retries=0, timeout=0.5).quotas()
    assert emu.stats()["faults"] == 2


def test_slow_scan_counts_once(emu: Emulator) -> None:
    emu.inject("slow", seconds=0.2, method="POST", path="/api/v1/scan")
    emu.client().scan("https://www.example.org/")
    assert emu.stats()["submissions"] == 1


def test_stalled_scan_times_out_and_is_not_resent(emu: Emulator) -> None:
    emu.inject("stall", seconds=2, method="POST", path="/api/v1/scan")
    with pytest.raises(urlscan_rs.RequestTimeout):
        emu.client(max_retries=3, timeout=0.3).scan("https://www.example.org/")
    assert emu.stats()["requests"] == 1  # one attempt: at most one submission, never two


def test_slow_scan_answer_times_out_and_is_not_resent(emu: Emulator) -> None:
    emu.inject("slow", seconds=5, method="POST", path="/api/v1/scan")
    with pytest.raises(urlscan_rs.RequestTimeout):
        emu.client(max_retries=3, timeout=0.5).scan("https://www.example.org/")
    stats = emu.stats()
    assert stats["requests"] == 1 and stats["submissions"] == 1  # the handler ran before the body was slowed


# ---------------------------------------------------------------- damaged bodies


@pytest.mark.parametrize("path", [QUOTAS, SEARCH])
def test_truncated_body_fails_cleanly(emu: Emulator, path: str) -> None:
    # The body ends short of its Content-Length and the connection closes: the
    # client reports a broken transfer (TransportError), not DecodeError.
    emu.inject("truncate", path=path)
    with pytest.raises(urlscan_rs.TransportError) as exc:
        call(emu.client(max_retries=0), path)
    assert "end of file before message length reached" in str(exc.value)


@pytest.mark.parametrize("path", [QUOTAS, SEARCH])
def test_truncated_body_is_retried(emu: Emulator, path: str) -> None:
    emu.inject("truncate", path=path)
    assert call(emu.client(max_retries=1), path)
    assert emu.stats()["faults"] == 1


def test_truncate_on_the_wire(emu: Emulator) -> None:
    emu.inject("truncate", path=QUOTAS)
    head, _, body = raw_get(emu, QUOTAS).partition(b"\r\n\r\n")
    length = next(int(h.split(b":")[1]) for h in head.split(b"\r\n") if h.lower().startswith(b"content-length:"))
    assert head.startswith(b"HTTP/1.1 200") and 0 < len(body) == length // 2


def test_truncated_scan_answer_is_not_resent(emu: Emulator) -> None:
    emu.inject("truncate", method="POST", path="/api/v1/scan")
    with pytest.raises(urlscan_rs.TransportError):
        emu.client(max_retries=3).scan("https://www.example.org/")
    assert emu.stats()["submissions"] == 1  # the handler ran; the client did not submit again


@pytest.mark.parametrize("path", [QUOTAS, SEARCH])
def test_malformed_body_is_decode_error(emu: Emulator, path: str) -> None:
    emu.inject("malformed", path=path)
    with pytest.raises(urlscan_rs.DecodeError):
        call(emu.client(max_retries=3), path)
    assert emu.stats()["faults"] == 1  # a bad 200 is not retried


def test_html_error_page(emu: Emulator) -> None:
    emu.inject("html_error", path=QUOTAS)
    with pytest.raises(urlscan_rs.ServerError) as exc:
        emu.client(max_retries=0).quotas()
    e = exc.value
    assert e.status == 502 and e.message == "Bad Gateway" and "<" not in str(e)
    assert e.body.startswith("<html>")


def test_html_error_is_retried(emu: Emulator) -> None:
    emu.inject("html_error", status=504, count=2, path=QUOTAS)
    assert emu.client(max_retries=2).quotas().scope == "team"


# ---------------------------------------------------------------- redirects


QUOTAS_BODY = b'{"scope": "user", "limits": {}}'


@pytest.fixture
def elsewhere() -> Iterator[tuple[str, list[dict[str, str]]]]:
    """Another origin on loopback that records the headers it receives."""
    seen: list[dict[str, str]] = []

    def record(request: BaseHTTPRequestHandler) -> tuple[int, dict[str, str], bytes]:
        seen.append({k.lower(): v for k, v in request.headers.items()})
        return 200, JSON_HEADERS, QUOTAS_BODY

    with serve_raw(record) as served:
        yield served.url, seen


def test_redirect_to_another_origin_keeps_the_key(emu: Emulator, elsewhere: tuple[str, list[dict[str, str]]]) -> None:
    url, seen = elsewhere
    emu.inject("redirect", location=f"{url}/api/v1/quotas", path=QUOTAS)
    with pytest.raises(urlscan_rs.UrlscanError):
        emu.client(max_retries=2).quotas()
    assert not any("api-key" in h for h in seen)
    assert seen == []  # the client stops at a cross-origin redirect
    assert emu.stats()["faults"] == 1


def json_redirect(request: BaseHTTPRequestHandler) -> tuple[int, dict[str, str], bytes]:
    """A redirect elsewhere whose body happens to be JSON."""
    return 302, {"Location": "http://127.0.0.2:9/login", **JSON_HEADERS}, QUOTAS_BODY


def test_unfollowed_redirect_is_an_error() -> None:
    with serve_raw(json_redirect) as served:
        client = urlscan_rs.Client("00000000-0000-4000-8000-000000000001", base_url=served.url, max_retries=0)
        with pytest.raises(urlscan_rs.APIError) as exc:
            client.quotas()
        assert exc.value.status == 302 and "not followed" in exc.value.message


def test_redirect_within_the_origin_is_followed(emu: Emulator) -> None:
    emu.inject("redirect", status=307, location=f"{emu.url}/api/v1/quotas/", path=QUOTAS)
    assert emu.client(max_retries=0).quotas().scope == "team"
    assert emu.stats()["faults"] == 1


# ---------------------------------------------------------------- exactly-once scans


def test_bulk_scan_submits_each_url_once(emu: Emulator) -> None:
    for _ in range(5):
        emu.inject("status", status=503, seconds=0, method="POST", path="/api/v1/scan")
    urls = [f"https://site{i}.example.com/page" for i in range(10)]
    # enough retries for one URL to meet all five faults
    outcomes = emu.client(max_retries=5).bulk_scan(urls, wait=False)
    assert [o.ok for o in outcomes] == [True] * 10, [o.error for o in outcomes if not o.ok]
    assert len({str(o.submission.uuid) for o in outcomes if o.submission}) == 10
    stats = emu.stats()
    assert stats["submissions"] == 10 and stats["faults"] == 5
    assert emu.faults_remaining() == 0


def test_503_on_scan_without_retry_hint_is_not_resent(emu: Emulator) -> None:
    emu.inject("status", status=503, method="POST", path="/api/v1/scan")
    with pytest.raises(urlscan_rs.ServerError):
        emu.client(max_retries=3).scan("https://www.example.org/")
    assert emu.stats()["submissions"] == 0 and emu.stats()["faults"] == 1
