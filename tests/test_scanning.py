"""Scanning: submit, result lifecycle, waiting, batches, artifacts, visibility."""

from __future__ import annotations

import asyncio
import hashlib
import time

import pytest

import urlscan_rs
from urlscan_rs import AsyncClient, Client
from urlscan_rs.testing import Emulator

from .conftest import finished_scan, requests_served, run

UNKNOWN = "00000000-0000-4000-8000-000000000000"


def test_scan_lifecycle(fresh: Emulator) -> None:
    c = fresh.client()
    sub = c.scan("https://www.example.com/path?q=1", visibility="unlisted", tags=["t1", "t2"], country="DE")
    assert isinstance(sub, urlscan_rs.Submission)
    assert sub.visibility == "unlisted" and sub.message == "Submission successful"
    assert sub.api.endswith(f"/api/v1/result/{sub.uuid}/")
    with pytest.raises(urlscan_rs.ScanPendingError) as exc:
        c.result(sub.uuid)
    assert exc.value.status == 404 and "not finished" in exc.value.message
    assert isinstance(exc.value, urlscan_rs.NotFoundError)
    fresh.advance(10)
    r = c.result(sub.uuid)
    assert isinstance(r, urlscan_rs.ScanResult)
    assert r.uuid == sub.uuid
    assert r.task.visibility == "unlisted"
    assert r.task.tags == ["t1", "t2"]
    assert r.page.domain == "www.example.com"
    assert r.task.time is not None and r.task.time.tzinfo is not None


def test_unknown_and_deleted(fresh: Emulator) -> None:
    c = fresh.client()
    with pytest.raises(urlscan_rs.NotFoundError) as exc:
        c.result(UNKNOWN)
    assert not isinstance(exc.value, urlscan_rs.ScanPendingError)
    assert exc.value.message == "No such scan submission"
    uuid = finished_scan(fresh, c)
    change = c.set_visibility(uuid, "deleted")
    assert change.visibility == "deleted" and change.message == "Visibility updated"
    with pytest.raises(urlscan_rs.GoneError) as gone:
        c.result(uuid)
    assert gone.value.status == 410
    back = c.reset_visibility(uuid)
    assert back.visibility == "public" and back.message == "Visibility reset"
    assert c.result(uuid).uuid == uuid


def test_wait_for_result_polls_until_done() -> None:
    # scans finish 0.3 s of wall-clock time after submission; polling every 50 ms
    with Emulator(scans=0, scan_duration=0.3) as e, e.client() as c:
        sub = c.scan("https://example.com/")
        before = requests_served(e)
        r = c.wait_for_result(sub.uuid, initial_wait=0, interval=0.05, timeout=30)
        assert r.uuid == sub.uuid
        assert requests_served(e) - before >= 2  # at least one "not finished yet" first


def test_wait_for_result_times_out(fresh: Emulator) -> None:
    c = fresh.client()
    sub = c.scan("https://example.com/")
    t0 = time.monotonic()
    with pytest.raises(urlscan_rs.ScanTimeoutError) as exc:
        c.wait_for_result(sub.uuid, initial_wait=0, interval=0.05, timeout=0.3)
    assert exc.value.uuid == sub.uuid and isinstance(exc.value, TimeoutError)
    assert time.monotonic() - t0 < 5


@pytest.mark.parametrize("case", ["unknown", "gone", "auth"])
def test_wait_stops_at_once_on_final_errors(fresh: Emulator, case: str) -> None:
    c = fresh.client()
    uuid = UNKNOWN
    expected: type[Exception] = urlscan_rs.NotFoundError
    if case == "gone":
        uuid = finished_scan(fresh, c)
        c.set_visibility(uuid, "deleted")
        expected = urlscan_rs.GoneError
    elif case == "auth":
        c = Client("00000000-0000-4000-8000-00000000dead", base_url=fresh.url)
        expected = urlscan_rs.AuthenticationError
    before = requests_served(fresh)
    with pytest.raises(expected):
        c.wait_for_result(uuid, initial_wait=0, interval=0.05, timeout=30)
    assert requests_served(fresh) - before == 1


def test_scan_and_wait_sync_and_async() -> None:
    with Emulator(scans=0, scan_duration=0.0) as e:
        r = e.client().scan_and_wait("https://example.com/", initial_wait=0, interval=0.05, visibility="private")
        assert r.task.visibility == "private"

        async def main() -> urlscan_rs.ScanResult:
            async with e.async_client() as ac:
                return await ac.scan_and_wait("https://example.net/", initial_wait=0, interval=0.05)

        ar = run(main())
        assert ar.page.domain == "example.net"


