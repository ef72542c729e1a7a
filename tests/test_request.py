"""client.request: any endpoint by its path, with the key, retries and errors of every call."""

from __future__ import annotations

import pytest

from urlscan_rs import AsyncClient, BadRequestError, Client, NotFoundError, ValidationError
from urlscan_rs.testing import Emulator

from .conftest import run


def test_get_with_params_returns_the_decoded_json(client: Client) -> None:
    page = client.request("GET", "/api/v1/search/", params={"q": "page.domain:*", "size": 3})
    assert isinstance(page, dict) and len(page["results"]) == 3
    assert page["total"] == client.search("page.domain:*").count()


def test_post_json_then_read_back(fresh: Emulator) -> None:
    with fresh.client() as c:
        sub = c.request("POST", "/api/v1/scan/", json={"url": "https://example.org/", "visibility": "unlisted"})
        assert sub["visibility"] == "unlisted"
        fresh.advance(fresh.scan_duration + 1)
        assert c.result(sub["uuid"]).page.domain == "example.org"
        assert c.request("GET", f"/api/v1/result/{sub['uuid']}/")["task"]["uuid"] == sub["uuid"]
        # Not JSON: the bytes as served.
        png = c.request("GET", f"/screenshots/{sub['uuid']}.png")
        assert isinstance(png, bytes) and png.startswith(b"\x89PNG")


def test_errors_and_retries_are_those_of_every_call(fresh: Emulator) -> None:
    with fresh.client() as c:
        with pytest.raises(NotFoundError):
            c.request("GET", "/api/v1/result/00000000-0000-4000-8000-000000000000/")
        fresh.inject("status", status=503, count=2, path="/api/v1/quotas")
        before = fresh.stats()["requests"]
        assert "limits" in c.request("GET", "/api/v1/quotas")
        assert fresh.stats()["requests"] - before == 3  # two 503s retried
    with fresh.client(fresh.keys["free"]) as free, pytest.raises(Exception) as info:
        free.request("GET", "/api/v1/hostname/example.com")
    assert type(info.value).__name__ in ("PermissionDeniedError", "ForbiddenError", "AuthenticationError")


@pytest.mark.parametrize(
    ("method", "path", "kwargs", "message"),
    [
        ("TRACE", "/api/v1/quotas", {}, "method must be GET, POST, PUT, PATCH or DELETE"),
        ("GET", "api/v1/quotas", {}, "must start with /"),
        ("GET", "//evil.example/x", {}, "must not name a host"),
        ("GET", "/api/v1/search/?q=x", {}, "pass params= instead"),
        ("GET", "/api/../x", {}, "must not hold . or .. segments"),
        ("GET", "/api/v1/quotas", {"json": {"a": 1}}, "a GET request takes no json body"),
        ("GET", "/api/v1/search/", {"params": {"q": object()}}, "must be JSON-like"),
    ],
)
def test_bad_requests_are_refused_before_sending(
    client: Client, method: str, path: str, kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(ValidationError, match=message.replace("?", r"\?").replace("(", r"\(")):
        client.request(method, path, **kwargs)  # type: ignore[arg-type]


def test_async_request(aclient: AsyncClient) -> None:
    async def main() -> object:
        return await aclient.request("GET", "/api/v1/quotas")

    assert "limits" in run(main())  # type: ignore[operator]


def test_the_emulator_checks_a_submission_by_its_scan_row(fresh: Emulator) -> None:
    """Bodies the client would refuse reach the emulator through request(): it answers as its row says."""
    c = fresh.client()

    def refused(body: dict[str, object]) -> str:
        with pytest.raises(BadRequestError) as e:
            c.request("POST", "/api/v1/scan/", json=body)
        return str(e.value)

    assert '"url" is required' in refused({"visibility": "public"})
    assert '"url" length must be between 5 and 2083 characters' in refused({"url": "a.b"})
    assert "http|https" in refused({"url": "ftp://example.com/"})
    assert '"referer" must be a string' in refused({"url": "https://example.com/", "referer": 5})
    assert '"tags" must contain less than or equal to 10 items' in refused({"url": "https://example.com/", "tags": ["t"] * 11})
    assert '"country" must be a two-letter' in refused({"url": "https://example.com/", "country": "deu"})
    assert '"visibility" must be one of [public, unlisted, private]' in refused(
        {"url": "https://example.com/", "visibility": "x"}
    )
    assert '"nope" is not allowed' in refused({"url": "https://example.com/", "nope": 1})
    # The service takes overrideSafety of any type (the Go CLI sends a string).
    sub = c.request("POST", "/api/v1/scan/", json={"url": "https://example.com/", "overrideSafety": "yes", "country": "DE"})
    assert sub["uuid"] and sub["country"] == "de"
    c.close()
