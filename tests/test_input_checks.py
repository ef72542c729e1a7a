"""Inputs are checked before anything is sent, in one place (the core's
validation): URLs, booleans, durations, long inputs, header values, the base
URL. Nothing reaches Python as a PanicException."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest

import urlscan_rs
from urlscan_rs import AsyncClient, Client
from urlscan_rs.testing import Emulator

from .conftest import requests_served, run

UUID = "00000000-0000-4000-8000-000000000000"
HUGE = "x" * 10_000_000
BAD_URLS = [
    "javascript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "file:/etc/passwd",
    "file:///etc/passwd",
    "mailto:someone@example.com",
    "https:///path",
    "http://",
    "ftp://example.com/",
    "https://example.com/\r\nX-Injected: 1",
    "https://exa mple.com/",
    "https://example.com/" + "a" * 2100,
    "https://example.com/" + HUGE,
]


def _refused_at_once(emu: Emulator, call: Callable[[], Any]) -> urlscan_rs.ValidationError:
    before = requests_served(emu)
    with pytest.raises(urlscan_rs.ValidationError) as exc:
        call()
    assert requests_served(emu) == before, "a request was sent"
    assert len(str(exc.value)) < 500, "the message must stay short"
    return exc.value


def test_scan_urls_refused(fresh: Emulator) -> None:
    c = fresh.client()
    for url in BAD_URLS:
        _refused_at_once(fresh, lambda u=url: c.scan(u))  # type: ignore[misc]
        _refused_at_once(fresh, lambda u=url: c.bulk_scan([u], wait=False)[0].submission or _raise(u))  # type: ignore[misc]


def _raise(url: str) -> None:
    raise urlscan_rs.ValidationError(f"refused {url[:20]}")


def test_scan_urls_refused_async(fresh: Emulator) -> None:
    async def main() -> None:
        async with fresh.async_client() as c:
            for url in BAD_URLS:
                before = requests_served(fresh)
                with pytest.raises(urlscan_rs.ValidationError) as exc:
                    await c.scan(url)
                assert requests_served(fresh) == before and len(str(exc.value)) < 500
                with pytest.raises(urlscan_rs.ValidationError):
                    await c.livescan.task("de01", url)

    run(main())


def test_url_without_scheme_is_sent_as_the_service_takes_it(fresh: Emulator) -> None:
    c = fresh.client()
    sub = c.scan("example.com/path")
    assert sub.url == "http://example.com/path"
    ok = c.scan("https://example.com/")
    assert ok.url == "https://example.com/"


def test_livescan_urls_and_headers_checked(fresh: Emulator) -> None:
    c = fresh.client()
    for url in BAD_URLS:
        _refused_at_once(fresh, lambda u=url: c.livescan.task("de01", u))  # type: ignore[misc]
        _refused_at_once(fresh, lambda u=url: c.livescan.scan("de01", u))  # type: ignore[misc]
    _refused_at_once(fresh, lambda: c.livescan.task("de01", "https://example.com/", extra_headers={"X-A": "a\r\nb"}))
    _refused_at_once(fresh, lambda: c.livescan.task("de01", "https://example.com/", extra_headers={"X A": "b"}))
    assert c.livescan.task("de01", "https://example.com/", extra_headers={"X-A": "b"})


@pytest.mark.parametrize("value", [object(), float("nan"), 1, "yes", [True]])
def test_booleans_must_be_booleans(fresh: Emulator, value: Any) -> None:
    c = fresh.client()
    _refused_at_once(fresh, lambda: c.scan("https://example.com/", override_safety=value))
    _refused_at_once(
        fresh, lambda: c.channels.create(type="webhook", name="n", webhook_url="https://h.example.com/", is_active=value)
    )
    assert c.scan("https://example.com/", override_safety=True).uuid


@pytest.mark.parametrize("value", [1e30, 2**64, float("inf"), float("nan"), -1.0, 8 * 86_400.0])
def test_client_durations_bounded(value: float) -> None:
    for cls in (Client, AsyncClient):
        with pytest.raises(urlscan_rs.ValidationError):
            cls(UUID, base_url="http://127.0.0.1:9", timeout=value)
        if value >= 0 or math.isnan(value):
            with pytest.raises(urlscan_rs.ValidationError):
                cls(UUID, base_url="http://127.0.0.1:9", retry_deadline=value)


@pytest.mark.parametrize(
    "kwargs",
    [{"timeout": 2**63}, {"timeout": 1e30}, {"interval": 1e300}, {"initial_wait": 2**64}, {"timeout": float("nan")}],
)
def test_wait_durations_bounded(fresh: Emulator, kwargs: dict[str, float]) -> None:
    c = fresh.client()
    _refused_at_once(fresh, lambda: c.wait_for_result(UUID, **kwargs))
    _refused_at_once(fresh, lambda: c.scan_and_wait("https://example.com/", **kwargs))

    async def main() -> None:
        async with fresh.async_client() as ac:
            with pytest.raises(urlscan_rs.ValidationError):
                await ac.wait_for_result(UUID, **kwargs)

    run(main())


def test_long_inputs_refused_at_once_with_short_messages(fresh: Emulator) -> None:
    c = fresh.client()
    for call in (
        lambda: list(c.search(HUGE, limit=1)),
        lambda: c.search(HUGE).count(),
        lambda: c.datadumps.link(HUGE),
        lambda: c.datadumps.list("days", "api", HUGE),
        lambda: c.result(HUGE),
        lambda: c.response(HUGE),
        lambda: c.incidents.get(HUGE),
        lambda: list(c.hostnames.history(HUGE)),
        lambda: c.saved_searches.create(datasource="scans", name="n", query=HUGE),
    ):
        _refused_at_once(fresh, call)


def test_long_text_without_a_stated_limit_is_the_service_s_to_judge(fresh: Emulator) -> None:
    """Names and tags have no limit in the specification: the client sends them, and the
    emulator's own limit (8,000 characters) answers as a service may, with a 400."""
    c = fresh.client()
    long = "x" * 9_000
    for call in (
        lambda: c.channels.create(type="webhook", name=long, webhook_url="https://h.example.com/"),
        lambda: c.saved_searches.create(datasource="scans", name=long, query="page.domain:x"),
    ):
        before = requests_served(fresh)
        with pytest.raises(urlscan_rs.BadRequestError):
            call()
        assert requests_served(fresh) == before + 1


