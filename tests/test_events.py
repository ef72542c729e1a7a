"""Events on the client side: the notification payload, typed hits of every
search data source, the webhook receiver, the pytest fixture and the
emulator's event records as Python objects."""

from __future__ import annotations

import copy
import json
import pickle
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from datetime import datetime, timezone
from typing import Any

import pytest

import urlscan_rs
from urlscan_rs import (
    AsyncClient,
    CertificateHit,
    Client,
    DecodeError,
    DomainHit,
    HostnameHit,
    IncidentHit,
    Notification,
    NotificationHit,
    SearchHit,
    parse_notification,
)
from urlscan_rs.models import Incident
from urlscan_rs.testing import Delivery, Email, Emulator, ReceivedRequest, WebhookReceiver

from .conftest import in_threads, run
from .loopback import serve

SCAN_HIT: dict[str, Any] = {
    "_id": "2e973dc1-8e9c-4fb5-9b6b-e5d0c1a25e3c",
    "sort": [1795381121360, "2e973dc1-8e9c-4fb5-9b6b-e5d0c1a25e3c"],
    "task": {
        "uuid": "2e973dc1-8e9c-4fb5-9b6b-e5d0c1a25e3c",
        "url": "https://paypal-login.example.net/",
        "time": "2026-11-23T09:59:58.000Z",
    },
    "page": {"domain": "paypal-login.example.net", "ip": "192.0.2.7", "country": "DE"},
    "result": "https://urlscan.io/api/v1/result/2e973dc1-8e9c-4fb5-9b6b-e5d0c1a25e3c/",
}
HOSTNAME_HIT: dict[str, Any] = {
    "_id": "0123456789abcdef01234567",
    "sort": [1795381121360, "login.example.net"],
    "hostname": "login.example.net",
    "domain": "example.net",
    "apexDomain": "example.net",
    "date": "2026-11-23T10:00:00.000Z",
    "first_seen": "2026-11-20T08:00:00.000Z",
    "last_seen": "2026-11-23T10:00:00.000Z",
    "sources": ["pdns", "scan"],
}
SUBSCRIPTION_PAYLOAD: dict[str, Any] = {
    "id": "674199e0a1b2c3d4e5f60718",
    "type": "subscription",
    "createdAt": "2026-11-23T10:00:00.000Z",
    "frequency": "live",
    "subscriptionId": "674199e0a1b2c3d4e5f60001",
    "subscriptionName": "lookalikes",
    "searchIds": ["674199e0a1b2c3d4e5f60002"],
    "incidentId": None,
    "observable": None,
    "changes": [],
    "channelId": "674199e0a1b2c3d4e5f60003",
    "datasource": "scans",
    "results": [SCAN_HIT],
    "total": 1,
}
INCIDENT_PAYLOAD: dict[str, Any] = {
    **SUBSCRIPTION_PAYLOAD,
    "id": "674199e0a1b2c3d4e5f60719",
    "type": "incident",
    "subscriptionId": None,
    "subscriptionName": None,
    "searchIds": [],
    "incidentId": "674199e0a1b2c3d4e5f60004",
    "observable": "changing.example.net",
    "changes": [{"attribute": "ip", "before": "192.0.2.1", "after": "192.0.2.7"}],
}


# ---------------------------------------------------------------- parse_notification


@pytest.mark.parametrize("form", ["bytes", "str", "dict", "bytearray", "memoryview"])
def test_parse_every_input_form(form: str) -> None:
    text = json.dumps(SUBSCRIPTION_PAYLOAD)
    body: Any = {
        "bytes": text.encode(),
        "str": text,
        "dict": copy.deepcopy(SUBSCRIPTION_PAYLOAD),
        "bytearray": bytearray(text.encode()),
        "memoryview": memoryview(text.encode()),
    }[form]
    n = parse_notification(body)
    assert isinstance(n, Notification) and n.raw == SUBSCRIPTION_PAYLOAD
    assert urlscan_rs.parse_notification is parse_notification


