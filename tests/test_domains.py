"""The domains data source (``search(datasource="domains")``), sync and async,
against the emulator over HTTP: one typed hit per domain its scans loaded,
counted and described by the newest of those scans, paged to the end, newest
first, narrowed by queries, with the visibility and plan rules of the other
premium data sources."""

from __future__ import annotations

import pickle
from collections import defaultdict
from collections.abc import Iterator
from datetime import datetime, timezone

import pytest

import urlscan_rs
from urlscan_rs import AsyncClient, Client, DomainHit, SearchHit
from urlscan_rs.testing import Emulator

from .conftest import requests_served, run
from .test_cli import run_cli


@pytest.fixture(scope="module")
def scans(emu: Emulator) -> list[SearchHit]:
    """Every seeded scan, newest first."""
    with emu.client() as c:
        hits = list(c.search("", size=1000))
    assert len(hits) == 300
    return hits


@pytest.fixture(scope="module")
def by_domain(scans: list[SearchHit]) -> dict[str, list[SearchHit]]:
    """The scans of each page domain, newest first."""
    out: dict[str, list[SearchHit]] = defaultdict(list)
    for h in scans:
        assert h.page.domain
        out[h.page.domain].append(h)
    return dict(out)


@pytest.fixture(scope="module")
def everything(emu: Emulator) -> list[DomainHit]:
    with emu.client() as c:
        return list(c.search("", datasource="domains", size=1000))


def _keys(hits: list[DomainHit]) -> list[tuple[int, str]]:
    return [(int(h.sort[0]), str(h.sort[1])) for h in hits]


# ---------------------------------------------------------------- the shared emulator


def test_one_hit_per_scanned_domain(everything: list[DomainHit], by_domain: dict[str, list[SearchHit]]) -> None:
    assert all(type(h) is DomainHit for h in everything)
    assert {h.domain for h in everything} == set(by_domain)
    assert len(everything) == len(by_domain) > 50
    assert sum(h.scan_count or 0 for h in everything) == 300
    assert any((h.scan_count or 0) > 1 for h in everything), "the seeded scans repeat some domains"
    for h in everything:
        assert h.domain is not None
        mine = by_domain[h.domain]
        newest, oldest = mine[0], mine[-1]
        assert h.scan_count == len(mine), h.domain
        assert h.last_scan_id == newest.id
        assert h.last_seen == h.date == newest.task.time
        assert h.first_seen == oldest.task.time
        assert h.first_seen is not None and h.last_seen is not None and h.first_seen <= h.last_seen
        assert (h.ip, h.asn, h.country) == (newest.page.ip, newest.page.asn, newest.page.country)
        assert h.asnname == newest.page.asnname and h.apex_domain == newest.page.apex_domain
        assert h.apex_domain and (h.domain == h.apex_domain or h.domain.endswith("." + h.apex_domain))
        assert len(h.id) == 24 and h.sort == [int(h.sort[0]), h.id]
        assert h.last_seen == datetime.fromtimestamp(h.sort[0] / 1000, tz=timezone.utc)


def test_newest_first(everything: list[DomainHit]) -> None:
    keys = _keys(everything)
    assert keys == sorted(keys, reverse=True) and len(set(keys)) == len(keys)
    seen = [h.last_seen for h in everything]
    assert seen == sorted(seen, reverse=True)  # type: ignore[type-var]


