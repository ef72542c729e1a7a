"""Indicators, verdicts, STIX 2.1 and MISP of recorded real results and search pages and of
emulated ones: each compared with the document read plainly in Python, the bundles parsed by
the stix2 library and the events loaded by pymisp."""

from __future__ import annotations

import ipaddress
import json
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from urlscan_rs import ScanResult, SearchHit
from urlscan_rs.errors import DecodeError
from urlscan_rs.playbook import Indicators, VerdictSummary
from urlscan_rs.testing import Emulator

REFERENCE = Path(__file__).parent.parent.parent / "shared" / "reference" / "recorded"


def _google_2018() -> dict[str, Any]:
    path = REFERENCE / "result-2018-google.json"
    if not path.exists():
        pytest.skip(f"no recorded result at {path}")
    return dict(json.loads(path.read_text()))


def _recorded() -> dict[str, Any]:
    path = REFERENCE / "interactions.json"
    if not path.exists():
        pytest.skip(f"no recorded answers at {path}")
    return dict(json.loads(path.read_text()))


def _unique(values: list[Any]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(v.strip() for v in values if isinstance(v, str) and v.strip()))


def _same(a: str, b: str) -> bool:
    """One address written two ways (a missing path, the host's case, a fragment)."""

    def key(u: str) -> tuple[str, str, str, str]:
        p = urlsplit(u)
        return (p.scheme.lower(), p.hostname or "", p.path or "/", p.query)

    return key(a) == key(b)


def expected(doc: dict[str, Any]) -> dict[str, tuple[str, ...]]:
    """The indicators of a document, read plainly (the independent check of the native reader)."""
    task, page, lists, data = (doc.get(k) or {} for k in ("task", "page", "lists", "data"))
    ips = [page.get("ip"), *(lists.get("ips") or [])]
    v4 = [a for a in ips if a and ipaddress.ip_address(a).version == 4]
    v6 = [str(ipaddress.ip_address(a)) for a in ips if a and ipaddress.ip_address(a).version == 6]
    asns = [page.get("asn"), *(lists.get("asns") or [])]
    chain = [task.get("url")]
    hops = [(h["from"], h["to"]) for h in (data.get("redirects") or [])]
    while True:
        nxt = next((h for h in hops if h[0] == chain[-1]), None)
        if nxt is None:
            break
        hops.remove(nxt)
        chain.append(nxt[1])
    steps: list[str] = []  # consecutive repeats of one address dropped; a URL may come back
    for u in [*chain, page.get("url")] if task.get("url") else []:
        if u and not (steps and _same(steps[-1], u)):
            steps.append(u)
    return {
        "urls": _unique([task.get("url"), page.get("url"), *(lists.get("urls") or [])]),
        "domains": _unique([page.get("domain"), task.get("domain"), *(lists.get("domains") or [])]),
        "apex_domains": _unique(
            [page.get("apexDomain"), task.get("apexDomain")]
            + [r.get("regDomain") for r in (doc.get("stats") or {}).get("regDomainStats") or []]
        ),
        "ipv4": _unique(v4),
        "ipv6": _unique(v6),
        "asns": _unique([a if str(a).startswith("AS") else f"AS{a}" for a in asns if a]),
        "hashes": _unique(lists.get("hashes") or []),
        "redirects": tuple(steps) if len(steps) > 1 else (),
        "links": _unique([link.get("href") for link in data.get("links") or []]),
    }


def _check(model: Any) -> Indicators:
    ind = model.indicators()
    want = expected(model.to_dict())
    got = {k: getattr(ind, k) for k in want}
    assert got == want
    assert ind.ips == ind.ipv4 + ind.ipv6
    assert model.indicators() == ind  # deterministic, and frozen values compare
    with pytest.raises(AttributeError):
        ind.urls = ()  # type: ignore[misc]
    return ind


