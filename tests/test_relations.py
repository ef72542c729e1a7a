"""What connectors derive from a result: page outcomes, downloads and relationships, on recorded
real results (a 2018 scan of google.com; a 2021 scan of a host that does not resolve, from the
rapid7 insightconnect plugin's payloads, copied in full in the reference) and on emulated ones."""

from __future__ import annotations

import base64
import copy
import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from urlscan_rs.errors import ValidationError
from urlscan_rs.models import Download, Relationship, ScanResult
from urlscan_rs.testing import Emulator

DATA = Path(__file__).parent / "data"
GOOGLE = json.loads((DATA / "result-2018-google.json").read_text())
UNRESOLVED = json.loads((DATA / "result-2021-unresolved.json").read_text())


def edges(r: ScanResult, kind: str) -> list[tuple[str, str]]:
    return [(e.source, e.target) for e in r.relationships() if e.kind == kind]


def test_a_recorded_result_as_typed_edges() -> None:
    r = ScanResult(GOOGLE)
    assert (r.page_outcome, r.page_error, r.downloads()) == ("ok", None, [])
    rel = r.relationships()
    assert len(rel) == len(set(rel))  # each edge once
    assert Relationship("https://www.google.com/", "hosted-on", "www.google.com", "url", "domain") in rel
    assert ("www.google.com", "2a00:1450:4001:824::2004") in edges(r, "resolves-to")
    assert ("2a00:1450:4001:824::2004", "AS15169") in edges(r, "belongs-to")  # "15169" on the wire
    # The redirect recorded in data.requests[].request.redirectResponse.
    [(source, target)] = edges(r, "redirects-to")
    assert source == "https://adservice.google.com/adsid/google/ui" and target.startswith("https://adservice.google.de/")
    assert ("https://www.google.com/", "https://mail.google.com/mail/?tab=wm") in edges(r, "links-to")
    certificates = [e for e in rel if e.kind == "serves-certificate"]
    assert certificates and all((e.source_type, e.target_type) == ("domain", "certificate") for e in certificates)
    # Every endpoint of an edge is an observable the result lists.
    lists = r.lists
    for e in rel:
        if e.target_type == "ip":
            assert e.target in lists.ips
        if e.source_type == "domain":
            assert e.source in lists.domains


def test_a_host_that_does_not_resolve_is_unreachable() -> None:
    # As the service records it: the page's request has a response of zero lengths, no status.
    r = ScanResult(UNRESOLVED)
    assert (r.page_outcome, r.page_error) == ("unreachable", None)
    assert r.relationships() == [Relationship("https://arnaozn.rxxyy.com/", "hosted-on", "arnaozn.rxxyy.com", "url", "domain")]
    assert r.downloads() == []


def _primary_response(doc: dict[str, Any]) -> dict[str, Any]:
    response: dict[str, Any] = doc["data"]["requests"][0]["response"]
    return response


@pytest.mark.parametrize(
    ("error", "outcome"),
    [
        ("net::ERR_NAME_NOT_RESOLVED", "unreachable"),
        ("net::ERR_CONNECTION_REFUSED", "unreachable"),
        ("net::ERR_BLOCKED_BY_ADMINISTRATOR", "blocked"),
    ],
)
def test_a_failed_page_says_how(error: str, outcome: str) -> None:
    doc = copy.deepcopy(GOOGLE)
    _primary_response(doc)["failed"] = {"errorText": error, "canceled": False, "type": "Document"}
    r = ScanResult(doc)
    assert (r.page_outcome, r.page_error) == (outcome, error)


def test_an_empty_page() -> None:
    doc = copy.deepcopy(GOOGLE)
    _primary_response(doc)["dataLength"] = 0
    doc["lists"]["urls"] = ["https://www.google.com/"]
    assert ScanResult(doc).page_outcome == "empty"
    # Zero bytes of its own but resources loaded: the page did something.
    _primary_response(doc)["dataLength"] = 0
    doc["lists"]["urls"] = ["https://www.google.com/", "https://www.google.com/logo.png"]
    assert ScanResult(doc).page_outcome == "ok"


