"""Checkpointed feeds (client.feeds.sync) against the emulator: each item written once across
runs, whatever stops a run; the look-back window; formats; the state file; the command line."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from urlscan_rs import Client, NotFoundError, PermissionDeniedError, ServerError, StateError, ValidationError, cli, feeds
from urlscan_rs.testing import Emulator

from .conftest import emulator, requests_served, run

fe = emulator("function", scans=300, scan_duration=5.0, seed=7)

YEAR = 366 * 86400  # a look-back that holds every seeded scan


def phish(e: Emulator, c: Client, n: int, start: int = 0, host: str = "paypal-login{}.example.xyz") -> list[str]:
    """`n` new phishing pages (scans the emulator finds malicious), one a second of emulator
    time, finished; their uuids, oldest first."""
    uuids = []
    for i in range(start, start + n):
        uuids.append(str(c.scan(f"https://{host.format(i)}/signin").uuid))
        e.advance(1)
    e.advance(e.scan_duration + 1)
    return uuids


def feed(c: Client) -> set[str]:
    """Every item of the phishing feed now."""
    return {str(h.uuid) for h in c.phishfeed()}


def written(dest: Path) -> list[str]:
    """The uuids of every JSON-lines file the runs wrote, file by file."""
    return [json.loads(line)["_id"] for f in sorted(dest.glob("*.jsonl")) for line in f.read_text().splitlines()]


def once(dest: Path, expected: set[str]) -> None:
    """Every expected item is in the files exactly once, and nothing else is."""
    ids = written(dest)
    assert len(ids) == len(set(ids)), [i for i in ids if ids.count(i) > 1]
    assert set(ids) == expected


# ---------------------------------------------------------------- runs


def test_a_first_run_writes_the_window_and_later_runs_only_what_is_new(fe: Emulator, tmp_path: Path) -> None:
    with fe.client() as c:
        everything = feed(c)
        first = c.feeds.sync("phishfeed", tmp_path, lookback=YEAR)
        assert {h.uuid for h in first.new} == everything and first.complete and first.skipped == 0
        assert [f.name for f in first.files] == [f.name for f in tmp_path.glob("phishfeed-*.jsonl")]
        assert first.checkpoint == max(h.task.time for h in first.new)
        again = c.feeds.sync("phishfeed", tmp_path, lookback=YEAR)
        assert again.new == [] and again.files == [] and again.skipped == len(everything)
        fresh = phish(fe, c, 3)
        third = c.feeds.sync("phishfeed", tmp_path, lookback=YEAR)
        # Newest first; only the new ones are written, to a file of their own.
        assert [h.uuid for h in third.new] == fresh[::-1] and len(third.files) == 1
        assert third.checkpoint is not None and third.checkpoint > first.checkpoint
        once(tmp_path, everything | set(fresh))
        assert "3 new to phishfeed-" in str(third) and "FeedReport(source='phishfeed', new=3," in repr(third)
        # The files are the hits as the service sent them.
        line = json.loads(third.files[0].read_text().splitlines()[0])
        assert line == third.new[0].to_dict()


def test_the_async_client_syncs_the_same_way(fe: Emulator, tmp_path: Path) -> None:
    with fe.client() as c:
        everything = feed(c)
    ac = fe.async_client()
    try:
        first = run(ac.feeds.sync("phishfeed", tmp_path, lookback=YEAR))
        assert {h.uuid for h in first.new} == everything
        with fe.client() as c:
            fresh = phish(fe, c, 2)
        second = run(ac.feeds.sync("phishfeed", tmp_path, lookback=YEAR))
        assert [h.uuid for h in second.new] == fresh[::-1] and second.skipped == len(everything)
    finally:
        ac.close()
    once(tmp_path, everything | set(fresh))


def test_dedupe_by_url_writes_one_item_per_submitted_url(fe: Emulator, tmp_path: Path) -> None:
    with fe.client() as c:
        urls = {h.task.url for h in c.phishfeed()}
        twice = phish(fe, c, 2, host="paypal-dup.example.xyz/{}") + phish(fe, c, 2, host="paypal-dup.example.xyz/{}")
        by_url = c.feeds.sync("phishfeed", tmp_path / "url", lookback=YEAR, dedupe="url")
        dups = {f"https://paypal-dup.example.xyz/{i}/signin" for i in range(2)}
        assert sorted(h.task.url for h in by_url.new) == sorted(urls | dups)
        assert [h.uuid for h in by_url.new if h.task.url in dups] == twice[:1:-1]  # the newest of each URL
        # A URL written before is not written again, however many new scans of it come.
        again = phish(fe, c, 1, host="paypal-dup.example.xyz/{}")
        assert c.feeds.sync("phishfeed", tmp_path / "url", lookback=YEAR, dedupe="url").new == []
        by_uuid = c.feeds.sync("phishfeed", tmp_path / "uuid", lookback=YEAR)
        assert {h.uuid for h in by_uuid.new} == feed(c) and set(twice + again) <= {h.uuid for h in by_uuid.new}


def test_the_filter_decides_and_is_asked_again_next_run(fe: Emulator, tmp_path: Path) -> None:
    with fe.client() as c:
        everything = feed(c)
        asked: list[str] = []

        def paypal(hit: Any) -> bool:
            asked.append(hit.uuid)
            return "paypal" in (hit.task.url or "")

        first = c.feeds.sync("phishfeed", tmp_path, lookback=YEAR, filter=paypal)
        kept = {h.uuid for h in first.new}
        assert kept and all("paypal" in h.task.url for h in first.new)
        assert first.filtered == len(everything) - len(kept) and set(asked) == everything
        # Turned down is not written: asked again (the filter may change its mind), never a duplicate.
        asked.clear()
        second = c.feeds.sync("phishfeed", tmp_path, lookback=YEAR, filter=paypal)
        assert second.new == [] and set(asked) == everything - kept and second.skipped == len(kept)
        third = c.feeds.sync("phishfeed", tmp_path, lookback=YEAR)
        assert {h.uuid for h in third.new} == everything - kept
        once(tmp_path, everything)


def test_the_look_back_window_bounds_a_run_and_catches_late_items(fe: Emulator, tmp_path: Path) -> None:
    with fe.client() as c, fe.client("other") as other:
        now = datetime.fromtimestamp(fe.now(), timezone.utc)
        times = {str(h.uuid): h.task.time for h in c.phishfeed()}
        day = now - timedelta(days=1)
        # No item sits near the bound: the run's clock and the test's may differ by a moment.
        assert all(abs(t - day) > timedelta(minutes=10) for t in times.values())
        first = c.feeds.sync("phishfeed", tmp_path, lookback=timedelta(days=1))
        assert {h.uuid for h in first.new} == {u for u, t in times.items() if t > day}
        # A scan made public later comes into the feed with its own (earlier) time: found while
        # within the look-back of the newest item walked ...
        late = other.scan("https://paypal-late.example.xyz/signin", visibility="private").uuid
        fresh = phish(fe, c, 1)
        assert [h.uuid for h in c.feeds.sync("phishfeed", tmp_path, lookback=timedelta(days=1)).new] == fresh
        other.set_visibility(late, "public")
        assert [h.uuid for h in c.feeds.sync("phishfeed", tmp_path, lookback=timedelta(days=1)).new] == [late]
        # ... and not once it is older than that: the walk does not go back further.
        old = other.scan("https://paypal-older.example.xyz/signin", visibility="private").uuid
        fe.advance(2 * 86400)
        newer = phish(fe, c, 1)
        assert [h.uuid for h in c.feeds.sync("phishfeed", tmp_path, lookback=timedelta(days=1)).new] == newer
        other.set_visibility(old, "public")
        assert old in feed(c) and c.feeds.sync("phishfeed", tmp_path, lookback=timedelta(days=1)).new == []


# ---------------------------------------------------------------- stopped runs: no duplicate, no gap


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_a_run_stopped_by_a_failing_page_resumes_with_no_duplicate_and_no_gap(fe: Emulator, tmp_path: Path, kind: str) -> None:
    """A saved search's hits come 100 a page: the second page fails, the first one's hits stay written."""
    with fe.client() as c:
        s = c.saved_searches.create(datasource="scans", name="all", query="task.visibility:public")
        everything = {h.uuid for h in c.search("task.visibility:public", limit=1000)}
        assert len(everything) > 200
    fe.inject("status", status=500, path=f"/api/v1/user/searches/{s.id}/results", every=2, count=1)

    def sync(**kwargs: Any) -> Any:
        if kind == "sync":
            with fe.client(**kwargs) as c:
                return c.feeds.sync(s.id, tmp_path, lookback=YEAR)
        ac = fe.async_client(**kwargs)
        try:
            return run(ac.feeds.sync(s.id, tmp_path, lookback=YEAR))
        finally:
            ac.close()

    with pytest.raises(ServerError):
        sync(max_retries=0)
    assert len(written(tmp_path)) == 100
    resumed = sync()
    assert resumed.complete and len(resumed.new) == len(everything) - 100
    once(tmp_path, everything)


def test_a_feed_whose_first_page_fails_writes_nothing_and_starts_again(fe: Emulator, tmp_path: Path) -> None:
    with fe.client() as c:
        everything = feed(c)
    fe.inject("status", status=503, path="/api/v1/pro/phishfeed", count=1)
    with fe.client(max_retries=0) as c:
        with pytest.raises(ServerError):
            c.feeds.sync("phishfeed", tmp_path, lookback=YEAR)
        assert written(tmp_path) == []
        assert {h.uuid for h in c.feeds.sync("phishfeed", tmp_path, lookback=YEAR).new} == everything
    once(tmp_path, everything)


def test_a_filter_that_raises_keeps_what_was_handled(fe: Emulator, tmp_path: Path) -> None:
    with fe.client() as c:
        everything = feed(c)
        calls = 0

        def breaks_on_the_fifth(hit: Any) -> bool:
            nonlocal calls
            calls += 1
            if calls == 5:
                raise RuntimeError("the filter broke")
            return True

        with pytest.raises(RuntimeError, match="the filter broke"):
            c.feeds.sync("phishfeed", tmp_path, lookback=YEAR, filter=breaks_on_the_fifth)
        assert len(written(tmp_path)) == 4
        # The item it broke on is asked again, first; nothing is written twice.
        asked: list[str] = []
        resumed = c.feeds.sync("phishfeed", tmp_path, lookback=YEAR, filter=lambda h: asked.append(h.uuid) is None)
        assert len(resumed.new) == len(everything) - 4 and asked[0] == resumed.new[0].uuid
        once(tmp_path, everything)


def test_max_items_bounds_a_run_and_the_next_goes_on(fe: Emulator, tmp_path: Path) -> None:
    with fe.client() as c:
        fresh = phish(fe, c, 10)
        everything = feed(c)
        older = [h.uuid for h in c.phishfeed() if h.uuid not in fresh]  # newest first
        first = c.feeds.sync("phishfeed", tmp_path, lookback=YEAR, max_items=8)
        assert first.read == 8 and not first.complete and "stopped at max_items" in str(first)
        assert [h.uuid for h in first.new] == fresh[:1:-1]
        # New items come meanwhile: the rest of the cut walk is read first, as far as the bound goes ...
        newer = phish(fe, c, 3, start=100)
        second = c.feeds.sync("phishfeed", tmp_path, lookback=YEAR, max_items=10)
        assert [h.uuid for h in second.new] == [fresh[1], fresh[0], *older[:8]] and not second.complete
        # ... then the newest.
        third = c.feeds.sync("phishfeed", tmp_path, lookback=YEAR, max_items=100)
        assert [h.uuid for h in third.new] == [*older[8:], *newer[::-1]] and third.complete
        once(tmp_path, everything | set(newer))


def test_a_run_stopped_between_its_file_and_its_state(fe: Emulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A process killed after its file is whole but before its state says so: the next run counts
    the file; killed before the file was whole: the next run writes its items."""
    with fe.client() as c:
        everything = feed(c)

        def killed(*args: Any) -> None:
            raise KeyboardInterrupt

        monkeypatch.setattr(feeds._State, "finish", killed)
        with pytest.raises(KeyboardInterrupt):
            c.feeds.sync("phishfeed", tmp_path / "after", lookback=YEAR)
        monkeypatch.undo()
        assert set(written(tmp_path / "after")) == everything
        assert c.feeds.sync("phishfeed", tmp_path / "after", lookback=YEAR).new == []
        once(tmp_path / "after", everything)

        monkeypatch.setattr(feeds, "_write", killed)
        monkeypatch.setattr(feeds._State, "abandon", lambda self, run: None)  # no chance to clean up
        with pytest.raises(KeyboardInterrupt):
            c.feeds.sync("phishfeed", tmp_path / "before", lookback=YEAR)
        monkeypatch.undo()
        with sqlite3.connect(tmp_path / "before" / feeds.STATE_FILE) as db:
            assert db.execute("SELECT status FROM runs").fetchall() == [("pending",)]
        assert written(tmp_path / "before") == []
        assert {h.uuid for h in c.feeds.sync("phishfeed", tmp_path / "before", lookback=YEAR).new} == everything
        once(tmp_path / "before", everything)

        # Ctrl-C arriving as the write returns (its rename done): the run counts as done.
        real = feeds._write

        def interrupted(*args: Any) -> None:
            real(*args)
            raise KeyboardInterrupt

        monkeypatch.setattr(feeds, "_write", interrupted)
        with pytest.raises(KeyboardInterrupt):
            c.feeds.sync("phishfeed", tmp_path / "during", lookback=YEAR)
        monkeypatch.undo()
        assert c.feeds.sync("phishfeed", tmp_path / "during", lookback=YEAR).new == []
        once(tmp_path / "during", everything)