def test_long_inputs_async(fresh: Emulator) -> None:
    async def main() -> None:
        async with fresh.async_client() as c:
            for make in (lambda: c.datadumps.link(HUGE), lambda: c.scan("https://example.com/" + HUGE)):
                with pytest.raises(urlscan_rs.ValidationError) as exc:
                    await make()
                assert len(str(exc.value)) < 500

    run(main())


def test_header_values_checked(fresh: Emulator) -> None:
    for bad in ("agent\r\nX-Injected: 1", "agent\n", "a\x00b"):
        with pytest.raises(urlscan_rs.ValidationError):
            Client(UUID, base_url=fresh.url, user_agent=bad)
        with pytest.raises(urlscan_rs.ValidationError):
            AsyncClient(UUID, base_url=fresh.url, user_agent=bad)
    with pytest.raises(urlscan_rs.ValidationError) as exc:
        Client("key\r\nX: y", base_url=fresh.url)
    assert "key\r\n" not in str(exc.value)
    c = fresh.client()
    _refused_at_once(fresh, lambda: c.scan("https://example.com/", referer="https://a.example/\r\nX: y"))


def test_empty_base_url_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    for cls in (Client, AsyncClient):
        with pytest.raises(urlscan_rs.ValidationError):
            cls(UUID, base_url="")
        with pytest.raises(urlscan_rs.ValidationError):
            cls(UUID, base_url="   ")
    monkeypatch.setenv("URLSCAN_BASE_URL", "")
    with pytest.raises(urlscan_rs.ValidationError) as exc:
        Client(UUID)
    assert "URLSCAN_BASE_URL" in str(exc.value)
    monkeypatch.delenv("URLSCAN_BASE_URL")
    assert Client(UUID).base_url == "https://urlscan.io"


def test_repr_of_a_client_whose_init_failed() -> None:
    for cls in (Client, AsyncClient):
        obj = cls.__new__(cls)
        with pytest.raises(urlscan_rs.ValidationError):
            obj.__init__(UUID, base_url="http://127.0.0.1:9", timeout=-1)  # type: ignore[misc]
        assert cls.__name__ in repr(obj)
        assert "not initialised" in repr(obj)


def test_no_panic_exception_for_any_listed_input(fresh: Emulator) -> None:
    """Every input of the report, sync and async: a UrlscanError, never a PanicException."""
    c = fresh.client()
    calls: list[Callable[[Any], Any]] = [
        lambda k: k.scan("javascript:alert(1)"),
        lambda k: k.scan("https:///path"),
        lambda k: k.scan("https://example.com/", override_safety=object()),
        lambda k: k.scan("https://example.com/", override_safety=float("nan")),
        lambda k: k.wait_for_result(UUID, timeout=2**63),
        lambda k: k.wait_for_result(UUID, interval=1e300),
        lambda k: k.wait_for_result(UUID, initial_wait=1e300),
        lambda k: k.livescan.task("de01", "file:///etc/passwd"),
        lambda k: k.livescan.task("de01", "https://example.com/", page_timeout=2**62),
        lambda k: k.livescan.task("de01", "https://example.com/", page_timeout=float("nan")),
        lambda k: k.search(HUGE).count(),
        lambda k: k.datadumps.link(HUGE),
        lambda k: k.incidents.create("example.com", visibility="private", channels=[], expire_after=2**62),
    ]
    for call in calls:
        try:
            call(c)
        except urlscan_rs.UrlscanError:
            pass
    for kw in ({"timeout": 1e30}, {"timeout": 2**64}, {"retry_deadline": 1e30}, {"retry_deadline": 2**64}, {"base_url": ""}):
        for cls in (Client, AsyncClient):
            try:
                cls(UUID, **{"base_url": fresh.url, **kw})
            except urlscan_rs.UrlscanError:
                pass

    async def main() -> None:
        async with fresh.async_client() as ac:
            for call in calls:
                try:
                    await call(ac)
                except urlscan_rs.UrlscanError:
                    pass

    run(main())