def test_subscription_notification_fields() -> None:
    n = parse_notification(json.dumps(SUBSCRIPTION_PAYLOAD))
    assert n.id == "674199e0a1b2c3d4e5f60718" and n.type == "subscription"
    assert n.created_at == datetime(2026, 11, 23, 10, 0, tzinfo=timezone.utc)
    assert (
        n.created_at is not None and n.created_at.tzinfo is not None and n.created_at.utcoffset() == timezone.utc.utcoffset(None)
    )
    assert n.frequency == "live" and n.subscription_name == "lookalikes"
    assert n.subscription_id == "674199e0a1b2c3d4e5f60001"
    assert n.search_ids == ["674199e0a1b2c3d4e5f60002"]
    assert n.incident_id is None and n.observable is None and n.changes == []
    assert n.channel_id == "674199e0a1b2c3d4e5f60003" and n.datasource == "scans" and n.total == 1
    assert n.results is not None
    [hit] = n.results
    assert isinstance(hit, SearchHit) and hit.id == SCAN_HIT["_id"] and hit.page.domain == "paypal-login.example.net"
    assert n.results is n.results  # typed once
    assert n.to_dict() == SUBSCRIPTION_PAYLOAD and n.to_dict() is not n.raw
    assert "Notification(" in repr(n) and "674199e0a1b2c3d4e5f60718" in repr(n)


def test_incident_notification_fields() -> None:
    n = parse_notification(INCIDENT_PAYLOAD)
    assert n.type == "incident" and n.incident_id == "674199e0a1b2c3d4e5f60004"
    assert n.observable == "changing.example.net"
    assert n.changes == [{"attribute": "ip", "before": "192.0.2.1", "after": "192.0.2.7"}]
    assert n.subscription_id is None and n.search_ids == []
    assert n.results is not None and isinstance(n.results[0], SearchHit)


def test_hostname_results_are_hostname_hits() -> None:
    n = parse_notification({**SUBSCRIPTION_PAYLOAD, "datasource": "hostnames", "results": [HOSTNAME_HIT]})
    assert n.results is not None
    (hit,) = n.results
    assert isinstance(hit, HostnameHit) and hit.hostname == "login.example.net"
    # strict on what is declared: every result is an object
    with pytest.raises(urlscan_rs.DecodeError, match=r"results\[1\]"):
        parse_notification({**SUBSCRIPTION_PAYLOAD, "datasource": "hostnames", "results": [HOSTNAME_HIT, "odd"]})
    # no datasource: scan hits
    n = parse_notification({"id": "a", "type": "subscription", "results": [SCAN_HIT]})
    assert n.results is not None and isinstance(n.results[0], SearchHit)


def test_notification_is_frozen_comparable_and_picklable() -> None:
    n = parse_notification(SUBSCRIPTION_PAYLOAD)
    with pytest.raises(AttributeError):
        n.id = "other"  # type: ignore[misc]
    assert n == parse_notification(json.dumps(SUBSCRIPTION_PAYLOAD))
    assert n != parse_notification(INCIDENT_PAYLOAD)
    back = pickle.loads(pickle.dumps(n))
    assert back == n and back.results == n.results
    assert hash(n) == hash(back)


@pytest.mark.parametrize(
    ("body", "why"),
    [
        (42, "expected bytes, str or dict, got int"),
        (None, "got NoneType"),
        ([SUBSCRIPTION_PAYLOAD], "got list"),
        (b"{not json", "invalid JSON"),
        ("", "invalid JSON"),
        (b"\xff\xfe", "not UTF-8"),
        ("[1, 2]", "expected a JSON object, got an array"),
        ('"text"', "expected a JSON object, got a string"),
        ("null", "expected a JSON object, got null"),
        ({"type": "incident", "results": []}, "expected a string id, got no id"),
        ({"id": 7, "type": "incident", "results": []}, "expected a string id, got id 7"),
        ({"id": "", "type": "incident", "results": []}, "expected a string id"),
        ({"id": "a", "results": []}, 'type must be "subscription" or "incident", got None'),
        ({"id": "a", "type": "alert", "results": []}, "got 'alert'"),
        ({"id": "a", "type": "incident"}, "results must be a list, got none"),
        ({"id": "a", "type": "incident", "results": {"x": 1}}, "results must be a list, got an object"),
        ({"id": "a", "type": "incident", "results": None}, "results must be a list, got null"),
    ],
)
def test_not_a_notification(body: Any, why: str) -> None:
    with pytest.raises(DecodeError) as exc:
        parse_notification(body)
    assert why in str(exc.value)
    assert isinstance(exc.value, urlscan_rs.UrlscanError)


