"""client.with_raw_response: every method with the HTTP answer it got (status, headers with
the X-Rate-Limit-* ones, body) and parse(), sync and async, against the emulator."""

from __future__ import annotations

import asyncio
import json

import pytest

from urlscan_rs import ScanResult
from urlscan_rs.errors import NotFoundError
from urlscan_rs.testing import Emulator


@pytest.fixture(scope="module")
def emu() -> Emulator:
    with Emulator(scans=30, seed=6) as e:
        yield e


def test_a_result_with_its_answer(emu: Emulator) -> None:
    with emu.client() as c:
        uuid = next(iter(c.search("", limit=1))).id
        raw = c.with_raw_response.result(uuid)
        assert (raw.method, raw.status_code) == ("GET", 200)
        assert raw.url == f"{emu.url}/api/v1/result/{uuid}/"
        result = raw.parse()
        assert isinstance(result, ScanResult) and result.uuid == uuid and raw.parse() is result
        assert json.loads(raw.content) == result.raw and raw.text == raw.content.decode()
        limits = {k.lower(): v for k, v in raw.headers.items() if k.lower().startswith("x-rate-limit-")}
        assert {"x-rate-limit-action", "x-rate-limit-limit", "x-rate-limit-remaining", "x-rate-limit-reset"} <= set(limits)
        assert raw.headers["X-RATE-LIMIT-ACTION"] == raw.headers["x-rate-limit-action"] == limits["x-rate-limit-action"]
        assert raw.headers.get_all("content-type") == [raw.headers["Content-Type"]]
        assert "RawResponse GET" in repr(raw)


def test_namespaces_posts_and_errors(emu: Emulator) -> None:
    with emu.client() as c:
        created = c.with_raw_response.saved_searches.create(datasource="scans", name="raw", query="page.domain:example.com")
        assert created.method == "POST" and created.status_code == 200 and created.parse().name == "raw"
        listed = c.with_raw_response.saved_searches.list()
        assert created.parse().id in {s.id for s in listed.parse()}
        for call in (c.with_raw_response.quotas, c.with_raw_response.user, c.with_raw_response.user_agents):
            raw = call()
            assert raw.status_code == 200 and raw.content and raw.parse() is not None
        # A call of several requests (made on tasks of their own) answers with its last.
        uuids = [h.id for h in c.search("", limit=3)]
        many = c.with_raw_response.results(uuids)
        assert many.status_code == 200 and "/api/v1/result/" in many.url
        assert [r.uuid for r in many.parse()] == uuids
        with pytest.raises(NotFoundError):
            c.with_raw_response.result("00000000-0000-4000-8000-000000000000")
        with pytest.raises(TypeError, match="walk"):
            c.with_raw_response.search("")
        with pytest.raises(AttributeError):
            c.with_raw_response.base_url  # noqa: B018
        # Outside the proxy a call is a plain call.
        assert isinstance(c.result(next(iter(c.search("", limit=1))).id), ScanResult)


def test_async_calls_each_get_their_own_answer(emu: Emulator) -> None:
    async def main() -> None:
        async with emu.async_client() as c:
            uuids = [h.id async for h in c.search("", limit=5)]
            raws = await asyncio.gather(*(c.with_raw_response.result(u) for u in uuids), c.with_raw_response.quotas())
            assert [r.url.rsplit("/", 2)[-2] for r in raws[:-1]] == uuids
            assert [r.parse().uuid for r in raws[:-1]] == uuids
            assert raws[-1].url.endswith("/api/v1/quotas") and raws[-1].status_code == 200
            listed = await c.with_raw_response.channels.list()
            assert listed.status_code == 200 and isinstance(listed.parse(), list)

    asyncio.run(main())
