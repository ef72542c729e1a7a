"""Premium namespaces against the emulator, sync and async."""

from __future__ import annotations

import asyncio
import datetime as dt
import gzip
import hashlib
import io
import urllib.request
import zipfile
import zlib

import pytest

import urlscan_rs
from urlscan_rs import Client
from urlscan_rs.models import Channel, Incident, SavedSearch
from urlscan_rs.testing import Emulator

from .conftest import emulator, requests_served, run, subscribe

pe = emulator("function", scans=150, scan_duration=5.0, seed=4)


@pytest.fixture
def pc(pe: Emulator) -> Client:
    return pe.client()


def channel(c: Client) -> Channel:
    ch: Channel = c.channels.create(type="webhook", name="soc", webhook_url="https://hooks.example.com/a")
    return ch


def test_free_and_readonly_keys(pe: Emulator) -> None:
    free = pe.client("free")
    for call in (
        lambda: free.saved_searches.list(),
        lambda: free.incidents.watchable_attributes(),
        lambda: free.livescan.scanners(),
        lambda: free.brands.available(),
        lambda: list(free.hostnames.history("example.com")),
    ):
        with pytest.raises(urlscan_rs.PermissionDeniedError):
            call()
    # channels are not premium in the specification
    assert free.channels.create(type="email", name="mine", email_addresses=["me@example.com"]).name == "mine"
    assert [c.name for c in free.channels.list()] == ["mine"]
    ro = pe.client("readonly")
    assert ro.saved_searches.list() == []
    with pytest.raises(urlscan_rs.PermissionDeniedError):
        ro.incidents.create("example.com", visibility="private", channels=[])


@pytest.mark.parametrize(
    "call",
    [
        lambda c: c.incidents.create("example.com", visibility="public", channels=[]),
        lambda c: c.incidents.create("example.com", channels=[]),
        lambda c: c.incidents.create("example.com", visibility="private", channels=[], extra_path="no-slash"),
        lambda c: c.incidents.create("example.com", visibility="private", channels=[], extra_path="/" + "a" * 2000),
        lambda c: c.incidents.create("example.com", visibility="private", channels=[], watched_attributes=["colour"]),
        lambda c: c.incidents.create("example.com", visibility="private", channels=[], countries=["deu"]),
        lambda c: c.incidents.create("example.com", visibility="private", channels=[], scan_interval="often"),
        lambda c: c.incidents.create("example.com", visibility="private", channels=[], colour="red"),
        lambda c: c.incidents.get("../../api/v1/quotas"),
        lambda c: c.channels.create(type="pager", name="x"),
        lambda c: c.channels.create(type="email", name="x", utc_time="25:00"),
        lambda c: c.channels.create(type="email", name="x", email_addresses=["not-an-address"]),
        lambda c: c.channels.create(type="email", name="x", week_days=["Funday"]),
        lambda c: c.saved_searches.create(datasource="scans", name="x"),
        lambda c: c.saved_searches.create(datasource="urls", name="x", query="q"),
        lambda c: c.saved_searches.create(datasource="scans", name="x", query="q", tlp="purple"),
        lambda c: c.saved_searches.create(datasource="scans", name="x", query="q", user_tags=["noscope"]),
        lambda c: c.subscriptions.create(
            search_ids=["a"], frequency="weekly", email_addresses=[], name="n", is_active=True, ignore_time=False
        ),
        lambda c: c.subscriptions.create(search_ids=["a"], frequency="daily", name="n", is_active=True, ignore_time=False),
        lambda c: c.subscriptions.results("abc", "certificates"),
        lambda c: c.hostnames.history("example.com", limit=9),
        lambda c: c.hostnames.history("example.com", limit=10001),
        lambda c: c.hostnames.history("exa mple.com"),
        lambda c: c.files.download("abc"),
        lambda c: c.files.download_zip("z" * 64),
        lambda c: c.datadumps.list("weeks", "api", "20260101"),
        lambda c: c.datadumps.list("days", "api", "2026-13-01"),
        lambda c: c.datadumps.link("../etc/passwd"),
        lambda c: c.livescan.task("de01", "https://example.com/", enable_features=["stealth"]),
        lambda c: c.livescan.task("de01", "https://example.com/", visibility="secret"),
        lambda c: c.livescan.resource("de01", "video", "00000000-0000-4000-8000-000000000000"),
        lambda c: c.livescan.resource("de01", "response", "not-a-hash"),
    ],
)
def test_rules_checked_before_sending(pe: Emulator, pc: Client, call: object) -> None:
    before = requests_served(pe)
    with pytest.raises(urlscan_rs.ValidationError) as exc:
        call(pc)  # type: ignore[operator]
    assert str(exc.value)
    assert requests_served(pe) == before