# ---------------------------------------------------------------- models: leniency


def test_unknown_is_none() -> None:
    n = Notification({})
    for name in Notification.fields():
        assert getattr(n, name) is None, name
    h = HostnameHit({})
    assert (h.hostname, h.first_seen, h.sources) == (None, None, None) and h.sort == []
    c = CertificateHit({})
    assert (c.domain, c.valid_to, c.hostnames) == (None, None, None)


def test_empty_object_for_a_list_reads_as_empty_list() -> None:
    n = Notification({"searchIds": {}, "changes": {}, "results": {}})
    assert n.search_ids == [] and n.changes == [] and n.results == []
    assert HostnameHit({"sources": {}}).sources == []
    assert CertificateHit({"hostnames": {}}).hostnames == []


def test_hostname_hit() -> None:
    h = HostnameHit(HOSTNAME_HIT)
    assert h.id == "0123456789abcdef01234567" and h.sort == [1795381121360, "login.example.net"]
    assert (h.hostname, h.domain, h.apex_domain) == ("login.example.net", "example.net", "example.net")
    assert h.date == h.last_seen == datetime(2026, 11, 23, 10, tzinfo=timezone.utc)
    assert h.first_seen == datetime(2026, 11, 20, 8, tzinfo=timezone.utc)
    assert h.sources == ["pdns", "scan"]
    assert h.to_record()["hostname"] == "login.example.net" and "sort" not in h.to_record()
    # camelCase spellings are read too
    assert HostnameHit({"firstSeen": "2026-01-01T00:00:00Z"}).first_seen == datetime(2026, 1, 1, tzinfo=timezone.utc)


def test_incident_hit_is_an_incident() -> None:
    raw = {
        "_id": "674199e0a1b2c3d4e5f60004",
        "sort": [1795381121360, "674199e0a1b2c3d4e5f60004"],
        "date": "2026-11-23T10:00:00.000Z",
        "observable": "changing.example.net",
        "state": "active",
        "sourceType": "subscription",
        "sourceId": "674199e0a1b2c3d4e5f60001",
        "type": "hostname",
        "visibility": "private",
        "owner": "analyst",
        "createdAt": "2026-11-23T10:00:00.000Z",
        "scannedAt": None,
        "expireAt": "2026-12-23T10:00:00.000Z",
        "labels": [],
        "channels": ["674199e0a1b2c3d4e5f60003"],
    }
    h = IncidentHit(raw)
    assert isinstance(h, Incident) and h.id == raw["_id"] and h.sort == raw["sort"]
    assert h.date == h.created_at == datetime(2026, 11, 23, 10, tzinfo=timezone.utc)
    assert (h.observable, h.state, h.source_type, h.source_id) == (
        "changing.example.net",
        "active",
        "subscription",
        raw["sourceId"],
    )
    assert (h.type, h.visibility, h.owner, h.scanned_at) == ("hostname", "private", "analyst", None)
    assert h.expire_at == datetime(2026, 12, 23, 10, tzinfo=timezone.utc)
    assert h.labels == [] and h.channels == ["674199e0a1b2c3d4e5f60003"]
    assert h != Incident(raw)  # a hit is not the incident object itself


