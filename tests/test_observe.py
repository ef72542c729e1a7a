"""Observe end to end, over real sockets: subscriptions and incidents
alert webhooks and e-mail, incidents scan for real, every data source is
searchable. Time moves only by the emulator clock; webhook arrivals are
awaited with a bound."""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

import urlscan_rs
from urlscan_rs import Client, SearchHit
from urlscan_rs.models import CertificateHit, HostnameHit, IncidentHit, NotificationHit
from urlscan_rs.testing import Emulator, WebhookReceiver

from .conftest import emulator, run

DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


emu = emulator("function", scans=30, scan_duration=10.0, seed=3)


@pytest.fixture
def hook() -> Iterator[WebhookReceiver]:
    with WebhookReceiver() as h:
        yield h


@pytest.fixture
def client(emu: Emulator) -> Iterator[Client]:
    with emu.client() as c:
        yield c


def wait_for(what: str, pred: Callable[[], bool], timeout: float = 10.0) -> None:
    """Wait (bounded) for something the emulator does on its own threads."""
    deadline = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {what}")
        time.sleep(0.02)


def now(emu: Emulator) -> datetime:
    return datetime.fromtimestamp(emu.now(), timezone.utc)


def advance_to(emu: Emulator, *, hour: int, minute: int = 0, second: int = 5, weekday: int | None = None) -> None:
    """Move the emulator clock to the next HH:MM:SS UTC (on `weekday`, 0 = Monday)."""
    t = now(emu)
    target = t.replace(hour=hour, minute=minute, second=second, microsecond=0)
    while target <= t or (weekday is not None and target.weekday() != weekday):
        target += timedelta(days=1)
    emu.advance((target - t).total_seconds())


def watch(
    client: Client, query: str, *, frequency: str = "live", channels: list[str] | None = None, **sub: Any
) -> tuple[str, str]:
    """A saved search and a subscription on it: (search id, subscription id)."""
    s = client.saved_searches.create(datasource="scans", name="watch", query=query)
    opts: dict[str, Any] = dict(email_addresses=[], is_active=True, ignore_time=False)
    opts.update(sub)
    created = client.subscriptions.create(
        search_ids=[s.id], frequency=frequency, name="alerts", channel_ids=channels or [], **opts
    )
    return s.id, created.id


def webhook(client: Client, hook: WebhookReceiver, **opts: Any) -> str:
    return client.channels.create(type="webhook", name="soc", webhook_url=hook.url, **opts).id


def scan_and_finish(emu: Emulator, client: Client, url: str) -> str:
    uuid = client.scan(url, visibility="unlisted").uuid
    emu.advance(emu.scan_duration + 1)
    return uuid


# ---------------------------------------------------------------- subscriptions


def test_live_notification_reaches_the_webhook(emu: Emulator, client: Client, hook: WebhookReceiver) -> None:
    ch = webhook(client, hook)
    search_id, sub_id = watch(client, "page.domain:alert-me.example.net", channels=[ch])
    uuid = scan_and_finish(emu, client, "https://alert-me.example.net/login")
    scan_and_finish(emu, client, "https://quiet.example.org/")  # does not match
    [n] = hook.wait(1)
    assert n.type == "subscription" and n.subscription_id == sub_id and n.search_ids == [search_id]
    assert n.datasource == "scans" and n.channel_id == ch and n.frequency == "live"
    assert n.created_at.tzinfo is not None and abs((n.created_at - now(emu)).total_seconds()) < 60
    [hit] = n.results
    assert isinstance(hit, SearchHit) and hit.id == uuid and hit.page.domain == "alert-me.example.net"
    assert client.result(hit.id).page.domain == "alert-me.example.net"
    [d] = emu.wait_deliveries(1)  # recorded once the answer is back, a moment after the hook has it
    assert (d.url, d.status, d.error, d.attempt, d.notification.id) == (hook.url, 200, None, 1, n.id)
    assert [x.id for x in emu.notifications] == [n.id]


def test_live_notification_async(emu: Emulator, hook: WebhookReceiver) -> None:
    async def main() -> str:
        async with emu.async_client() as c:
            ch = (await c.channels.create(type="webhook", name="soc", webhook_url=hook.url)).id
            s = await c.saved_searches.create(datasource="scans", name="w", query="page.domain:async.example.net")
            await c.subscriptions.create(
                search_ids=[s.id],
                frequency="live",
                email_addresses=[],
                name="a",
                is_active=True,
                ignore_time=False,
                channel_ids=[ch],
            )
            uuid = (await c.scan("https://async.example.net/", visibility="unlisted")).uuid
            emu.advance(emu.scan_duration + 1)
            hits = [h async for h in c.search(f"subscriptionId:{s.id} OR searchIds:{s.id}", datasource="notifications")]
            assert len(hits) == 1 and isinstance(hits[0], NotificationHit)
            return uuid

    uuid = run(main())
    [n] = hook.wait(1)
    assert [h.id for h in n.results] == [uuid]