def test_saved_searches(pe: Emulator, pc: Client) -> None:
    s = pc.saved_searches.create(
        datasource="scans", name="google", query="page.domain:google.com", tlp="amber+strict", user_tags=["private.mine"]
    )
    assert isinstance(s, SavedSearch) and s.id and s.tlp == "amber+strict" and s.user_tags == ["private.mine"]
    assert s.created_at is not None
    hits = pc.saved_searches.results(s.id)
    assert hits and all(h.page.domain.endswith("google.com") for h in hits)
    u = pc.saved_searches.update(s.id, description="updated")
    assert u.description == "updated" and u.id == s.id
    assert [x.id for x in pc.saved_searches.list()] == [s.id]
    assert pc.saved_searches.delete(s.id) is None
    assert pc.saved_searches.list() == []
    with pytest.raises(urlscan_rs.NotFoundError):
        pc.saved_searches.results(s.id)
    # both spellings of the user tags field are read
    assert SavedSearch({"usertags": ["pro.a"]}).user_tags == ["pro.a"]


def test_saved_search_results_paging(pe: Emulator, pc: Client) -> None:
    s = pc.saved_searches.create(datasource="scans", name="all", query="date:>now-3650d")
    every = [h.id for h in pc.search("date:>now-3650d", limit=12)]
    first = pc.saved_searches.results(s.id, size=5)
    assert [h.id for h in first] == every[:5]
    cursor = ",".join(str(v) for v in first[-1].sort)
    rest = pc.saved_searches.results(s.id, size=7, search_after=cursor)
    assert [h.id for h in rest] == every[5:12]

    async def paged() -> list[str]:
        ac = pe.async_client()
        try:
            return [h.id for h in await ac.saved_searches.results(s.id, size=3, search_after=cursor)]
        finally:
            ac.close()

    assert run(paged()) == every[5:8]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"size": 0}, "size"),
        ({"size": 10_001}, "size"),
        ({"size": True}, "size"),
        ({"size": "5"}, "size"),
        ({"search_after": "yesterday"}, "search_after"),
        ({"search_after": "1611489992146,"}, "search_after"),
        ({"search_after": 1611489992146}, "search_after"),
    ],
)
def test_saved_search_results_paging_checked(pe: Emulator, pc: Client, options: dict[str, object], message: str) -> None:
    s = pc.saved_searches.create(datasource="scans", name="all", query="*")
    before = requests_served(pe)
    with pytest.raises(urlscan_rs.ValidationError, match=message):
        pc.saved_searches.results(s.id, **options)  # type: ignore[arg-type]
    assert requests_served(pe) == before


def test_subscriptions_and_channels(pe: Emulator, pc: Client) -> None:
    ch = channel(pc)
    assert ch.webhook_url == "https://hooks.example.com/a" and ch.is_default is False
    mail = pc.channels.create(
        type="email", name="mail", email_addresses=["soc@example.com"], utc_time="09:30", week_days=["Monday"]
    )
    assert pc.channels.get(mail.id).utc_time == "09:30"
    assert pc.channels.update(mail.id, is_active=False).is_active is False
    assert {c.id for c in pc.channels.list()} == {ch.id, mail.id}
    sub = subscribe(
        pc,
        "page.domain:google.com",
        ch.id,
        frequency="daily",
        name="daily google",
        ignore_time=False,
        week_days=["Monday", "Friday"],
        incident_creation_mode="ignore-if-exists",
        incident_watch_keys="scans/page.domain",
    )
    assert sub.week_days == ["Monday", "Friday"]
    assert [s.query for s in pc.saved_searches.list() if s.id in sub.search_ids] == ["page.domain:google.com"]
    assert pc.subscriptions.results(sub.id, "scans")
    assert pc.subscriptions.update(sub.id, is_active=False).is_active is False
    assert [x.id for x in pc.subscriptions.list()] == [sub.id]
    pc.subscriptions.delete(sub.id)
    assert pc.subscriptions.list() == []
    with pytest.raises(urlscan_rs.BadRequestError):
        pc.subscriptions.create(
            search_ids=["0" * 24], frequency="live", email_addresses=[], name="n", is_active=True, ignore_time=True
        )