def test_scan_refused(fresh: Emulator) -> None:
    c = fresh.client()
    with pytest.raises(urlscan_rs.ScanRefusedError) as exc:
        c.scan("https://no-such-host.invalid/")
    assert exc.value.message == "DNS Error - Could not resolve domain"
    assert "could not be resolved" in (exc.value.description or "")
    with pytest.raises(urlscan_rs.ScanRefusedError) as exc2:
        c.scan("https://blocked.example.com/")
    assert "blacklist" in (exc2.value.description or "")
    assert fresh.stats()["submissions"] == 0


def test_bulk_scan_keeps_order_and_isolates_failures() -> None:
    urls = [f"https://site{i}.example.com/" for i in range(12)]
    urls.insert(3, "https://broken.invalid/")
    urls.insert(7, "https://blocked.example.org/")
    seen: list[tuple[int, int]] = []
    with Emulator(scans=0, scan_duration=0.2) as e, e.client() as c:
        out = c.bulk_scan(
            urls, concurrency=4, initial_wait=0.2, interval=0.05, timeout=30, progress=lambda d, t: seen.append((d, t))
        )
        assert [o.url for o in out] == urls
        assert isinstance(out[3].error, urlscan_rs.ScanRefusedError) and out[3].submission is None
        assert isinstance(out[7].error, urlscan_rs.ScanRefusedError)
        good = [o for o in out if o.error is None]
        assert len(good) == 12 and all(o.ok for o in good)
        for o in good:
            assert o.submission is not None and o.result is not None
            assert o.result.uuid == o.submission.uuid and o.result.url == o.url
        assert e.stats()["submissions"] == 12  # each URL submitted exactly once
        assert seen[-1] == (14, 14) and len(seen) == 14


def test_bulk_scan_without_wait_async() -> None:
    with Emulator(scans=0, scan_duration=100.0) as e:

        async def main() -> list[urlscan_rs.ScanOutcome]:
            async with e.async_client() as ac:
                return await ac.bulk_scan(["https://a.example.com/", "https://b.example.com/"], wait=False)

        out = run(main())
        assert [o.result for o in out] == [None, None]
        assert all(o.submission is not None and o.error is None for o in out)


def test_results_errors_as_values(fresh: Emulator) -> None:
    c = fresh.client()
    uuid = finished_scan(fresh, c)
    corpus = [h.id for h in c.search("", limit=3)]
    got = c.results([uuid, UNKNOWN, *corpus], concurrency=3)
    assert isinstance(got[0], urlscan_rs.ScanResult) and got[0].uuid == uuid
    assert isinstance(got[1], urlscan_rs.NotFoundError)
    assert [r.uuid for r in got[2:]] == corpus

    async def main() -> list[object]:
        async with fresh.async_client() as ac:
            return await ac.results([UNKNOWN, uuid])

    agot = run(main())
    assert isinstance(agot[0], urlscan_rs.NotFoundError) and isinstance(agot[1], urlscan_rs.ScanResult)


def test_artifacts(fresh: Emulator) -> None:
    c = fresh.client()
    uuid = finished_scan(fresh, c)
    png = c.screenshot(uuid)
    assert isinstance(png, bytes) and png.startswith(b"\x89PNG\r\n\x1a\n")
    dom = c.dom(uuid)
    assert isinstance(dom, str) and "<html" in dom.lower()
    r = c.result(uuid)
    assert r.lists.hashes
    for h in r.lists.hashes[:3]:
        body = c.response(h)
        assert hashlib.sha256(body.encode()).hexdigest() == h
    assert c.response("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855") == ""
    with pytest.raises(urlscan_rs.NotFoundError):
        c.response("ab" * 32)
    with pytest.raises(urlscan_rs.NotFoundError):
        c.screenshot(UNKNOWN)

    async def main() -> tuple[bytes, str]:
        async with fresh.async_client() as ac:
            return await ac.screenshot(uuid), await ac.dom(uuid)

    apng, adom = run(main())
    assert apng == png and adom == dom


def test_visibility_rules(fresh: Emulator) -> None:
    owner = fresh.client()
    uuid = finished_scan(fresh, owner, visibility="private")
    mine = f"task.uuid:{uuid}"
    assert [h.id for h in owner.search(mine)] == [uuid]
    assert [h.id for h in fresh.client("team").search(mine)] == [uuid]  # same team
    assert list(fresh.client("other").search(mine)) == []  # another team
    assert list(fresh.client("free").search(mine)) == []
    with pytest.raises(urlscan_rs.NotFoundError):
        fresh.client("other").result(uuid)
    assert fresh.client("team").result(uuid).uuid == uuid
    # only owner and team may change it
    with pytest.raises(urlscan_rs.NotFoundError):
        fresh.client("other").set_visibility(uuid, "public")
    with pytest.raises(urlscan_rs.PermissionDeniedError):
        fresh.client("readonly").set_visibility(uuid, "public")  # no readwrite scope
    with pytest.raises(urlscan_rs.PermissionDeniedError):
        fresh.client("free").set_visibility(uuid, "public")  # premium only
    fresh.client("team").set_visibility(uuid, "public")
    assert [h.id for h in fresh.client("other").search(mine)] == [uuid]