def test_indicators_of_recorded_real_results() -> None:
    ind = _check(ScanResult(_google_2018()))
    assert ind.domains[0] == "www.google.com" and "apis.google.com" in ind.domains
    assert ind.asns == ("AS15169",) and ind.ipv4 == () and ind.ipv6
    assert ind.redirects == ()  # https://www.google.com and https://www.google.com/ are one address
    assert [c.subject for c in ind.certificates] == ["www.google.com", "*.google.com", "*.apis.google.com"]
    first = ind.certificates[0]
    assert first.issuer == "Google Internet Authority G3" and first.valid_from and first.valid_from.year == 2018
    assert first.san == ("www.google.com",) and first.sha256 is None
    rec = _recorded()
    result = ScanResult(json.loads(rec["_result__1_2_1.yml#0"]["body"]))
    assert _check(result).urls
    page = json.loads(rec["_search__1_3_1.yml#0"]["body"])
    for raw in page["results"]:
        hit_ind = _check(SearchHit(raw))
        assert hit_ind.domains and hit_ind.certificates == ()


def test_indicators_of_emulated_results_and_hits() -> None:
    with Emulator(scans=200, seed=21) as emu, emu.client() as c:
        hits = list(c.search("", limit=60))
        results = [r for r in c.results([h.id for h in hits]) if isinstance(r, ScanResult)]
        assert len(results) == 60
        redirected = 0
        for hit, result in zip(hits, results, strict=True):
            _check(hit)
            ind = _check(result)
            assert set(hit.indicators().domains) <= set(ind.domains)
            redirected += bool(ind.redirects)
            if ind.redirects:
                assert ind.redirects[0] == result.task.url and _same(ind.redirects[-1], result.page.url or "")
        assert redirected, "no emulated scan was redirected"


def test_a_wrong_type_is_a_decode_error_naming_its_path() -> None:
    r = ScanResult({"task": {"uuid": "u"}, "lists": {"ips": ["1.2.3.4", 5]}})
    with pytest.raises(DecodeError, match=r"lists\.ips\[1\]"):
        r.indicators()
    assert ScanResult({}).indicators() == Indicators()
    assert ScanResult({"lists": {"urls": {}, "ips": None}}).indicators() == Indicators()


def _result(verdicts: dict[str, Any] | None) -> ScanResult:
    doc: dict[str, Any] = {"task": {"uuid": "11111111-2222-4333-8444-555555555555", "url": "https://evil.example/"}}
    if verdicts is not None:
        doc["verdicts"] = verdicts
    return ScanResult(doc)


def test_verdicts_with_and_without_parts() -> None:
    none = _result(None)
    assert none.verdict == VerdictSummary() and none.is_malicious() is None
    assert _result({}).is_malicious() is None
    clean = _result({"overall": {"score": 0, "malicious": False, "hasVerdicts": False}})
    assert clean.verdict.malicious is False and clean.is_malicious() is False
    bad = _result(
        {
            "overall": {"score": 100, "malicious": True, "categories": ["phishing"], "brands": [{"key": "acme", "name": "Acme"}]},
            "urlscan": {"score": 100, "malicious": True, "categories": ["phishing"], "tags": ["kit"]},
            "engines": {"score": 0, "malicious": ["EngineA"], "enginesTotal": 5},
            "community": {"score": 0, "malicious": False, "votesTotal": 0},
        }
    )
    v = bad.verdict
    assert (v.malicious, v.score, v.categories, v.brands, v.tags) == (True, 100, ("phishing",), ("acme",), ("kit",))
    assert v.sources == ("overall", "urlscan", "engines", "community")
    assert bad.is_malicious() is True
    # No overall verdict: a part that says malicious decides; a score alone is held to the threshold.
    engines_only = _result({"engines": {"malicious": ["EngineA", "EngineB"]}})
    assert engines_only.verdict.malicious is True and engines_only.is_malicious() is True
    scored = _result({"overall": {"score": 60}})
    assert scored.verdict.malicious is None
    assert scored.is_malicious(threshold=50) is True and scored.is_malicious(threshold=70) is False
    legit = _result({"overall": {"score": -100}})
    assert legit.is_malicious() is False
    with pytest.raises(TypeError, match="threshold"):
        bad.is_malicious(threshold="50")  # type: ignore[arg-type]
    hit = SearchHit({"_id": "x", "verdicts": {"score": 90, "malicious": True}})
    assert hit.verdict.malicious is True and hit.is_malicious() is True
    assert SearchHit({"_id": "x"}).is_malicious() is None