def test_incident_lifecycle(pe: Emulator, pc: Client) -> None:
    ch = channel(pc)
    inc = pc.incidents.create(
        "www.example.com",
        visibility="private",
        channels=[ch.id],
        scan_interval=600,
        user_agents=["UA-1", "UA-2", "UA-3"],
        countries=["DE", "us"],
        expire_after=86400,
        extra_path="/login?next=%2F",
    )
    assert isinstance(inc, Incident)
    assert inc.state == "active" and inc.source_type == "api" and inc.type == "hostname"
    assert inc.countries == ["de", "us"] and inc.extra_path == "/login?next=%2F"
    assert inc.expire_at is not None and inc.created_at is not None
    first = inc.state_count
    pe.advance(3 * 600 + 1)
    now = pc.incidents.get(inc.id)
    assert now.state_count == first + 3 and now.scanned_at > inc.scanned_at
    states = pc.incidents.states(inc.id)
    assert len(states) == now.state_count
    agents = [st.state["userAgent"] for st in states]
    assert set(agents) == {"UA-1", "UA-2", "UA-3"}  # rotated per interval
    assert {st.state["country"] for st in states} == {"de", "us"}
    # Typed: each state's observation as attributes, and the scan it made readable.
    assert [st.state.user_agent for st in states] == agents
    assert all(st.scan_id and st.scan_id == st.state.scan_id == st.state["scanId"] for st in states)
    assert all(st.status == st.state.status == "active" and isinstance(st.malicious, bool) for st in states)
    assert pc.result(states[-1].scan_id).uuid == states[-1].scan_id
    assert "scan_id=" in repr(states[0]) and "scan_id=" in repr(states[0].state)
    with pytest.raises(KeyError):
        states[0].state["noSuchKey"]
    # ... and it still reads as the dict it was before it was typed.
    seen = states[0].state
    assert "scanId" in seen and "noSuchKey" not in seen and seen.get("noSuchKey", 1) == 1
    assert dict(seen) == seen.raw and list(seen.keys()) == list(seen.raw)
    assert "dns" in pc.incidents.watchable_attributes()

    closed = pc.incidents.close(inc.id)
    assert closed.state == "closed"
    with pytest.raises(urlscan_rs.BadRequestError):
        pc.incidents.close(inc.id)
    restarted = pc.incidents.restart(inc.id)
    assert restarted.state == "active" and restarted.expire_at > now.expire_at
    assert restarted.state_count < now.state_count  # states start anew
    with pytest.raises(urlscan_rs.BadRequestError):
        pc.incidents.restart(inc.id)

    copy = pc.incidents.copy(inc.id)
    fork = pc.incidents.fork(inc.id)
    assert (copy.source_type, copy.source_id, copy.state) == ("copy", inc.id, "active")
    assert (fork.source_type, fork.source_id) == ("fork", inc.id)
    assert fork.state_count > copy.state_count  # a fork keeps the history
    assert copy.id != inc.id != fork.id

    # the team reads it, another team does not see it
    assert pe.client("team").incidents.get(inc.id).id == inc.id
    with pytest.raises(urlscan_rs.NotFoundError):
        pe.client("other").incidents.get(inc.id)


def test_incident_closes_automatically(pe: Emulator, pc: Client) -> None:
    ch = channel(pc)
    expiring = pc.incidents.create("www.example.org", visibility="unlisted", channels=[ch.id], expire_after=3600)
    malicious = pc.incidents.create(
        "malicious.example.net", visibility="private", channels=[ch.id], stop_delay_malicious=1800, expire_after=86400
    )
    pe.advance(1801)
    assert pc.incidents.get(malicious.id).state == "closed"
    assert pc.incidents.get(expiring.id).state == "active"
    pe.advance(1800)
    assert pc.incidents.get(expiring.id).state == "closed"


def test_livescan(pe: Emulator, pc: Client) -> None:
    scanners = pc.livescan.scanners()
    assert {"de01", "us01"} <= {s.id for s in scanners}
    uuid = pc.livescan.task("de01", "https://www.example.com/", visibility="unlisted", page_timeout=10000, capture_delay=1000)
    with pytest.raises(urlscan_rs.ScanPendingError):
        pc.livescan.resource("de01", "result", uuid)
    pe.advance(5)
    res = pc.livescan.resource("de01", "result", uuid)
    assert isinstance(res, urlscan_rs.ScanResult) and res.page.domain == "www.example.com"
    assert pc.livescan.resource("de01", "screenshot", uuid).startswith(b"\x89PNG")
    assert "<html" in pc.livescan.resource("de01", "dom", uuid).lower()
    with pytest.raises(urlscan_rs.NotFoundError):
        pc.result(uuid)  # temporary: not a snapshot yet
    pc.livescan.store("de01", uuid, visibility="unlisted")
    assert pc.result(uuid).uuid == uuid
    with pytest.raises(urlscan_rs.NotFoundError):  # no longer temporary on the scanner
        pc.livescan.resource("de01", "result", uuid)
    # blocking scan, then purge
    done = pc.livescan.scan("us01", "https://www.example.net/")
    assert pc.livescan.resource("us01", "result", done).uuid == done
    assert pc.livescan.purge("us01", done) == {"status": "purged"}
    with pytest.raises(urlscan_rs.NotFoundError):
        pc.livescan.resource("us01", "result", done)
    # temporary results go after 60 minutes
    later = pc.livescan.scan("de01", "https://www.example.org/")
    pe.advance(3601)
    with pytest.raises(urlscan_rs.NotFoundError):
        pc.livescan.resource("de01", "result", later)