def test_pages_to_the_end(emu: Emulator, client: Client, everything: list[DomainHit]) -> None:
    before = requests_served(emu)
    it = client.search("", datasource="domains", size=13)
    hits = list(it)
    assert [h.id for h in hits] == [h.id for h in everything]
    assert it.total == len(everything) and it.has_more is False
    assert it.fetched == len(everything)
    pages = -(-len(everything) // 13)
    assert pages <= requests_served(emu) - before <= pages + 1
    assert client.search("", datasource="domains").count() == len(everything)


def test_resume_from_search_after(client: Client, everything: list[DomainHit]) -> None:
    it = client.search("", datasource="domains", size=10)
    first = [next(it) for _ in range(25)]
    cursor = it.search_after
    assert cursor == f"{first[-1].sort[0]},{first[-1].id}"
    rest = list(client.search("", datasource="domains", size=10, search_after=cursor))
    assert [h.id for h in first + rest] == [h.id for h in everything]


def test_limit(client: Client, everything: list[DomainHit]) -> None:
    hits = list(client.search("", datasource="domains", size=4, limit=9))
    assert [h.id for h in hits] == [h.id for h in everything[:9]]


def test_queries_narrow(client: Client, everything: list[DomainHit]) -> None:
    # one domain by its name
    one = everything[7]
    [hit] = list(client.search(f'domain:"{one.domain}"', datasource="domains"))
    assert hit == one and hit.raw == one.raw
    # a registered domain finds its sub-domains, as in scan search
    per_apex: dict[str, int] = defaultdict(int)
    for h in everything:
        per_apex[str(h.apex_domain)] += 1
    apex = max(per_apex, key=lambda a: per_apex[a])
    found = list(client.search(f"domain:{apex}", datasource="domains"))
    assert [h.id for h in found] == [h.id for h in everything if h.domain == apex or str(h.domain).endswith("." + apex)]
    assert 1 <= len(found) < len(everything)
    assert [h.id for h in client.search(f'apexDomain:"{apex}"', datasource="domains")] == [h.id for h in found]
    # ranges on the count, fields of the last scan, and both at once
    busy = list(client.search("scanCount:>1", datasource="domains"))
    assert busy and [h.id for h in busy] == [h.id for h in everything if (h.scan_count or 0) > 1]
    assert len(busy) < len(everything)
    country = everything[0].country
    local = list(client.search(f"country:{country}", datasource="domains"))
    assert [h.id for h in local] == [h.id for h in everything if h.country == country]
    both = client.search(f"country:{country} AND NOT scanCount:1", datasource="domains")
    assert [h.id for h in both] == [h.id for h in local if h.scan_count != 1]
    assert any(h.id == everything[3].id for h in client.search(f'ip:"{everything[3].ip}"', datasource="domains"))
    # dates: the last seen, by day
    days = sorted({h.last_seen.date() for h in everything if h.last_seen})
    day = days[len(days) // 2]
    since = list(client.search(f"date:>={day.isoformat()}", datasource="domains"))
    assert [h.id for h in since] == [h.id for h in everything if h.last_seen and h.last_seen.date() >= day]
    assert 1 <= len(since) < len(everything) or len(days) == 1
    assert list(client.search('domain:"nothing-like-this.example"', datasource="domains")) == []


def test_records_and_table(client: Client, everything: list[DomainHit]) -> None:
    it = client.search("", datasource="domains", size=5, limit=5)
    records = it.to_records()
    assert [r["domain"] for r in records] == [h.domain for h in everything[:5]]
    # The records are the table's rows: the same columns (``date`` included), the same values.
    assert list(records[0]) == list(urlscan_rs.schema.DOMAINS.names)
    table = client.search("", datasource="domains", size=5, limit=5).to_arrow()
    assert table.to_pylist() == records
    assert isinstance(records[0]["scan_count"], int)


def test_the_free_plan_cannot_search_domains(emu: Emulator) -> None:
    with emu.client("free") as free, pytest.raises(urlscan_rs.PermissionDeniedError) as exc:
        list(free.search("", datasource="domains"))
    assert "domains" in str(exc.value)


def test_bad_cursor_is_refused_before_sending(client: Client) -> None:
    with pytest.raises(urlscan_rs.ValidationError):
        client.search("", datasource="domains", search_after="example.com")


def test_async(aclient: AsyncClient, everything: list[DomainHit]) -> None:
    async def main() -> tuple[list[DomainHit], int, list[DomainHit], int | None]:
        it = aclient.search("", datasource="domains", size=17)
        hits = [h async for h in it]
        count = await aclient.search("", datasource="domains").count()
        busy = [h async for h in aclient.search("scanCount:>1", datasource="domains", size=3)]
        return hits, count, busy, it.total

    hits, count, busy, total = run(main())
    assert all(isinstance(h, DomainHit) for h in hits)
    assert [h.id for h in hits] == [h.id for h in everything]
    assert count == total == len(everything)
    assert [h.id for h in busy] == [h.id for h in everything if (h.scan_count or 0) > 1]


def test_cli(emu: Emulator, everything: list[DomainHit]) -> None:
    out = run_cli("search", "", "--datasource", "domains", "--limit", "3", emu=emu)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].split() == ["LAST", "SEEN", "(UTC)", "DOMAIN", "SCANS", "IP", "CC", "FIRST", "SEEN"]
    for line, hit in zip(lines[1:4], everything[:3], strict=True):
        assert hit.domain in line and str(hit.ip) in line and str(hit.country) in line
    assert lines[4].startswith(f"3 of {len(everything)} hits")


# ---------------------------------------------------------------- scans of one's own


@pytest.fixture
def scanned(fresh: Emulator) -> Iterator[tuple[Emulator, list[str]]]:
    """Three private scans by the premium user: www twice, then the bare domain."""
    uuids = []
    with fresh.client() as c:
        for url in (
            "https://www.domains-check.example.org/",
            "https://www.domains-check.example.org/login",
            "https://domains-check.example.org/",
        ):
            uuids.append(str(c.scan(url, visibility="private").uuid))
            fresh.advance(fresh.scan_duration + 1)
    yield fresh, uuids


def test_own_private_scans(scanned: tuple[Emulator, list[str]]) -> None:
    emu, (www1, www2, bare) = scanned
    with emu.client() as c:
        hits = list(c.search("domain:domains-check.example.org", datasource="domains", size=1))
        assert [h.domain for h in hits] == ["domains-check.example.org", "www.domains-check.example.org"]
        newest, www = hits
        assert (newest.scan_count, newest.last_scan_id) == (1, bare)
        assert (www.scan_count, www.last_scan_id) == (2, www2)
        assert www.first_seen == c.result(www1).task.time
        last = c.result(www2)
        assert www.last_seen == last.task.time and www.ip == last.page.ip and www.country == last.page.country
        assert {h.apex_domain for h in hits} == {"example.org"}
        # the newest hits of all are these
        assert [h.id for h in c.search("", datasource="domains", limit=2)] == [newest.id, www.id]
    for who, n in (("team", 2), ("other", 0)):
        with emu.client(who) as c:
            assert c.search("domain:domains-check.example.org", datasource="domains").count() == n, who


def test_own_private_scans_async(scanned: tuple[Emulator, list[str]]) -> None:
    emu, (_, www2, _) = scanned

    async def main() -> list[DomainHit]:
        async with emu.async_client() as c:
            return [h async for h in c.search('domain:"www.domains-check.example.org"', datasource="domains")]

    [hit] = run(main())
    assert hit.domain == "www.domains-check.example.org" and hit.scan_count == 2 and hit.last_scan_id == www2


# ---------------------------------------------------------------- the model


def test_the_model_is_lenient_and_plain() -> None:
    empty = DomainHit({})
    assert (empty.domain, empty.scan_count, empty.last_seen, empty.ip) == (None, None, None, None)
    raw = {
        "_id": "d75fe2320eae05dae166b701",
        "sort": [1795427998000, "d75fe2320eae05dae166b701"],
        "domain": "www.example.net",
        "apexDomain": "example.net",
        "firstSeen": "2026-11-20T08:00:00.000Z",
        "lastSeen": "2026-11-23T10:00:00.000Z",
        "date": "2026-11-23T10:00:00.000Z",
        "scanCount": "3",
        "lastScanId": "2e973dc1-8e9c-4fb5-9b6b-e5d0c1a25e3c",
        "ip": "192.0.2.7",
        "asn": "AS64496",
        "asnname": "EXAMPLE-AS, DE",
        "country": "DE",
        "extra": 1,
    }
    h = DomainHit(raw)
    assert (h.id, h.domain, h.apex_domain, h.scan_count) == (raw["_id"], "www.example.net", "example.net", 3)
    assert h.last_seen == h.date == datetime(2026, 11, 23, 10, tzinfo=timezone.utc)
    assert h.first_seen == datetime(2026, 11, 20, 8, tzinfo=timezone.utc)
    assert h.to_dict() == raw and pickle.loads(pickle.dumps(h)) == h
    assert "www.example.net" in repr(h) and "sort" not in h.to_record()
    assert DomainHit({"scan_count": 2, "apex_domain": "x.org"}).scan_count == 2
