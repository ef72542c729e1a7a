"""Tests say what the service answers: a real result planted in the emulator is served, searched
and shown; a submitted URL finishes as the result the test chose (sync and async)."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
import urlscan

from urlscan_rs import APIError, ValidationError
from urlscan_rs.testing import Emulator

from .conftest import run
from .test_cli import api, main_

REAL = json.loads((Path(__file__).parent / "data" / "result-2018-google.json").read_text())
UUID = REAL["task"]["uuid"]
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + bytes(17) + b"\x00\x00\x00\x00IEND\xaeB`\x82"


def test_a_real_result_is_served_searched_and_shown(capsys: pytest.CaptureFixture[str]) -> None:
    with Emulator(scans=50) as emu, emu.client() as c:
        assert emu.add_result(REAL, screenshot=PNG, dom="<html>recorded</html>") == UUID
        r = c.result(UUID)
        # Served as recorded: the page, lists and requests of 2018.
        assert r._raw["page"] == REAL["page"] and r._raw["lists"] == REAL["lists"]
        assert len(r._raw["data"]["requests"]) == len(REAL["data"]["requests"])
        assert str(r.page.ip) == "2a00:1450:4001:824::2004" and r.page.asn == "AS15169"
        # Its links are this server's.
        assert r._raw["task"]["screenshotURL"] == f"{emu.url}/screenshots/{UUID}.png"
        assert c.screenshot(UUID) == PNG and c.dom(UUID) == "<html>recorded</html>"
        # Found by search, by the facts the document holds, with its hit made from it.
        for query in [f"task.uuid:{UUID}", "page.asn:AS15169", 'ip:"2a00:1450:4001:824::2004"', "date:2018-07-29"]:
            hits = list(c.search(query, limit=100))
            assert [str(h.uuid) for h in hits if str(h.uuid) == UUID] == [UUID], query
        hit = next(h for h in c.search(f"task.uuid:{UUID}") if str(h.uuid) == UUID)
        assert hit.page.domain == "www.google.com" and hit.task.time == r.task.time
        # Historical: it sorts among the corpus by its 2018 time, after newer scans.
        newest = next(iter(c.search("*", limit=1)))
        assert str(newest.uuid) != UUID
        # Shown: the command line prints it as it prints any result.
        code, out, err = main_(capsys, "result", UUID, *api(emu))
        assert code == 0, err
        assert f"Scan {UUID}" in out and "https://www.google.com/" in out and "2018-07-29 21:17:28 UTC" in out
        # The official client reads it too.
        official = urlscan.Client(emu.api_key, base_url=emu.url)
        assert official.get_result(UUID)["task"]["uuid"] == UUID


def test_a_planted_result_without_files_gets_the_emulators_and_acts_as_a_new_scan() -> None:
    doc = copy.deepcopy(REAL)
    doc["task"]["uuid"] = "0b5f1e0c-1111-4222-8333-444455556666"
    doc["task"]["visibility"] = "private"
    with Emulator(scans=0) as emu, emu.client() as c:
        uuid = emu.add_result(doc)
        assert c.screenshot(uuid)[:8] == b"\x89PNG\r\n\x1a\n" and "<html" in c.dom(uuid).lower()
        # Private: its owner (the emulator's key) reads it, another team does not.
        assert c.result(uuid).task.visibility == "private"
        with emu.client("other") as other:
            assert [h for h in other.search("page.domain:www.google.com")] == []
        # Its owner's search finds it.
        assert [str(h.uuid) for h in c.search("page.domain:www.google.com")] == [uuid]


def test_a_document_that_cannot_be_a_result_is_refused_by_what_is_wrong() -> None:
    bad: list[tuple[Any, str]] = [
        ([], "a dict"),
        ({}, "no task"),
        ({"task": {"uuid": "nope", "url": "https://x.example/", "time": "2025-01-01T00:00:00Z"}}, "not a UUID"),
        ({"task": {"uuid": UUID, "url": "javascript:alert(1)", "time": "2025-01-01T00:00:00Z"}}, "http(s) URL"),
        ({"task": {"uuid": UUID, "url": "https://x.example/", "time": 5}}, "task.time must be a string"),
        ({"task": {"uuid": UUID, "url": "https://x.example/", "time": "2025-01-01T00:00:00Z"}, "x": float("nan")}, "JSON"),
        ({"task": {"uuid": UUID, "url": "https://x.example/", "time": "2025-01-01T00:00:00Z"}, "x": object()}, "JSON"),
    ]
    with Emulator(scans=0) as emu:
        for doc, said in bad:
            with pytest.raises(ValidationError, match=re.escape(said)):
                emu.add_result(doc)
        emu.add_result(REAL)
        with pytest.raises(ValidationError, match="already holds a scan"):
            emu.add_result(REAL)
        with pytest.raises(ValidationError, match="screenshot must be PNG bytes"):
            emu.add_result(REAL, screenshot="png")  # type: ignore[arg-type]
        with pytest.raises(ValidationError, match="dom must be a str"):
            emu.add_result(REAL, dom=b"<html>")  # type: ignore[arg-type]


def chosen(url: str) -> dict[str, Any]:
    """A result for ``url`` as a test chooses it: the recorded one's page, made malicious."""
    doc = copy.deepcopy(REAL)
    doc["page"]["ip"] = "203.0.113.7"
    doc["verdicts"] = {"overall": {"score": 100, "malicious": True, "brands": ["paypal"], "categories": ["phishing"]}}
    return doc