def test_email_channel_and_subscription_addresses_go_to_the_outbox(emu: Emulator, client: Client) -> None:
    ch = client.channels.create(type="email", name="mail", email_addresses=["soc@example.com"]).id
    _, sub_id = watch(client, "page.domain:mail.example.net", channels=[ch], email_addresses=["lead@example.com"])
    scan_and_finish(emu, client, "https://mail.example.net/")
    got = sorted(emu.outbox, key=lambda m: m.to)
    assert [m.to for m in got] == [["lead@example.com"], ["soc@example.com"]]
    assert all(m.subject and m.notification.subscription_id == sub_id for m in got)
    assert got[0].notification.channel_id is None and got[1].notification.channel_id == ch
    assert got[0].notification.id != got[1].notification.id  # one notification per target
    assert emu.deliveries == []


def test_nothing_matched_nothing_sent(emu: Emulator, client: Client, hook: WebhookReceiver) -> None:
    watch(client, "page.domain:never.example.net", channels=[webhook(client, hook)], email_addresses=["x@example.com"])
    scan_and_finish(emu, client, "https://other.example.net/")
    emu.advance(2 * 86400)
    assert emu.notifications == [] and emu.outbox == [] and hook.requests == []


def test_hourly_batches_at_the_full_hour(emu: Emulator, client: Client) -> None:
    advance_to(emu, hour=(now(emu).hour + 2) % 24, minute=5)
    watch(client, "page.domain:hourly.example.net", frequency="hourly", email_addresses=["soc@example.com"])
    first = scan_and_finish(emu, client, "https://hourly.example.net/a")
    second = scan_and_finish(emu, client, "https://hourly.example.net/b")
    assert emu.outbox == []  # not before the full hour
    advance_to(emu, hour=(now(emu).hour + 1) % 24, minute=0, second=1)
    [mail] = emu.outbox
    assert mail.notification.frequency == "hourly"
    assert sorted(h.id for h in mail.notification.results) == sorted([first, second])
    emu.advance(3 * 3600)
    assert len(emu.outbox) == 1  # nothing new matched: no empty batches


def test_daily_goes_out_at_the_channel_time_and_at_midnight(emu: Emulator, client: Client) -> None:
    advance_to(emu, hour=6)
    ch = client.channels.create(type="email", name="daily", email_addresses=["day@example.com"], utc_time="09:30").id
    watch(client, "page.domain:daily.example.net", frequency="daily", channels=[ch], email_addresses=["night@example.com"])
    scan_and_finish(emu, client, "https://daily.example.net/")
    assert emu.outbox == []
    advance_to(emu, hour=9, minute=29, second=0)
    assert emu.outbox == []
    advance_to(emu, hour=9, minute=30, second=2)
    assert [m.to for m in emu.outbox] == [["day@example.com"]]
    advance_to(emu, hour=0, minute=0, second=2)
    assert [m.to for m in emu.outbox] == [["day@example.com"], ["night@example.com"]]
    assert all(m.notification.frequency == "daily" for m in emu.outbox)


@pytest.mark.parametrize("ignore_time", [False, True])
def test_week_days_limit_alerts_unless_time_is_ignored(emu: Emulator, client: Client, ignore_time: bool) -> None:
    advance_to(emu, hour=12, weekday=2)  # a Wednesday
    watch(
        client,
        "page.domain:weekday.example.net",
        email_addresses=["soc@example.com"],
        week_days=["Monday", "Tuesday"],
        ignore_time=ignore_time,
    )
    scan_and_finish(emu, client, "https://weekday.example.net/")
    assert len(emu.outbox) == (1 if ignore_time else 0)
    advance_to(emu, hour=12, weekday=0)  # Monday: alerts are generated
    scan_and_finish(emu, client, "https://weekday.example.net/again")
    assert len(emu.outbox) == (2 if ignore_time else 1)