# ---------------------------------------------------------------- sources and formats


def test_a_saved_search_is_a_source(fe: Emulator, tmp_path: Path) -> None:
    with fe.client() as c:
        s = c.saved_searches.create(datasource="scans", name="ours", query="page.domain:example.xyz")
        fresh = phish(fe, c, 3)
        matching = {h.uuid for h in c.search("page.domain:example.xyz", limit=1000)}
        first = c.feeds.sync(s.id, tmp_path, lookback=YEAR)
        assert {h.uuid for h in first.new} == matching and set(fresh) <= matching
        assert first.files[0].name.startswith(f"{s.id}-")
        newer = phish(fe, c, 2, start=10)
        assert [h.uuid for h in c.feeds.sync(s.id, tmp_path, lookback=YEAR).new] == newer[::-1]
        # Two sources in one folder keep apart.
        assert {h.uuid for h in c.feeds.sync("phishfeed", tmp_path, lookback=YEAR).new} == feed(c)
        with pytest.raises(NotFoundError):
            c.feeds.sync("0" * 24, tmp_path)


def test_parquet_holds_the_scans_table(fe: Emulator, tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    with fe.client() as c:
        report = c.feeds.sync("phishfeed", tmp_path, lookback=YEAR, format="parquet")
        [f] = report.files
        assert f.suffix == ".parquet" and [p.name for p in tmp_path.iterdir() if not p.name.startswith(".")] == [f.name]
        table = pq.read_table(f)
        assert table.column("uuid").to_pylist() == [h.uuid for h in report.new]
        assert table.column("malicious").to_pylist() == [True] * len(report.new)


def test_stix_is_one_bundle_that_parses_strictly(fe: Emulator, tmp_path: Path) -> None:
    stix2 = pytest.importorskip("stix2")
    with fe.client() as c:
        report = c.feeds.sync("phishfeed", tmp_path, lookback=YEAR, format="stix")
        [f] = report.files
        assert f.name.endswith(".stix.json")
        bundle = json.loads(f.read_text())
        parsed = stix2.parse(bundle, allow_custom=False)
        ids = [o["id"] for o in bundle["objects"]]
        assert len(ids) == len(set(ids)) and len(parsed.objects) == len(ids)
        observed = {o["external_references"][0]["external_id"] for o in bundle["objects"] if o["type"] == "observed-data"}
        assert observed == {h.uuid for h in report.new}
        assert sum(o["type"] == "indicator" for o in bundle["objects"]) == len(report.new)  # each one malicious


# ---------------------------------------------------------------- the state


def test_a_corrupt_state_is_named_and_rebuilt_from_the_files(fe: Emulator, tmp_path: Path) -> None:
    with fe.client() as c:
        everything = feed(c)
        c.feeds.sync("phishfeed", tmp_path, lookback=YEAR, max_items=10)
        c.feeds.sync("phishfeed", tmp_path, lookback=YEAR, format="stix")
        state = tmp_path / feeds.STATE_FILE
        state.write_bytes(b"this is not a database" * 100)
        with pytest.raises(StateError, match="rebuild_state=True") as e:
            c.feeds.sync("phishfeed", tmp_path, lookback=YEAR)
        assert e.value.path == str(state) and str(state) in str(e.value)
        # The items in the files (JSON lines and STIX) count as written.
        rebuilt = c.feeds.sync("phishfeed", tmp_path, lookback=YEAR, rebuild_state=True)
        assert rebuilt.new == [] and rebuilt.skipped == len(everything)
        assert len(list(tmp_path.glob(f"{feeds.STATE_FILE}.*.broken"))) == 1
        fresh = phish(fe, c, 1)
        assert [h.uuid for h in c.feeds.sync("phishfeed", tmp_path, lookback=YEAR).new] == fresh


def test_a_state_of_another_shape_is_named(fe: Emulator, tmp_path: Path) -> None:
    with fe.client() as c:
        c.feeds.sync("phishfeed", tmp_path, lookback=YEAR)
        with sqlite3.connect(tmp_path / feeds.STATE_FILE) as db:
            db.execute("UPDATE feeds SET hole_from = 1, hole_after = '../../etc/passwd x'")
        with pytest.raises(StateError, match="checkpoint of phishfeed is not what this package writes"):
            c.feeds.sync("phishfeed", tmp_path, lookback=YEAR)
        with sqlite3.connect(tmp_path / feeds.STATE_FILE) as db:
            db.execute("UPDATE feeds SET hole_from = NULL, hole_after = NULL")
            db.execute("INSERT INTO runs (id, source, file, status) VALUES ('x', 'phishfeed', '../../x.jsonl', 'pending')")
        with pytest.raises(StateError, match="file name of a run"):
            c.feeds.sync("phishfeed", tmp_path, lookback=YEAR)


def test_a_link_at_the_state_name_is_not_followed(fe: Emulator, tmp_path: Path) -> None:
    outside = tmp_path / "outside.sqlite3"
    (tmp_path / "feed").mkdir()
    (tmp_path / "feed" / feeds.STATE_FILE).symlink_to(outside)
    with fe.client() as c, pytest.raises(StateError, match="symbolic link"):
        c.feeds.sync("phishfeed", tmp_path / "feed")
    assert not outside.exists()


def test_one_run_of_a_source_at_a_time(fe: Emulator, tmp_path: Path) -> None:
    with fe.client() as c:
        c.feeds.sync("phishfeed", tmp_path, lookback=YEAR)
        gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True).stdout
        here = socket.gethostname()
        day_ago = datetime.now().timestamp() - 86400
        cases = (
            (f"{here}:{os.getpid()}:another-run", datetime.now().timestamp(), True),
            # A run of this host holds the source as long as its process lives, however long.
            (f"{here}:{os.getpid()}:a-long-run", day_ago, True),
            (f"{here}:{gone.strip()}:a-killed-run", datetime.now().timestamp(), False),
            # A run of another host: until its claim, renewed as it reads, is an hour old.
            ("elsewhere.example:1:a-run", datetime.now().timestamp(), True),
            ("elsewhere.example:1:a-stale-run", day_ago, False),
        )
        for owner, claimed, refused in cases:
            with sqlite3.connect(tmp_path / feeds.STATE_FILE) as db:
                db.execute("UPDATE feeds SET owner = ?, claimed_at = ?", (owner, claimed))
            if refused:
                with pytest.raises(StateError, match="another sync of phishfeed into this folder is running"):
                    c.feeds.sync("phishfeed", tmp_path, lookback=YEAR)
            else:  # its process is gone: the source is free
                assert c.feeds.sync("phishfeed", tmp_path, lookback=YEAR).complete