def test_a_submitted_url_finishes_as_the_test_chose() -> None:
    with Emulator(scans=0, scan_duration=30) as emu, emu.client() as c:
        emu.on_scan("evil.example", chosen)
        emu.on_scan(re.compile(r"/static/"), REAL)
        sub = c.scan("https://login.evil.example/signin")
        other = c.scan("https://www.example.org/static/a.html")
        plain = c.scan("https://notevil.example/")
        # The normal lifecycle: pending until the scan's time has passed.
        with pytest.raises(APIError):
            c.result(str(sub.uuid))
        emu.advance(30)
        r = c.result(str(sub.uuid))
        # The submission's uuid, URL, time and visibility; the rest as chosen.
        assert str(r.task.uuid) == str(sub.uuid) and r.task.url == "https://login.evil.example/signin"
        assert r.task.visibility == "public" and r.task.domain == "login.evil.example"
        assert r.verdicts.overall.malicious is True and str(r.page.ip) == "203.0.113.7"
        hits = list(c.search("page.ip:203.0.113.7"))
        assert [str(h.uuid) for h in hits] == [str(sub.uuid)] and hits[0].verdicts.malicious is True
        assert c.result(str(other.uuid)).page.domain == "www.google.com"
        # A host rule matches the host and its subdomains, not a host that ends the same.
        assert c.result(str(plain.uuid)).page.domain == "notevil.example"


def test_async_submissions_finish_as_chosen() -> None:
    with Emulator(scans=0, scan_duration=5) as emu:
        emu.on_scan(lambda url: url.endswith("/pay"), lambda url: chosen(url))

        async def flow() -> tuple[Any, Any]:
            async with emu.async_client() as c:
                subs = [await c.scan(u) for u in ["https://a.example/pay", "https://b.example/home"]]
                emu.advance(5)
                return await c.result(str(subs[0].uuid)), await c.result(str(subs[1].uuid))

        paid, home = run(flow())
        assert paid.verdicts.overall.malicious is True and paid.task.url == "https://a.example/pay"
        assert home.page.domain == "b.example" and home.verdicts.overall.malicious is not True


def test_a_rule_that_fails_is_seen_by_the_test_and_bad_rules_are_refused() -> None:
    def broken(url: str) -> dict[str, Any]:
        raise RuntimeError("no such fixture")

    with Emulator(scans=0, scan_duration=0) as emu, emu.client(max_retries=0) as c:
        emu.on_scan("broken.example", broken)
        emu.on_scan("list.example", lambda url: [1, 2])  # type: ignore[arg-type,return-value]
        emu.on_scan("none.example", lambda url: None)
        with pytest.raises(APIError, match="no such fixture"):
            c.scan("https://broken.example/")
        with pytest.raises(APIError, match="a dict"):
            c.scan("https://list.example/")
        # None: the emulator's own content.
        sub = c.scan("https://none.example/")
        assert c.result(str(sub.uuid)).page.domain == "none.example"
        for match in ["", 5, None]:
            with pytest.raises(ValidationError, match="match"):
                emu.on_scan(match, REAL)  # type: ignore[arg-type]
        with pytest.raises(ValidationError, match="result must be"):
            emu.on_scan("x.example", "doc")  # type: ignore[arg-type]