def test_downloads_and_newer_redirects() -> None:
    doc = copy.deepcopy(GOOGLE)
    sha = "a" * 64
    doc["meta"]["processors"]["download"] = {
        "state": "done",
        "data": [
            {
                "filename": "invoice.zip",
                "filesize": 1234,
                "mimeType": "application/zip",
                "mimeDescription": "Zip archive data",
                "sha256": sha,
                "url": "https://www.google.com/invoice.zip",
                "state": "completed",
                "receivedBytes": 1234,
                "startedAt": "2018-10-01T10:00:00.000Z",
                "finishedAt": "2018-10-01T10:00:01.000Z",
            }
        ],
    }
    doc["data"]["redirects"] = [{"from": "http://google.com/", "to": "https://www.google.com/", "status": 301}]
    r = ScanResult(doc)
    [d] = r.downloads()
    assert isinstance(d, Download)
    assert (d.sha256, d.filename, d.filesize, d.mime_type, d.received_bytes) == (
        sha,
        "invoice.zip",
        1234,
        "application/zip",
        1234,
    )
    assert d.finished_at is not None and d.finished_at.year == 2018
    assert ("https://www.google.com/", sha) in edges(r, "downloaded")
    assert ("http://google.com/", "https://www.google.com/") in edges(r, "redirects-to")


def test_missing_parts_give_nothing_and_wrong_ones_are_skipped() -> None:
    r = ScanResult({"task": {"uuid": "0a2121d2-76ae-43f0-a4f9-b4b43cd3770a", "url": "https://x.example/"}})
    assert (r.page_outcome, r.page_error, r.downloads()) == (None, None, [])
    assert r.relationships() == [Relationship("https://x.example/", "hosted-on", "x.example", "url", "domain")]
    doc = copy.deepcopy(GOOGLE)
    doc["data"]["links"] = [{"href": 5}, "text", {"text": "no href"}]
    doc["meta"]["processors"]["download"] = {"data": {}}
    r = ScanResult(doc)
    assert edges(r, "links-to") == [] and r.downloads() == []


def test_emulated_results_agree_with_their_lists() -> None:
    with Emulator(scans=5, seed=3) as e, e.client() as c:
        for hit in c.search("", limit=3):
            r = c.result(hit.id)
            assert r.page_outcome == "ok"
            rel = r.relationships()
            kinds = Counter(x.kind for x in rel)
            assert kinds["hosted-on"] == 1 and kinds["resolves-to"] >= 1 and kinds["belongs-to"] >= 1
            assert {x.target for x in rel if x.kind == "resolves-to"} <= set(r.lists.ips)
            assert {x.source for x in rel if x.kind == "resolves-to"} <= set(r.lists.domains)


def _with_download() -> tuple[ScanResult, str]:
    doc = copy.deepcopy(GOOGLE)
    sha = "b" * 64
    file = {"filename": "setup.exe", "filesize": 10, "mimeType": "application/x-dosexec", "sha256": sha, "state": "completed"}
    doc["meta"]["processors"]["download"] = {"state": "done", "data": [file]}
    return ScanResult(doc), sha


def test_misp_objects_refer_to_each_other() -> None:
    pymisp = pytest.importorskip("pymisp")
    r, sha = _with_download()
    ev = pymisp.MISPEvent()
    ev.from_dict(**r.to_misp())
    by_uuid = {o.uuid: o for o in ev.objects}

    def values(o: Any, relation: str) -> list[str]:
        return [a.value for a in o.attributes if a.object_relation == relation]

    # Each domain's object holds the IPs it resolved to.
    for source, target in edges(r, "resolves-to"):
        [domain] = [o for o in ev.objects if o.name == "domain-ip" and values(o, "domain") == [source]]
        assert target in values(domain, "ip")
    # The redirect, and the download from the page's URL, as object references.
    refs = [(o, ref) for o in ev.objects for ref in o.references]
    [(redirect, ref)] = [(o, ref) for o, ref in refs if ref.relationship_type == "redirects-to"]
    assert values(redirect, "url") == ["https://adservice.google.com/adsid/google/ui"]
    assert values(by_uuid[ref.referenced_uuid], "url")[0].startswith("https://adservice.google.de/")
    [(file, ref)] = [(o, ref) for o, ref in refs if ref.relationship_type == "downloaded-from"]
    assert values(file, "sha256") == [sha] and values(file, "filename") == ["setup.exe"]
    assert values(by_uuid[ref.referenced_uuid], "url") == ["https://www.google.com/"]
    again = pymisp.MISPEvent()
    again.from_json(ev.to_json())  # survives pymisp's own round trip
    assert sum(len(o.references) for o in again.objects) == 2