def test_notification_hit_is_a_notification() -> None:
    raw = {**SUBSCRIPTION_PAYLOAD, "_id": SUBSCRIPTION_PAYLOAD["id"], "date": "2026-11-23T10:00:00.000Z"}
    raw["sort"] = [1795381121360, raw["_id"]]
    h = NotificationHit(raw)
    assert isinstance(h, Notification) and h.id == raw["id"] and h.sort == raw["sort"]
    assert h.date == h.created_at and h.subscription_id == raw["subscriptionId"]
    assert h.results is not None and isinstance(h.results[0], SearchHit)
    assert set(Notification.fields()) < set(NotificationHit.fields())
    # the id also reads from `_id` alone
    assert NotificationHit({"_id": "x"}).id == "x" and Notification({"id": "y", "_id": "x"}).id == "y"


def test_certificate_hit() -> None:
    raw = {
        "_id": "a" * 24,
        "sort": [1795381121360, "a" * 24],
        "date": "2026-11-23T10:00:00.000Z",
        "domain": "login.example.net",
        "subjectName": "login.example.net",
        "issuer": "R3",
        "validFrom": "2026-10-01T00:00:00.000Z",
        "validTo": "2026-12-30T00:00:00.000Z",
        "hostnames": ["login.example.net"],
        "firstSeen": "2026-11-20T08:00:00.000Z",
        "lastSeen": "2026-11-23T10:00:00.000Z",
    }
    c = CertificateHit(raw)
    assert (c.id, c.domain, c.subject_name, c.issuer) == ("a" * 24, "login.example.net", "login.example.net", "R3")
    assert c.valid_from == datetime(2026, 10, 1, tzinfo=timezone.utc) and c.valid_to == datetime(
        2026, 12, 30, tzinfo=timezone.utc
    )
    assert c.hostnames == ["login.example.net"] and c.last_seen == c.date
    assert c.first_seen == datetime(2026, 11, 20, 8, tzinfo=timezone.utc)
    assert c.to_record()["issuer"] == "R3"


# ---------------------------------------------------------------- search yields typed hits

DOCS: dict[str, list[dict[str, Any]]] = {
    "hostnames": [
        {**HOSTNAME_HIT, "_id": f"h{i}", "hostname": f"h{i}.example.net", "sort": [1795381121360 - i, f"h{i}.example.net"]}
        for i in range(5)
    ],
    "incidents": [{"_id": f"i{i}", "observable": f"o{i}.example.net", "sort": [1795381121360 - i, f"i{i}"]} for i in range(5)],
    "notifications": [
        {**INCIDENT_PAYLOAD, "_id": f"n{i}", "id": f"n{i}", "sort": [1795381121360 - i, f"n{i}"]} for i in range(5)
    ],
    "certificates": [{"_id": f"c{i}", "domain": f"c{i}.example.net", "sort": [1795381121360 - i, f"c{i}"]} for i in range(5)],
    "domains": [
        {"_id": f"d{i}", "domain": f"d{i}.example.net", "scanCount": i + 1, "sort": [1795381121360 - i, f"d{i}"]}
        for i in range(5)
    ],
}


# The search queries received, oldest first.
SEEN: list[dict[str, str]] = []


def data_sources(method: str, path: str, query: dict[str, list[str]]) -> tuple[int, Any]:
    """GET /api/v1/search/ over DOCS, paged by size and search_after."""
    q = {name: values[-1] for name, values in query.items()}
    SEEN.append(q)
    docs = DOCS.get(q.get("datasource", ""), [])
    if "search_after" in q:
        ms, _, ident = q["search_after"].partition(",")
        i = next(i for i, d in enumerate(docs) if d["sort"] == [int(ms), ident])
        docs = docs[i + 1 :]
    size = int(q.get("size", "100"))
    return 200, {"results": docs[:size], "total": len(DOCS.get(q.get("datasource", ""), [])), "has_more": False}


@pytest.fixture(scope="module")
def sources() -> Iterator[str]:
    with serve(data_sources) as served:
        yield served.url


CLASSES = {
    "hostnames": HostnameHit,
    "incidents": IncidentHit,
    "notifications": NotificationHit,
    "certificates": CertificateHit,
    "domains": DomainHit,
}


