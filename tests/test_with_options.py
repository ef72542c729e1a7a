"""client.with_options(...): other per-call settings over the same connection pool, pacing, hooks
and cache, sync and async; what it refuses; how closing either side behaves."""

from __future__ import annotations

import asyncio
import pickle
import time
from pathlib import Path
from typing import Any

import pytest

import urlscan_rs
from urlscan_rs import AsyncClient, Client, TransportError, ValidationError
from urlscan_rs.testing import Emulator

from .conftest import emulator, run

QUOTAS = "/api/v1/quotas"

# Faults are queued per emulator: one per test.
emu1 = emulator("function", scans=20, seed=3)


def test_the_settings_given_change_and_the_rest_are_the_clients(emu1: Emulator) -> None:
    with emu1.client(timeout=30, max_retries=3, fail_fast=False) as client:
        quick = client.with_options(timeout=0.5, max_retries=0)
        assert isinstance(quick, Client)
        assert quick.timeout == 0.5 and client.timeout == 30
        settings = quick._core._config()
        assert (settings["max_retries"], settings["fail_fast"], settings["retry_deadline"]) == (0, False, 600.0)
        assert client._core._config()["max_retries"] == 3
        assert settings["base_url"] == client.base_url and settings["api_key"] == emu1.api_key
        # Each namespace calls through the client it hangs on.
        assert quick.incidents._client is quick and client.incidents._client is client
        assert quick.with_options(retry_deadline=None)._core._config()["retry_deadline"] is None


def test_a_stall_fails_the_short_timeout_and_not_the_clients(emu1: Emulator) -> None:
    with emu1.client(timeout=30, max_retries=0) as client:
        quick = client.with_options(timeout=0.5)
        emu1.inject("stall", seconds=5, count=1, path=QUOTAS)
        started = time.monotonic()
        with pytest.raises(urlscan_rs.RequestTimeout):
            quick.quotas()
        assert time.monotonic() - started < 4  # cut by the 0.5 s, not the client's 30 s
        emu1.inject("stall", seconds=1, count=1, path=QUOTAS)
        assert client.quotas().scope == "team"  # the client's own 30 s still holds
        assert emu1.stats()["faults"] == 2


def test_retries_follow_the_options(emu1: Emulator) -> None:
    with emu1.client(max_retries=3) as client:
        once = client.with_options(max_retries=0)
        emu1.inject("status", status=503, count=1, path=QUOTAS)
        before = emu1.stats()["requests"]
        with pytest.raises(urlscan_rs.ServerError):
            once.quotas()
        assert emu1.stats()["requests"] - before == 1  # no retry
        emu1.inject("status", status=503, count=1, path=QUOTAS)
        before = emu1.stats()["requests"]
        assert client.quotas().scope == "team"
        assert emu1.stats()["requests"] - before == 2  # the client retried once


def test_fail_fast_applies_to_the_derived_client_only(emu1: Emulator) -> None:
    with emu1.client() as client:
        strict = client.with_options(fail_fast=True)
        emu1.inject("rate_limit", count=1, path=QUOTAS)
        with pytest.raises(urlscan_rs.RateLimitError):
            strict.quotas()
        assert strict._core._config()["fail_fast"] is True
        assert client._core._config()["fail_fast"] is False


def test_pool_pacing_hooks_and_cache_are_shared(emu1: Emulator, tmp_path: Path) -> None:
    seen: list[str] = []
    hooks: Any = {"response": [lambda r: seen.append(r.request.url)]}
    opened = emu1.stats()["connections"]
    with emu1.client(event_hooks=hooks, cache=tmp_path / "cache") as client:
        client.quotas()
        quick = client.with_options(timeout=5.0, max_retries=1)
        quick.quotas()
        # One hook, told of both clients' answers.
        assert len(seen) == 2 and all(u.endswith(QUOTAS) for u in seen)
        assert client.rate_limits == []
        list(quick.search("*", limit=1))  # answered with X-Rate-Limit-* headers
        # One rate-limit state: what the derived client saw is the client's.
        assert client.rate_limits == quick.rate_limits != []
        assert quick.cache is client.cache
        # One pool: the derived client's requests went over the client's kept connection.
        # (Counted where the emulator accepts, not in /proc: an earlier test's closed client
        # may still be letting go of its own.)
        assert emu1.stats()["connections"] - opened == 1


def test_closing_the_derived_client_leaves_the_client_open(emu1: Emulator) -> None:
    with emu1.client() as client:
        quick = client.with_options(timeout=5.0)
        with quick:
            quick.quotas()
        assert quick.closed
        with pytest.raises(TransportError, match="closed"):
            quick.quotas()
        assert not client.closed
        assert client.quotas().scope == "team"
        other = client.with_options(timeout=5.0)
    # Closing the client closes the pool under every client derived from it.
    assert client.closed and other.closed
    with pytest.raises(TransportError):
        other.quotas()


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"timeout": -1}, ValidationError, "timeout"),
        ({"timeout": 0}, ValidationError, "timeout"),
        ({"max_retries": 101}, ValidationError, "max_retries must be between 0 and 100, got 101"),
        ({"max_retries": -1}, ValidationError, "max_retries"),
        ({"max_body_bytes": 10}, ValidationError, "max_body_bytes must be at least 1024, got 10"),
        ({"retry_deadline": -5.0}, ValidationError, "retry_deadline"),
        ({"timeout": "5"}, TypeError, "timeout"),
        ({"fail_fast": "yes"}, TypeError, "fail_fast"),
        ({"proxy": "http://proxy.example:3128"}, TypeError, "unexpected keyword argument 'proxy'"),
        ({"base_url": "http://127.0.0.1:1"}, TypeError, "unexpected keyword argument 'base_url'"),
        ({"api_key": "k"}, TypeError, "it takes timeout, max_retries, retry_deadline"),
    ],
)
def test_bad_options_are_refused_and_change_nothing(
    emu: Emulator, options: dict[str, Any], error: type[Exception], message: str
) -> None:
    with emu.client(timeout=7.0) as client:
        with pytest.raises(error, match=message):
            client.with_options(**options)
        assert client.timeout == 7.0 and client.quotas().scope == "team"


def test_a_derived_client_pickles_with_its_own_settings(emu: Emulator, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("URLSCAN_API_KEY", emu.api_key)
    with emu.client(timeout=30) as client:
        quick = client.with_options(timeout=2.5, max_retries=0)
        again = pickle.loads(pickle.dumps(quick))
        try:
            assert again.timeout == 2.5 and again._core._config()["max_retries"] == 0
            assert again.quotas().scope == "team"
        finally:
            again.close()


def test_async_with_options(emu1: Emulator) -> None:
    async def main() -> None:
        async with emu1.async_client(timeout=30, max_retries=0) as client:
            quick = client.with_options(timeout=0.5)
            assert isinstance(quick, AsyncClient) and quick.timeout == 0.5
            emu1.inject("stall", seconds=5, count=1, path=QUOTAS)
            started = time.monotonic()
            with pytest.raises(urlscan_rs.RequestTimeout):
                await quick.quotas()
            assert time.monotonic() - started < 4
            quotas, user = await asyncio.gather(quick.quotas(), client.user())
            assert quotas.scope == "team" and user is not None
            assert client.rate_limits == quick.rate_limits
            await quick.aclose()
            assert quick.closed and not client.closed
            assert (await client.quotas()).scope == "team"

    run(main())