def test_stix_bundles_carry_downloads_and_autonomous_systems() -> None:
    stix2 = pytest.importorskip("stix2")
    r, sha = _with_download()
    parsed = stix2.parse(json.dumps(r.to_stix()), allow_custom=False)
    [file] = [o for o in parsed.objects if o.type == "file" and o.hashes["SHA-256"] == sha]
    assert (file.name, file.size, file.mime_type) == ("setup.exe", 10, "application/x-dosexec")
    assert file.id == stix2.File(hashes={"SHA-256": sha}, name="setup.exe").id
    [asys] = [o for o in parsed.objects if o.type == "autonomous-system"]
    assert asys.number == 15169
    assert asys.id == stix2.AutonomousSystem(number=15169).id  # the id any STIX consumer computes


def test_the_screenshot_as_a_stix_artifact(emu: Emulator) -> None:
    stix2 = pytest.importorskip("stix2")
    with emu.client() as c:
        [hit] = list(c.search("", limit=1))
        r, png = c.result(hit.uuid), c.screenshot(hit.uuid)
    bundle = r.to_stix(screenshot=png)
    parsed = stix2.parse(json.dumps(bundle), allow_custom=False)
    [art] = [o for o in parsed.objects if o.type == "artifact"]
    assert art.mime_type == "image/png" and base64.b64decode(art.payload_bin) == bytes(png)
    assert art.hashes["SHA-256"] == hashlib.sha256(bytes(png)).hexdigest()
    assert art.id == stix2.Artifact(mime_type="image/png", payload_bin=art.payload_bin, hashes=art.hashes).id
    assert r.to_stix(screenshot=None) == r.to_stix()
    [observed] = [o for o in parsed.objects if o.type == "observed-data"]
    assert art.id in observed.object_refs
    assert r.to_stix(screenshot=png) == bundle  # deterministic ids
    assert not any(o["type"] == "artifact" for o in r.to_stix()["objects"])
    for bad in (True, b"GIF89a...", "a.png"):
        with pytest.raises(ValidationError, match="screenshot"):
            r.to_stix(screenshot=bad)  # type: ignore[arg-type]


def test_safe_browsing_and_brand_ai_on_the_verdict() -> None:
    recorded = ScanResult(json.loads((DATA / "result-2018-google.json").read_text()))
    assert recorded.verdict.safe_browsing == ()  # Safe Browsing answered, listing nothing
    doc = json.loads((DATA / "result-2018-google.json").read_text())
    doc["meta"]["processors"]["gsb"]["data"] = {
        "matches": [{"threatType": "SOCIAL_ENGINEERING"}, {"threatType": "MALWARE"}, {"threatType": 3}, "x"]
    }
    doc["visible"] = {"brandname": "PayPal"}
    v = ScanResult(doc).verdict
    assert v.safe_browsing == ("SOCIAL_ENGINEERING", "MALWARE") and v.brand_ai == "PayPal"
    del doc["meta"]["processors"]["gsb"]
    assert ScanResult(doc).verdict.safe_browsing is None  # unknown, not "nothing found"


def test_the_emulator_lists_its_phishing_pages_with_safe_browsing(emu: Emulator) -> None:
    with emu.client() as c:
        bad = next(iter(c.search("verdicts.malicious:true", limit=1)))
        good = next(iter(c.search("verdicts.malicious:false", limit=1)))
        assert c.result(bad.uuid).verdict.safe_browsing == ("SOCIAL_ENGINEERING",)
        assert c.result(good.uuid).verdict.safe_browsing == ()
        assert bad.verdict.safe_browsing is None  # a hit carries no Safe Browsing answer
