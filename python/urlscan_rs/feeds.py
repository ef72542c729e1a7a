"""Checkpointed feeds: a folder kept current with the phishing feed or a saved search's hits.

``client.feeds.sync(source, dest_dir)`` walks the source newest first, back to a
look-back window before the newest item it walked last time, and writes each
item it has not written before into one new file per run, with its state in
SQLite in the folder (``.urlscan-feeds.sqlite3``)::

    report = client.feeds.sync("phishfeed", "feeds/", lookback=timedelta(days=3))
    for hit in report.new:            # the items written this run
        push_to_tip(hit)

    urlscan-rs feed sync phishfeed feeds/ --lookback 3d --format stix

A run is bounded (``max_items`` items read) and safe to stop anywhere: what it
read up to then is written and remembered, and the next run walks the rest
first, so no item is written twice and none is left out. The look-back window
catches the items that come late into a source (a scan classified after its
time); items older than the window are not looked for again.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import re
import socket
import sqlite3
import sys
import time
import uuid as _uuid
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import _native
from .datadumps import _LOCK_SECONDS, _STALE_SECONDS, _set_aside, _state_error

if TYPE_CHECKING:
    from .models import SearchHit

__all__ = [
    "FeedReport",
    "PHISHFEED",
    "STATE_FILE",
    "FORMATS",
    "DEFAULT_LOOKBACK",
    "MAX_LOOKBACK",
    "DEFAULT_MAX_ITEMS",
    "MAX_ITEMS",
]

PHISHFEED = "phishfeed"
"""The source name of the phishing feed (GET /api/v1/pro/phishfeed); any other source is a saved search's id."""
STATE_FILE = ".urlscan-feeds.sqlite3"
"""The state's file in the folder: a hidden name, which no file the package writes from a listing can take."""
FORMATS = ("jsonl", "parquet", "stix")
"""The output formats: the hits as the service sent them (``.jsonl``), the ``SCANS`` table (``.parquet``, see
:mod:`urlscan_rs.schema`), or one STIX 2.1 bundle (``.stix.json``)."""
DEFAULT_LOOKBACK = timedelta(days=3)
"""How far before the newest item walked last time a run looks again, by default."""
MAX_LOOKBACK = timedelta(days=366)
"""The longest look-back window."""
DEFAULT_MAX_ITEMS = 10_000
"""The most items a run reads, by default: every walk has a bound."""
MAX_ITEMS = 1_000_000
"""The largest ``max_items`` (the new items of a run are held in memory until written)."""

_EXTENSIONS = {"jsonl": "jsonl", "parquet": "parquet", "stix": "stix.json"}
# A source: "phishfeed" or a saved search's id; it starts the names of the files written.
_SOURCE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,99}")
# A file a run wrote: <source>-<UTC time>-<run>.<extension>.
_FILE = re.compile(r"(?P<source>[A-Za-z0-9][A-Za-z0-9_-]{0,99})-\d{8}T\d{6}Z-[0-9a-f]{8}\.(?P<ext>jsonl|parquet|stix\.json)")
# Where a cut walk goes on: the last item handled, as its sort values ("<epoch ms>,<uuid>").
_CURSOR = re.compile(r"\d{1,16},\S{1,300}")
# Hits per saved-search page (any account may ask for 100).
_PAGE = 100
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_REBUILD = "client.feeds.sync(..., rebuild_state=True) (urlscan-rs feed sync --rebuild-state)"