def test_inactive_subscription_or_channel_sends_nothing(emu: Emulator, client: Client, hook: WebhookReceiver) -> None:
    off = webhook(client, hook, is_active=False)
    watch(client, "page.domain:inactive.example.net", channels=[off])
    watch(client, "page.domain:inactive.example.net", channels=[webhook(client, hook)], is_active=False)
    scan_and_finish(emu, client, "https://inactive.example.net/")
    assert emu.notifications == [] and emu.deliveries == []
    client.channels.update(off, is_active=True)
    scan_and_finish(emu, client, "https://inactive.example.net/2")
    [n] = hook.wait(1)
    assert n.channel_id == off


def test_failed_webhook_is_retried_on_the_emulator_clock_with_one_id(emu: Emulator, client: Client) -> None:
    with WebhookReceiver(fail_first=2) as hook:
        watch(client, "page.domain:retry.example.net", channels=[webhook(client, hook)])
        scan_and_finish(emu, client, "https://retry.example.net/")
        wait_for("the first attempt", lambda: len(emu.deliveries) == 1)
        emu.advance(5)
        assert len(emu.deliveries) == 1  # the retry is due 10 s after the failure
        emu.advance(6)
        wait_for("the second attempt", lambda: len(emu.deliveries) == 2)
        emu.advance(21)
        [n] = hook.wait(1)
        wait_for("the third attempt", lambda: len(emu.deliveries) == 3)
        assert [(d.attempt, d.status) for d in emu.deliveries] == [(1, 503), (2, 503), (3, 200)]
        assert {d.notification.id for d in emu.deliveries} == {n.id}
        headers = [{k.lower(): v for k, v in r.headers.items()} for r in hook.requests]
        assert [h["x-urlscan-notification-id"] for h in headers] == [n.id] * 3
        assert [h["x-urlscan-delivery-attempt"] for h in headers] == ["1", "2", "3"]


def test_refused_connection_is_retried_then_given_up(emu: Emulator, client: Client) -> None:
    with WebhookReceiver() as gone:
        url = gone.url  # a port nothing listens on once the receiver is closed
    ch = client.channels.create(type="webhook", name="gone", webhook_url=url).id
    watch(client, "page.domain:refused.example.net", channels=[ch])
    scan_and_finish(emu, client, "https://refused.example.net/")
    for n in range(1, 6):
        wait_for(f"attempt {n}", lambda n=n: len(emu.deliveries) == n)  # type: ignore[misc]
        emu.advance(10 * 2 ** (n - 1) + 1)
    emu.advance(3600)
    attempts = emu.deliveries
    assert [d.attempt for d in attempts] == [1, 2, 3, 4, 5]
    assert all(d.status is None and d.error for d in attempts)
    assert len({d.notification.id for d in attempts}) == 1


# ---------------------------------------------------------------- incidents


def test_incident_scans_are_real_and_changes_are_notified(emu: Emulator, client: Client, hook: WebhookReceiver) -> None:
    ch = webhook(client, hook)
    inc = client.incidents.create(
        "changing.example.net", visibility="private", channels=[ch], scan_interval=600, watched_attributes=["ip", "page"]
    )
    emu.advance(601)
    [n] = hook.wait(1)
    assert n.type == "incident" and n.incident_id == inc.id and n.observable == "changing.example.net"
    assert n.subscription_id is None and n.search_ids == []
    assert {c["attribute"] for c in n.changes} >= {"ip"}
    change = next(c for c in n.changes if c["attribute"] == "ip")
    assert change["before"] != change["after"]
    [hit] = n.results
    result = client.result(hit.id)
    assert result.page.domain == "changing.example.net"
    assert client.screenshot(hit.id)[:8] == b"\x89PNG\r\n\x1a\n" and "<html" in client.dom(hit.id).lower()
    mine = {h.id for h in client.search("page.domain:changing.example.net")}
    assert hit.id in mine and len(mine) >= 2  # every interval's scan
    with emu.client(emu.keys["other"]) as outsider:
        assert list(outsider.search("page.domain:changing.example.net")) == []


def test_stable_incident_scans_without_notifying(emu: Emulator, client: Client, hook: WebhookReceiver) -> None:
    inc = client.incidents.create(
        "stable.example.net", visibility="unlisted", channels=[webhook(client, hook)], scan_interval=600
    )
    emu.advance(3 * 600 + 1)
    assert emu.notifications == []
    assert client.search("page.domain:stable.example.net").count() >= 4
    assert client.incidents.get(inc.id).state_count >= 4


