"""client.request: any endpoint by its path, with the key, retries and errors of every call."""

from __future__ import annotations

import pytest

from urlscan_rs import AsyncClient, Client, NotFoundError, ValidationError
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