@dataclasses.dataclass(repr=False)
class FeedReport:
    """What :meth:`client.feeds.sync <urlscan_rs._namespaces.Feeds.sync>` did for ``source``.

    ``new``: the items written this run (:class:`~urlscan_rs.models.SearchHit`,
    in the order read), to ``files`` (one file, or none when nothing was new);
    ``skipped``: items read that were written before (or twice in this run);
    ``filtered``: items the filter turned down; ``read``: items read in all.
    ``complete`` is False when the run stopped at ``max_items`` (the next run
    goes on where it stopped). ``checkpoint``: the time of the newest item
    walked so far (None before the first item), from which the next run looks back.
    """

    source: str
    new: list[SearchHit] = dataclasses.field(default_factory=list)
    skipped: int = 0
    filtered: int = 0
    read: int = 0
    files: list[Path] = dataclasses.field(default_factory=list)
    complete: bool = True
    checkpoint: datetime | None = None

    def __str__(self) -> str:
        where = f" to {', '.join(p.name for p in self.files)}" if self.files else ""
        cut = "; stopped at max_items, the next run goes on" if not self.complete else ""
        return f"{len(self.new)} new{where}, {self.skipped} already written, {self.filtered} filtered out{cut}"

    def __repr__(self) -> str:
        when = self.checkpoint.isoformat() if self.checkpoint else None
        return (
            f"FeedReport(source={self.source!r}, new={len(self.new)}, skipped={self.skipped}, filtered={self.filtered}, "
            f"files={[str(p) for p in self.files]!r}, complete={self.complete}, checkpoint={when!r})"
        )


# ---------------------------------------------------------------- times, keys and cursors


def _ms(t: datetime) -> int:
    return (t - _EPOCH) // timedelta(milliseconds=1)


def _iso(ms: int) -> str:
    t = _EPOCH + timedelta(milliseconds=ms)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def _when(hit: Any) -> int | None:
    """A hit's time in epoch ms: its first sort value (what the walk is ordered by), else ``task.time``."""
    sort = hit.sort
    if sort and type(sort[0]) is int:
        return int(sort[0])
    t = hit.task.time
    return None if t is None else _ms(t)


def _cursor(hit: Any, t: int) -> str:
    """Where a walk goes on after `hit`: its sort values (a saved search's ``search_after``)."""
    sort = hit.sort
    if sort and type(sort[0]) is int and _CURSOR.fullmatch(text := ",".join(str(v) for v in sort)):
        return text
    return f"{t},{hit.uuid}"


def _keys(hit: Any) -> tuple[str, str]:
    """A hit's keys: by uuid, and by its submitted URL (the page's without one)."""
    return _key_pair(hit.uuid, hit.task.url or hit.page.url)


def _key_pair(uuid: str, url: str | None) -> tuple[str, str]:
    """The keys of an item: by uuid, and by URL (the uuid's key when it has none)."""
    by_uuid = f"uuid:{uuid}"
    return by_uuid, f"url:{url}" if url else by_uuid


def _lookback_ms(lookback: Any) -> int:
    from .errors import ValidationError

    if isinstance(lookback, timedelta):
        seconds = lookback.total_seconds()
    elif isinstance(lookback, (int, float)) and not isinstance(lookback, bool):
        seconds = float(lookback)
    else:
        raise ValidationError(f"lookback must be seconds or a timedelta, got {lookback!r}")
    if not 0 < seconds <= MAX_LOOKBACK.total_seconds():
        raise ValidationError(f"lookback must be more than 0 s and at most {MAX_LOOKBACK.days} days, got {lookback!r}")
    return int(seconds * 1000)


# ---------------------------------------------------------------- the state


_SCHEMA = """
CREATE TABLE IF NOT EXISTS feeds (source TEXT PRIMARY KEY, mark INTEGER, hole_from INTEGER, hole_after TEXT,
    owner TEXT, claimed_at REAL, updated_at TEXT);
CREATE TABLE IF NOT EXISTS seen (source TEXT NOT NULL, key TEXT NOT NULL, time INTEGER NOT NULL, run TEXT,
    PRIMARY KEY (source, key));
CREATE INDEX IF NOT EXISTS seen_run ON seen (run);
CREATE TABLE IF NOT EXISTS runs (id TEXT PRIMARY KEY, source TEXT NOT NULL, file TEXT NOT NULL, status TEXT NOT NULL,
    mark INTEGER, hole_from INTEGER, hole_after TEXT, items INTEGER, started_at TEXT);
"""

# What a run leaves for the next: the newest item time walked, and the range still to walk
# (from its lower bound to the cursor of the last item handled), if a walk was cut.
_Feed = tuple[int | None, tuple[int, str] | None]


