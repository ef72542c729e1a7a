"""Type-checked with `mypy --strict` in CI (not run): every public call of the
API, sync and async, with the types the stubs promise."""

from __future__ import annotations

import datetime as dt

import urlscan_rs
from urlscan_rs import models, testing

UUID = "00000000-0000-4000-8000-000000000000"


def sync_surface(c: urlscan_rs.Client, emu: testing.Emulator) -> None:
    q: urlscan_rs.Quotas = c.quotas()
    u: urlscan_rs.User = c.user()
    s: urlscan_rs.Submission = c.scan("https://example.com", visibility="unlisted", tags=["a"], country="de", custom_agent="x")
    r: urlscan_rs.ScanResult = c.result(s.uuid)
    r = c.wait_for_result(s.uuid, timeout=60, initial_wait=0, interval=1)
    r = c.scan_and_wait("https://example.com", visibility="private")
    outs: list[urlscan_rs.ScanOutcome] = c.bulk_scan(["https://a.example"], concurrency=4, progress=True)
    many: list[urlscan_rs.ScanResult | urlscan_rs.UrlscanError] = c.results([UUID], concurrency=2)
    png: models.Screenshot = c.screenshot(UUID)
    raw: bytes = png
    dom: str = c.dom(UUID)
    body: str = c.response("0" * 64)
    v: urlscan_rs.VisibilityChange = c.set_visibility(UUID, "deleted")
    v = c.reset_visibility(UUID)
    countries: list[str] = c.available_countries()
    agents: list[urlscan_rs.UserAgentGroup] = c.user_agents()
    it = c.search("domain:example.com", size=100, limit=10, datasource="scans")
    total: int | None = it.total
    n: int = it.count()
    hits: list[urlscan_rs.SearchHit] = list(it)
    records = c.search("").to_records()
    sim = list(c.similar(UUID, limit=5))
    feed = list(c.phishfeed(limit=5))
    # premium
    scanners: list[models.LiveScanner] = c.livescan.scanners()
    task: str = c.livescan.task("de01", "https://example.com", visibility="public", enable_features=["fullscreen"])
    res = c.livescan.resource("de01", "result", task)
    c.livescan.store("de01", task, visibility="unlisted")
    c.livescan.purge("de01", task)
    ss: models.SavedSearch = c.saved_searches.create(datasource="scans", name="n", query="q", tlp="amber+strict")
    sss: list[models.SavedSearch] = c.saved_searches.list()
    c.saved_searches.delete(ss.id)
    ch: models.Channel = c.channels.create(type="email", name="n", email_addresses=["a@example.com"], utc_time="09:00")
    sub: models.Subscription = c.subscriptions.create(
        search_ids=[ss.id], frequency="daily", email_addresses=["a@example.com"], name="n", is_active=True, ignore_time=False
    )
    subs: list[urlscan_rs.SearchHit] = c.subscriptions.results(sub.id, "scans")
    inc: models.Incident = c.incidents.create("example.com", visibility="private", channels=[ch.id], watched_attributes=["dns"])
    inc = c.incidents.close(inc.id)
    states: list[models.IncidentState] = c.incidents.states(inc.id)
    attrs: list[str] = c.incidents.watchable_attributes()
    recs: list[models.HostnameRecord] = list(c.hostnames.history("example.com", limit=10))
    brands: list[models.Brand] = c.brands.available()
    summaries: list[models.BrandSummary] = c.brands.detected()
    data: bytes = c.files.download("0" * 64)
    zipped: bytes = c.files.download_zip("0" * 64, password="x")
    files: list[models.DataDumpFile] = c.datadumps.list("hours", "search", dt.date(2026, 1, 1))
    link: str = c.datadumps.link(files[0].path)
    page: list[urlscan_rs.SearchHit] = c.saved_searches.results(ss.id, size=10, search_after="1611489992146,x")
    emu.advance(10)
    print(q, u, r, outs, many, raw, dom, body, v, countries, agents, total, n, hits, records, sim, feed, scanners, res, page)
    print(sss, subs, states, attrs, recs, brands, summaries, data, zipped, link)