def test_hostname_history_pages(pe: Emulator, pc: Client) -> None:
    hits = list(pc.search("", size=150))
    busiest = max({h.page.domain for h in hits}, key=lambda d: sum(h.page.domain == d for h in hits))
    before = requests_served(pe)
    it = pc.hostnames.history(busiest, limit=10)
    records = list(it)
    pages = requests_served(pe) - before
    assert len(records) > 10 and pages == -(-len(records) // 10)
    assert it.page_state is None
    assert {r.source for r in records} >= {"pdns"}
    assert all(r.seen_on is not None and r.first_seen is not None for r in records)
    # resume from a page state
    it2 = pc.hostnames.history(busiest, limit=10)
    head = [next(it2) for _ in range(10)]
    resumed = list(pc.hostnames.history(busiest, limit=10, page_state=it2.page_state))
    assert [r.raw for r in head + resumed] == [r.raw for r in records]
    assert list(pc.hostnames.history("never-seen.example")) == []


def test_brands_files_datadumps(pe: Emulator, pc: Client) -> None:
    kits = pc.brands.available()
    assert kits and all(k.key and k.name for k in kits)
    detected = pc.brands.detected()
    assert detected and all(d.total >= 1 and d.brand.key and d.hits for d in detected)

    r = pc.result(next(iter(pc.search("", limit=1))).id)
    sha = next(h for h in r.lists.hashes if h != hashlib.sha256(b"").hexdigest())
    data = pc.files.download(sha)
    assert hashlib.sha256(data).hexdigest() == sha
    z = pc.files.download_zip(sha)
    with zipfile.ZipFile(io.BytesIO(z)) as zf:
        assert zf.namelist() == [sha]
        assert zf.read(sha, pwd=b"urlscan!") == data
    z2 = pc.files.download_zip(sha, password="s3cret")
    with zipfile.ZipFile(io.BytesIO(z2)) as zf:
        # ZipCrypto checks a password against one byte of its random header: one wrong
        # password in 256 passes that check and fails when the data is inflated or checked.
        with pytest.raises((RuntimeError, zlib.error, zipfile.BadZipFile)):
            zf.read(sha, pwd=b"urlscan!")
        assert zf.read(sha, pwd=b"s3cret") == data
    assert pc.files.download(sha, password="s3cret") == data
    with pytest.raises(urlscan_rs.NotFoundError):
        pc.files.download("ab" * 32)

    yesterday = dt.date.fromtimestamp(pe.now()) - dt.timedelta(days=1)
    files = pc.datadumps.list("hours", "search", yesterday)
    assert len(files) == 24 and all(f.path.startswith("hours/search/") for f in files)
    assert pc.datadumps.list("days", "api", yesterday.strftime("%Y%m%d"))[0].size > 0
    link = pc.datadumps.link(files[0].path)
    assert link.startswith(pe.url) and "token=" in link
    with urllib.request.urlopen(link) as resp:  # no API key needed
        gzip.decompress(resp.read())


def test_async_namespaces(pe: Emulator) -> None:
    async def main() -> None:
        async with pe.async_client() as ac:
            ch = await ac.channels.create(type="webhook", name="a", webhook_url="https://hooks.example.com/b")
            inc = await ac.incidents.create("www.example.com", visibility="private", channels=[ch.id])
            got, closed = await asyncio.gather(ac.incidents.get(inc.id), ac.incidents.close(inc.id))
            assert got.id == inc.id and closed.state == "closed"
            assert (await ac.incidents.states(inc.id))[0].incident == inc.id
            hits = [h async for h in ac.search("", limit=1)]
            host = hits[0].page.domain
            n = 0
            async for _rec in ac.hostnames.history(host, limit=10):
                n += 1
            assert n > 0
            assert await ac.saved_searches.list() == []
            assert len(await ac.brands.available()) > 0
            with pytest.raises(urlscan_rs.ValidationError):
                await ac.incidents.create("x", visibility="public", channels=[])

    run(main())
