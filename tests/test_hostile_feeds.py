"""The hostile harness for feeds: every source the package declares (``feeds._SOURCES``, so a new
kind of source is here without editing this file) meets future, ancient, out-of-range, wrong-typed,
undecodable and repeated items from a scripted service, generated item lists, a claim that must
outlive a slow page, a look-back wider than ``max_items``, and runs killed by SIGKILL at seeded
points. Whatever comes, the valid items are written once each, with no gap; an odd item is set
aside with its reason and never stops the feed."""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from urlscan_rs import Client, StateError, feeds
from urlscan_rs.testing import Emulator

from .conftest import emulator
from .loopback import serve_raw
from .test_feeds import phish

KEY = "0f9e8d7c-6b5a-4c3d-9e2f-1a0b9c8d7e6f"
YEAR = 366 * 86400
SOURCES = feeds._SOURCES

fe = emulator("function", scans=300, scan_duration=5.0, seed=7)


def now_ms() -> int:
    return int(time.time() * 1000)


def iso(ms: int) -> str:
    """An ISO time as the service writes it; a time past 9999 as a five-digit year, as a broken one might."""
    if ms > 253_402_300_799_999:
        return "10000-01-01T00:00:00.000Z"
    t = datetime.fromtimestamp(ms / 1000, timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def item(n: int, t: int) -> dict[str, Any]:
    """A search hit as the service sends one: scan `n`, at `t` (epoch ms)."""
    uid = f"{n:08x}-0000-4000-8000-{n:012x}"
    url = f"https://login{n}.phish.example/signin"
    return {
        "_id": uid,
        "_score": None,
        "sort": [t, uid],
        "task": {
            "uuid": uid,
            "time": iso(t),
            "url": url,
            "visibility": "public",
            "method": "api",
            "domain": f"login{n}.phish.example",
        },
        "page": {"url": url, "domain": f"login{n}.phish.example", "status": "200"},
        "stats": {"requests": 3},
        "verdicts": {"score": 100, "malicious": True},
        "result": f"https://urlscan.io/api/v1/result/{uid}/",
    }


def text(doc: Any) -> str:
    return json.dumps(doc)


class Feed:
    """A scripted service for every source: the items (their JSON text, newest first, as served), in
    pages cut by ``size`` and ``search_after`` (by position: after the item with those sort values).
    It ignores the phishing feed's query, as a broken service might: the client's own bounds end the
    walks. ``gate``: when set, each page waits for it."""

    def __init__(self, items: list[str]) -> None:
        self.items = items
        self.gate: threading.Event | None = None
        self.entered = threading.Event()
        self.pages = 0
        self.body: bytes | None = None  # when set: the answer to every page, whatever was asked

    @staticmethod
    def cursor_of(raw: str) -> str | None:
        try:
            return ",".join(str(v) for v in json.loads(raw)["sort"])
        except (ValueError, RecursionError, KeyError, TypeError):
            return None

    def answer(self, request: BaseHTTPRequestHandler) -> tuple[int, dict[str, str], bytes]:
        self.entered.set()
        if self.gate is not None:
            self.gate.wait(30)
        self.pages += 1
        if self.body is not None:
            return 200, {"content-type": "application/json"}, self.body
        parts = urlsplit(request.path)
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        items = list(self.items)
        if "search_after" in query:
            # After the last item with those sort values (a service never serves one twice in a walk).
            cursors = [self.cursor_of(raw) for raw in items][::-1]
            at = len(items) - 1 - cursors.index(query["search_after"]) if query["search_after"] in cursors else len(items)
            items = items[at + 1 :]
        size = int(query.get("size", "100"))
        page = items[:size]
        more = "true" if len(items) > size else "false"
        body = '{"results":[' + ",".join(page) + '],"total":' + str(len(items)) + ',"has_more":' + more + "}"
        return 200, {"content-type": "application/json"}, body.encode()


@pytest.fixture(scope="module")
def service() -> Iterator[tuple[Feed, Client]]:
    feed = Feed([])
    with serve_raw(lambda request: feed.answer(request)) as s, Client(KEY, base_url=s.url, max_retries=0) as c:
        yield feed, c


@pytest.fixture
def served(service: tuple[Feed, Client]) -> tuple[Feed, Client]:
    """The module's scripted service, with no items and no gate."""
    feed, c = service
    feed.items, feed.gate, feed.pages, feed.body = [], None, 0, None
    feed.entered.clear()
    return feed, c


def written(dest: Path) -> list[str]:
    """The ids of every item the runs wrote (JSON lines), file by file."""
    return [json.loads(line)["_id"] for f in sorted(dest.glob("[!.]*.jsonl")) for line in f.read_text().splitlines()]


def quarantine(dest: Path) -> list[dict[str, Any]]:
    path = dest / feeds.QUARANTINE_FILE
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


# ---------------------------------------------------------------- odd items, each kind, every source

DAY = 86_400_000


def odd_items(t: int, n: int = 900) -> dict[str, tuple[str, str]]:
    """Each kind of odd item (its JSON text, dated near `t` where it has a time, scans `n` on) and a
    part of the reason it is set aside with."""
    future = item(n, t + 3 * DAY)
    beyond = item(n + 1, 253_402_300_800_000 + 7)  # the first millisecond of the year 10000, and then some
    typed = item(n + 2, t)
    typed["_id"] = 5
    sort = item(n + 3, t)
    sort["sort"] = "not a list"
    timeless = item(n + 4, t)
    del timeless["sort"], timeless["task"]["time"]
    ancient = item(n + 5, 0)
    deep = '{"a":' * 300 + "1" + "}" * 300
    return {
        "future": (text(future), "later than the service's clock"),
        "after 9999": (text(beyond), "out of range"),
        "_id a number": (text(typed), "_id: expected a string"),
        "sort a string": (text(sort), "sort: expected a list"),
        "no time": (text(timeless), "no time"),
        "1970, out of order": (text(ancient), "before the window"),
        "not an object": ("5", "not a JSON object"),
        "nested too deep": (deep, "nested"),
    }


ODD = list(odd_items(0))


@pytest.mark.parametrize("source", SOURCES, ids=[s.kind for s in SOURCES])
def test_odd_items_are_set_aside_and_the_feed_goes_on(served: tuple[Feed, Client], tmp_path: Path, source: Any) -> None:
    """Every kind of odd item (``ODD``), among valid ones: the valid ones are written, each odd one is
    set aside once with its reason, the checkpoint is the newest valid item's, and new items come
    through on the next run."""
    feed, c = served
    t = now_ms() - 3_600_000
    valid = [item(i, t - i * 60_000) for i in range(1, 6)]
    odd = odd_items(t)
    # A future item first (where it sorts), the others among the valid ones (before the last one).
    others = [raw for kind, (raw, _) in odd.items() if kind != "future"]
    feed.items = [odd["future"][0]]
    for v, group in zip(valid[:4], [others[i::4] for i in range(4)], strict=True):
        feed.items += [text(v), *group]
    feed.items.append(text(valid[4]))
    first = c.feeds.sync(source.example, tmp_path, lookback=YEAR)
    assert written(tmp_path) == [v["_id"] for v in valid]
    assert first.quarantined == len(odd) and f"{len(odd)} set aside" in str(first) and f"quarantined={len(odd)}" in repr(first)
    reasons = [e["reason"] for e in quarantine(tmp_path)]
    for kind, (_, why) in odd.items():
        assert sum(why in r for r in reasons) == 1, (kind, reasons)
    assert all(e["source"] == source.example and ("item" in e or "raw" in e) for e in quarantine(tmp_path))
    # The checkpoint is the newest valid item's: no odd one moves it.
    assert first.checkpoint == datetime.fromtimestamp(valid[0]["sort"][0] / 1000, timezone.utc)
    # New items come: they are written; the odd ones are set aside again, and kept once in the file.
    fresh = [item(i, now_ms() - i * 1000) for i in (20, 21)]
    feed.items = [*map(text, fresh), *feed.items]
    second = c.feeds.sync(source.example, tmp_path, lookback=YEAR)
    assert [h.uuid for h in second.new] == [f["_id"] for f in fresh] and second.quarantined >= 1
    assert len(quarantine(tmp_path)) == len(odd)
    ids = written(tmp_path)
    assert len(ids) == len(set(ids)) == 7


@pytest.mark.parametrize("odd", ["future", "_id a number"])
def test_one_odd_item_does_not_stop_the_feed(served: tuple[Feed, Client], tmp_path: Path, odd: str) -> None:
    """Found by an attack: one item dated in the future moved the checkpoint past every later item (0 new
    for good); one item with ``"_id": 5`` failed every run (0 written, new ones included)."""
    feed, c = served
    t = now_ms() - 3_600_000
    raw = odd_items(t)[odd][0]
    feed.items = [raw, text(item(1, t))]
    assert [h.uuid for h in c.feeds.sync("phishfeed", tmp_path, lookback=YEAR).new] == [item(1, 0)["_id"]]
    for n in (2, 3):
        feed.items.insert(0, text(item(n, now_ms() - 1000)))
        report = c.feeds.sync("phishfeed", tmp_path, lookback=YEAR)
        assert [h.uuid for h in report.new] == [item(n, 0)["_id"]] and report.quarantined == 1


@pytest.mark.parametrize("source", SOURCES, ids=[s.kind for s in SOURCES])
def test_a_repeated_item_is_written_once(served: tuple[Feed, Client], tmp_path: Path, source: Any) -> None:
    feed, c = served
    t = now_ms() - 3_600_000
    valid = [text(item(i, t - i * 60_000)) for i in range(1, 5)]
    feed.items = [valid[0], valid[0], valid[1], valid[2], valid[1], valid[3]]
    report = c.feeds.sync(source.example, tmp_path, lookback=YEAR)
    assert len(report.new) == 4 and report.skipped == 2 and report.quarantined == 0
    assert written(tmp_path) == [json.loads(v)["_id"] for v in valid]


def test_an_item_after_9999_is_no_overflow_on_any_run(served: tuple[Feed, Client], tmp_path: Path) -> None:
    """Found by an attack: a sort time past year 9999 was an OverflowError on every run (it became the mark)."""
    feed, c = served
    feed.items = [text(item(1, 10**15)), text(item(2, now_ms() - 1000))]
    for _ in range(2):
        report = c.feeds.sync("phishfeed", tmp_path, lookback=YEAR)
        assert report.quarantined == 1 and report.checkpoint is not None and report.checkpoint.year < 9999
    assert written(tmp_path) == [item(2, 0)["_id"]]


def test_an_item_the_format_cannot_hold_is_set_aside(served: tuple[Feed, Client], tmp_path: Path) -> None:
    pytest.importorskip("stix2")
    feed, c = served
    t = now_ms() - 3_600_000
    odd = item(1, t)
    odd["page"]["ip"] = {"not": "an address"}  # read by the STIX writer and the table only
    good = item(2, t - 1000)
    feed.items = [text(odd), text(good)]
    for fmt in ("stix", "parquet"):
        report = c.feeds.sync("phishfeed", tmp_path / fmt, lookback=YEAR, format=fmt)
        assert [h.uuid for h in report.new] == [good["_id"]] and report.quarantined == 1
        assert "cannot be written" in quarantine(tmp_path / fmt)[0]["reason"]


def test_a_filter_that_cannot_read_an_item_sets_it_aside(served: tuple[Feed, Client], tmp_path: Path) -> None:
    feed, c = served
    t = now_ms() - 3_600_000
    odd = item(1, t)
    odd["page"]["domain"] = 7
    feed.items = [text(odd), text(item(2, t - 1000))]
    report = c.feeds.sync("phishfeed", tmp_path, lookback=YEAR, filter=lambda h: "phish" in h.page.domain)
    assert [h.uuid for h in report.new] == [item(2, 0)["_id"]] and report.quarantined == 1
    assert "the filter could not read it" in quarantine(tmp_path)[0]["reason"]


def test_a_body_that_is_not_a_page_is_a_decode_error_and_nothing_moves(served: tuple[Feed, Client], tmp_path: Path) -> None:
    from urlscan_rs import DecodeError

    feed, c = served
    feed.items = [text(item(1, now_ms() - 1000))]
    c.feeds.sync("phishfeed", tmp_path, lookback=YEAR)
    for body in (b"{}", b'{"status": 400, "message": "Bad Request"}', b'{"results": {}}', b"[]"):
        feed.body = body
        with pytest.raises(DecodeError, match="expected a page of results"):
            c.feeds.sync("phishfeed", tmp_path, lookback=YEAR)
    feed.body = None
    feed.items.insert(0, text(item(2, now_ms() - 500)))
    assert [h.uuid for h in c.feeds.sync("phishfeed", tmp_path, lookback=YEAR).new] == [item(2, 0)["_id"]]


def test_the_command_line_counts_what_it_set_aside_and_names_a_bad_folder(
    served: tuple[Feed, Client], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from urlscan_rs import cli

    feed, c = served
    t = now_ms() - 3_600_000
    feed.items = [odd_items(t)["after 9999"][0], text(item(1, t))]
    argv = ["--base-url", str(c.base_url), "--api-key", KEY, "feed", "sync", "phishfeed"]
    assert cli.main([*argv, str(tmp_path), "--json", "--lookback", "366d"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["new"] == 1 and summary["quarantined"] == 1
    # A file where the folder should be: one line naming it, no traceback (a FileExistsError before).
    (tmp_path / "file").write_text("mine")
    assert cli.main([*argv, str(tmp_path / "file")]) == 1
    err = capsys.readouterr().err
    assert "is not a folder" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_the_emulator_dates_its_answers_by_its_clock(fe: Emulator) -> None:
    """The clock a feed judges item times by: the emulator's, as the service's is its own."""
    from email.utils import parsedate_to_datetime

    from .conftest import http

    fe.advance(2 * 86400)
    _, headers, _ = http(fe, "GET", "/api/v1/pro/phishfeed")
    assert abs(parsedate_to_datetime(headers["date"]).timestamp() - fe.now()) < 5


# ---------------------------------------------------------------- generated feeds

ODD_KINDS = [k for k in ODD if k != "1970, out of order"]


@st.composite
def feeds_with_odd_items(draw: Any) -> tuple[list[str], list[str], list[str]]:
    """(the items as served, the ids of the valid ones, the texts of the odd ones that must be set aside)."""
    n = draw(st.integers(1, 10))
    base = now_ms() - 3_600_000
    gaps = draw(st.lists(st.integers(0, 5_000), min_size=n, max_size=n))
    times, t = [], base
    for g in gaps:
        t -= g  # newest first; equal times too
        times.append(t)
    valid = [item(i, times[i - 1]) for i in range(1, n + 1)]
    served = [text(v) for v in valid]
    kinds = draw(st.lists(st.sampled_from([*ODD_KINDS, "ancient"]), max_size=6))
    odd: list[str] = []
    for j, k in enumerate(kinds):
        at = draw(st.integers(0, len(served)))
        if k == "ancient":
            if at == len(served):
                continue  # at the end it only ends the walk
            raw = text(item(800 + j, 0))
        else:
            raw = odd_items(base, 1000 + 10 * j)[k][0]
        odd.append(raw)
        served.insert(at, raw)
    # Valid items served twice, each next to itself (a service's walk never serves one item at two
    # places: its cursor is a place).
    for v in draw(st.lists(st.sampled_from(valid), max_size=3)):
        served.insert(served.index(text(v)), text(v))
    return served, [v["_id"] for v in valid], odd


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=feeds_with_odd_items(), max_items=st.integers(2, 12), kind=st.sampled_from(SOURCES))
def test_generated_feeds_write_each_valid_item_once(
    served: tuple[Feed, Client], tmp_path_factory: Any, case: Any, max_items: int, kind: Any
) -> None:
    feed, c = served
    items, valid, odd = case
    feed.items = items
    dest = tmp_path_factory.mktemp("feed")
    for _ in range(len(items) + 2):
        report = c.feeds.sync(kind.example, dest, lookback=YEAR, max_items=max_items)
        if report.complete:
            break
    # More odd items than max_items above the valid ones are read again by every run (each reads as
    # many odd items as max_items, beside as many valid ones): its walk is cut, yet nothing is lost.
    assert report.complete or len(odd) > max_items
    ids = written(dest)
    assert len(ids) == len(set(ids)) and set(ids) == set(valid)
    aside = quarantine(dest)
    assert len(aside) == len({json.dumps(e.get("item", e.get("raw")), sort_keys=True) for e in aside})  # each once
    assert not any(e["item"].get("_id") in valid for e in aside if isinstance(e.get("item"), dict))
    # Every odd item before the last valid one is set aside (the walk may end before odd ones after it).
    last = max(i for i, raw in enumerate(items) if raw not in odd)
    assert len({raw for raw in odd if items.index(raw) < last}) <= len(aside) <= len(set(odd))


# ---------------------------------------------------------------- the claim outlives a slow page


class _Clock:
    """``time`` for the feeds module, `ahead` seconds later than the machine's: how the test moves
    the clock a claim is judged by, without waiting for it."""

    def __init__(self, ahead: float) -> None:
        self.ahead = ahead

    def time(self) -> float:
        return time.time() + self.ahead

    def __getattr__(self, name: str) -> Any:
        return getattr(time, name)


def _sync_in_background(c: Client, folder: Path) -> tuple[threading.Thread, dict[str, Any]]:
    """A phishfeed sync into ``folder`` on a thread of its own, started; its ``"report"`` (or what it
    raised) is in the dict once the thread has ended."""
    out: dict[str, Any] = {}

    def run() -> None:
        try:
            out["report"] = c.feeds.sync("phishfeed", folder, lookback=YEAR)
        except BaseException as e:  # noqa: BLE001 (the caller checks it)
            out["report"] = e

    runner = threading.Thread(target=run)
    runner.start()
    return runner, out


def test_a_run_keeps_its_claim_while_a_page_is_slow(
    served: tuple[Feed, Client], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found by an attack: a run whose claim went stale while it waited let a run on another host in,
    and both wrote the items. The claim is renewed while the run waits; the other host is refused."""
    from urlscan_rs import _folder_state

    monkeypatch.setattr(_folder_state, "STALE_SECONDS", 0.8)
    feed, c = served
    feed.items = [text(item(i, now_ms() - i * 1000)) for i in range(1, 4)]
    feed.gate = threading.Event()
    runner, done = _sync_in_background(c, tmp_path)
    try:
        assert feed.entered.wait(10)  # the run waits for its page
        # An hour later by the clock claims are judged by: a claim not renewed since is stale.
        clock = _Clock(3600.0)
        monkeypatch.setattr(feeds, "time", clock)
        monkeypatch.setattr(_folder_state, "time", clock)  # the lease rule's and the renewals' clock
        state = tmp_path / feeds.STATE_FILE
        deadline = time.monotonic() + 10
        while True:
            with sqlite3.connect(state) as db:
                (claimed,) = db.execute("SELECT claimed_at FROM feeds").fetchone()
            if claimed >= clock.time() - 0.5:
                break
            assert time.monotonic() < deadline, "the waiting run's claim was not renewed"
            time.sleep(0.02)
        # A run on another host sees a live claim.
        monkeypatch.setattr(socket, "gethostname", lambda: "elsewhere.example")
        with pytest.raises(StateError, match="another sync of phishfeed into this folder is running"):
            c.feeds.sync("phishfeed", tmp_path, lookback=YEAR)
        monkeypatch.undo()
    finally:
        feed.gate.set()
        runner.join(30)
    report = done["report"]
    assert isinstance(report, feeds.FeedReport) and len(report.new) == 3
    assert len(written(tmp_path)) == 3


def test_a_run_that_lost_its_claim_writes_nothing(
    served: tuple[Feed, Client], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process stopped for longer than a claim lasts (its renewals could not run): another run took the
    source over, and this one, when it goes on, writes nothing (the other writes the items)."""
    feed, c = served
    feed.items = [text(item(1, now_ms() - 1000))]
    feed.gate = threading.Event()
    runner, out = _sync_in_background(c, tmp_path)
    try:
        assert feed.entered.wait(10)
        with sqlite3.connect(tmp_path / feeds.STATE_FILE) as db:
            db.execute("UPDATE feeds SET owner = 'elsewhere.example:1:the-other-run', claimed_at = ?", (time.time(),))
    finally:
        feed.gate.set()
        runner.join(30)
    assert isinstance(out["report"], StateError) and "took phishfeed over" in str(out["report"])
    assert written(tmp_path) == []


# ---------------------------------------------------------------- a look-back wider than max_items


def test_a_look_back_wider_than_max_items_completes(fe: Emulator, tmp_path: Path) -> None:
    """Found by an attack: with more items in the window than max_items, every run read the window again
    from the top and never completed. The items new since the last run come first; the look through
    the window for late ones goes on where the last run stopped."""
    with fe.client() as c:
        everything = {h.uuid for h in c.phishfeed()}
        budget = max(4, len(everything) // 4)
        runs = []
        for _ in range(len(everything) // budget + 2):
            runs.append(c.feeds.sync("phishfeed", tmp_path, lookback=YEAR, max_items=budget))
            if runs[-1].complete:
                break
        assert runs[-1].complete and set(written(tmp_path)) == everything
        # From now on each run is complete and writes what is new, however wide the window.
        for start in (100, 200, 300):
            fresh = phish(fe, c, 2, start)
            report = c.feeds.sync("phishfeed", tmp_path, lookback=YEAR, max_items=budget)
            assert report.complete and [h.uuid for h in report.new] == fresh[::-1]
        # A late item (older than the newest, made public now) is found by the look through the window.
        with fe.client("other") as other:
            late = other.scan("https://paypal-late.example.xyz/signin", visibility="private").uuid
            fe.advance(fe.scan_duration + 1)
            phish(fe, c, 1, 400)
            other.set_visibility(late, "public")
        found = []
        for _ in range(len(everything) // budget + 3):
            found += [h.uuid for h in c.feeds.sync("phishfeed", tmp_path, lookback=YEAR, max_items=budget).new]
        assert late in found
    ids = written(tmp_path)
    assert len(ids) == len(set(ids))


# ---------------------------------------------------------------- SIGKILL at seeded points

_KILLED = r"""
import os, signal, sys
from urlscan_rs import Client, _native, feeds

url, key, dest, point, nth, max_items = sys.argv[1:]
count = 0

def kill_at(name, fn):
    def wrapped(*args, **kwargs):
        global count
        if name == point:
            count += 1
            if count == int(nth):
                os.kill(os.getpid(), signal.SIGKILL)
        out = fn(*args, **kwargs)
        if name + " done" == point:
            count += 1
            if count == int(nth):
                os.kill(os.getpid(), signal.SIGKILL)
        return out
    return wrapped

for name, owner, attr in (
    ("page", feeds.Reader, "page"),
    ("take", feeds._Run, "_take"),
    ("keys", feeds._State, "_keys"),
    ("begin", feeds._State, "begin"),
    ("finish", feeds._State, "finish"),
):
    setattr(owner, attr, kill_at(name, getattr(owner, attr)))
_native.write_whole = kill_at("write", _native.write_whole)
with Client(key, base_url=url) as c:
    c.feeds.sync("phishfeed", dest, lookback=366 * 86400, max_items=int(max_items))
"""

_POINTS = ("page", "take", "keys", "keys done", "begin", "begin done", "write", "write done", "finish")


def test_runs_killed_at_seeded_points_leave_no_duplicate_and_no_gap(fe: Emulator, tmp_path: Path) -> None:
    rng = random.Random(51)
    dest = tmp_path / "feed"
    with fe.client() as c:
        expected = {h.uuid for h in c.phishfeed()}
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
        killed = 0
        for round_, point in enumerate(rng.sample(_POINTS, 6)):
            max_items = rng.randint(5, 30)
            # The points a run passes once (its file) are killed at once; the others at a seeded pass.
            nth = rng.randint(1, max_items) if point == "take" else rng.randint(1, 2) if point in ("page", "keys") else 1
            args = [fe.url, fe.api_key, str(dest), point, str(nth), str(max_items)]
            done = subprocess.run([sys.executable, "-c", _KILLED, *args], env=env, capture_output=True, text=True, timeout=60)
            assert done.returncode in (0, -signal.SIGKILL), done.stderr
            killed += done.returncode == -signal.SIGKILL
            if rng.random() < 0.5:
                expected |= set(phish(fe, c, 1, 500 + round_))
        assert killed >= 4  # the points are reached: the runs were killed where meant
        for _ in range(10):
            if c.feeds.sync("phishfeed", dest, lookback=YEAR).complete:
                break
        expected |= {h.uuid for h in c.phishfeed()}
    ids = written(dest)
    assert len(ids) == len(set(ids)), "an item was written twice"
    assert set(ids) == expected, "an item was left out"
