"""Type-checked with `mypy --strict` in CI (not run): every public call of the
API, sync and async, with the types the stubs promise."""

from __future__ import annotations

import datetime as dt

from urlscan_rs import (
    AsyncClient,
    CertificateHit,
    Client,
    HostnameHit,
    IncidentHit,
    Notification,
    NotificationHit,
    Quotas,
    ScanOutcome,
    ScanResult,
    SearchHit,
    Submission,
    UrlscanError,
    User,
    UserAgentGroup,
    VisibilityChange,
    parse_notification,
)
from urlscan_rs.models import (
    Brand,
    BrandSummary,
    Channel,
    DataDumpFile,
    HostnameRecord,
    Incident,
    IncidentState,
    LiveScanner,
    SavedSearch,
    Screenshot,
    Subscription,
)
from urlscan_rs.testing import Delivery, Email, Emulator, ReceivedRequest, WebhookReceiver

UUID = "00000000-0000-4000-8000-000000000000"


def sync_surface(c: Client, emu: Emulator) -> None:
    q: Quotas = c.quotas()
    u: User = c.user()
    s: Submission = c.scan("https://example.com", visibility="unlisted", tags=["a"], country="de", custom_agent="x")
    r: ScanResult = c.result(s.uuid)
    r = c.wait_for_result(s.uuid, timeout=60, initial_wait=0, interval=1)
    r = c.scan_and_wait("https://example.com", visibility="private")
    outs: list[ScanOutcome] = c.bulk_scan(["https://a.example"], concurrency=4, progress=True)
    many: list[ScanResult | UrlscanError] = c.results([UUID], concurrency=2)
    png: Screenshot = c.screenshot(UUID)
    raw: bytes = png
    dom: str = c.dom(UUID)
    body: str = c.response("0" * 64)
    v: VisibilityChange = c.set_visibility(UUID, "deleted")
    v = c.reset_visibility(UUID)
    countries: list[str] = c.available_countries()
    agents: list[UserAgentGroup] = c.user_agents()
    it = c.search("domain:example.com", size=100, limit=10, datasource="scans")
    total: int | None = it.total
    n: int = it.count()
    hits: list[SearchHit] = list(it)
    records = c.search("").to_records()
    sim = list(c.similar(UUID, limit=5))
    feed = list(c.phishfeed(limit=5))
    # premium
    scanners: list[LiveScanner] = c.livescan.scanners()
    task: str = c.livescan.task("de01", "https://example.com", visibility="public", enable_features=["fullscreen"])
    res = c.livescan.resource("de01", "result", task)
    c.livescan.store("de01", task, visibility="unlisted")
    c.livescan.purge("de01", task)
    ss: SavedSearch = c.saved_searches.create(datasource="scans", name="n", query="q", tlp="amber+strict")
    sss: list[SavedSearch] = c.saved_searches.list()
    c.saved_searches.delete(ss.id)
    ch: Channel = c.channels.create(type="email", name="n", email_addresses=["a@example.com"], utc_time="09:00")
    sub: Subscription = c.subscriptions.create(
        search_ids=[ss.id], frequency="daily", email_addresses=["a@example.com"], name="n", is_active=True, ignore_time=False
    )
    subs: list[SearchHit] = c.subscriptions.results(sub.id, "scans")
    inc: Incident = c.incidents.create("example.com", visibility="private", channels=[ch.id], watched_attributes=["dns"])
    inc = c.incidents.close(inc.id)
    states: list[IncidentState] = c.incidents.states(inc.id)
    attrs: list[str] = c.incidents.watchable_attributes()
    recs: list[HostnameRecord] = list(c.hostnames.history("example.com", limit=10))
    brands: list[Brand] = c.brands.available()
    summaries: list[BrandSummary] = c.brands.detected()
    data: bytes = c.files.download("0" * 64)
    zipped: bytes = c.files.download_zip("0" * 64, password="x")
    files: list[DataDumpFile] = c.datadumps.list("hours", "search", dt.date(2026, 1, 1))
    link: str = c.datadumps.link(files[0].path)
    page: list[SearchHit] = c.saved_searches.results(ss.id, size=10, search_after="1611489992146,x")
    emu.advance(10)
    print(q, u, r, outs, many, raw, dom, body, v, countries, agents, total, n, hits, records, sim, feed, scanners, res, page)
    print(sss, subs, states, attrs, recs, brands, summaries, data, zipped, link)


def events_surface(c: Client, body: bytes) -> None:
    n: Notification = parse_notification(body)
    n = parse_notification(body.decode())
    n = parse_notification({"id": "a", "type": "incident", "results": []})
    when: dt.datetime | None = n.created_at
    sid: str | None = n.subscription_id
    search_ids: list[str] | None = n.search_ids
    changes: list[dict[str, object]] | None = n.changes
    results: list[SearchHit | HostnameHit] | None = n.results
    wire: dict[str, object] = n.to_dict()
    hostnames: list[HostnameHit] = list(c.search("", datasource="hostnames"))
    first_seen: dt.datetime | None = hostnames[0].first_seen
    incidents: list[IncidentHit] = list(c.search("state:active", datasource="incidents", limit=5))
    observable: str | None = incidents[0].observable
    notes: list[NotificationHit] = list(c.search("", datasource="notifications"))
    sort: list[object] = notes[0].sort
    certs: list[CertificateHit] = list(c.search("", datasource="certificates"))
    issuer: str | None = certs[0].issuer
    scans: list[SearchHit] = list(c.search("", datasource="scans"))
    print(n, when, sid, search_ids, changes, results, wire, first_seen, observable, sort, issuer, scans)
    with Emulator(webhook_timeout=1.0) as emu, WebhookReceiver(port=0, fail_first=1) as hook:
        url: str = hook.url
        got: list[Notification] = hook.wait(count=2, timeout=5.0)
        got = hook.notifications
        reqs: list[ReceivedRequest] = hook.requests
        mails: list[Email] = emu.outbox
        to: list[str] = mails[0].to
        sent: list[Delivery] = emu.deliveries
        status: int | None = sent[0].status
        attempt: int = sent[0].attempt
        made: list[Notification] = emu.notifications
        print(url, got, reqs, to, status, attempt, made, mails[0].notification.id, sent[0].error)


async def async_events_surface(c: AsyncClient) -> None:
    hosts: list[HostnameHit] = [h async for h in c.search("", datasource="hostnames")]
    certs: list[CertificateHit] = [h async for h in c.search("", datasource="certificates")]
    page: list[SearchHit] = await c.saved_searches.results("id", size=5)
    print(hosts, certs, page)


async def async_surface(c: AsyncClient) -> None:
    q: Quotas = await c.quotas()
    s: Submission = await c.scan("https://example.com")
    r: ScanResult = await c.wait_for_result(s.uuid, initial_wait=0)
    outs: list[ScanOutcome] = await c.bulk_scan(["https://a.example"], wait=False)
    png: Screenshot = await c.screenshot(s.uuid)
    it = c.search("", limit=10)
    n: int = await it.count()
    hits: list[SearchHit] = [h async for h in it]
    inc: Incident = await c.incidents.create("example.com", visibility="unlisted", channels=[])
    inc = await c.incidents.restart(inc.id)
    recs: list[HostnameRecord] = [rec async for rec in c.hostnames.history("example.com")]
    data: bytes = await c.files.download("0" * 64)
    print(q, r, outs, png, n, hits, inc, recs, data)
