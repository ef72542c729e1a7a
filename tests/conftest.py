"""Shared fixtures: emulators on loopback, clients, and helpers to run async code."""

from __future__ import annotations

import asyncio
import threading
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable, Iterable, Iterator
from typing import Any, Literal, TypeVar

import pytest

from urlscan_rs import AsyncClient, Client
from urlscan_rs.testing import Emulator

T = TypeVar("T")


def run(aw: Awaitable[T]) -> T:
    """Run one awaitable to completion on a fresh event loop."""

    async def main() -> T:
        return await aw

    return asyncio.run(main())


def in_threads(work: Callable[[T], object], items: Iterable[T]) -> None:
    """``work(item)`` for each item, each in a thread of its own, all running at once; returns
    when every one has ended."""
    threads = [threading.Thread(target=work, args=(item,)) for item in items]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def emulator(scope: Literal["function", "module"] = "module", **settings: Any) -> Any:
    """A fixture of an emulator with ``settings``: shared by a module's tests (read-mostly), or
    one per test (``scope="function"``: state, faults and counters start empty)."""

    @pytest.fixture(scope=scope)
    def fixture() -> Iterator[Emulator]:
        with Emulator(**settings) as e:
            yield e

    return fixture


# A shared emulator for read-mostly tests (300 seeded scans).
emu = emulator(scans=300, scan_duration=10.0, seed=7)
# An emulator of one's own, for tests that change state.
fresh = emulator("function", scans=50, scan_duration=10.0, seed=1)


@pytest.fixture
def client(emu: Emulator) -> Iterator[Client]:
    with emu.client() as c:
        yield c


@pytest.fixture
def aclient(emu: Emulator) -> Iterator[AsyncClient]:
    c = emu.async_client()
    yield c
    c.close()


def requests_served(e: Emulator) -> int:
    return e.stats()["requests"]


def finished_scan(e: Emulator, c: Client, **opts: Any) -> str:
    """Submit a scan and move the clock so it is finished; returns its uuid."""
    sub = c.scan("https://www.example.org/landing?x=1", **opts)
    e.advance(e.scan_duration + 1)
    return str(sub.uuid)


def subscribe(c: Client, query: str, channel_id: str | None = None, **fields: Any) -> Any:
    """A saved search of scans for ``query`` and a subscription to it, through the channel if
    one is given: live, to soc@example.com, unless ``fields`` say otherwise."""
    s = c.saved_searches.create(datasource="scans", name=query[:40], query=query)
    wanted = {"frequency": "live", "email_addresses": ["soc@example.com"], "name": "sub", "is_active": True, "ignore_time": True}
    if channel_id is not None:
        wanted["channel_ids"] = [channel_id]
    return c.subscriptions.create(search_ids=[s.id], **(wanted | fields))


def http(emu: Emulator, method: str, path: str, body: bytes | None = None, **headers: str) -> tuple[int, dict[str, str], bytes]:
    """One request straight to the emulator with its premium key (no client checks): the status,
    the headers (names in lowercase) and the body, whatever the status."""
    req = urllib.request.Request(emu.url + path, data=body, method=method, headers={"API-Key": emu.api_key, **headers})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, {k.lower(): v for k, v in r.headers.items()}, r.read()
    except urllib.error.HTTPError as e:
        return e.code, {k.lower(): v for k, v in e.headers.items()}, e.read()
