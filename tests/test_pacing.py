"""Rate-limit pacing, the retry deadline, fail-fast, body caps and close().

The emulator's windows can be a second long ("1s"), so that a job of a few
hundred requests shows in seconds whether the client stays inside its quota.
Pacing runs on real time by nature; the assertions hold however slow the
machine is, except the quota-use floor. That floor leaves spare windows for a
busy machine (the tests run in parallel), yet fails a client that loses a window
per burst; how close pacing gets to the whole quota is measured by the
benchmark (`bench/run.py --only quota`), not here.
"""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from urlscan_rs import AsyncClient, Client
from urlscan_rs.errors import DecodeError, RateLimitError, TransportError, ValidationError
from urlscan_rs.testing import Emulator

from .conftest import finished_scan, in_threads, requests_served

# A paced job fills at least this share of the windows it spans.
QUOTA_USE_FLOOR = 0.75


def windows_spanned(start: float, end: float, length: float) -> int:
    return int(end // length) - int(start // length) + 1


def at_window_start(emu: Emulator, length: float = 1.0) -> float:
    """Wait for the next window of the emulator clock, so the job's first window is a whole one."""
    now = emu.now()
    time.sleep(length - now % length + 0.01)
    return emu.now()


def test_bulk_scan_paced_inside_a_short_window() -> None:
    """240 scans at 12 per second: no 429 at all, every scan submitted once, the quota used (see QUOTA_USE_FLOOR)."""
    n, limit = 240, 12
    with Emulator(scans=5, rate_limits={"public": {"1s": limit}}) as emu:
        with emu.client() as c:
            start = at_window_start(emu)
            out = c.bulk_scan([f"https://paced.example.com/{i}" for i in range(n)], wait=False, concurrency=16)
            end = emu.now()
            assert [o.error for o in out if o.error] == []
            assert [o.url for o in out] == [f"https://paced.example.com/{i}" for i in range(n)]
            stats = emu.stats()
            assert stats["throttled"] == 0
            assert stats["submissions"] == n
            assert stats["requests"] == n
            spanned = windows_spanned(start, end, 1.0)
            used = n / (spanned * limit)
            # 20 windows if every one is filled; 40 if a window were lost per burst.
            assert used >= QUOTA_USE_FLOOR, f"{n} scans over {spanned} windows of {limit}: {used:.0%}"
            (public,) = [r for r in c.rate_limits if r["action"] == "public"]
            assert public["window"] == "1s" and public["limit"] == limit


def test_async_fan_out_paced() -> None:
    """200 concurrent result() awaits against 20 retrievals per second."""
    n, limit = 200, 20
    with Emulator(scans=5, scan_duration=1.0, rate_limits={"retrieve": {"1s": limit}}) as emu:
        with emu.client() as c:
            uuid = finished_scan(emu, c)
        before = requests_served(emu)

        async def main() -> list[object]:
            async with emu.async_client() as ac:
                return await asyncio.gather(*(ac.result(uuid) for _ in range(n)))

        start = at_window_start(emu)
        results = asyncio.run(main())
        end = emu.now()
        assert all(r.task.uuid == uuid for r in results)  # type: ignore[attr-defined]
        assert emu.stats()["throttled"] == 0
        assert requests_served(emu) - before == n
        spanned = windows_spanned(start, end, 1.0)
        # 10 windows if every one is filled.
        assert n / (spanned * limit) >= QUOTA_USE_FLOOR, f"{n} results over {spanned} windows of {limit}"


def test_fail_fast_raises_instead_of_waiting_and_sends_nothing() -> None:
    with Emulator(scans=5, rate_limits={"public": {"minute": 2}}) as emu:
        with emu.client(fail_fast=True) as c:
            c.scan("https://a.example.com/")
            c.scan("https://b.example.com/")
            sent = requests_served(emu)
            with pytest.raises(RateLimitError) as ei:
                c.scan("https://c.example.com/")
            assert requests_served(emu) == sent  # refused on the client side
            e = ei.value
            assert (e.action, e.window, e.limit, e.remaining) == ("public", "minute", 2, 0)
            assert e.reset_after is not None and 0 < e.reset_after <= 60
            assert "fail_fast" in str(e)
            assert emu.stats()["submissions"] == 2


def test_advance_ends_a_spent_window_for_clients_too() -> None:
    """The emulator clock drives the windows: advancing past a spent one lets calls go at once."""
    with Emulator(scans=5, rate_limits={"search": {"minute": 2}}) as emu:
        with emu.client(fail_fast=True) as c:
            c.search("").count()
            c.search("").count()
            with pytest.raises(RateLimitError):
                c.search("").count()
            with pytest.raises(RateLimitError):  # the emulator agrees: the window is spent
                emu.client(fail_fast=True, max_retries=0).search("").count()
            emu.advance(60)
            assert c.search("").count() == 5  # at once: the window moved on with the clock
        emu.advance(60)

        async def paced() -> int:
            async with emu.async_client() as ac:
                await ac.search("").count()
                await ac.search("").count()
                return await ac.search("").count()  # waits for the spent window ...

        moved = threading.Timer(1.0, lambda: emu.advance(60))  # ... which advance() ends
        moved.start()
        started = time.monotonic()
        assert asyncio.run(paced()) == 5
        assert time.monotonic() - started < 30  # not the minute of wall time
        moved.join()


def test_another_emulators_clock_leaves_a_clients_windows_alone() -> None:
    """A client forgets the windows of the server whose clock moved, not those of others."""
    with Emulator(scans=5, rate_limits={"search": {"minute": 1}}) as emu, Emulator(scans=1) as other:
        with emu.client(fail_fast=True) as c:
            c.search("").count()
            with pytest.raises(RateLimitError):
                c.search("").count()
            other.advance(60)  # another server's clock: this window is still spent
            sent = requests_served(emu)
            with pytest.raises(RateLimitError):
                c.search("").count()
            assert requests_served(emu) == sent  # refused by the client's own memory
            emu.advance(60)
            assert c.search("").count() == 5


def test_retry_deadline_bounds_waiting_after_a_429() -> None:
    """A 429 asking for 30 s: with a 1 s deadline the call gives up at once instead of sleeping."""
    with Emulator(scans=5) as emu:
        emu.inject("rate_limit", count=1, seconds=30, path="/api/v1/search/")
        with emu.client(retry_deadline=1.0) as c:
            started = time.monotonic()
            with pytest.raises(RateLimitError) as ei:
                c.search("*", limit=1).count()
            assert time.monotonic() - started < 10
            assert ei.value.reset_after == 30
            assert requests_served(emu) == 1
        # Without a deadline short enough, the same 429 is waited out (here 1 s).
        emu.inject("rate_limit", count=1, seconds=1, path="/api/v1/search/")
        with emu.client(retry_deadline=60.0) as c:
            assert c.search("*", limit=1).count() == 5


def test_client_options_are_checked() -> None:
    with Emulator(scans=1) as emu:
        for bad in ({"retry_deadline": -1.0}, {"retry_deadline": float("nan")}, {"max_body_bytes": 10}):
            with pytest.raises(ValidationError):
                emu.client(**bad)
        assert emu.client(retry_deadline=None)._core._config()["retry_deadline"] is None
        with pytest.raises(ValidationError, match="rate limit windows"):
            Emulator(scans=1, rate_limits={"search": {"fortnight": 3}})


def test_body_cap_is_configurable(emu: Emulator) -> None:
    with emu.client() as c:
        uuid = next(iter(c.search("*", limit=1))).task.uuid
        assert len(c.result(uuid).raw) > 0
    with emu.client(max_body_bytes=4096) as small:
        with pytest.raises(DecodeError, match="exceeds the limit of 4096 bytes"):
            small.result(uuid)
        # Small answers still pass.
        assert small.user_agents() is not None


def test_close_ends_a_blocking_wait_in_another_thread() -> None:
    with Emulator(scans=1, scan_duration=3600) as emu:
        c = emu.client()
        uuid = c.scan("https://slow.example.com/").uuid
        outcome: list[BaseException | object] = []

        def wait() -> None:
            try:
                outcome.append(c.wait_for_result(uuid, initial_wait=0, interval=2, timeout=3600))
            except BaseException as e:  # noqa: BLE001 - the test inspects it
                outcome.append(e)

        t = threading.Thread(target=wait)
        t.start()
        while requests_served(emu) < 2:  # the first poll has come back "not finished"
            time.sleep(0.01)
        c.close()
        t.join(10)
        assert not t.is_alive(), "close() did not end the wait"
        assert isinstance(outcome[0], TransportError) and "closed" in str(outcome[0])
        assert c.closed
        with pytest.raises(TransportError, match="closed"):
            c.user()


def test_close_ends_a_stalled_request_and_awaits() -> None:
    with Emulator(scans=5) as emu:
        emu.inject("stall", count=1, seconds=600, path="/api/v1/search/")

        async def main() -> None:
            ac = AsyncClient(emu.api_key, base_url=emu.url, timeout=600)
            stalled = asyncio.ensure_future(ac.search("*", limit=1).count())
            while emu.stats()["faults"] < 1:
                await asyncio.sleep(0.01)
            await ac.aclose()
            with pytest.raises(TransportError, match="closed"):
                await asyncio.wait_for(stalled, 10)
            with pytest.raises(TransportError, match="closed"):
                await ac.user()

        asyncio.run(main())
        # Another client on the same emulator is unaffected.
        with Client(emu.api_key, base_url=emu.url) as c:
            assert c.user() is not None


def test_concurrency_none_is_bounded_by_the_quota() -> None:
    """results(concurrency=None): up to 64 in flight, the 1 s window of 25 is the real bound."""
    n, limit = 100, 25
    with Emulator(scans=5, scan_duration=1.0, rate_limits={"retrieve": {"1s": limit}}) as emu:
        with emu.client() as c:
            uuid = finished_scan(emu, c)
            out = c.results([uuid] * n, concurrency=None)
            assert all(not isinstance(r, Exception) and r.task.uuid == uuid for r in out)
            assert emu.stats()["throttled"] == 0
            with pytest.raises(ValidationError, match="concurrency"):
                c.results([uuid], concurrency=0)


def test_clients_sharing_a_key_wait_out_each_others_windows() -> None:
    """Two clients (like two processes) on one key: the 429s of the shared window are waited
    out until its reset, not counted as retries, so none reaches the caller."""
    with Emulator(scans=5, rate_limits={"search": {"1s": 3}}) as emu:
        clients = [emu.client(max_retries=1) for _ in range(2)]
        errors: list[BaseException] = []

        def work(c: Client) -> None:
            try:
                for _ in range(6):
                    c.search("").count()
            except BaseException as e:  # noqa: BLE001 - collected and asserted below
                errors.append(e)

        in_threads(work, clients)
        assert errors == []
        for c in clients:
            c.close()
    with Emulator(scans=5, rate_limits={"search": {"minute": 3}}) as emu:
        emu.advance(60 - emu.now() % 60 + 0.01)  # the start of a minute window
        with emu.client() as a, emu.client(max_retries=1) as b:
            for _ in range(3):
                a.search("").count()  # spends the window; `a` knows, `b` does not
            done = threading.Event()

            def next_minute() -> None:  # once b got its 429, end the window on the emulator clock
                while emu.stats()["throttled"] == 0 and not done.wait(0.02):
                    pass
                while not done.wait(0.25):
                    emu.advance(60)

            clock = threading.Thread(target=next_minute)
            clock.start()
            try:
                assert b.search("").count() == 5  # the 429 is waited out, not raised
            finally:
                done.set()
                clock.join()
            assert emu.stats()["throttled"] == 1
    with Emulator(scans=5, rate_limits={"search": {"minute": 1}}) as emu:
        emu.client().search("").count()  # another user of the key spends the window
        with emu.client(max_retries=0) as strict, pytest.raises(RateLimitError):
            strict.search("").count()  # no retries asked for: the 429 is raised
