"""Incident notifications follow the channel's delivery rules, over real
sockets: `live` at once, `hourly` at the next full hour, `daily` at the
channel's `utcTime`, nothing on a day the channel's `weekDays` exclude
(unless `ignoreTime`). Time moves only by the emulator clock; webhook
arrivals are awaited with a bound."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from urlscan_rs import Client
from urlscan_rs.testing import Emulator, WebhookReceiver

DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


@pytest.fixture
def emu() -> Iterator[Emulator]:
    with Emulator(scans=10, scan_duration=10.0, seed=3) as e:
        yield e


@pytest.fixture
def hook() -> Iterator[WebhookReceiver]:
    with WebhookReceiver() as h:
        yield h


@pytest.fixture
def client(emu: Emulator) -> Iterator[Client]:
    with emu.client() as c:
        yield c


def now(emu: Emulator) -> datetime:
    return datetime.fromtimestamp(emu.now(), timezone.utc)


def advance_to(emu: Emulator, *, hour: int, minute: int = 0, second: int = 5) -> None:
    """Move the emulator clock to the next HH:MM:SS UTC."""
    t = now(emu)
    target = t.replace(hour=hour, minute=minute, second=second, microsecond=0)
    while target <= t:
        target += timedelta(days=1)
    emu.advance((target - t).total_seconds())


def webhook(client: Client, hook: WebhookReceiver, **opts: Any) -> str:
    return client.channels.create(type="webhook", name="soc", webhook_url=hook.url, **opts).id


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