def test_bad_arguments_send_nothing(fe: Emulator, tmp_path: Path) -> None:
    with fe.client() as c:
        before = requests_served(fe)
        for kwargs, message in (
            ({"lookback": 0}, "lookback must be more than 0"),
            ({"lookback": timedelta(days=400)}, "at most 366 days"),
            ({"lookback": "3d"}, "lookback must be seconds or a timedelta"),
            ({"dedupe": "domain"}, 'dedupe must be "uuid" or "url"'),
            ({"format": "csv"}, "format must be one of jsonl, parquet, stix"),
            ({"max_items": 0}, "max_items must be a whole number from 1"),
            ({"filter": "paypal"}, "filter must be a function"),
        ):
            with pytest.raises(ValidationError, match=message):
                c.feeds.sync("phishfeed", tmp_path / "x", **kwargs)
        for source in ("../up", "", "a/b", ".hidden"):
            with pytest.raises(ValidationError, match="source must be"):
                c.feeds.sync(source, tmp_path / "x")
        assert requests_served(fe) == before and not (tmp_path / "x").exists()
    # Refused by the service: nothing written, the source free for the next run.
    with fe.client("free") as free, pytest.raises(PermissionDeniedError):
        free.feeds.sync("phishfeed", tmp_path / "y")
    with fe.client() as c:
        assert c.feeds.sync("phishfeed", tmp_path / "y", lookback=YEAR).new


# ---------------------------------------------------------------- the command line


def test_the_command_line(fe: Emulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--base-url", fe.url, "--api-key", fe.api_key, "feed", "sync", "phishfeed", str(tmp_path)]
    with fe.client() as c:
        everything = feed(c)
    assert cli.main([*argv, "--lookback", "366d"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(str(tmp_path / "phishfeed-")) and out[1].startswith(f"{len(everything)} new to phishfeed-")
    assert cli.main([*argv, "--json", "--lookback", "366d", "--format", "stix"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["new"] == 0 and summary["skipped"] == len(everything) and summary["complete"] is True
    assert cli.main([*argv, "--lookback", "0"]) == 2
    assert "--lookback: expected seconds or a number with s, m, h or d" in capsys.readouterr().err
    once(tmp_path, everything)
