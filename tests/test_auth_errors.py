"""Errors follow what the service says: a malformed key and every 401 are
`AuthenticationError` on every endpoint; no key at all fails before any
request; a 400 of a submission is `ScanRefusedError` only when the body says
the scan was refused."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import urlscan_rs
from urlscan_rs import AsyncClient, Client
from urlscan_rs.testing import Emulator

from .conftest import requests_served, run
from .loopback import serve

UUID = "00000000-0000-4000-8000-000000000000"
SHA = "a" * 64

# Every kind of call, sync form: each takes a client and makes one request.
CALLS: dict[str, Callable[[Any], Any]] = {
    "quotas": lambda c: c.quotas(),
    "user": lambda c: c.user(),
    "scan": lambda c: c.scan("https://example.com/"),
    "result": lambda c: c.result(UUID),
    "screenshot": lambda c: c.screenshot(UUID),
    "dom": lambda c: c.dom(UUID),
    "response": lambda c: c.response(SHA),
    "set_visibility": lambda c: c.set_visibility(UUID, "private"),
    "available_countries": lambda c: c.available_countries(),
    "user_agents": lambda c: c.user_agents(),
    "channels.list": lambda c: c.channels.list(),
    "saved_searches.list": lambda c: c.saved_searches.list(),
    "incidents.get": lambda c: c.incidents.get("abc"),
    "livescan.scanners": lambda c: c.livescan.scanners(),
    "files.download": lambda c: c.files.download(SHA),
    "datadumps.list": lambda c: c.datadumps.list("days", "api", "20260101"),
}


def _drain(it: Any) -> Any:
    return list(it)


async def _adrain(it: Any) -> list[Any]:
    return [x async for x in it]


def _malformed(exc: Any, name: str) -> None:
    assert exc.value.status == 400 and exc.value.message.startswith("Invalid API key format"), name
    assert "not a UUID" in exc.value.message and "not sent" in exc.value.message, name
    assert "not-a-uuid" not in str(exc.value), name  # the key is never shown
    assert not isinstance(exc.value, urlscan_rs.BadRequestError), name


def test_malformed_key_is_authentication_error_everywhere_and_nothing_is_sent(emu: Emulator) -> None:
    with Client("not-a-uuid", base_url=emu.url) as c:
        calls = {**CALLS, "search": lambda c: _drain(c.search("", limit=1))}
        calls["hostnames.history"] = lambda c: _drain(c.hostnames.history("example.com"))
        before = requests_served(emu)
        for name, call in calls.items():
            with pytest.raises(urlscan_rs.AuthenticationError) as exc:
                call(c)
            _malformed(exc, name)
        assert requests_served(emu) == before


def test_malformed_key_async(emu: Emulator) -> None:
    async def main() -> None:
        async with AsyncClient("not-a-uuid", base_url=emu.url) as c:
            for name, call in CALLS.items():
                with pytest.raises(urlscan_rs.AuthenticationError) as exc:
                    await call(c)
                _malformed(exc, name)
            with pytest.raises(urlscan_rs.AuthenticationError):
                await _adrain(c.search("", limit=1))
            with pytest.raises(urlscan_rs.AuthenticationError):
                await _adrain(c.hostnames.history("example.com"))

    run(main())


def test_the_emulator_refuses_a_malformed_key_on_every_path(emu: Emulator) -> None:
    # What other clients meet (they send any key): 400 "Invalid API key format" everywhere,
    # the endpoints that work without a key included, and paths that do not exist.
    import json
    import urllib.error
    import urllib.request

    paths = [
        "/api/v1/search/?q=domain:example.com",
        "/user/quotas/",
        "/api/v1/quotas",
        f"/screenshots/{UUID}.png",
        f"/dom/{UUID}/",
        f"/api/v1/result/{UUID}/",
        "/api/v1/datadump/list/days/api/20260101",
        "/api/v1/no-such-path",
    ]
    for path in paths:
        req = urllib.request.Request(emu.url + path, headers={"API-Key": "not-a-uuid"})
        with pytest.raises(urllib.error.HTTPError) as exc:
            urllib.request.urlopen(req, timeout=10)
        body = json.loads(exc.value.read())
        assert exc.value.code == 400 and body["message"] == "Invalid API key format", path
    # A key in the service's format (any case) passes the check.
    req = urllib.request.Request(emu.url + "/api/v1/search/?q=", headers={"API-Key": emu.api_key.upper()})
    with urllib.request.urlopen(req, timeout=10) as r:
        assert r.status == 200


def test_unknown_key_is_authentication_error_everywhere(emu: Emulator) -> None:
    with Client("00000000-0000-4000-8000-00000000dead", base_url=emu.url) as c:
        for name, call in CALLS.items():
            with pytest.raises(urlscan_rs.AuthenticationError) as exc:
                call(c)
            assert exc.value.status == 401, name


def test_no_key_fails_before_any_request(emu: Emulator, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("URLSCAN_API_KEY", raising=False)
    anonymous = {"screenshot"}
    with Client(base_url=emu.url) as c:
        for name, call in CALLS.items():
            if name in anonymous:
                continue
            before = requests_served(emu)
            with pytest.raises(urlscan_rs.AuthenticationError) as exc:
                call(c)
            assert requests_served(emu) == before, f"{name} sent a request"
            assert "URLSCAN_API_KEY" in str(exc.value) and "--api-key" in str(exc.value), name
        # search works without a key
        assert c.search("", size=5, limit=5).count() > 0


def test_no_key_async(emu: Emulator, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("URLSCAN_API_KEY", raising=False)

    async def main() -> None:
        async with AsyncClient(base_url=emu.url) as c:
            before = requests_served(emu)
            for name in ("quotas", "scan", "result", "channels.list"):
                with pytest.raises(urlscan_rs.AuthenticationError) as exc:
                    await CALLS[name](c)
                assert "URLSCAN_API_KEY" in str(exc.value), name
            assert requests_served(emu) == before

    run(main())


def _scan_400(body: dict[str, Any]) -> Callable[[str, str, dict[str, list[str]]], tuple[int, Any]]:
    return lambda method, path, query: (400, body)


REFUSALS = [
    {"message": "DNS Error - Could not resolve domain", "description": "The domain foo.bar could not be resolved", "status": 400},
    {"message": "Scan prevented ...", "description": "The submitted domain is on our blacklist.", "status": 400},
    {"message": "Don't be silly now ...", "description": "We won't scan that.", "status": 400},
]
NOT_REFUSALS = [
    {"message": "Invalid API key format", "status": 400},
    {"message": "Something went wrong with your request", "status": 400},
    {"code": "validationerror", "message": 'ValidationError: "foo" is not allowed', "errors": []},
]


@pytest.mark.parametrize("body", REFUSALS + NOT_REFUSALS)
def test_scan_400_is_refused_only_when_the_body_says_so(body: dict[str, Any]) -> None:
    with serve(_scan_400(body)) as srv:
        refused = body in REFUSALS
        with Client(UUID, base_url=srv.url) as c:
            with pytest.raises(urlscan_rs.APIError) as exc:
                c.scan("https://example.com/")
            assert isinstance(exc.value, urlscan_rs.ScanRefusedError) == refused, body
            if "Invalid API key" in body["message"]:
                assert isinstance(exc.value, urlscan_rs.AuthenticationError)

        async def main() -> None:
            async with AsyncClient(UUID, base_url=srv.url) as ac:
                with pytest.raises(urlscan_rs.APIError) as aexc:
                    await ac.scan("https://example.com/")
                assert isinstance(aexc.value, urlscan_rs.ScanRefusedError) == refused, body

        run(main())


def test_emulator_refusals_stay_scan_refused(fresh: Emulator) -> None:
    c = fresh.client()
    with pytest.raises(urlscan_rs.ScanRefusedError):
        c.scan("https://www.example.invalid/")
    with pytest.raises(urlscan_rs.ScanRefusedError):
        c.scan("https://blocked.example.com/")