def events_surface(c: urlscan_rs.Client, body: bytes) -> None:
    n: urlscan_rs.Notification = urlscan_rs.parse_notification(body)
    n = urlscan_rs.parse_notification(body.decode())
    n = urlscan_rs.parse_notification({"id": "a", "type": "incident", "results": []})
    when: dt.datetime | None = n.created_at
    sid: str | None = n.subscription_id
    search_ids: list[str] | None = n.search_ids
    changes: list[dict[str, object]] | None = n.changes
    results: list[urlscan_rs.SearchHit | urlscan_rs.HostnameHit] | None = n.results
    wire: dict[str, object] = n.to_dict()
    hostnames: list[urlscan_rs.HostnameHit] = list(c.search("", datasource="hostnames"))
    first_seen: dt.datetime | None = hostnames[0].first_seen
    incidents: list[urlscan_rs.IncidentHit] = list(c.search("state:active", datasource="incidents", limit=5))
    observable: str | None = incidents[0].observable
    notes: list[urlscan_rs.NotificationHit] = list(c.search("", datasource="notifications"))
    sort: list[object] = notes[0].sort
    certs: list[urlscan_rs.CertificateHit] = list(c.search("", datasource="certificates"))
    issuer: str | None = certs[0].issuer
    domains: list[urlscan_rs.DomainHit] = list(c.search("scanCount:>1", datasource="domains"))
    scan_count: int | None = domains[0].scan_count
    scans: list[urlscan_rs.SearchHit] = list(c.search("", datasource="scans"))
    print(n, when, sid, search_ids, changes, results, wire, first_seen, observable, sort, issuer, scan_count, scans)
    with testing.Emulator(webhook_timeout=1.0) as emu, testing.WebhookReceiver(port=0, fail_first=1) as hook:
        url: str = hook.url
        got: list[urlscan_rs.Notification] = hook.wait(count=2, timeout=5.0)
        got = hook.notifications
        reqs: list[testing.ReceivedRequest] = hook.requests
        mails: list[testing.Email] = emu.outbox
        to: list[str] = mails[0].to
        sent: list[testing.Delivery] = emu.deliveries
        status: int | None = sent[0].status
        attempt: int = sent[0].attempt
        made: list[urlscan_rs.Notification] = emu.notifications
        print(url, got, reqs, to, status, attempt, made, mails[0].notification.id, sent[0].error)


async def async_events_surface(c: urlscan_rs.AsyncClient) -> None:
    hosts: list[urlscan_rs.HostnameHit] = [h async for h in c.search("", datasource="hostnames")]
    certs: list[urlscan_rs.CertificateHit] = [h async for h in c.search("", datasource="certificates")]
    domains: list[urlscan_rs.DomainHit] = [h async for h in c.search("", datasource="domains")]
    page: list[urlscan_rs.SearchHit] = await c.saved_searches.results("id", size=5)
    print(hosts, certs, domains, page)


async def async_surface(c: urlscan_rs.AsyncClient) -> None:
    q: urlscan_rs.Quotas = await c.quotas()
    s: urlscan_rs.Submission = await c.scan("https://example.com")
    r: urlscan_rs.ScanResult = await c.wait_for_result(s.uuid, initial_wait=0)
    outs: list[urlscan_rs.ScanOutcome] = await c.bulk_scan(["https://a.example"], wait=False)
    png: models.Screenshot = await c.screenshot(s.uuid)
    it = c.search("", limit=10)
    n: int = await it.count()
    hits: list[urlscan_rs.SearchHit] = [h async for h in it]
    inc: models.Incident = await c.incidents.create("example.com", visibility="unlisted", channels=[])
    inc = await c.incidents.restart(inc.id)
    recs: list[models.HostnameRecord] = [rec async for rec in c.hostnames.history("example.com")]
    data: bytes = await c.files.download("0" * 64)
    print(q, r, outs, png, n, hits, inc, recs, data)


def feeds_surface(c: urlscan_rs.Client, ac: urlscan_rs.AsyncClient) -> None:
    report: urlscan_rs.feeds.FeedReport = c.feeds.sync(
        "phishfeed",
        "feeds/",
        lookback=dt.timedelta(days=3),
        dedupe="url",
        filter=lambda hit: hit.page.domain != "example.com",
        format="stix",
        max_items=500,
        progress=lambda read, new: None,
    )
    new: list[urlscan_rs.SearchHit] = report.new
    when: dt.datetime | None = report.checkpoint
    written: list[str] = [p.name for p in report.files]
    print(new, when, written, report.skipped, report.filtered, report.complete, ac.feeds.sync("id", "feeds/", lookback=3600.0))