@pytest.mark.parametrize("datasource", list(CLASSES))
def test_search_yields_the_data_sources_hits(sources: str, datasource: str) -> None:
    with Client("00000000-0000-4000-8000-000000000001", base_url=sources) as c:
        it = c.search("", datasource=datasource, size=2)  # type: ignore[call-overload]
        hits = list(it)
        assert [type(h) for h in hits] == [CLASSES[datasource]] * 5
        assert [h.id for h in hits] == [d["_id"] for d in DOCS[datasource]]
        assert it.total == 5
        # pages followed with the data source's own ids in search_after
        assert SEEN[-1]["search_after"] == f"{1795381121360 - 3},{DOCS[datasource][3]['sort'][1]}"
        # resuming from a cursor of that data source
        rest = list(
            c.search("", datasource=datasource.upper(), search_after=f"{1795381121360 - 1},{DOCS[datasource][1]['sort'][1]}")
        )  # type: ignore[call-overload]
        assert [h.id for h in rest] == [d["_id"] for d in DOCS[datasource][2:]]
        assert isinstance(rest[0], CLASSES[datasource])


def test_search_yields_typed_hits_async(sources: str) -> None:
    async def main() -> list[Any]:
        async with AsyncClient("00000000-0000-4000-8000-000000000001", base_url=sources) as c:
            return [h async for h in c.search("", datasource="hostnames", size=3)]

    hits = run(main())
    assert len(hits) == 5 and all(isinstance(h, HostnameHit) for h in hits)
    assert hits[0].hostname == "h0.example.net"


def test_search_records_of_other_data_sources(sources: str) -> None:
    with Client("00000000-0000-4000-8000-000000000001", base_url=sources) as c:
        records = c.search("", datasource="hostnames").to_records()
        assert [r["hostname"] for r in records] == [f"h{i}.example.net" for i in range(5)]
        it = c.search("", datasource="certificates", size=2)
        html = it._repr_html_()  # type: ignore[attr-defined]
        assert "c0.example.net" in html and "<th>issuer</th>" in html


def test_scan_search_after_stays_strict(sources: str) -> None:
    with Client("00000000-0000-4000-8000-000000000001", base_url=sources) as c:
        with pytest.raises(urlscan_rs.ValidationError):
            c.search("", search_after="1611489992146,example.com")
        with pytest.raises(urlscan_rs.ValidationError):
            c.search("", datasource="hostnames", search_after="1611489992146,a,b")
        with pytest.raises(urlscan_rs.ValidationError):
            c.search("", datasource="hostnames", search_after="example.com")


def test_emulator_search_of_scans_still_gives_search_hits(emu: Emulator, client: Client) -> None:
    assert all(type(h) is SearchHit for h in client.search("", limit=3, datasource="scans"))
    assert all(type(h) is SearchHit for h in client.search("", limit=3))


# ---------------------------------------------------------------- emulator event records


def test_emulator_event_records_start_empty(fresh: Emulator) -> None:
    assert fresh.outbox == [] and fresh.deliveries == [] and fresh.notifications == []
    assert fresh._native.outbox() == [] and fresh._native.deliveries() == [] and fresh._native.notifications() == []


@pytest.mark.parametrize("timeout", [0.0, -1.0, float("nan"), float("inf")])
def test_webhook_timeout_is_checked(timeout: float) -> None:
    with pytest.raises(urlscan_rs.ValidationError, match="webhook_timeout"):
        Emulator(scans=1, webhook_timeout=timeout)


def test_webhook_timeout_accepted() -> None:
    with Emulator(scans=1, webhook_timeout=0.25) as e:
        assert e.running and e.deliveries == []


