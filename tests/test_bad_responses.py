"""Answers the emulator never gives: a tiny scripted HTTP server on loopback
sends them, and the real client reads them over a real socket."""

from __future__ import annotations

from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler

import pytest

import urlscan_rs
from urlscan_rs import AsyncClient, Client
from urlscan_rs.testing import Emulator

from .conftest import run
from .loopback import serve_raw

UUID = "00000000-0000-4000-8000-000000000001"
# path -> (status, content type, body)
SCRIPT: dict[str, tuple[int, str, bytes]] = {
    f"/api/v1/result/{UUID}/": (500, "text/plain", b"Internal Server Error"),
    "/api/v1/quotas": (200, "application/json", b'{"scope": "user", "limits": '),  # truncated
    "/api/v1/pro/username": (200, "text/html", b"<html><body>maintenance</body></html>"),
    "/api/v1/userAgents": (418, "text/html", b"<html>teapot</html>"),
    "/api/v1/availableCountries": (200, "application/json", b'{"countries": {}}'),
    "/api/v1/search/": (200, "application/json", b'{"results": {}, "total": null, "has_more": false}'),
    "/api/v1/scan/": (200, "application/json", b'{"message": "Submission successful"}'),  # no uuid
}


def scripted(request: BaseHTTPRequestHandler) -> tuple[int, dict[str, str], bytes]:
    status, ctype, body = SCRIPT.get(request.path.split("?")[0], (404, "application/json", b'{"message": "Not Found"}'))
    return status, {"content-type": ctype}, body


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with serve_raw(scripted) as served:
        yield served.url


@pytest.fixture
def bad(server: str) -> Client:
    return Client(UUID, base_url=server, max_retries=0)


def test_server_error_keeps_text_body(bad: Client) -> None:
    with pytest.raises(urlscan_rs.ServerError) as exc:
        bad.result(UUID)
    assert exc.value.status == 500 and exc.value.body == "Internal Server Error"
    assert exc.value.message == "Internal Server Error"


def test_truncated_json_is_decode_error(bad: Client) -> None:
    with pytest.raises(urlscan_rs.DecodeError):
        bad.quotas()


def test_html_body_is_decode_error(bad: Client) -> None:
    with pytest.raises(urlscan_rs.DecodeError):
        bad.user()


def test_other_status_is_api_error(bad: Client) -> None:
    with pytest.raises(urlscan_rs.APIError) as exc:
        bad.user_agents()
    assert type(exc.value) is urlscan_rs.APIError and exc.value.status == 418
    assert exc.value.message == "I'm a teapot"  # HTML bodies give the status reason


def test_lenient_lists(bad: Client) -> None:
    assert bad.available_countries() == []
    it = bad.search("")
    assert list(it) == [] and it.total is None


def test_submission_without_uuid_is_decode_error(bad: Client) -> None:
    with pytest.raises(urlscan_rs.DecodeError) as exc:
        bad.scan("https://example.com/")
    assert "uuid" in str(exc.value)


def test_async_bad_responses(server: str) -> None:
    async def main() -> None:
        async with AsyncClient(UUID, base_url=server, max_retries=0) as c:
            with pytest.raises(urlscan_rs.ServerError):
                await c.result(UUID)
            with pytest.raises(urlscan_rs.DecodeError):
                await c.quotas()

    run(main())


def test_request_timeout() -> None:
    with Emulator(scans=0, latency={"default": 2.0}) as e:
        c = e.client(timeout=0.2, max_retries=0)
        with pytest.raises(urlscan_rs.RequestTimeout) as exc:
            c.quotas()
        assert isinstance(exc.value, TimeoutError) and isinstance(exc.value, urlscan_rs.TransportError)


def test_panics_never_reach_python(emu: Emulator) -> None:
    c = emu.client()
    with pytest.raises(urlscan_rs.UrlscanError) as exc:
        c._core._panic_probe()
    assert type(exc.value) is urlscan_rs.UrlscanError and "internal error" in str(exc.value)

    async def main() -> None:
        ac = emu.async_client()
        with pytest.raises(urlscan_rs.UrlscanError):
            await ac._core._panic_probe()  # an error, not a hang

    run(main())
    assert c.quotas().scope == "team"  # the client still works
