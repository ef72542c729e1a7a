"""Models: frozen, comparable, picklable, lenient, nothing dropped."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import json
import pickle
from datetime import datetime, timezone
from pathlib import Path

import pytest

import urlscan_rs
from urlscan_rs import Client, models
from urlscan_rs.models import EngineVerdicts, Notification, NotificationHit, SavedSearch, ScanResult, SearchHit, Stats
from urlscan_rs.testing import Emulator

from .conftest import finished_scan

DATA = Path(__file__).parent / "data"


def test_result_model(fresh: Emulator) -> None:
    c = fresh.client()
    uuid = finished_scan(fresh, c)
    r = c.result(uuid)
    assert r == c.result(uuid) and hash(r) == hash(c.result(uuid))
    assert pickle.loads(pickle.dumps(r)) == r
    assert copy.deepcopy(r) == r
    d = r.to_dict()
    assert d == r.raw and d is not r.raw
    assert json.loads(json.dumps(d))["task"]["uuid"] == uuid
    assert isinstance(r.verdicts.overall.malicious, bool)
    assert isinstance(r.verdicts.overall.score, int)
    assert r.page.domain and r.lists.domains and isinstance(r.stats, Stats)
    assert isinstance(r.data, dict) and isinstance(r.meta, dict)
    assert r.submitter is not None
    assert uuid in repr(r)
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.uuid = "x"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        _ = r.no_such_field


def test_fields_are_the_declarations_in_order() -> None:
    # A base's fields come first; one declared again keeps its place.
    assert EngineVerdicts.fields()[:3] == ("score", "malicious", "has_verdicts")
    assert EngineVerdicts({"malicious": ["engine"]}).malicious == ["engine"]
    assert NotificationHit.fields() == (*Notification.fields(), "sort", "date")
    assert Notification.fields()[-2:] == ("results", "total")  # a property, marked as a field where it stands
    # No declaration stays on a class: a field is read by its view, its property or __getattr__.
    classes = [c for c in vars(models).values() if isinstance(c, type) and issubclass(c, models.Model)]
    assert len(classes) > 30
    for cls in classes:
        for name in cls.fields():
            assert not isinstance(inspect.getattr_static(cls, name, None), tuple), f"{cls.__name__}.{name}"
    assert SavedSearch({"usertags": ["t"]}).user_tags == ["t"]  # its own __getattr__ reads it


def test_lenient_reading() -> None:
    raw = {
        "task": {"uuid": "u", "time": "2020-01-02T03:04:05.678Z", "brandNewField": 1},
        "stats": {"domainStats": {}, "uniqCountries": None, "malicious": "3"},
        "lists": {"ips": {}, "hashes": None},
        "page": {"umbrellaRank": None},
        "futureTopLevel": {"x": [1, 2]},
        "verdicts": {"overall": {"brands": ["paypal", {"key": "k", "name": "N"}]}},
    }
    r = ScanResult(raw)
    assert r.stats.domain_stats == [] and r.stats.uniq_countries is None and r.stats.malicious == 3
    assert r.lists.ips == [] and r.lists.hashes == []
    assert r.page.umbrella_rank is None
    assert r.task.brand_new_field == 1 and r.future_top_level == {"x": [1, 2]}
    assert r.task.time.year == 2020 and r.task.time.utcoffset().total_seconds() == 0  # type: ignore[union-attr]
    brands = r.verdicts.overall.brands
    assert brands[0] == "paypal" and brands[1].name == "N"
    assert r.to_dict() == raw  # nothing dropped
    assert ScanResult({}).page.domain is None and ScanResult({}).verdicts.overall.score is None


def test_recorded_result_reads() -> None:
    raw = json.loads((DATA / "result-2018-google.json").read_text())
    r = ScanResult(raw)
    assert r.page.domain and r.task.time is not None
    assert r.lists.ips is not None and r.to_dict() == raw


def test_search_hit_model(client: urlscan_rs.Client) -> None:
    hit = next(iter(client.search("", limit=1)))
    assert isinstance(hit, SearchHit)
    assert hit.id == hit.raw["_id"] == hit.uuid
    assert hit.result.endswith(f"/api/v1/result/{hit.id}/") and hit.screenshot.endswith(".png")
    assert hit.stats.requests is not None and hit.indexed_at is not None
    assert pickle.loads(pickle.dumps(hit)) == hit
    assert "SearchHit(" in repr(hit)


def test_scan_outcome_pickles() -> None:
    o = urlscan_rs.ScanOutcome("u", None, None, urlscan_rs.NotFoundError("gone", status=404))
    o2 = pickle.loads(pickle.dumps(o))
    assert o2.url == "u" and isinstance(o2.error, urlscan_rs.NotFoundError) and o2.error.status == 404


def test_model_state_lives_in_the_native_base() -> None:
    """A model is an instance of the native base, made from a dict, from bytes or natively."""
    from urlscan_rs._native import LazyDoc, ModelBase, make_model

    page = models.Page({"domain": "example.com", "newThing": 1})
    assert isinstance(page, ModelBase) and page._json == {"domain": "example.com", "newThing": 1}
    assert page._path == "" and page.domain == "example.com" and page._cache == {"domain": "example.com"}
    assert page.new_thing == 1 and models.Page().domain is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        page.domain = "other.example"
    # Made natively over bytes, at a path its errors name.
    lazy = make_model(models.Page, LazyDoc(b'{"domain": 5}'), "results[3].page")
    assert type(lazy) is models.Page and lazy._path == "results[3].page"
    with pytest.raises(urlscan_rs.DecodeError, match=r"results\[3\]\.page\.domain: expected a string"):
        _ = lazy.domain
    assert pickle.loads(pickle.dumps(lazy))._path == "results[3].page"
    # Read whole, a model keeps reading its bytes; given another object, it reads that one.
    same = make_model(models.Page, LazyDoc(b'{"domain": "a.example"}'), "")
    assert same.raw == {"domain": "a.example"} and same.domain == "a.example"
    other = make_model(models.Page, LazyDoc(b'{"domain": "a.example"}'), "")
    other._set_json({"domain": "b.example"})
    assert other.domain == "b.example"
    with pytest.raises(TypeError, match="not a model class"):
        make_model(dict, {}, "")  # type: ignore[type-var]


def test_lazy_models_read_only_the_parts_used() -> None:
    """Large documents stay bytes until read; each top-level part is decoded on first use."""
    from urlscan_rs._native import LazyDoc

    doc = {
        "task": {"uuid": "0196d976-07f6-7aae-8a57-aa019145f31c", "time": "2026-01-02T03:04:05.000Z"},
        "page": {"domain": "example.com", "ip": "1.2.3.4"},
        "data": {"requests": [{"request": {"url": f"https://example.com/{i}"}} for i in range(2000)]},
        "verdicts": {"overall": {"malicious": True, "score": 100}},
        "someNewPart": {"x": [1, 2]},
        "caf\u00e9": '\u00e9\n"q"',
    }
    body = json.dumps(doc).encode()
    lazy, eager = ScanResult._lazy(LazyDoc(body)), ScanResult(doc)
    assert lazy.page.domain == eager.page.domain == "example.com"
    assert lazy.verdicts.overall.malicious is True
    # Declared fields are read from the bytes: no part became Python objects, and
    # the parts read are lazy models over slices of the same bytes.
    assert isinstance(lazy._json, LazyDoc) and lazy._json.decoded == []
    assert isinstance(lazy.verdicts.overall._json, LazyDoc) and lazy.verdicts.overall._path == "verdicts.overall"
    assert lazy.some_new_part == {"x": [1, 2]} and lazy._json.decoded == ["someNewPart"]
    assert lazy.task.time == eager.task.time
    assert lazy.lists is not None and lazy.lists.urls == []  # a missing part reads as empty
    assert lazy == eager and hash(lazy) == hash(eager)
    assert lazy.raw == doc and lazy.to_dict() == doc and not isinstance(lazy._json, LazyDoc)
    assert pickle.loads(pickle.dumps(ScanResult._lazy(LazyDoc(body)))) == eager
    assert repr(ScanResult._lazy(LazyDoc(body))) == repr(eager)
    assert "some_new_part" in dir(ScanResult._lazy(LazyDoc(body)))


@pytest.mark.parametrize(
    "text",
    [
        "2026-01-02T03:04:05.000Z",
        "2026-01-02T03:04:05Z",
        "2026-01-02T03:04:05.5+05:30",
        "2026-01-02T23:59:59.999999-08:00",
        "0001-01-01T00:00:00Z",
        "9999-12-31T23:59:59.999999+00:00",
    ],
)
def test_times_read_from_bytes_are_the_utc_datetimes_the_rules_give(text: str) -> None:
    """The native read of a date-time (from a lazy model's bytes) equals the Python rules' value."""
    from urlscan_rs._native import LazyDoc

    lazy = models.Task._lazy(LazyDoc(json.dumps({"time": text}).encode()))
    want = datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(timezone.utc)
    got = lazy.time
    assert got == want == models.Task({"time": text}).time
    assert got is not None and got.tzinfo is timezone.utc and got.isoformat() == want.isoformat()


def test_large_results_from_the_service_are_lazy(client: Client) -> None:
    from urlscan_rs._native import LazyDoc

    results = [client.result(h.id) for h in client.search("", limit=40)]
    lazy = [r for r in results if isinstance(r._json, LazyDoc)]
    assert lazy, "no result of 32 KB or more among 40"
    for r in lazy:
        assert r.task.uuid and r.page.domain
        assert r == ScanResult(json.loads(json.dumps(r.raw)))


def test_lazy_doc_rules() -> None:
    from urlscan_rs._native import LazyDoc

    d = LazyDoc(b' {"a": 1, "k\\u00e9y": {"x": [1, 2]}, "a": 2} ')
    assert d.get("a") == 2 and d.keys() == ["a", "k\u00e9y"] and "k\u00e9y" in d
    assert d.get("missing", "dflt") == "dflt" and d.decoded == ["a"]
    assert d.full() == {"a": 2, "k\u00e9y": {"x": [1, 2]}} == json.loads(' {"a": 1, "k\\u00e9y": {"x": [1, 2]}, "a": 2} ')
    for bad in (b"[1, 2]", b'{"a": 1', b'{"a": 1} x', b"", b"\xff"):
        with pytest.raises(urlscan_rs.DecodeError):
            LazyDoc(bad)


def test_search_hits_are_lazy(client: Client) -> None:
    from urlscan_rs._native import LazyDoc

    hits = list(client.search("", limit=150))
    assert all(isinstance(h._json, LazyDoc) for h in hits)
    assert [h.id for h in hits] == [h.task.uuid for h in hits]
    assert all(h._json.decoded == [] for h in hits)  # read from the page's bytes
    # Pickled over the bytes of the hit alone (not its page, not a dict), lazy again.
    data = pickle.dumps(hits[1])
    assert len(data) < 2 * len(json.dumps(hits[1].raw))
    again = pickle.loads(data)
    assert isinstance(again._json, LazyDoc) and again._path == "results[1]" and again == hits[1]
    assert hits[0] == urlscan_rs.SearchHit(json.loads(json.dumps(hits[0].raw)))


def test_unknown_verdict_is_not_clean() -> None:
    from urlscan_rs import cli
    from urlscan_rs._display import table

    old = ScanResult(json.loads((DATA / "result-2018-google.json").read_text()))  # scanned before verdicts existed
    assert old.malicious is None and old.verdicts.overall.malicious is None
    assert "malicious=None" in repr(old)
    assert old.to_record()["malicious"] is None
    assert "<td>unknown</td>" in table([old])
    text, _ = cli._verdict(old.verdicts.overall)
    assert text.startswith("no verdict") and "not malicious" not in text
    assert ScanResult({"verdicts": {"overall": {"malicious": False}}}).malicious is False
    assert ScanResult({"verdicts": {"overall": {"malicious": True}}}).malicious is True


def test_report_links_point_at_the_host_that_served_the_scan() -> None:
    from urlscan_rs.testing import Emulator

    with Emulator(scans=5, seed=1) as emu, emu.client() as c:
        hit = next(iter(c.search("", limit=1)))
        result = c.result(hit.id)
        want = f"{emu.url}/result/{hit.id}/"
        assert hit.to_record()["report"] == result.to_record()["report"] == want
        observed = next(o for o in hit.to_stix()["objects"] if o["type"] == "observed-data")
        assert observed["external_references"][0]["url"] == want
    # Without a link of its own, a hit's record has no report (as its table row), and its
    # notebook table links the report on the service.
    bare = urlscan_rs.SearchHit({"_id": "x"})
    assert bare.to_record()["report"] is None
    assert 'href="https://urlscan.io/result/x/"' in bare._repr_html_()


def test_raw_is_a_copy_that_changes_no_model() -> None:
    hit = urlscan_rs.SearchHit({"_id": "x", "page": {"domain": "example.com"}})
    before = hash(hit)
    raw = hit.raw
    raw["_id"] = "y"
    raw["page"]["domain"] = "evil.example"
    raw["self"] = hit  # no cycle through the model's own JSON
    assert (hit.id, hit.page.domain, hash(hit)) == ("x", "example.com", before)
    assert hit.raw == {"_id": "x", "page": {"domain": "example.com"}}