def test_incident_scans_async(emu: Emulator, hook: WebhookReceiver) -> None:
    async def main() -> None:
        async with emu.async_client() as c:
            ch = (await c.channels.create(type="webhook", name="soc", webhook_url=hook.url)).id
            await c.incidents.create("changing.async.example.net", visibility="private", channels=[ch], scan_interval=300)
            emu.advance(301)
            hits = [h async for h in c.search("page.domain:changing.async.example.net")]
            assert len(hits) >= 2
            r = await c.result(hits[0].id)
            assert r.page.domain == "changing.async.example.net"

    run(main())
    assert hook.wait(1)[0].type == "incident"


@pytest.mark.parametrize(
    ("mode", "after_two", "after_close"),
    [("none", 0, 0), ("default", 1, 2), ("always", 2, 3), ("ignore-if-exists", 1, 1)],
)
def test_subscriptions_create_incidents(emu: Emulator, client: Client, mode: str, after_two: int, after_close: int) -> None:
    ch = client.channels.create(type="email", name="inc", email_addresses=["inc@example.com"]).id
    _, sub_id = watch(
        client,
        "page.domain:phish.example.net",
        email_addresses=["soc@example.com"],
        incident_creation_mode=mode,
        incident_watch_keys="scans/page.domain",
        incident_visibility="unlisted",
        incident_channel_ids=[ch],
    )

    def opened() -> list[IncidentHit]:
        return list(client.search(f"sourceId:{sub_id}", datasource="incidents"))

    scan_and_finish(emu, client, "https://phish.example.net/a")
    scan_and_finish(emu, client, "https://phish.example.net/b")
    got = opened()
    assert len(got) == after_two
    for i in got:
        assert (i.observable, i.source_type, i.source_id, i.visibility) == (
            "phish.example.net",
            "subscription",
            sub_id,
            "unlisted",
        )
        assert client.incidents.get(i.id).channels == [ch]
    for i in got:
        client.incidents.close(i.id)
    scan_and_finish(emu, client, "https://phish.example.net/c")
    assert len(opened()) == after_close


# ---------------------------------------------------------------- data sources


def test_every_data_source_is_searchable(emu: Emulator, client: Client) -> None:
    _, sub_id = watch(client, "page.domain:sources.example.net", email_addresses=["soc@example.com"])
    scan_and_finish(emu, client, "https://sources.example.net/")
    # Before the incident exists: its own scans of the host (due as the
    # emulator clock runs on with the wall clock) would notify too.
    [n] = client.search(f"subscriptionId:{sub_id}", datasource="notifications")
    assert isinstance(n, NotificationHit) and n.subscription_id == sub_id and n.datasource == "scans"

    [host] = client.search("hostname:sources.example.net", datasource="hostnames")
    assert isinstance(host, HostnameHit) and host.hostname == "sources.example.net" and host.sort

    inc = client.incidents.create("sources.example.net", visibility="private", channels=[])
    [i] = client.search("observable:sources.example.net AND state:active", datasource="incidents")
    assert isinstance(i, IncidentHit) and i.id == inc.id and i.source_type == "api"
    assert n.results and isinstance(n.results[0], SearchHit)

    # Their tables (urlscan_rs.schema.NOTIFICATIONS, INCIDENTS), read from the same bytes.
    if importlib.util.find_spec("pyarrow") is not None:
        # The incident's own scans of the host may have notified since: the row of the one seen above.
        rows = client.search(f"subscriptionId:{sub_id}", datasource="notifications").to_arrow().to_pylist()
        [nrow] = [r for r in rows if r["id"] == n.id]
        assert (nrow["id"], nrow["type"], nrow["subscription_id"], nrow["datasource"]) == (n.id, n.type, sub_id, "scans")
        assert nrow["results"] == len(n.results) and nrow["total"] == n.total and nrow["date"] == n.date
        [irow] = client.search("observable:sources.example.net", datasource="incidents").to_arrow().to_pylist()
        assert (irow["id"], irow["observable"], irow["state"], irow["source_type"]) == (inc.id, i.observable, i.state, "api")
        assert irow["created_at"] == i.created_at and irow["expire_at"] == i.expire_at and irow["labels"] == i.labels
        # A notification as a webhook delivers it: the same columns.
        [wrow] = urlscan_rs.to_arrow([urlscan_rs.parse_notification(n.to_dict())]).to_pylist()
        assert {k: v for k, v in wrow.items() if k != "date"} == {k: v for k, v in nrow.items() if k != "date"}

    certs = list(client.search("", datasource="certificates", limit=50))
    assert certs and all(isinstance(c, CertificateHit) and c.id and c.issuer for c in certs)
    issuer = certs[0].issuer
    assert issuer is not None
    assert all(c.issuer == issuer for c in client.search(f'issuer:"{issuer}"', datasource="certificates", limit=50))
    domain = certs[0].domain
    assert any(c.id == certs[0].id for c in client.search(f'domain:"{domain}"', datasource="certificates"))

    with emu.client(emu.keys["other"]) as outsider:
        assert list(outsider.search("", datasource="incidents")) == []
        assert list(outsider.search("", datasource="notifications")) == []