class _State:
    """The feed state in SQLite inside the folder, for every source synced there: each source's
    mark, the range a cut walk left, which run holds it, the keys of the items written (with
    their times, kept for twice the look-back) and the files written, each ``pending`` until it
    is whole on disk. Every SQLite failure is a ``StateError`` naming the file."""

    def __init__(self, folder: Path, rebuild: bool) -> None:
        from .errors import StateError

        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self.path = folder / STATE_FILE
        for side in ("", "-journal", "-wal", "-shm"):
            if self.path.with_name(STATE_FILE + side).is_symlink():
                # SQLite would write through it, wherever it leads.
                raise StateError(f"feed sync state {self.path}{side} is a symbolic link; remove it", path=str(self.path))
        if rebuild and self.path.exists():
            _set_aside(self.path)
        # Who holds a source: this host and process (a run whose process is gone holds nothing), and this run.
        self.me = f"{socket.gethostname()}:{os.getpid()}:{_uuid.uuid4().hex}"
        with self._sql():
            # The default rollback journal: switching to WAL races between two first runs.
            self.db = sqlite3.connect(self.path, timeout=_LOCK_SECONDS, isolation_level=None)
            self.db.executescript(_SCHEMA)
            if rebuild:
                self._rebuild()

    @contextlib.contextmanager
    def _sql(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.Error as e:
            raise _state_error(self.path, e, "feed sync", _REBUILD) from e

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._sql():
            self.db.execute("BEGIN IMMEDIATE")
            try:
                yield self.db
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")

    def _unreadable(self, what: str) -> Exception:
        return _state_error(self.path, sqlite3.DatabaseError(f"{what} is not what this package writes"), "feed sync", _REBUILD)

    def acquire(self, source: str) -> _Feed:
        """Hold `source` for this run (another live run holding it is an error), finish or drop
        what a stopped run left pending, and read where the source stands."""
        from .errors import StateError

        with self._transaction() as db:
            row = db.execute("SELECT owner, claimed_at FROM feeds WHERE source = ?", (source,)).fetchone()
            if row is not None and row[0] is not None:
                if not isinstance(row[1], (int, float)) or not isinstance(row[0], str):
                    raise self._unreadable(f"the lock of {source}")
                if _holds(row[0], row[1]):
                    since = datetime.fromtimestamp(row[1], timezone.utc).isoformat(timespec="seconds")
                    raise StateError(
                        f"feed sync state {self.path}: another sync of {source} into this folder is running "
                        f"(since {since}); wait for it to end, or stop it",
                        path=str(self.path),
                    )
            self._recover(source)
            db.execute(
                "INSERT INTO feeds (source, owner, claimed_at) VALUES (?, ?, ?) "
                "ON CONFLICT(source) DO UPDATE SET owner = excluded.owner, claimed_at = excluded.claimed_at",
                (source, self.me, time.time()),
            )
            mark, lo, after = db.execute("SELECT mark, hole_from, hole_after FROM feeds WHERE source = ?", (source,)).fetchone()
            return self._checked(source, mark, lo, after)

    def _checked(self, source: str, mark: Any, lo: Any, after: Any) -> _Feed:
        ints = all(v is None or type(v) is int for v in (mark, lo))
        hole_ok = (lo is None and after is None) or (lo is not None and isinstance(after, str) and _CURSOR.fullmatch(after))
        if not (ints and hole_ok):
            raise self._unreadable(f"the checkpoint of {source}")
        return mark, None if lo is None else (lo, after)

    def _recover(self, source: str) -> None:
        """A run stopped between its pending record and its end: done if its file is whole on disk
        (the rename is the last step of writing it), else undone."""
        pending = self.db.execute(
            "SELECT id, file, mark, hole_from, hole_after FROM runs WHERE source = ? AND status = 'pending'", (source,)
        ).fetchall()
        for run, name, mark, lo, after in pending:
            m = _FILE.fullmatch(name) if isinstance(name, str) else None
            if m is None or m["source"] != source:
                raise self._unreadable(f"the file name of a run of {source}")
            if (self.folder / name).is_file():
                self._finish(source, run, self._checked(source, mark, lo, after), None)
            else:
                self.db.execute("DELETE FROM seen WHERE run = ?", (run,))
                self.db.execute("DELETE FROM runs WHERE id = ?", (run,))

    def renew(self, source: str) -> None:
        """Say again that this run holds `source` (a long run on another host stays its owner)."""
        with self._sql():
            self.db.execute("UPDATE feeds SET claimed_at = ? WHERE source = ? AND owner = ?", (time.time(), source, self.me))

    def release(self, source: str) -> None:
        with self._sql():
            self.db.execute("UPDATE feeds SET owner = NULL, claimed_at = NULL WHERE source = ? AND owner = ?", (source, self.me))

    def seen(self, source: str, key: str) -> bool:
        with self._sql():
            return self.db.execute("SELECT 1 FROM seen WHERE source = ? AND key = ?", (source, key)).fetchone() is not None

    def _keys(self, source: str, keys: dict[str, int], run: str | None) -> None:
        # A key written before keeps its run: only its time moves on (it is kept as long as it comes).
        self.db.executemany(
            "INSERT INTO seen (source, key, time, run) VALUES (?, ?, ?, ?) "
            "ON CONFLICT(source, key) DO UPDATE SET time = max(time, excluded.time)",
            [(source, k, t, run) for k, t in keys.items()],
        )

    def begin(self, source: str, run: str, name: str, written: dict[str, int], touched: dict[str, int], feed: _Feed) -> None:
        """Record a run's file as pending, with its keys and what it leaves, before the file is written."""
        mark, hole = feed
        with self._transaction() as db:
            db.execute(
                "INSERT INTO runs (id, source, file, status, mark, hole_from, hole_after, items, started_at) "
                "VALUES (?, ?, ?, 'pending', ?, ?, ?, ?, ?)",
                (run, source, name, mark, *(hole or (None, None)), len(written), _now()),
            )
            self._keys(source, written, run)
            self._keys(source, touched, None)

    def finish(self, source: str, run: str, feed: _Feed, keep_from: int | None) -> None:
        """The run's file is whole: its keys count, and the source moves on."""
        with self._transaction():
            self._finish(source, run, feed, keep_from)

    def _finish(self, source: str, run: str, feed: _Feed, keep_from: int | None) -> None:
        self.db.execute("UPDATE runs SET status = 'done' WHERE id = ?", (run,))
        self.db.execute("UPDATE seen SET run = NULL WHERE run = ?", (run,))
        self._move(source, feed, keep_from)

    def abandon(self, run: str) -> None:
        """The run's file could not be written: its keys do not count."""
        with self._transaction() as db:
            db.execute("DELETE FROM seen WHERE run = ?", (run,))
            db.execute("DELETE FROM runs WHERE id = ?", (run,))

    def save(self, source: str, touched: dict[str, int], feed: _Feed, keep_from: int | None) -> None:
        """A run with nothing new: the source moves on."""
        with self._transaction():
            self._keys(source, touched, None)
            self._move(source, feed, keep_from)

    def _move(self, source: str, feed: _Feed, keep_from: int | None) -> None:
        mark, hole = feed
        self.db.execute(
            "UPDATE feeds SET mark = ?, hole_from = ?, hole_after = ?, updated_at = ? WHERE source = ?",
            (mark, *(hole or (None, None)), _now(), source),
        )
        if keep_from is not None:
            self.db.execute("DELETE FROM seen WHERE source = ? AND run IS NULL AND time < ?", (source, keep_from))

    def _rebuild(self) -> None:
        """The keys and marks of every source from the files the runs wrote in the folder (a
        range a cut run left to walk is not in them: the next run walks from the newest item on)."""
        from .models import SearchHit

        marks: dict[str, int] = {}
        with self._transaction():
            for f in sorted(self.folder.iterdir()):
                m = _FILE.fullmatch(f.name)
                if m is None or f.is_symlink() or not f.is_file():
                    continue
                source = m["source"]
                keys: dict[str, int] = {}
                for pair, t in _written(f, m["ext"], SearchHit):
                    for k in pair:
                        keys[k] = max(keys.get(k, t), t)
                    marks[source] = max(marks.get(source, t), t)
                self._keys(source, keys, None)
                self.db.execute(
                    "INSERT OR IGNORE INTO runs (id, source, file, status, items, started_at) VALUES (?, ?, ?, 'done', ?, ?)",
                    (_uuid.uuid4().hex, source, f.name, len(keys), _now()),
                )
            self.db.executemany("INSERT INTO feeds (source, mark) VALUES (?, ?)", marks.items())

    def close(self) -> None:
        db = getattr(self, "db", None)
        if db is not None:
            db.close()


def _holds(owner: str, claimed_at: float) -> bool:
    """Whether a run still holds its source: one of this host as long as its process lives, one
    of another host until its claim (renewed as it reads) is older than the stale age."""
    host = owner.partition(":")[0]
    if os.name == "posix" and host == socket.gethostname():
        return _alive(owner)
    return time.time() - claimed_at < _STALE_SECONDS


def _alive(owner: str) -> bool:
    """Whether the run that holds a source may still be running: always, unless it is of this
    host and its process is gone (checked where signal 0 only checks, not on Windows)."""
    host, _, rest = owner.partition(":")
    pid = rest.partition(":")[0]
    if os.name != "posix" or host != socket.gethostname() or not pid.isdigit():
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except OSError:
        pass  # it exists, as another user's process
    return True


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _written(f: Path, ext: str, hit_model: Any) -> Iterator[tuple[tuple[str, str], int]]:
    """The keys and the time (epoch ms) of each item in a file a run wrote."""
    if ext == "jsonl":
        with f.open(encoding="utf-8") as lines:
            for line in lines:
                hit = hit_model(json.loads(line))
                t = _when(hit)
                if t is not None:
                    yield _keys(hit), t
    elif ext == "parquet":
        import importlib

        from ._tables import pyarrow

        pyarrow("rebuild_state with Parquet files")
        pq = importlib.import_module("pyarrow.parquet")
        for row in pq.read_table(f, columns=["uuid", "submitted_url", "url", "time"]).to_pylist():
            if row["uuid"] and row["time"]:
                yield _key_pair(row["uuid"], row["submitted_url"] or row["url"]), _ms(row["time"])
    else:
        objects = json.loads(f.read_text(encoding="utf-8")).get("objects", [])
        by_id = {o.get("id"): o for o in objects}
        for o in objects:
            refs = o.get("external_references") or [{}]
            if o.get("type") == "observed-data" and refs[0].get("external_id"):
                first = by_id.get((o.get("object_refs") or [None])[0], {})
                seen = datetime.fromisoformat(o["first_observed"].replace("Z", "+00:00"))
                url = first.get("value") if first.get("type") == "url" else None
                yield _key_pair(refs[0]["external_id"], url), _ms(seen)


# ---------------------------------------------------------------- reading a source


class _Reader:
    """A client's walks over a source, for a run on this thread: ``run`` completes an
    AsyncClient's awaitables on the thread's own event loop (None: a Client, which blocks)."""

    def __init__(self, client: Any, run: Callable[[Any], Any] | None) -> None:
        self.client = client
        self.run = run

    def items(self, source: str, lo: int, after: str | None, budget: int) -> Iterator[Any]:
        """The hits from `after` (the newest when None) back to `lo` (epoch ms), newest first; the
        caller stops reading at `lo` or its budget, and no page is fetched before it is read."""
        if source == PHISHFEED:
            # The range in the query: date-math-free, so the service and its emulator read it alike.
            hi = _iso(int(after.split(",", 1)[0])) if after else "*"
            # Two past the budget: the cursor's own item comes again (the bound is inclusive) and
            # is passed over, and one more tells a cut walk from a finished one.
            it = self.client.phishfeed(f"date:[{_iso(lo)} TO {hi}]", limit=budget + 2)
            if self.run is None:
                yield from it
                return
            while True:
                try:
                    yield self.run(it.__anext__())
                except StopAsyncIteration:
                    return
        else:
            yield from self._saved(source, after)

    def _saved(self, search_id: str, after: str | None) -> Iterator[Any]:
        from .errors import DecodeError

        while True:
            page = self.client.saved_searches.results(search_id, size=_PAGE, search_after=after)
            page = page if self.run is None else self.run(page)
            if not page:
                return
            yield from page
            last = page[-1]
            t = _when(last)
            nxt = _cursor(last, 0 if t is None else t)
            if after is not None and (nxt == after or int(nxt.split(",", 1)[0]) > int(after.split(",", 1)[0])):
                raise DecodeError(f"saved search {search_id}: the results' cursor did not move on ({after} then {nxt})")
            after = nxt


# ---------------------------------------------------------------- a run


class _Run:
    """One sync of a source: its walks, what they read, and what it leaves in the state."""

    def __init__(
        self,
        state: _State,
        reader: _Reader,
        source: str,
        dedupe: str,
        keep: Callable[[Any], object] | None,
        budget: int,
        progress: Callable[[int, int], object] | None,
    ) -> None:
        self.state, self.reader, self.source, self.dedupe, self.keep = state, reader, source, dedupe, keep
        self.budget, self.progress = budget, progress
        self.now = _ms(datetime.now(timezone.utc))
        self.new: list[Any] = []
        self.written: dict[str, int] = {}  # the keys of the new items, with their times
        self.touched: dict[str, int] = {}  # keys written before that came again (their time moves on)
        self.read = self.skipped = self.filtered = 0
        self.newest: int | None = None
        self.cursor: str | None = None  # after the last item the walk under way handled
        self.complete = True

    def walk(self, lo: int, after: str | None) -> bool:
        """Handle the items from `after` back to `lo`; False when the budget ran out first."""
        self.cursor = None
        for hit in self.reader.items(self.source, lo, after, self.budget):
            t = _when(hit)
            if t is not None and t < lo:
                return True
            if after is not None and _cursor(hit, t or self.now) == after:
                continue  # the item the cut walk handled last
            if self.budget == 0:
                self.complete = False
                return False
            self._take(hit, self.now if t is None else t)
            self.budget -= 1
        return True

    def _take(self, hit: Any, t: int) -> None:
        by_uuid, by_url = _keys(hit)
        key = by_url if self.dedupe == "url" else by_uuid
        if key in self.written:
            self.skipped += 1
            self.written[key] = max(self.written[key], t)
        elif self.state.seen(self.source, key):
            self.skipped += 1
            self.touched[key] = max(self.touched.get(key, t), t)
        elif self.keep is not None and not self.keep(hit):
            self.filtered += 1
        else:
            self.new.append(hit)
            for k in (by_uuid, by_url):
                self.written[k] = max(self.written.get(k, t), t)
        self.read += 1
        if self.read % 100 == 0:
            self.state.renew(self.source)
        self.newest = t if self.newest is None else max(self.newest, t)
        self.cursor = _cursor(hit, t)
        if self.progress is not None:
            self.progress(self.read, len(self.new))

    def sync(self, feed: _Feed, lookback: int, fmt: str) -> FeedReport:
        """First the range a cut run left, then everything since the mark, looked back; what was
        handled is written and remembered however the walks end."""
        mark, hole = feed
        lo = hole[0] if hole else None  # the lower bound of the walk under way
        try:
            if hole is not None:
                if self.walk(*hole):
                    hole = None
                elif self.cursor is not None:
                    hole = (hole[0], self.cursor)
            if hole is None:
                lo = (self.now if mark is None else mark) - lookback
                if not self.walk(lo, None) and self.cursor is not None:
                    hole = (lo, self.cursor)
        except (Exception, KeyboardInterrupt):
            # Stopped (a page failed, the filter raised, Ctrl-C): keep what was handled; the rest is
            # the range from the walk's bound to its last item handled, walked first next time.
            if lo is not None and self.cursor is not None:
                hole = (lo, self.cursor)
            self.complete = False
            self.save(mark, hole, lookback, fmt)
            raise
        return self.save(mark, hole, lookback, fmt)

    def save(self, mark: int | None, hole: tuple[int, str] | None, lookback: int, fmt: str) -> FeedReport:
        """Write the new items to one file, then the state: pending before the file, done after it."""
        if self.newest is not None:
            mark = self.newest if mark is None else max(mark, self.newest)
        # No walk goes below the next window or the range left: keys older than that (and one
        # more look-back, should the next run look further) are dropped.
        bounds = [b for b in (None if mark is None else mark - lookback, hole[0] if hole else None) if b is not None]
        keep_from = min(bounds) - lookback if bounds else None
        feed = (mark, hole)
        report = FeedReport(self.source, self.new, self.skipped, self.filtered, self.read, complete=self.complete)
        report.checkpoint = None if mark is None else _EPOCH + timedelta(milliseconds=mark)
        if not self.new:
            self.state.save(self.source, self.touched, feed, keep_from)
            return report
        run = _uuid.uuid4().hex
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        name = f"{self.source}-{stamp}-{run[:8]}.{_EXTENSIONS[fmt]}"
        target = _native.contained(self.state.folder, name)
        self.state.begin(self.source, run, name, self.written, self.touched, feed)
        try:
            _write(target, self.new, fmt, self.source)
        except BaseException:
            # Ctrl-C arrives after the native write returns: the file may be whole on disk, and
            # then the run is done (as the next run's recovery would find it), not undone.
            if not target.is_file():
                self.state.abandon(run)
                raise
            self.state.finish(self.source, run, feed, keep_from)
            raise
        self.state.finish(self.source, run, feed, keep_from)
        report.files.append(target)
        return report


def _write(target: Path, hits: list[Any], fmt: str, source: str) -> None:
    """The hits to `target`, whole or not at all (a temporary file beside it, renamed)."""
    if fmt == "parquet":
        from ._tables import ModelTable
        from .schema import of

        ModelTable(hits, of(hits[0])).to_parquet(target)
        return
    if fmt == "stix":
        from .playbook import _OURS

        objects: dict[str, Any] = {}
        for hit in hits:
            for o in hit.to_stix()["objects"]:
                objects.setdefault(o["id"], o)
        ids = ",".join(str(h.uuid) for h in hits)
        bundle_id = f"bundle--{_uuid.uuid5(_OURS, f'feed:{source}:{ids}')}"
        bundle = {"type": "bundle", "id": bundle_id, "objects": list(objects.values())}
        data = json.dumps(bundle, ensure_ascii=False, separators=(",", ":")).encode()
    else:
        data = b"".join(json.dumps(h.to_dict(), ensure_ascii=False, separators=(",", ":")).encode() + b"\n" for h in hits)
    _native.write_whole(target, data)


def _counter(read: int, new: int) -> None:
    """``progress=True``: items read and new on stderr."""
    print(f"\r{read} read, {new} new", end="", file=sys.stderr, flush=True)


def _sync(
    reader: _Reader,
    source: str,
    dest_dir: Any,
    lookback: Any,
    dedupe: str,
    keep: Callable[[Any], object] | None,
    fmt: str,
    max_items: int,
    progress: Callable[[int, int], object] | None,
    rebuild_state: bool,
) -> FeedReport:
    """The sync of a client's ``feeds`` (its reads given by `reader`)."""
    from .errors import ValidationError

    if not isinstance(source, str) or not _SOURCE.fullmatch(source):
        raise ValidationError(f'source must be "phishfeed" or a saved search\'s id (letters, digits, - and _), got {source!r}')
    window = _lookback_ms(lookback)
    if dedupe not in ("uuid", "url"):
        raise ValidationError(f'dedupe must be "uuid" or "url", got {dedupe!r}')
    if fmt not in FORMATS:
        raise ValidationError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    if isinstance(max_items, bool) or not isinstance(max_items, int) or not 1 <= max_items <= MAX_ITEMS:
        raise ValidationError(f"max_items must be a whole number from 1 to {MAX_ITEMS:,}, got {max_items!r}")
    if keep is not None and not callable(keep):
        raise ValidationError(f"filter must be a function of a hit (True keeps it), got {keep!r}")
    state = _State(Path(dest_dir), rebuild_state)
    try:
        feed = state.acquire(source)
        try:
            return _Run(state, reader, source, dedupe, keep, max_items, progress).sync(feed, window, fmt)
        finally:
            state.release(source)
    finally:
        state.close()
        if progress is _counter:
            print(file=sys.stderr)