def test_unlisted_is_readable_not_searchable(fresh: Emulator) -> None:
    uuid = finished_scan(fresh, fresh.client(), visibility="unlisted")
    other = fresh.client("other")
    assert other.result(uuid).uuid == uuid
    assert list(other.search(f"task.uuid:{uuid}")) == []


def test_readonly_key_cannot_scan(fresh: Emulator) -> None:
    with pytest.raises(urlscan_rs.PermissionDeniedError) as exc:
        fresh.client("readonly").scan("https://example.com/")
    assert "readwrite" in exc.value.message


@pytest.mark.parametrize(
    "call",
    [
        lambda c: c.result("not-a-uuid"),
        lambda c: c.result("../../api/v1/quotas"),
        lambda c: c.screenshot("1234"),
        lambda c: c.dom(""),
        lambda c: c.response("xyz"),
        lambda c: c.scan("https://example.com/", visibility="secret"),
        lambda c: c.scan("https://example.com/", tags=[f"t{i}" for i in range(11)]),
        lambda c: c.scan("https://example.com/", country="deu"),
        lambda c: c.scan("ftp://example.com/"),
        lambda c: c.scan(""),
        lambda c: c.set_visibility("00000000-0000-4000-8000-000000000000", "hidden"),
        lambda c: c.wait_for_result("00000000-0000-4000-8000-000000000000", timeout=-1),
        lambda c: c.bulk_scan(["https://a.example.com/"], concurrency=0),
        lambda c: c.bulk_scan("https://a.example.com/"),
        lambda c: c.bulk_scan(["https://a.example.com/"], visibility="nope"),
        lambda c: c.results(["x"], concurrency=-2),
        lambda c: c.search("", size=0),
        lambda c: c.search("", limit=0),
        lambda c: c.search("", size=20000),
        lambda c: c.search("", search_after="[1,2]"),
        lambda c: c.search("", datasource="files"),
        lambda c: c.similar("nope"),
    ],
)
def test_bad_input_sends_nothing(emu: Emulator, client: Client, call: object) -> None:
    before = requests_served(emu)
    with pytest.raises(urlscan_rs.ValidationError) as exc:
        call(client)  # type: ignore[operator]
    assert isinstance(exc.value, ValueError) and str(exc.value)
    assert requests_served(emu) == before


def test_bad_input_async(emu: Emulator, aclient: AsyncClient) -> None:
    before = requests_served(emu)
    # coroutines: the usual asyncio.run(client.method(...)) idiom works
    with pytest.raises(urlscan_rs.ValidationError):
        asyncio.run(aclient.result("nope"))
    with pytest.raises(urlscan_rs.ValidationError):
        run(aclient.scan("https://example.com", tags=["x"] * 11))
    assert requests_served(emu) == before


def test_closed_client(emu: Emulator) -> None:
    c = emu.client()
    c.close()
    assert c.closed
    with pytest.raises(urlscan_rs.TransportError):
        c.quotas()


def test_transport_error() -> None:
    # nothing listens on port 9 of loopback
    with Client("00000000-0000-4000-8000-000000000000", base_url="http://127.0.0.1:9", max_retries=0) as c:
        with pytest.raises(urlscan_rs.TransportError):
            c.quotas()


def test_async_cancel_leaves_client_usable(fresh: Emulator) -> None:
    async def main() -> str:
        async with fresh.async_client() as ac:
            sub = await ac.scan("https://example.com/")
            with pytest.raises(asyncio.TimeoutError):
                # the scan never finishes within 0.2 s: the wait is cancelled
                await asyncio.wait_for(ac.wait_for_result(sub.uuid, initial_wait=0, interval=0.05), timeout=0.2)
            fresh.advance(fresh.scan_duration)
            r = await ac.result(sub.uuid)
            return str(r.uuid)

    assert run(main())


def test_async_many_concurrent(emu: Emulator, client: Client) -> None:
    ids = [h.id for h in client.search("", limit=40)]

    async def main() -> list[str]:
        async with emu.async_client() as ac:
            rs = await asyncio.gather(*(ac.result(i) for i in ids))
            return [str(r.uuid) for r in rs]

    assert run(main()) == ids