def test_email_from_the_wire() -> None:
    raw = {
        "to": ["soc@example.com"],
        "subject": "urlscan: lookalikes",
        "notification": SUBSCRIPTION_PAYLOAD,
        "at": "2026-11-23T10:00:00.000Z",
    }
    m = Email._from_wire(raw)
    assert m.to == ["soc@example.com"] and m.subject == "urlscan: lookalikes"
    assert isinstance(m.notification, Notification) and m.notification.id == SUBSCRIPTION_PAYLOAD["id"]
    assert m.at == datetime(2026, 11, 23, 10, tzinfo=timezone.utc) and m.raw is raw
    with pytest.raises(AttributeError):
        m.subject = "x"  # type: ignore[misc]


def test_delivery_from_the_wire() -> None:
    ok = Delivery._from_wire(
        {
            "url": "http://127.0.0.1:9/webhook",
            "status": 200,
            "error": None,
            "attempt": 1,
            "notification": INCIDENT_PAYLOAD,
            "at": "2026-11-23T10:00:01.000Z",
        }
    )
    assert (ok.url, ok.status, ok.error, ok.attempt, ok.ok) == ("http://127.0.0.1:9/webhook", 200, None, 1, True)
    assert ok.notification.type == "incident" and ok.at.tzinfo is not None
    failed = Delivery._from_wire(
        {
            "url": "http://127.0.0.1:9/webhook",
            "status": None,
            "error": "connection refused",
            "attempt": 3,
            "notification": INCIDENT_PAYLOAD,
            "at": "2026-11-23T10:01:11.000Z",
        }
    )
    assert (failed.status, failed.error, failed.attempt, failed.ok) == (None, "connection refused", 3, False)
    assert failed.notification.id == ok.notification.id
    assert Delivery._from_wire({**failed.raw, "status": 503, "error": None}).ok is False


# ---------------------------------------------------------------- WebhookReceiver


def post(url: str, body: bytes, headers: dict[str, str] | None = None) -> tuple[int, Any]:
    req = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json", **(headers or {})}, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def payload(nid: str, **extra: Any) -> bytes:
    return json.dumps({**SUBSCRIPTION_PAYLOAD, "id": nid, **extra}).encode()


def test_receiver_collects_and_deduplicates() -> None:
    with WebhookReceiver() as hook:
        assert hook.url.startswith("http://127.0.0.1:") and hook.url.endswith("/webhook") and hook.port > 0
        assert post(hook.url, payload("n1"), {"X-Urlscan-Notification-Id": "n1"}) == (200, {"ok": True})
        assert post(hook.url, payload("n1", total=9))[0] == 200  # a retry: same id
        assert post(hook.url + "/elsewhere", payload("n2"))[0] == 200
        got = hook.wait(count=2, timeout=10)
        assert [n.id for n in got] == ["n1", "n2"] and got == hook.notifications
        assert got[0].total == 1  # the first arrival is kept
        reqs = hook.requests
        assert len(reqs) == 3 and all(isinstance(r, ReceivedRequest) for r in reqs)
        first = reqs[0]
        assert first.method == "POST" and first.path == "/webhook" and first.status == 200
        assert first.headers["X-Urlscan-Notification-Id"] == "n1" and first.json()["id"] == "n1"
        assert first.body == payload("n1") and first.received_at.tzinfo is not None
        assert reqs[2].path == "/webhook/elsewhere"
        assert "notifications=2" in repr(hook)


def test_receiver_refuses_what_is_not_a_notification() -> None:
    with WebhookReceiver() as hook:
        assert post(hook.url, b"not json")[0] == 400
        assert post(hook.url, b'{"id": "x", "type": "other", "results": []}') == (
            400,
            {"ok": False, "error": "not a notification"},
        )
        with pytest.raises(urllib.error.HTTPError) as exc:
            urllib.request.urlopen(hook.url, timeout=10)
        assert exc.value.code == 405
        assert [r.status for r in hook.requests] == [400, 400] and hook.notifications == []


def test_receiver_fail_first_answers_503() -> None:
    with WebhookReceiver(fail_first=2) as hook:
        assert [post(hook.url, payload("n1"))[0] for _ in range(3)] == [503, 503, 200]
        assert [n.id for n in hook.notifications] == ["n1"]
        assert [r.status for r in hook.requests] == [503, 503, 200]