@pytest.mark.parametrize("source", ["hostnames", "certificates", "domains"])
def test_data_source_paging_walks_every_hit_once(emu: Emulator, client: Client, source: str) -> None:
    it = client.search("", datasource=source, size=7)  # type: ignore[call-overload]
    ids = [h.id for h in it]
    assert len(ids) == len(set(ids)) == it.total and len(ids) > 7
    assert client.search("", datasource=source).count() == len(ids)  # type: ignore[call-overload]
    resumed = client.search(
        "",
        datasource=source,
        size=7,
        search_after=",".join(map(str, next(iter(client.search("", datasource=source, limit=1))).sort)),
    )  # type: ignore[call-overload]
    assert [h.id for h in resumed] == ids[1:]


def test_data_source_search_async(emu: Emulator) -> None:
    async def main() -> list[Any]:
        async with emu.async_client() as c:
            return [h async for h in c.search("", datasource="hostnames", limit=5)]

    hits = run(main())
    assert len(hits) == 5 and all(isinstance(h, HostnameHit) and h.hostname for h in hits)


# Incident notifications follow the channel's delivery rules: `live` at once, `hourly` at the
# next full hour, `daily` at the channel's `utcTime`, nothing on a day the channel's `weekDays`
# exclude (unless `ignoreTime`).


def test_incident_changes_follow_the_channel_schedule(emu: Emulator, client: Client, hook: WebhookReceiver) -> None:
    hour = (now(emu).hour + 2) % 24
    advance_to(emu, hour=hour, minute=5)  # HH:05:05: the change (HH:35) and its hour are the same day
    others = [d for i, d in enumerate(DAYS) if i != now(emu).weekday()]
    live = webhook(client, hook)
    hourly = webhook(client, hook, frequency="hourly")
    excluded = webhook(client, hook, week_days=others)
    ignored = webhook(client, hook, week_days=others, ignore_time=True)
    daily = client.channels.create(
        type="email",
        name="digest",
        email_addresses=["digest@example.com"],
        frequency="daily",
        utc_time=f"{(hour + 3) % 24:02d}:00",
    ).id
    inc = client.incidents.create(
        "changing.example.net",
        visibility="private",
        channels=[live, hourly, excluded, ignored, daily],
        scan_interval=1800,
        watched_attributes=["ip"],
    )
    emu.advance(1801)  # the second scan sees another IP: one change
    client.incidents.close(inc.id)  # no further scans, no further changes

    # live channels at once; none for the channel whose weekDays exclude today
    got = hook.wait(2)
    assert sorted(n.channel_id for n in got) == sorted([live, ignored])
    assert all(n.type == "incident" and n.frequency == "live" and n.incident_id == inc.id for n in got)
    [uuid] = {n.results[0].id for n in got}
    assert [c["attribute"] for c in got[0].changes] == ["ip"]
    assert len(emu.notifications) == 2 and emu.outbox == []

    # hourly: at the next full hour, not before
    advance_to(emu, hour=hour, minute=59, second=30)
    assert len(emu.notifications) == 2
    advance_to(emu, hour=(hour + 1) % 24, minute=0, second=1)
    [n] = [x for x in hook.wait(3) if x.channel_id == hourly]
    assert n.type == "incident" and n.frequency == "hourly" and n.incident_id == inc.id
    assert n.observable == "changing.example.net" and [h.id for h in n.results] == [uuid]
    assert (n.created_at.hour, n.created_at.minute) == ((hour + 1) % 24, 0)
    assert emu.outbox == []

    # daily: at the channel's utcTime
    advance_to(emu, hour=(hour + 2) % 24, minute=59, second=30)
    assert emu.outbox == []
    advance_to(emu, hour=(hour + 3) % 24, minute=0, second=1)
    [mail] = emu.outbox
    assert mail.to == ["digest@example.com"]
    assert mail.notification.channel_id == daily and mail.notification.frequency == "daily"
    assert mail.notification.incident_id == inc.id and [h.id for h in mail.notification.results] == [uuid]

    # each change once per channel: nothing more later
    emu.advance(2 * 86400)
    assert len(emu.notifications) == 4 and len(emu.outbox) == 1
    assert {x.channel_id for x in hook.notifications} == {live, ignored, hourly}
