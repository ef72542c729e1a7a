"""Models: frozen, comparable, picklable, lenient, nothing dropped."""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle
from pathlib import Path

import pytest

import urlscan_rs
from urlscan_rs.models import ScanResult, SearchHit, Stats
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