def test_receiver_status_option() -> None:
    with WebhookReceiver(status=404) as hook:
        assert post(hook.url, payload("n1"))[0] == 404
        assert hook.notifications == [] and len(hook.requests) == 1
    with WebhookReceiver(status=202) as hook:
        assert post(hook.url, payload("n1")) == (202, {"ok": True})
        assert len(hook.notifications) == 1
    with pytest.raises(ValueError):
        WebhookReceiver(fail_first=-1)
    with pytest.raises(ValueError):
        WebhookReceiver(status=999)


def test_receiver_wait_times_out_clearly() -> None:
    with WebhookReceiver() as hook:
        post(hook.url, payload("n1"))
        with pytest.raises(TimeoutError) as exc:
            hook.wait(count=2, timeout=0.1)
        assert "received 1 notification" in str(exc.value) and "waited for 2" in str(exc.value) and hook.url in str(exc.value)


def test_receiver_wait_wakes_up_on_arrival() -> None:
    with WebhookReceiver() as hook:
        started = threading.Event()

        def sender() -> None:
            started.wait()
            for i in range(3):
                post(hook.url, payload(f"n{i}"))

        t = threading.Thread(target=sender)
        t.start()
        started.set()
        got = hook.wait(count=3, timeout=30)
        t.join()
        assert [n.id for n in got] == ["n0", "n1", "n2"]


def test_receiver_is_thread_safe() -> None:
    with WebhookReceiver() as hook:
        in_threads(lambda body: post(hook.url, body), [payload(f"n{i % 20}") for i in range(60)])
        assert len(hook.wait(count=20, timeout=30)) == 20
        assert len(hook.requests) == 60 and len({n.id for n in hook.notifications}) == 20
        hook.clear()
        assert hook.requests == [] and hook.notifications == []


def test_receiver_close_is_idempotent_and_keeps_data() -> None:
    hook = WebhookReceiver(host="127.0.0.1", port=0)
    post(hook.url, payload("n1"))
    hook.close()
    hook.close()
    assert len(hook.notifications) == 1
    with pytest.raises(urllib.error.URLError):
        post(hook.url, payload("n2"))


def test_fixture_gives_a_receiver(urlscan_webhook: WebhookReceiver) -> None:
    assert isinstance(urlscan_webhook, WebhookReceiver) and urlscan_webhook.notifications == []
    post(urlscan_webhook.url, payload("n1"))
    assert urlscan_webhook.wait()[0].id == "n1"


@pytest.mark.urlscan_webhook(fail_first=1)
def test_fixture_takes_marker_options(urlscan_webhook: WebhookReceiver) -> None:
    assert post(urlscan_webhook.url, payload("n1"))[0] == 503
    assert post(urlscan_webhook.url, payload("n1"))[0] == 200


def test_the_readme_example_reads_the_attempt_after_the_receiver_has_it() -> None:
    """The README's flow, twenty times: hook.wait() returns when the request is in, and
    wait_deliveries() when the emulator has recorded its answer (no race between them)."""
    with Emulator(scans=10, seed=4) as emu, WebhookReceiver() as hook, emu.client() as client:
        ch = client.channels.create(type="webhook", name="soc", webhook_url=hook.url)
        s = client.saved_searches.create(datasource="scans", name="lookalikes", query="page.domain:*paypal*")
        client.subscriptions.create(
            search_ids=[s.id], channel_ids=[ch.id], frequency="live", email_addresses=["soc@example.com"],
            name="live", is_active=True, ignore_time=True,
        )  # fmt: skip
        for n in range(1, 21):
            client.scan(f"https://paypal-login-{n}.example.net/")
            emu.advance(60)
            notes = hook.wait(count=n, timeout=10.0)
            attempts = emu.wait_deliveries(n)
            assert attempts[n - 1].status == 200 and attempts[n - 1].attempt == 1
            assert {a.notification.id for a in attempts} == {x.id for x in notes}
        with pytest.raises(TimeoutError, match="21"):
            emu.wait_deliveries(21, timeout=0.05)
