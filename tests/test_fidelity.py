"""The emulator answers like the service where the evidence shows it, for the
clients people already run: the legacy `public` switch, answers indented as
the service indents them, the 429 text tools parse, the malformed-key 400,
anonymous limits; and the client's side of each."""

from __future__ import annotations

import json
import logging
import re
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

import pytest

import urlscan_rs
from urlscan_rs import Client
from urlscan_rs.testing import Emulator

from .conftest import emulator, http

emu = emulator(scans=60, seed=12, scan_duration=0)


# ---------------------------------------------------------------- the legacy `public` switch


def _submit(emu: Emulator, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    status, _, raw = http(emu, "POST", "/api/v1/scan/", json.dumps(body).encode(), **{"Content-Type": "application/json"})
    return status, json.loads(raw)


def test_public_on_and_off_are_the_legacy_visibility(emu: Emulator) -> None:
    status, on = _submit(emu, {"url": "https://legacy-on.example.com/", "public": "on"})
    assert status == 200 and on["visibility"] == "public"
    status, off = _submit(emu, {"url": "https://legacy-off.example.com/", "public": "off"})
    assert status == 200 and off["visibility"] == "public"  # the key's default, as with neither field
    # Both sent: `visibility` decides (the documented field; no source shows `public` winning).
    status, both = _submit(emu, {"url": "https://legacy-both.example.com/", "public": "on", "visibility": "private"})
    assert status == 200 and both["visibility"] == "private"
    with emu.client() as c:
        assert c.result(both["uuid"]).task.visibility == "private"
    status, bad = _submit(emu, {"url": "https://legacy-bad.example.com/", "public": "yes"})
    assert status == 400 and '"public"' in bad["message"]


def test_a_form_encoded_submission_is_taken(emu: Emulator) -> None:
    # As older integrations post it: url=...&public=on, without a JSON body.
    form = urllib.parse.urlencode([("url", "https://form.example.com/"), ("public", "on"), ("tags", "a"), ("tags", "b")])
    status, _, raw = http(emu, "POST", "/api/v1/scan", form.encode(), **{"Content-Type": "application/x-www-form-urlencoded"})
    sub = json.loads(raw)
    assert status == 200 and sub["visibility"] == "public" and sub["url"] == "https://form.example.com/"
    with emu.client() as c:
        assert c.result(sub["uuid"]).task.tags == ["a", "b"]


# ---------------------------------------------------------------- the form of every JSON answer


def test_json_answers_are_indented_by_two_spaces_with_the_charset(emu: Emulator) -> None:
    for method, path in [("GET", "/api/v1/search/?q=&size=2"), ("GET", "/api/v1/quotas"), ("GET", "/api/v1/result/nope/")]:
        status, headers, raw = http(emu, method, path)
        assert headers["content-type"] == "application/json; charset=utf-8", path
        text = raw.decode()
        assert text == json.dumps(json.loads(text), indent=2, ensure_ascii=False), path
    _, _, raw = http(emu, "POST", "/api/v1/scan/", json.dumps({"url": "https://lines.example.com/"}).encode())
    # A tool that reads the line holding "uuid" gets the uuid alone on it.
    line = next(x for x in raw.decode().splitlines() if '"uuid"' in x)
    assert re.fullmatch(r'  "uuid": "[0-9a-f-]{36}",', line), line


def test_the_same_answer_reads_the_same_in_either_layout() -> None:
    # Indented (the service's form) or on one line (compact_json), an answer reads to the same
    # models; what the layout costs the client is measured in bench/run.py (json_layout).
    with Emulator(scans=20, seed=4) as pretty, Emulator(scans=20, seed=4, compact_json=True) as flat:
        for emu, indented in ((pretty, True), (flat, False)):
            with emu.client() as c:
                hits = list(c.search("", limit=30))
                raw = c.with_raw_response.result(hits[0].id)
                assert (b"\n" in raw.content) == indented
                from_dict = urlscan_rs.models.ScanResult(json.loads(raw.content))
                assert raw.parse() == from_dict and raw.parse().to_dict() == from_dict.to_dict()
                assert raw.parse().page.domain == hits[0].page.domain and len(hits) == 20


# ---------------------------------------------------------------- 429s


def test_a_429_says_when_the_window_resets_in_the_words_tools_parse() -> None:
    with Emulator(scans=5, seed=1, rate_limits={"search": {"minute": 1}}) as emu:
        assert http(emu, "GET", "/api/v1/search/?q=")[0] == 200
        status, headers, raw = http(emu, "GET", "/api/v1/search/?q=")
        body = json.loads(raw)
    assert status == 429
    # waymore: re.search(r"Reset in (\d+) seconds", text, re.I); urlscan-py: the second number of `message`.
    waited = re.search(r"Reset in (\d+) seconds", raw.decode(), flags=re.IGNORECASE)
    assert waited is not None and int(waited.group(1)) == int(headers["x-rate-limit-reset-after"])
    assert int(re.findall(r"\d+", body["message"])[1]) == int(headers["x-rate-limit-reset-after"])
    assert body["message"].endswith("seconds.") and body["status"] == 429


# ---------------------------------------------------------------- keys


def test_without_a_key_the_client_says_once_that_it_runs_anonymously(
    emu: Emulator, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.delenv("URLSCAN_API_KEY", raising=False)
    with caplog.at_level(logging.INFO, logger="urlscan_rs"), Client(base_url=emu.url) as c:
        c.search("", limit=1).count()
        c.search("", limit=1).count()
    said = [r for r in caplog.records if "anonymously" in r.getMessage()]
    assert len(said) == 1 and said[0].levelno == logging.INFO
    assert "500 a day" in said[0].getMessage()


def test_anonymous_search_is_limited_per_address_as_observed(emu: Emulator) -> None:
    req = urllib.request.Request(emu.url + "/api/v1/search/?q=&size=1")
    with urllib.request.urlopen(req, timeout=10) as r:
        headers = {k.lower(): v for k, v in r.headers.items()}
    assert headers["x-rate-limit-scope"] == "ip-address"
    req = urllib.request.Request(emu.url + "/user/quotas/")
    with urllib.request.urlopen(req, timeout=10) as r:
        quotas = json.loads(r.read())
    assert quotas["limits"]["search"]["day"]["limit"] == 500


# ---------------------------------------------------------------- labels, user tags, saved-search matches


def test_labels_usertags_and_matches_read_through_the_models_and_tables() -> None:
    with Emulator(scans=300, seed=5, scan_duration=0) as emu, emu.client() as c:
        brand = next(iter(c.search("labels:visual.brandai", limit=1)))
        assert brand.labels == ["visual.brandai"] and brand.visible.brandname
        result = c.result(brand.id)
        assert result.labels == ["visual.brandai"] and result.visible.brandname == brand.visible.brandname
        # Two shapes of brands, each read as sent; the summary takes the keys of both.
        overall, ours = result.verdicts.overall.brands, result.verdicts.urlscan.brands
        assert overall and all(isinstance(b, str) for b in overall)
        assert ours and all(isinstance(b, urlscan_rs.models.VerdictBrand) and b.key in overall for b in ours)
        assert set(result.verdict.brands) == set(overall)
        plain = next(iter(c.search("NOT labels:visual.brandai", limit=1)))
        assert plain.labels == [] and plain.visible.brandname is None and plain.meta == [] and plain.usertags == []
        # A saved search made now: its id shows in `meta` of the hits it matches, for its owner.
        domain = brand.page.domain
        s = c.saved_searches.create(
            datasource="scans", name="lookalike", query=f"page.domain:{domain}", user_tags=["private.watch"]
        )
        hit = next(iter(c.search(f"page.domain:{domain}", limit=1)))
        assert hit.meta == [f"searchhit.search.{s.id}"] and hit.usertags == ["private.watch"]
        again = c.result(hit.id)
        assert again.metatags == [f"searchhit.search.{s.id}"] and again.usertags == ["private.watch"]
        found = list(c.search(f"meta:searchhit.search.{s.id}", limit=50))
        assert found and all(h.page.domain == domain for h in found)
        # Another team's key sees none of it.
        with Client(emu.keys["other"], base_url=emu.url) as other:
            assert next(iter(other.search(f"page.domain:{domain}", limit=1))).meta == []
        # The columns of the documented schemas.
        table = c.search(f"page.domain:{domain}", limit=5).to_arrow(columns=["uuid", "labels", "usertags", "meta", "brandname"])
        row = table.to_pylist()[0]
        assert row["labels"] == ["visual.brandai"] and row["meta"] == [f"searchhit.search.{s.id}"]
        assert row["usertags"] == ["private.watch"] and row["brandname"] == brand.visible.brandname
        rows = c.results([hit.id]).to_arrow(columns=["uuid", "meta", "brandname"]).to_pylist()
        assert rows == [{"uuid": hit.id, "meta": [f"searchhit.search.{s.id}"], "brandname": brand.visible.brandname}]