def _bundles() -> list[ScanResult]:
    doc = _google_2018()
    with Emulator(scans=300, seed=5) as emu, emu.client() as c:
        found = list(c.search("", limit=300))
        bad = [h.id for h in found if h.verdicts.malicious][:3]
        good = [h.id for h in found if h.verdicts.malicious is False][:3]
        assert bad and good, "the emulated corpus has malicious and benign scans"
        emulated = [r for r in c.results(bad + good) if isinstance(r, ScanResult)]
    return [ScanResult(doc), *emulated]


@pytest.fixture(scope="module")
def results() -> list[ScanResult]:
    return _bundles()


def test_stix_bundles_parse_and_are_deterministic(results: list[ScanResult]) -> None:
    stix2 = pytest.importorskip("stix2")
    for r in results:
        bundle = r.to_stix()
        assert bundle == r.to_stix() and json.dumps(bundle) == json.dumps(ScanResult(r.to_dict()).to_stix())
        parsed = stix2.parse(json.dumps(bundle), allow_custom=False)
        kinds = [o.type for o in parsed.objects]
        ind = r.indicators()
        assert kinds.count("url") == len(ind.urls) and kinds.count("domain-name") == len(ind.domains)
        assert kinds.count("ipv4-addr") == len(ind.ipv4) and kinds.count("ipv6-addr") == len(ind.ipv6)
        assert kinds.count("file") == len(set(ind.hashes) | {d.sha256 for d in r.downloads()})
        observed = next(o for o in parsed.objects if o.type == "observed-data")
        relationships = [o for o in parsed.objects if o.type == "relationship"]
        assert len(observed.object_refs) == len(parsed.objects) - 1 - kinds.count("indicator") - len(relationships)
        indicators = [o for o in parsed.objects if o.type == "indicator"]
        assert len(indicators) == (1 if r.is_malicious() else 0)
        for i in indicators:
            assert i.pattern == f"[url:value = '{ind.urls[0]}']"
        # The result's resolves-to and belongs-to edges between objects of the bundle, and the
        # indicator based on the observed data.
        ids = {o.id: o for o in parsed.objects}
        want = {(e.kind, e.source, e.target) for e in r.relationships() if e.kind in ("resolves-to", "belongs-to")}
        got = set()
        for rel in relationships:
            source, target = ids[rel.source_ref], ids[rel.target_ref]
            if rel.relationship_type == "based-on":
                assert (source.type, target.id) == ("indicator", observed.id)
                continue
            value = f"AS{target.number}" if target.type == "autonomous-system" else target.value
            got.add((rel.relationship_type, source.value, value))
        assert got == want and want
        assert len(relationships) == len(want) + len(indicators)
        # A STIX consumer computes the same id for the same URL (ids from id-contributing properties).
        url = next(o for o in parsed.objects if o.type == "url")
        assert url.id == stix2.URL(value=url.value).id


def test_misp_events_load_in_pymisp(results: list[ScanResult]) -> None:
    pymisp = pytest.importorskip("pymisp")
    for r in results:
        event = r.to_misp()
        assert event == r.to_misp()
        ev = pymisp.MISPEvent()
        ev.from_dict(**event)
        ind = r.indicators()
        names = [o.name for o in ev.objects]
        assert names.count("url") == len(ind.urls) and names.count("file") == len(ind.hashes)
        assert names.count("domain-ip") == len(ind.domains)
        assert ev.info.startswith("urlscan.io scan of ")
        flagged = [a.value for o in ev.objects for a in o.attributes if a.to_ids]
        if r.is_malicious():
            assert flagged and ind.urls[0] in flagged and any(t.name == 'urlscan:verdict="malicious"' for t in ev.tags)
        else:
            assert flagged == [] and ev.tags == []
        ev2 = pymisp.MISPEvent()
        ev2.from_json(ev.to_json())  # survives pymisp's own round trip
        assert len(ev2.objects) == len(ev.objects)
