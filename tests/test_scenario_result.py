"""``urlscan_rs.testing.result``: a result document the emulator's generator builds with
the facts a test states, each read alike by every part of the package (the model's
fields, the table row, the relationships, the indicators, STIX and MISP)."""

from __future__ import annotations

import ipaddress
import json
from datetime import datetime, timezone
from typing import Any

import pytest

import urlscan_rs
from urlscan_rs.errors import ValidationError
from urlscan_rs.models import ScanResult
from urlscan_rs.testing import result

URL = "https://evil.example/login"
FULL: dict[str, Any] = {
    "malicious": True,
    "score": 90,
    "brands": ["paypal"],
    "ip": "203.0.113.7",
    "asn": "AS64500",
    "country": "NL",
    "title": "Log in",
    "status": 200,
}


def _page_requests(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The requests answered by the page's own host."""
    host = doc["page"]["domain"]
    out = []
    for r in doc["data"]["requests"]:
        url = r["request"]["request"]["url"]
        if url.split("/")[2] == host:
            out.append(r)
    return out


def _stix(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return list(ScanResult(doc).to_stix()["objects"])


def _misp_values(event: dict[str, Any], relation: str) -> list[str]:
    return [a["value"] for o in event["Object"] for a in o["Attribute"] if a["object_relation"] == relation]


def test_without_facts_it_is_the_generators_scan_and_the_same_each_time() -> None:
    doc = result(URL)
    assert doc == result(URL)  # the same call builds the same document
    scan = ScanResult(doc)
    assert scan.url == URL and scan.page.domain == "evil.example"
    assert scan.time == datetime(2025, 1, 1, tzinfo=timezone.utc)
    assert scan.task.visibility == "public"
    assert doc["task"]["reportURL"] == f"https://urlscan.io/result/{scan.uuid}/"
    assert doc["task"]["screenshotURL"] == f"https://urlscan.io/screenshots/{scan.uuid}.png"
    # A complete document: every part the service answers.
    assert {"data", "stats", "meta", "task", "page", "lists", "verdicts"} <= set(doc)
    assert scan.lists.ips and scan.lists.hashes and doc["data"]["requests"]
    # The facts are part of what the uuid is derived from; a given uuid and time are used.
    assert result(URL, title="Other")["task"]["uuid"] != scan.uuid
    chosen = result(URL, uuid="5a2f0c1e-1111-4222-8333-944455556666", time=datetime(2024, 6, 1, 12, 0), visibility="unlisted")
    assert chosen["task"]["uuid"] == "5a2f0c1e-1111-4222-8333-944455556666"
    assert chosen["task"]["time"] == "2024-06-01T12:00:00.000Z"  # a naive time is UTC
    assert chosen["task"]["visibility"] == "unlisted"


def test_the_verdict_facts_are_every_verdicts() -> None:
    # A URL that looks like nothing: the generator calls it benign.
    assert ScanResult(result(URL)).malicious is False
    doc = result(URL, malicious=True, score=90, brands=["paypal", "Microsoft"])
    scan = ScanResult(doc)
    assert scan.malicious is True and scan.is_malicious() is True
    for part in (scan.verdicts.overall, scan.verdicts.urlscan):
        assert part.malicious is True and part.score == 90
        assert part.categories == ["phishing"]
    assert doc["verdicts"]["overall"]["brands"] == ["paypal", "microsoft"]
    assert [b["key"] for b in doc["verdicts"]["urlscan"]["brands"]] == ["paypal", "microsoft"]
    v = scan.verdict
    assert v.malicious is True and v.score == 90 and v.brands == ("paypal", "microsoft")
    assert "paypal" in v.tags and v.brand_ai == "PayPal"
    assert v.safe_browsing == ("SOCIAL_ENGINEERING",)
    assert scan.labels == ["visual.brandai"] and scan.visible.brandname == "PayPal"
    assert doc["stats"]["malicious"] == 1
    # The page is the kit of the brand it impersonates.
    assert scan.page.title is not None and "PayPal" in scan.page.title
    record = scan.to_record()
    assert record["malicious"] is True and record["score"] == 90 and record["brandname"] == "PayPal"
    # STIX: an indicator for the URL; MISP: tagged malicious.
    indicators = [o for o in _stix(doc) if o["type"] == "indicator"]
    assert len(indicators) == 1 and indicators[0]["labels"] == ["phishing"]
    assert any(t["name"] == 'urlscan:verdict="malicious"' for t in scan.to_misp()["Tag"])


def test_malicious_alone_and_malicious_false() -> None:
    alone = ScanResult(result(URL, malicious=True))
    assert alone.malicious is True and alone.verdicts.overall.score == 100
    assert alone.verdict.brands == () and alone.labels == []
    # A URL the generator calls phishing, said to be benign: no brand anywhere.
    phish = "https://paypal-secure-login.xyz/signin"
    assert ScanResult(result(phish)).malicious is True
    doc = result(phish, malicious=False)
    scan = ScanResult(doc)
    assert scan.malicious is False and scan.verdicts.overall.score == 0
    assert scan.verdict.brands == () and scan.labels == [] and scan.visible.brandname is None
    assert not [o for o in _stix(doc) if o["type"] == "indicator"]
    # A score alone does not change the flag (the service's two fields).
    assert ScanResult(result(URL, score=-100)).verdicts.overall.score == -100


def test_the_host_facts_are_the_page_hosts_everywhere() -> None:
    doc = result(URL, ip="203.0.113.7", asn="AS64500", country="nl")
    scan = ScanResult(doc)
    assert (scan.page.ip, scan.page.asn, scan.page.country) == ("203.0.113.7", "AS64500", "NL")
    assert "203.0.113.7" in scan.lists.ips and "64500" in scan.lists.asns and "NL" in scan.lists.countries
    requests = _page_requests(doc)
    assert requests
    for r in requests:
        response = r["response"]
        assert response["response"]["remoteIPAddress"] == "203.0.113.7"
        assert response["asn"]["asn"] == "64500" and response["geoip"]["country"] == "NL"
    (stat,) = [s for s in doc["stats"]["ipStats"] if s["ip"] == "203.0.113.7"]
    assert "evil.example" in stat["domains"] and stat["asn"]["asn"] == "64500"
    assert stat["geoip"]["country"] == "NL"
    processors = doc["meta"]["processors"]
    assert {"ip": "203.0.113.7", "asn": "64500"}.items() <= next(
        a for a in processors["asn"]["data"] if a["ip"] == "203.0.113.7"
    ).items()
    assert next(g for g in processors["geoip"]["data"] if g["ip"] == "203.0.113.7")["geoip"]["country"] == "NL"
    # The generated reverse name was of the generated address: none for the given one.
    assert all(r["ip"] != "203.0.113.7" for r in processors["rdns"]["data"])
    record = scan.to_record()
    assert (record["ip"], record["asn"], record["country"]) == ("203.0.113.7", "AS64500", "NL")
    edges = {(e.source, e.kind, e.target) for e in scan.relationships()}
    assert ("evil.example", "resolves-to", "203.0.113.7") in edges
    assert ("203.0.113.7", "belongs-to", "AS64500") in edges
    assert "203.0.113.7" in scan.indicators().ipv4
    objects = _stix(doc)
    ids = {(o["type"], o.get("value", o.get("number"))): o["id"] for o in objects}
    assert ("ipv4-addr", "203.0.113.7") in ids and ("autonomous-system", 64500) in ids
    sros = {(o["relationship_type"], o["source_ref"], o["target_ref"]) for o in objects if o["type"] == "relationship"}
    assert ("resolves-to", ids[("domain-name", "evil.example")], ids[("ipv4-addr", "203.0.113.7")]) in sros
    assert ("belongs-to", ids[("ipv4-addr", "203.0.113.7")], ids[("autonomous-system", 64500)]) in sros
    event = scan.to_misp()
    page_object = next(
        o
        for o in event["Object"]
        if any(a["object_relation"] == "domain" and a["value"] == "evil.example" for a in o["Attribute"])
    )
    assert "203.0.113.7" in [a["value"] for a in page_object["Attribute"] if a["object_relation"] == "ip"]


def test_a_known_network_and_an_ipv6_address() -> None:
    doc = result(URL, asn="AS24940", ip=ipaddress.ip_address("2001:db8::7"))  # type: ignore[arg-type]
    scan = ScanResult(doc)
    assert scan.page.asnname == "HETZNER-AS, DE" and scan.page.country == "DE"
    assert scan.page.ip == "2001:db8::7" and "2001:db8::7" in scan.indicators().ipv6
    remote = {r["response"]["response"]["remoteIPAddress"] for r in _page_requests(doc)}
    assert remote == {"[2001:db8::7]"}
    assert any(o["type"] == "ipv6-addr" and o["value"] == "2001:db8::7" for o in _stix(doc))


def test_title_and_status() -> None:
    doc = result(URL, title="Sign in – Secure", status=403)
    scan = ScanResult(doc)
    assert scan.page.title == "Sign in – Secure" and scan.page.status == "403"
    primary = next(r for r in doc["data"]["requests"] if r["request"].get("primaryRequest"))
    assert primary["response"]["response"]["status"] == 403
    record = scan.to_record()
    assert record["title"] == "Sign in – Secure" and record["status"] == "403"
    assert scan.summary()["page"]["title"] == "Sign in – Secure"


@pytest.mark.parametrize(
    ("outcome", "read_as", "error"),
    [
        ("ok", "ok", None),
        ("unreachable", "unreachable", "net::ERR_CONNECTION_REFUSED"),
        ("unresolved", "unreachable", None),
        ("blocked", "blocked", "net::ERR_BLOCKED_BY_ADMINISTRATOR"),
        ("empty", "empty", None),
        ("download", "ok", None),
    ],
)
def test_each_outcome_is_read_as_the_model_names_it(outcome: str, read_as: str, error: str | None) -> None:
    # The host of the URL says nothing of how loading it went: only the fact does.
    scan = ScanResult(result("https://shop.example.com/", outcome=outcome))  # type: ignore[arg-type]
    assert scan.page_outcome == read_as
    assert scan.page_error == error
    if read_as in ("unreachable", "blocked"):
        assert scan.page.ip is None and scan.lists.ips == []
    assert (len(scan.downloads()) == 1) is (outcome == "download")


def test_outcome_ok_on_a_host_the_emulator_would_fail() -> None:
    url = "https://unreachable.example.org/"
    assert ScanResult(result(url)).page_outcome == "unreachable"
    assert ScanResult(result(url, outcome="ok")).page_outcome == "ok"


def test_downloads_are_the_files_every_export_names() -> None:
    sha = "a" * 64
    doc = result(
        URL,
        downloads=[
            "invoice.zip",
            {"filename": "payload.exe", "sha256": sha.upper(), "filesize": 4096, "url": "https://cdn.example/p.exe"},
        ],
    )
    scan = ScanResult(doc)
    first, second = scan.downloads()
    assert first.filename == "invoice.zip" and first.mime_type == "application/zip"
    assert first.url == "https://evil.example/invoice.zip" and first.state == "completed"
    assert first.sha256 is not None and len(first.sha256) == 64 and first.filesize == first.received_bytes
    assert (second.sha256, second.filename, second.filesize) == (sha, "payload.exe", 4096)
    assert second.mime_type == "application/x-dosexec" and second.url == "https://cdn.example/p.exe"
    assert second.started_at is not None and second.finished_at is not None and second.started_at < second.finished_at
    edges = {(e.source, e.kind, e.target) for e in scan.relationships()}
    assert (scan.page.url, "downloaded", sha) in edges
    files = {o["hashes"]["SHA-256"]: o for o in _stix(doc) if o["type"] == "file" and "name" in o}
    assert files[sha]["name"] == "payload.exe" and files[sha]["size"] == 4096
    assert files[first.sha256]["name"] == "invoice.zip"
    event = scan.to_misp()
    assert {"invoice.zip", "payload.exe"} <= set(_misp_values(event, "filename"))
    assert sha in _misp_values(event, "sha256")


def test_tags_are_the_tasks() -> None:
    scan = ScanResult(result(URL, tags=("phish", "case-7")))
    assert scan.task.tags == ["phish", "case-7"] and scan.to_record()["tags"] == ["phish", "case-7"]


def test_all_facts_together_read_alike_in_the_summary() -> None:
    scan = ScanResult(result(URL, **FULL, tags=["x"]))
    summary = scan.summary()
    assert summary["verdict"]["malicious"] is True and summary["verdict"]["brands"] == ["paypal"]
    page = summary["page"]
    assert (page["ip"], page["asn"], page["country"], page["title"]) == ("203.0.113.7", "AS64500", "NL", "Log in")


@pytest.mark.parametrize(
    ("keywords", "says"),
    [
        ({"score": 101}, "score must be an integer from -100"),
        ({"score": True}, "score must be an int"),
        ({"score": 9.5}, "score must be an int"),
        ({"malicious": 1}, "malicious must be True, False or None"),
        ({"brands": "paypal"}, "brands must be a list"),
        ({"brands": ["paypall"]}, "did you mean paypal?"),
        ({"brands": ["nosuchbrand"]}, "the brands the emulator knows are paypal"),
        ({"brands": [5]}, "brands[0] must be brand keys"),
        ({"malicious": False, "brands": ["paypal"]}, "brands"),
        ({"ip": "203.0.113.300"}, "ip must be an IPv4 or IPv6 address"),
        ({"ip": 3405803783}, "ip must be a str"),
        ({"asn": "64500"}, 'asn must be "AS"'),
        ({"asn": "ASX"}, 'asn must be "AS"'),
        ({"asn": 64500}, "asn must be a str"),
        ({"country": "NLD"}, "country must be a two-letter"),
        ({"country": "N1"}, "country must be a two-letter"),
        ({"status": 600}, "status must be an HTTP status from 100 to 599"),
        ({"title": b"x"}, "title must be a str"),
        ({"outcome": "gone"}, "outcome must be one of ok"),
        ({"outcome": "unresolved", "title": "x"}, "title is a fact of a page that loaded"),
        ({"downloads": "a.zip"}, "downloads must be a list"),
        ({"downloads": [{"sha256": "xyz"}]}, "downloads[0].sha256 must be 64 hexadecimal"),
        ({"downloads": [{"name": "a"}]}, 'downloads[0]: unknown key "name"'),
        ({"downloads": [{"filename": "a/b"}]}, "downloads[0].filename must be a file name"),
        ({"downloads": [{"filesize": object()}]}, "downloads[0] must hold"),
        ({"tags": "phish"}, "tags must be a list"),
        ({"tags": [f"t{i}" for i in range(11)]}, "at most 10 tags"),
        ({"uuid": "not-a-uuid"}, "uuid must be a UUID"),
        ({"time": "2025-01-01"}, "time must be a datetime"),
        ({"visibility": "secret"}, "visibility must be one of public, unlisted, private"),
    ],
)
def test_a_bad_value_is_a_validation_error_naming_its_keyword(keywords: dict[str, Any], says: str) -> None:
    with pytest.raises(ValidationError) as e:
        result(URL, **keywords)
    assert says in str(e.value)


def test_the_known_outcomes_are_listed_and_a_bad_url_refused() -> None:
    with pytest.raises(ValidationError) as e:
        result(URL, outcome="down")  # type: ignore[arg-type]
    for name in ("ok", "unreachable", "unresolved", "blocked", "empty", "download"):
        assert name in str(e.value)
    for bad in ("ftp://evil.example/", "", 5):
        with pytest.raises(ValidationError, match="url"):
            result(bad)  # type: ignore[arg-type]
    # An IP literal is its own address.
    with pytest.raises(ValidationError, match="ip: the page's host is the address 198.51.100.4"):
        result("http://198.51.100.4/", ip="203.0.113.7")


def test_the_document_is_json_as_the_service_sends_it() -> None:
    doc = result(URL, **FULL)
    assert json.loads(json.dumps(doc)) == doc
    assert isinstance(urlscan_rs.ScanResult(doc), ScanResult)


def test_a_built_result_is_served_and_found_as_built() -> None:
    from urlscan_rs.testing import Emulator

    doc = result(URL, **FULL, downloads=["invoice.zip"], tags=["case-7"])
    with Emulator(scans=5) as emu, emu.client() as client:
        uuid = emu.add_result(doc)
        assert uuid == doc["task"]["uuid"]
        served = client.result(uuid)
        assert served.malicious is True and served.verdict.brands == ("paypal",)
        assert (served.page.ip, served.page.asn, served.page.country) == ("203.0.113.7", "AS64500", "NL")
        assert served.page.title == "Log in" and served.task.tags == ["case-7"]
        assert [d.filename for d in served.downloads()] == ["invoice.zip"]
        # Found by the facts a playbook searches for, its hit telling the same.
        (hit,) = list(client.search('page.ip:"203.0.113.7" AND page.asn:AS64500', limit=5))
        assert hit.uuid == uuid and hit.verdicts.malicious is True and hit.verdicts.score == 90
        assert [b.key for b in hit.brand if not isinstance(b, str)] == ["paypal"]
        assert hit.page.title == "Log in" and hit.page.country == "NL"
