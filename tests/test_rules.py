"""Client and emulator read one table of the service's rules: where one
refuses a value before sending, the other refuses it on arrival."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

import urlscan_rs
from urlscan_rs import Client
from urlscan_rs.testing import Emulator

from .conftest import http, requests_served, run


def raw(emu: Emulator, method: str, path: str, body: Any) -> int:
    """Send a body straight to the emulator (no client checks); the status."""
    return http(emu, method, path, json.dumps(body).encode(), **{"Content-Type": "application/json"})[0]


def both_refuse(emu: Emulator, client_call: Callable[[], Any], method: str, path: str, body: Any) -> None:
    before = requests_served(emu)
    with pytest.raises(urlscan_rs.ValidationError):
        client_call()
    assert requests_served(emu) == before
    assert raw(emu, method, path, body) == 400


def test_livescan_page_timeout(fresh: Emulator) -> None:
    c = fresh.client()
    task = {"task": {"url": "https://example.com/"}, "scanner": {"pageTimeout": 300_001}}
    both_refuse(
        fresh,
        lambda: c.livescan.task("de01", "https://example.com/", page_timeout=300_001),
        "POST",
        "/api/v1/livescan/de01/task/",
        task,
    )
    assert c.livescan.task("de01", "https://example.com/", page_timeout=300_000)
    task["task"]["url"] = "javascript:alert(1)"
    task["scanner"] = {}
    both_refuse(fresh, lambda: c.livescan.task("de01", "javascript:alert(1)"), "POST", "/api/v1/livescan/de01/task/", task)


def test_saved_search_empty_query(fresh: Emulator) -> None:
    c = fresh.client()
    body = {"search": {"datasource": "scans", "name": "n", "query": ""}}
    both_refuse(
        fresh, lambda: c.saved_searches.create(datasource="scans", name="n", query=""), "POST", "/api/v1/user/searches/", body
    )


def test_channel_rules(fresh: Emulator) -> None:
    c = fresh.client()
    url = "/api/v1/user/channels/"
    both_refuse(
        fresh,
        lambda: c.channels.create(type="webhook", name="n", webhook_url="not a url"),
        "POST",
        url,
        {"channel": {"type": "webhook", "name": "n", "webhookURL": "not a url"}},
    )
    both_refuse(
        fresh, lambda: c.channels.create(type="webhook", name="n"), "POST", url, {"channel": {"type": "webhook", "name": "n"}}
    )
    both_refuse(
        fresh,
        lambda: c.channels.create(type="email", name="n", email_addresses=[]),
        "POST",
        url,
        {"channel": {"type": "email", "name": "n", "emailAddresses": []}},
    )
    both_refuse(
        fresh, lambda: c.channels.create(type="email", name="n"), "POST", url, {"channel": {"type": "email", "name": "n"}}
    )
    assert c.channels.create(type="email", name="n", email_addresses=["a@example.com"]).id
    assert c.channels.create(type="webhook", name="n", webhook_url="https://hooks.example.com/x").id


def test_incident_observable(fresh: Emulator) -> None:
    c = fresh.client()
    for bad in ("javascript:alert(1)", "localhost", "ftp://example.com/"):
        both_refuse(
            fresh,
            lambda b=bad: c.incidents.create(b, visibility="private", channels=[]),  # type: ignore[misc]
            "POST",
            "/api/v1/user/incidents",
            {"incident": {"observable": bad, "visibility": "private", "channels": []}},
        )


def test_extra_path_none_clears_it_and_absent_keeps_it(fresh: Emulator) -> None:
    c = fresh.client()
    inc = c.incidents.create("login.example.com", visibility="private", channels=[], extra_path="/signin")
    assert inc.extra_path == "/signin"
    kept = c.incidents.update(inc.id, scan_interval=7200)  # extra_path not given: unchanged
    assert kept.extra_path == "/signin"
    cleared = c.incidents.update(inc.id, extra_path=None)  # None: sent as null, clears it
    assert cleared.extra_path is None and cleared.raw["extraPath"] is None

    async def main() -> None:
        async with fresh.async_client() as ac:
            again = await ac.incidents.update(inc.id, extra_path="/other")
            assert again.extra_path == "/other"
            gone = await ac.incidents.update(inc.id, extra_path=None)
            assert gone.extra_path is None

    run(main())


def test_emulator_limits_of_its_own_are_not_the_client_s(fresh: Emulator) -> None:
    # The specification gives scanInterval no bound: the client sends 59, and the emulator's
    # own limit (60 s to 30 days, emulator behaviour) refuses it as a service may.
    c: Client = fresh.client()
    with pytest.raises(urlscan_rs.BadRequestError, match="scanInterval"):
        c.incidents.create("example.com", visibility="private", channels=[], scan_interval=59)
    assert (
        raw(
            fresh,
            "POST",
            "/api/v1/user/incidents",
            {"incident": {"observable": "example.com", "visibility": "private", "channels": [], "scanInterval": 59}},
        )
        == 400
    )
