"""Other people's urlscan clients, from PyPI, against the emulator through their own
settings: what they do must work as it would against the service. Where a client is
wrong about the service, the test says so instead of bending the emulator.

- urlscope 0.1.3rc2 (sync and async, strict pydantic models of the service's answers);
- gau-python-next 2.3.0 (a recon tool's search walk: `has_more` and `sort`/`search_after`).

Which of their operations pass is recorded in crates/urlscan-emulator/EVIDENCE.md.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from urlscan_rs.testing import Emulator

from .conftest import emulator

urlscope = pytest.importorskip("urlscope")
gau = pytest.importorskip("gau")


emu = emulator(scans=300, seed=21, scan_duration=0)


# ---------------------------------------------------------------- urlscope


def test_urlscope_runs_every_operation(emu: Emulator) -> None:
    async def main() -> dict[str, Any]:
        got: dict[str, Any] = {}
        async with urlscope.UrlscopeClient(emu.api_key, base_url=emu.url, max_retries=0) as c:
            sub = await c.submit("https://www.example.com/other-client", visibility="unlisted", tags=["t1"], override_safety=True)
            got["submit"] = sub
            got["result"] = await c.get_result(sub.uuid)
            first = await c.search("", size=2)
            got["search"] = first
            last = first.results[-1]
            got["next"] = await c.search("", size=2, search_after=last.sort)
            got["collapsed"] = await c.search("", size=5, collapse="page.domain")
            got["hostnames"] = await c.search("", size=2, datasource="hostnames")
            got["screenshot"] = await c.get_screenshot(sub.uuid)
            got["dom"] = await c.get_dom(sub.uuid)
            got["quotas"] = await c.get_quotas()
        return got

    got = asyncio.run(main())
    sub, result = got["submit"], got["result"]
    assert sub.visibility == "unlisted" and sub.url == "https://www.example.com/other-client"
    assert result.task.uuid == sub.uuid and result.task.visibility == "unlisted" and result.task.tags == ["t1"]
    assert got["search"].total >= 2 and len(got["search"].results) == 2
    assert got["next"].results and got["next"].results[0].id != got["search"].results[0].id
    assert got["screenshot"].startswith(b"\x89PNG") and "<html" in got["dom"].lower()
    assert got["quotas"].scope == "team" and got["quotas"].quotas


def test_urlscope_reads_a_phishing_result_with_both_brand_shapes(emu: Emulator) -> None:
    with emu.client() as ours:
        phish = next(iter(ours.search("labels:visual.brandai", limit=1)))
        expected = ours.result(phish.id)

    async def read() -> Any:
        async with urlscope.UrlscopeClient(emu.api_key, base_url=emu.url, max_retries=0) as c:
            return await c.get_result(phish.id)

    r = asyncio.run(read())
    # Strict models: overall.brands must be keys, urlscan.brands objects with key and name.
    assert r.verdicts.overall.brands == [b if isinstance(b, str) else b.key for b in expected.verdicts.overall.brands]
    assert [b.key for b in r.verdicts.urlscan.brands] == [b.key for b in expected.verdicts.urlscan.brands]  # type: ignore[union-attr]
    assert r.verdicts.overall.malicious is True


def test_urlscope_sync_client(emu: Emulator) -> None:
    with urlscope.SyncClient(emu.api_key, base_url=emu.url, max_retries=0) as c:
        found = c.search("", size=3)
        assert len(found.results) == 3
        assert c.get_result(found.results[0].id).task.uuid == found.results[0].id


def test_urlscope_errors_map_from_the_emulators_answers(emu: Emulator) -> None:
    async def main() -> list[type]:
        raised: list[type] = []
        async with urlscope.UrlscopeClient("not-a-uuid", base_url=emu.url, max_retries=0) as bad:
            try:
                await bad.search("x")
            except urlscope.UrlscopeError as e:
                raised.append(type(e))
        async with urlscope.UrlscopeClient(emu.api_key, base_url=emu.url, max_retries=0) as c:
            for call in (
                lambda: c.get_result("00000000-0000-4000-8000-000000000000"),
                lambda: c.submit("https://nonexistent-domain.invalid/"),
            ):
                try:
                    await call()
                except urlscope.UrlscopeError as e:
                    raised.append(type(e))
        return raised

    # The malformed key is a 400, which urlscope reads as a ValidationError (its own choice: the
    # service's answer is "Invalid API key format"); the unknown scan a 404; the DNS failure a 400.
    assert asyncio.run(main()) == [urlscope.ValidationError, urlscope.NotFoundError, urlscope.ValidationError]


# ---------------------------------------------------------------- gau-python-next


def test_gau_walks_every_page_of_a_domain_search(emu: Emulator) -> None:
    with emu.client() as ours:
        domain = next(iter(ours.search("", limit=1))).page.domain
        want = {h.page.url for h in ours.search(f"domain:{domain}")}
    cfg = {
        "threads": 2,
        "timeout": 10,
        "retries": 0,
        "subdomains": False,
        "parameters": False,
        "providers": ["urlscan"],
        "blacklist": [],
        "filters": {},
        # gau builds f"{host}api/v1/search/...": its host must end in "/".
        "urlscan": {"host": emu.url + "/", "apikey": emu.api_key},
    }

    async def walk() -> list[str]:
        return [u async for u in gau.get_urls([domain], cfg)]

    got = asyncio.run(walk())
    assert want and set(got) == want
