"""Checkpointed feeds: a folder kept current with the phishing feed or a saved search's hits.

``client.feeds.sync(source, dest_dir)`` walks the source newest first, back to a
look-back window before the newest item it walked last time, and writes each
item it has not written before into one new file per run, with its state in
SQLite in the folder (``.urlscan-feeds.sqlite3``)::

    report = client.feeds.sync("phishfeed", "feeds/", lookback=timedelta(days=3))
    for hit in report.new:            # the items written this run
        push_to_tip(hit)

    urlscan-rs feed sync phishfeed feeds/ --lookback 3d --format stix

A run is bounded (at most ``max_items`` items it can use, and as many it sets
aside) and safe to stop anywhere (a process killed included): what it
read up to then is written and remembered, and the next run walks the rest
first, so no item is written twice and none is left out. The look-back window
catches the items that come late into a source (a scan classified after its
time); items older than the window are not looked for again. A window that
holds more items than ``max_items`` is looked through over several runs, each
going on where the last one stopped, after the items that are new.

An item the run cannot place or write is set aside, never a reason to stop:
one dated later than the service's clock (by the ``Date`` of its answers, or
this machine's clock when none came) by more than :data:`FUTURE_SLACK`, one
whose time is out of range (before 1970 or after 9999), one with a field of the
wrong type (``"_id": 5``), one that is not a JSON object or does not decode, and
one older than the window that comes before items inside it (out of order).
Each is appended once, with its reason, to :data:`QUARANTINE_FILE` in the
folder and counted in ``FeedReport.quarantined``; it never moves the
checkpoint, and the items after it are written. An item set aside for its time
is looked at again by later runs, and written once its time has come.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import logging
import os
import re
import sqlite3
import stat
import sys
import time
import uuid as _uuid
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta, timezone
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import _native
from ._folder_state import (
    STALE_SECONDS,
    Heartbeat,
    holds,
    new_owner,
    open_state,
    prepare_folder,
    read_regular,
    set_aside,
    state_error,
)
from .errors import DecodeError, StateError, UrlscanError, ValidationError
from .models._base import _found

if TYPE_CHECKING:
    from .models import SearchHit

__all__ = [
    "FeedReport",
    "PHISHFEED",
    "STATE_FILE",
    "QUARANTINE_FILE",
    "FORMATS",
    "DEFAULT_LOOKBACK",
    "MAX_LOOKBACK",
    "DEFAULT_MAX_ITEMS",
    "MAX_ITEMS",
    "FUTURE_SLACK",
]

PHISHFEED = "phishfeed"
"""The source name of the phishing feed (GET /api/v1/pro/phishfeed); any other source is a saved search's id."""
STATE_FILE = ".urlscan-feeds.sqlite3"
"""The state's file in the folder: a hidden name, which no file the package writes from a listing can take."""
QUARANTINE_FILE = ".urlscan-feeds-quarantine.log"
"""The items set aside, one JSON object a line (``source``, ``reason``, ``at``, and ``item`` as it came, or
``raw``: its text, cut to 64 KiB, when it does not decode); each item once, in the order set aside. Not named
``*.jsonl``: a reader of the items written, globbing the folder, does not take it for one of them."""
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
FUTURE_SLACK = timedelta(minutes=15)
"""How much later than the service's clock an item may be dated and still be taken (clocks differ a
little); a later one is set aside until its time comes. The checkpoint never passes the service's clock."""

_EXTENSIONS = {"jsonl": "jsonl", "parquet": "parquet", "stix": "stix.json"}
# A source: "phishfeed" or a saved search's id; it starts the names of the files written.
_SOURCE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,99}")
# A file a run wrote: <source>-<UTC time>-<run>.<extension>.
_FILE = re.compile(r"(?P<source>[A-Za-z0-9][A-Za-z0-9_-]{0,99})-\d{8}T\d{6}Z-[0-9a-f]{8}\.(?P<ext>jsonl|parquet|stix\.json)")
# Where a cut walk goes on: the last item handled, as its sort values ("<epoch ms>,<uuid>").
_CURSOR = re.compile(r"\d{1,16},\S{1,300}")
# An item's id as this package keeps it (in keys, cursors and file names of STIX objects).
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,199}")
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
# The times an item may have: 1970 to the end of 9999 (later ones do not fit the service's timestamps).
_MAX_MS = 253_402_300_799_999
_SLACK_MS = int(FUTURE_SLACK.total_seconds() * 1000)
# The most of an undecodable item's text the quarantine keeps.
_RAW_MAX = 64 << 10
_REBUILD = "client.feeds.sync(..., rebuild_state=True) (urlscan-rs feed sync --rebuild-state)"
_log = logging.getLogger("urlscan_rs.feeds")


@dataclasses.dataclass(repr=False)
class FeedReport:
    """What :meth:`client.feeds.sync <urlscan_rs._namespaces.Feeds.sync>` did for ``source``.

    ``new``: the items written this run (:class:`~urlscan_rs.models.SearchHit`,
    in the order read), to ``files`` (one file, or none when nothing was new);
    ``skipped``: items read that were written before (or twice in this run);
    ``filtered``: items the filter turned down; ``quarantined``: items set aside
    (see :data:`QUARANTINE_FILE`); ``read``: items read in all.
    ``complete`` is False when the run stopped at ``max_items`` before it had
    read every new item (the next run goes on where it stopped). ``checkpoint``:
    the time of the newest item walked so far, never past the service's clock
    (None before the first item), from which the next run looks back.
    """

    source: str
    new: list[SearchHit] = dataclasses.field(default_factory=list)
    skipped: int = 0
    filtered: int = 0
    read: int = 0
    files: list[Path] = dataclasses.field(default_factory=list)
    complete: bool = True
    checkpoint: datetime | None = None
    quarantined: int = 0

    def __str__(self) -> str:
        where = f" to {', '.join(p.name for p in self.files)}" if self.files else ""
        aside = f", {self.quarantined} set aside (see {QUARANTINE_FILE})" if self.quarantined else ""
        cut = "; stopped at max_items, the next run goes on" if not self.complete else ""
        return f"{len(self.new)} new{where}, {self.skipped} already written, {self.filtered} filtered out{aside}{cut}"

    def __repr__(self) -> str:
        when = self.checkpoint.isoformat() if self.checkpoint else None
        return (
            f"FeedReport(source={self.source!r}, new={len(self.new)}, skipped={self.skipped}, filtered={self.filtered}, "
            f"quarantined={self.quarantined}, files={[str(p) for p in self.files]!r}, complete={self.complete}, "
            f"checkpoint={when!r})"
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


def _sort_cursor(hit: Any) -> str | None:
    """A hit's sort values as a cursor (a saved search's ``search_after``), when they read as one."""
    sort = hit.sort
    if sort and type(sort[0]) is int and _CURSOR.fullmatch(text := ",".join(str(v) for v in sort)):
        return text
    return None


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


# ---------------------------------------------------------------- sources


@dataclasses.dataclass(frozen=True)
class _Source:
    """A kind of source a feed reads: which names are of it, where its pages are, and what a page
    asks for. ``example`` is a source of the kind (the tests walk every kind in :data:`_SOURCES`)."""

    kind: str
    example: str
    # Whether a page shorter than asked for is the last (else the walk ends at an empty page).
    short_page_ends: bool

    def matches(self, source: str) -> bool:
        raise NotImplementedError

    def path(self, source: str) -> str:
        raise NotImplementedError

    def params(self, lo: int, after: str | None, size: int) -> dict[str, Any]:
        raise NotImplementedError


class _Phishfeed(_Source):
    def matches(self, source: str) -> bool:
        return source == PHISHFEED

    def path(self, source: str) -> str:
        return "/api/v1/pro/phishfeed"

    def params(self, lo: int, after: str | None, size: int) -> dict[str, Any]:
        # The window in the query (date-math-free, so the service and its emulator read it alike),
        # and where to go on by the position in the service's order (not by a time: an item dated
        # wrongly does not move it).
        return {"q": f"date:[{_iso(lo)} TO *]", "size": size, "search_after": after}


class _SavedSearch(_Source):
    def matches(self, source: str) -> bool:
        return source != PHISHFEED

    def path(self, source: str) -> str:
        return f"/api/v1/user/searches/{source}/results/"

    def params(self, lo: int, after: str | None, size: int) -> dict[str, Any]:
        return {"size": size, "search_after": after}


_SOURCES: tuple[_Source, ...] = (
    _Phishfeed("phishfeed", PHISHFEED, short_page_ends=True),
    _SavedSearch("saved search", "64a0c3e1f2b7d8e9a0b1c2d3", short_page_ends=False),
)
"""Every kind of source, the first that matches a name reading it."""


def _source_of(source: str) -> _Source:
    return next(s for s in _SOURCES if s.matches(source))


@dataclasses.dataclass
class _Raw:
    """An item of a page that does not decode: its text (cut), and why."""

    text: str
    why: str


# A JSON string, or a bracket or comma: the tokens that give a page's structure.
_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{},]', re.DOTALL)


def _split_results(body: bytes) -> list[Any] | None:
    """The items of a page whose whole body does not decode (one item nested deeper than the client
    reads, say): each item decoded alone, or a :class:`_Raw` when it does not decode; None when the
    body is not an object with a ``results`` list."""
    depth = 0
    start: int | None = None  # where the item being read began, inside the results list
    in_results = False
    pending_key: bytes | None = None
    items: list[Any] = []
    for m in _TOKEN.finditer(body):
        tok = m.group()
        if tok[:1] == b'"':
            if depth == 1 and not in_results:
                pending_key = tok if body[m.end() :].lstrip()[:1] == b":" else None
            continue
        if tok in (b"[", b"{"):
            if depth == 1 and tok == b"[" and pending_key == b'"results"' and not in_results:
                in_results, start = True, m.end()
            depth += 1
        elif tok in (b"]", b"}"):
            depth -= 1
            if in_results and depth == 1:
                _one(body[start : m.start()], items)
                return items
            if depth < 0:
                return None
        elif tok == b"," and in_results and depth == 2:
            _one(body[start : m.start()], items)
            start = m.end()
    return None


def _one(text: bytes, items: list[Any]) -> None:
    """One item of :func:`_split_results` (nothing for the empty text of an empty list)."""
    if not text.strip():
        return
    try:
        items.append(json.loads(text))
    except (ValueError, RecursionError) as e:
        why = "it is nested too deeply to decode" if isinstance(e, RecursionError) else f"it is not JSON ({e})"
        items.append(_Raw(text[:_RAW_MAX].decode("utf-8", "replace"), why))


# ---------------------------------------------------------------- the state


_SCHEMA = """
CREATE TABLE IF NOT EXISTS feeds (source TEXT PRIMARY KEY, mark INTEGER, hole_from INTEGER, hole_after TEXT,
    owner TEXT, claimed_at REAL, updated_at TEXT, recheck_after TEXT);
CREATE TABLE IF NOT EXISTS seen (source TEXT NOT NULL, key TEXT NOT NULL, time INTEGER NOT NULL, run TEXT,
    PRIMARY KEY (source, key));
CREATE INDEX IF NOT EXISTS seen_run ON seen (run);
CREATE TABLE IF NOT EXISTS runs (id TEXT PRIMARY KEY, source TEXT NOT NULL, file TEXT NOT NULL, status TEXT NOT NULL,
    mark INTEGER, hole_from INTEGER, hole_after TEXT, items INTEGER, started_at TEXT, recheck_after TEXT);
CREATE TABLE IF NOT EXISTS quarantined (source TEXT NOT NULL, digest TEXT NOT NULL, reason TEXT, at TEXT,
    PRIMARY KEY (source, digest));
"""
# The tables and columns of a feed state (``feeds`` first: every version made it), and the columns
# later versions added, which an older state gains when it is opened.
_TABLES = {
    "feeds": ("source", "mark", "hole_from", "hole_after", "owner", "claimed_at", "updated_at", "recheck_after"),
    "seen": ("source", "key", "time", "run"),
    "runs": ("id", "source", "file", "status", "mark", "hole_from", "hole_after", "items", "started_at", "recheck_after"),
    "quarantined": ("source", "digest", "reason", "at"),
}
_ADDED = {"feeds": {"recheck_after": "TEXT"}, "runs": {"recheck_after": "TEXT"}}
# What renews a run's claim on its source (see _folder_state.Heartbeat).
_RENEW = "UPDATE feeds SET claimed_at = ? WHERE source = ? AND owner = ?"

# What a run leaves for the next: the newest item time walked; the range still to walk of a walk
# cut among new items (from its lower bound to the cursor of the last item handled); and where the
# look through the window for late items stopped, when a run's budget ended inside it.
_Feed = tuple[int | None, tuple[int, str] | None, str | None]


class _State:
    """The feed state in SQLite inside the folder, for every source synced there: each source's
    mark, the range a cut walk left, which run holds it, the keys of the items written (with
    their times, kept for twice the look-back), the files written, each ``pending`` until it
    is whole on disk, and the digests of the items set aside. Every SQLite failure is a
    ``StateError`` naming the file."""

    def __init__(self, folder: Path, rebuild: bool) -> None:
        prepare_folder(folder, rebuild)
        self.folder = folder
        self.path = folder / STATE_FILE
        self.quarantine = folder / QUARANTINE_FILE
        if rebuild and os.path.lexists(self.path):
            set_aside(self.path)
        # The quarantine is written by its name: refused now, before anything is read, if a link or
        # a special file is there.
        with contextlib.suppress(FileNotFoundError):
            if not stat.S_ISREG(os.lstat(self.quarantine).st_mode):
                raise StateError(
                    f"feed sync quarantine {self.quarantine} is a symbolic link or a special file; remove it",
                    path=str(self.quarantine),
                )
        # Who holds a source: this host and process (a run whose process is gone holds nothing), and this run.
        self.me = new_owner()
        self.db = open_state(self.path, kind="feed sync", rebuild=_REBUILD, tables=_TABLES, schema=_SCHEMA, added=_ADDED)
        self._beat: Heartbeat | None = None
        if rebuild:
            try:
                self._rebuild()
            except BaseException:
                self.db.close()
                raise

    @contextlib.contextmanager
    def _sql(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.Error as e:
            raise state_error(self.path, e, "feed sync", _REBUILD) from e

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
        return state_error(self.path, sqlite3.DatabaseError(f"{what} is not what this package writes"), "feed sync", _REBUILD)

    def acquire(self, source: str) -> _Feed:
        """Hold `source` for this run (another live run holding it is an error), finish or drop
        what a stopped run left pending, and read where the source stands. The claim is renewed
        as long as the run lasts (see :class:`~urlscan_rs._folder_state.Heartbeat`), however long it waits."""
        with self._transaction() as db:
            row = db.execute("SELECT owner, claimed_at FROM feeds WHERE source = ?", (source,)).fetchone()
            if row is not None and row[0] is not None:
                if not isinstance(row[1], (int, float)) or not isinstance(row[0], str):
                    raise self._unreadable(f"the lock of {source}")
                if holds(row[0], row[1]):
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
            row = db.execute("SELECT mark, hole_from, hole_after, recheck_after FROM feeds WHERE source = ?", (source,))
            feed = self._checked(source, *row.fetchone())
        self._beat = Heartbeat(self.path, _RENEW, (source, self.me), f"feed-{source}")
        self._beat.start()
        return feed

    def _checked(self, source: str, mark: Any, lo: Any, after: Any, recheck: Any) -> _Feed:
        ints = type(mark) in (int, type(None)) and type(lo) in (int, type(None))
        in_range = (mark is None or 0 <= mark <= _MAX_MS) and (lo is None or -_ms(_EPOCH + MAX_LOOKBACK) <= lo <= _MAX_MS)
        hole_ok = (lo is None and after is None) or (lo is not None and isinstance(after, str) and _CURSOR.fullmatch(after))
        recheck_ok = recheck is None or (isinstance(recheck, str) and _CURSOR.fullmatch(recheck))
        if not (ints and in_range and hole_ok and recheck_ok):
            raise self._unreadable(f"the checkpoint of {source}")
        return mark, None if lo is None else (lo, after), recheck

    def _recover(self, source: str) -> None:
        """A run stopped between its pending record and its end: done if its file is whole on disk
        (the rename is the last step of writing it), else undone."""
        pending = self.db.execute(
            "SELECT id, file, mark, hole_from, hole_after, recheck_after FROM runs WHERE source = ? AND status = 'pending'",
            (source,),
        ).fetchall()
        for run, name, mark, lo, after, recheck in pending:
            m = _FILE.fullmatch(name) if isinstance(name, str) else None
            if m is None or m["source"] != source:
                raise self._unreadable(f"the file name of a run of {source}")
            if (self.folder / name).is_file():
                self._finish(source, run, self._checked(source, mark, lo, after, recheck), None)
            else:
                self.db.execute("DELETE FROM seen WHERE run = ?", (run,))
                self.db.execute("DELETE FROM runs WHERE id = ?", (run,))

    def _still_mine(self, source: str) -> None:
        """Within a transaction: this run still holds `source`, else a ``StateError`` (a run that
        lost its claim, its process stopped for longer than a claim lasts, writes nothing)."""
        row = self.db.execute("SELECT owner FROM feeds WHERE source = ?", (source,)).fetchone()
        if row is None or row[0] != self.me:
            raise StateError(
                f"feed sync state {self.path}: another run took {source} over while this one waited (its claim "
                f"was older than {STALE_SECONDS:.0f} s); nothing of this run was written, the next run "
                "reads it again",
                path=str(self.path),
            )

    def release(self, source: str) -> None:
        if self._beat is not None:
            self._beat.stop()
            self._beat = None
        with self._sql():
            self.db.execute("UPDATE feeds SET owner = NULL, claimed_at = NULL WHERE source = ? AND owner = ?", (source, self.me))

    def seen(self, source: str, key: str) -> bool:
        with self._sql():
            return self.db.execute("SELECT 1 FROM seen WHERE source = ? AND key = ?", (source, key)).fetchone() is not None

    def set_aside_before(self, source: str, digest: str) -> bool:
        with self._sql():
            row = self.db.execute("SELECT 1 FROM quarantined WHERE source = ? AND digest = ?", (source, digest))
            return row.fetchone() is not None

    def _keys(self, source: str, keys: dict[str, int], run: str | None) -> None:
        # A key written before keeps its run: only its time moves on (it is kept as long as it comes).
        self.db.executemany(
            "INSERT INTO seen (source, key, time, run) VALUES (?, ?, ?, ?) "
            "ON CONFLICT(source, key) DO UPDATE SET time = max(time, excluded.time)",
            [(source, k, t, run) for k, t in keys.items()],
        )

    def begin(self, source: str, run: str, name: str, written: dict[str, int], touched: dict[str, int], feed: _Feed) -> None:
        """Record a run's file as pending, with its keys and what it leaves, before the file is written."""
        mark, hole, recheck = feed
        with self._transaction() as db:
            self._still_mine(source)
            db.execute(
                "INSERT INTO runs (id, source, file, status, mark, hole_from, hole_after, items, started_at, recheck_after) "
                "VALUES (?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?)",
                (run, source, name, mark, *(hole or (None, None)), len(written), _now(), recheck),
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
            self._still_mine(source)
            self._keys(source, touched, None)
            self._move(source, feed, keep_from)

    def quarantined(self, source: str, entries: list[tuple[str, str, bytes]]) -> None:
        """Append the items set aside (digest, reason, line) not set aside before to the quarantine
        file, then remember them: one stopped between the two is appended again, never lost."""
        fresh: dict[str, tuple[str, bytes]] = {}
        for digest, reason, line in entries:
            if digest not in fresh and not self.set_aside_before(source, digest):
                fresh[digest] = (reason, line)
        if not fresh:
            return
        # Written whole, beside the name then renamed, through the package's one rule for files.
        _native.write_whole(self.quarantine, read_regular(self.quarantine) + b"".join(line for _, line in fresh.values()))
        with self._transaction() as db:
            self._still_mine(source)
            db.executemany(
                "INSERT OR IGNORE INTO quarantined (source, digest, reason, at) VALUES (?, ?, ?, ?)",
                [(source, d, reason, _now()) for d, (reason, _) in fresh.items()],
            )

    def _move(self, source: str, feed: _Feed, keep_from: int | None) -> None:
        mark, hole, recheck = feed
        self.db.execute(
            "UPDATE feeds SET mark = ?, hole_from = ?, hole_after = ?, recheck_after = ?, updated_at = ? WHERE source = ?",
            (mark, *(hole or (None, None)), recheck, _now(), source),
        )
        if keep_from is not None:
            self.db.execute("DELETE FROM seen WHERE source = ? AND run IS NULL AND time < ?", (source, keep_from))

    def _rebuild(self) -> None:
        """The keys and marks of every source from the files the runs wrote in the folder (a
        range a cut run left to walk is not in them: the next run walks from the newest item on).
        A mark is never later than this machine's clock: an item dated later does not move it."""
        from .models import SearchHit

        marks: dict[str, int] = {}
        now = _ms(datetime.now(timezone.utc))
        with self._transaction():
            for f in sorted(self.folder.iterdir()):
                m = _FILE.fullmatch(f.name)
                if m is None or f.is_symlink() or not f.is_file():
                    continue
                source = m["source"]
                keys: dict[str, int] = {}
                try:
                    for pair, t in _written(f, m["ext"], SearchHit):
                        if not 0 <= t <= _MAX_MS:
                            continue
                        for k in pair:
                            keys[k] = max(keys.get(k, t), t)
                        marks[source] = max(marks.get(source, min(t, now)), min(t, now))
                except (UrlscanError, ValueError, TypeError, KeyError, AttributeError, IndexError, RecursionError, OSError) as e:
                    raise StateError(
                        f"feed sync state {self.path} cannot be rebuilt: {f} is not a file a feed run wrote ({e}); "
                        "move it out of the folder and try again",
                        path=str(self.path),
                    ) from e
                self._keys(source, keys, None)
                self.db.execute(
                    "INSERT OR IGNORE INTO runs (id, source, file, status, items, started_at) VALUES (?, ?, ?, 'done', ?, ?)",
                    (_uuid.uuid4().hex, source, f.name, len(keys), _now()),
                )
            self.db.executemany("INSERT INTO feeds (source, mark) VALUES (?, ?)", marks.items())

    def close(self) -> None:
        if self._beat is not None:
            self._beat.stop()
            self._beat = None
        db = getattr(self, "db", None)
        if db is not None:
            db.close()


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

# Hits per saved-search page (any account may ask for 100), and at most per phishfeed page.
_PAGE = 100
_BIG_PAGE = 1000
# How many items past one older than the window a walk looks for one inside it (then the older one
# was out of order, and the walk goes on): the rest of its page, and at most one page more.
_LOOKAHEAD = 100


def _item_cursor(hit: Any) -> str | None:
    """Where a walk goes on after `hit`: its sort values, else its time and id when both read
    (the service's order is by them); None for an item that gives no place."""
    try:
        if (text := _sort_cursor(hit)) is not None:
            return text
        t, uuid = _when(hit), hit.uuid
    except DecodeError:
        return None
    if t is not None and 0 <= t <= _MAX_MS and isinstance(uuid, str) and _ID.fullmatch(uuid):
        return f"{t},{uuid}"
    return None


class Reader:
    """A client's walks over a source, for a run on this thread (``client.feeds.sync``'s; not in
    ``__all__``): ``run`` completes an AsyncClient's awaitables on the thread's own event loop
    (None: a Client, which blocks).

    Pages are read as plain JSON and their items judged one by one (a page model would refuse
    the whole page for one wrong-typed item); the ``Date`` of each answer is kept: the
    service's clock, by which the items' times are judged."""

    def __init__(self, client: Any, run: Callable[[Any], Any] | None) -> None:
        self.client = client
        self.run = run
        self.server_ms: int | None = None

    def now(self) -> tuple[int, str]:
        """The service's time (epoch ms) as far as this run knows it, and where it was read."""
        if self.server_ms is not None:
            return self.server_ms, "the service's clock (the Date of its answer)"
        return _ms(datetime.now(timezone.utc)), "this machine's clock (the service sent no Date)"

    def _date(self, answer: Any) -> None:
        for name, value in () if answer is None else answer[3]:
            if name.lower() == "date":
                try:
                    when = parsedate_to_datetime(value)
                    ms = _ms(when if when.tzinfo else when.replace(tzinfo=timezone.utc))
                except (TypeError, ValueError, IndexError, OverflowError):
                    return
                if 0 <= ms <= _MAX_MS:
                    self.server_ms = ms
                return

    def page(self, path: str, params: dict[str, Any]) -> tuple[list[Any], Any]:
        """One page: its items (plain JSON, or :class:`_Raw`), and its ``has_more`` (None: not said)."""
        cap = _native.RawCapture()
        try:
            with cap:
                call = self.client.request("GET", path, params=params)
                body = call if self.run is None else self.run(call)
        except DecodeError:
            # A body the client does not decode (an item nested too deeply, say): its items one by one.
            answer = cap.response()
            self._date(answer)
            items = None if answer is None else _split_results(answer[4])
            if items is None:
                raise
            return items, None
        self._date(cap.response())
        if not isinstance(body, dict) or not isinstance(body.get("results"), list):
            raise DecodeError(f"GET {path}: expected a page of results (an object with a results list), found {_found(body)}")
        return body["results"], body.get("has_more")

    def items(self, source: str, lo: int, after: str | None, budget: int) -> Iterator[Any]:
        """The items from `after` (the newest when None) back, newest first, as they came; the
        caller stops reading at `lo` or its budget, and no page is fetched before it is read."""
        kind = _source_of(source)
        path = kind.path(source)
        # Two past the budget (one tells a cut walk from a finished one, one is for an item passed over),
        # and never a small page: one page of odd items the walk cannot go on from ends it.
        size = min(max(budget + 2, _PAGE), _BIG_PAGE) if kind.short_page_ends else _PAGE
        cursors: set[str] = set()
        while True:
            page, more = self.page(path, kind.params(lo, after, size))
            if not page:
                return
            yield from page
            if kind.short_page_ends and (len(page) < size or more is False):
                return
            nxt = next((c for c in map(_raw_cursor, reversed(page)) if c is not None), None)
            if nxt is None or nxt == after or nxt in cursors:
                # The service cannot be walked past here (no item of the page gives a place to go on
                # from, or its pages come round again): the walk ends, rather than the feed for good.
                _log.warning("%s: the walk ends at a page it cannot go on from (cursor %s, then %s)", path, after, nxt)
                return
            cursors.add(nxt)
            after = nxt


def _raw_cursor(raw: Any) -> str | None:
    from .models import SearchHit

    try:
        return _item_cursor(SearchHit(raw)) if isinstance(raw, dict) else None
    except ValidationError:
        return None  # nested too deeply to be a hit


# An item judged: (the hit, its time, its keys), or why it is set aside.
_Judged = tuple[Any, int, tuple[str, str]] | str


class _Ahead:
    """The items of a walk, each judged once, with a look ahead: an item older than the window
    ends the walk unless an item inside the window comes after it (then it was out of order)."""

    def __init__(self, items: Iterator[Any], judge: Callable[[Any], _Judged]) -> None:
        self.items, self.judge = items, judge
        self.buffer: list[tuple[Any, _Judged, str | None]] = []

    def __iter__(self) -> _Ahead:
        return self

    def __next__(self) -> tuple[Any, _Judged, str | None]:
        return self.buffer.pop(0) if self.buffer else self._pull()

    def _pull(self) -> tuple[Any, _Judged, str | None]:
        raw = next(self.items)
        return raw, self.judge(raw), _raw_cursor(raw)

    def inside_follows(self, lo: int, limit: int) -> bool:
        """Whether an item inside the window comes within the next `limit` items."""
        if any(not isinstance(judged, str) and judged[1] >= lo for _, judged, _ in self.buffer):
            return True
        while len(self.buffer) < limit:
            try:
                entry = self._pull()
            except StopIteration:
                return False
            self.buffer.append(entry)
            if not isinstance(entry[1], str) and entry[1][1] >= lo:
                return True
        return False


# ---------------------------------------------------------------- a run


class _Run:
    """One sync of a source: its walks, what they read, and what it leaves in the state."""

    def __init__(
        self,
        state: _State,
        reader: Reader,
        source: str,
        dedupe: str,
        keep: Callable[[Any], object] | None,
        budget: int,
        progress: Callable[[int, int], object] | None,
    ) -> None:
        self.state, self.reader, self.source, self.dedupe, self.keep = state, reader, source, dedupe, keep
        # The items a run reads: at most `budget` it can use, and as many more it sets aside (a run
        # is bounded, and odd items alone never use up what the valid ones need).
        self.budget, self.odd_budget, self.progress = budget, budget, progress
        self.now = _ms(datetime.now(timezone.utc))
        self.new: list[Any] = []
        self.raw: dict[int, Any] = {}  # each new hit's item as it came (by the hit's id()), for the quarantine
        self.written: dict[str, int] = {}  # the keys of the new items, with their times
        self.touched: dict[str, int] = {}  # keys written before that came again (their time moves on)
        self.read = self.skipped = self.filtered = self.quarantined = 0
        self.aside: list[tuple[str, str, bytes]] = []  # (digest, reason, quarantine line) of the items set aside
        self.newest: int | None = None
        self.cursor: str | None = None  # after the last item the walk under way handled
        self.last_t: int | None = None  # the time of the last item with a time the walk under way handled
        self.complete = True

    def judge(self, raw: Any) -> _Judged:
        """The hit, its time and keys, or why it is set aside: every field the run reads is read here."""
        from .models import SearchHit

        if isinstance(raw, _Raw):
            return f"it does not decode: {raw.why}"
        if not isinstance(raw, dict):
            return f"it is not a JSON object (found {_found(raw)})"
        try:
            hit = SearchHit(raw)
            uuid = hit.uuid
            if not isinstance(uuid, str) or not _ID.fullmatch(uuid):
                return "it has no _id" if uuid is None else f"its _id is not an id (letters, digits, and . : - _): {uuid[:80]!r}"
            t = _when(hit)
            keys = _keys(hit)
        except (DecodeError, ValidationError) as e:  # a wrong type; an object nested too deeply
            return f"it does not decode: {e}"
        if t is None:
            return "it has no time (no sort values and no task.time)"
        if not 0 <= t <= _MAX_MS:
            return f"its time ({t} ms after 1970) is out of range (1970 to 9999)"
        now, clock = self.reader.now()
        if t > now + _SLACK_MS:
            return f"it is dated {_iso(t)}, later than {clock}, {_iso(now)}, by more than {FUTURE_SLACK}"
        return hit, t, keys

    def walk(self, lo: int, after: str | None) -> bool:
        """Handle the items from `after` back to `lo`; False when the budget ran out first."""
        self.cursor = self.last_t = None
        ahead = _Ahead(self.reader.items(self.source, lo, after, self.budget), self.judge)
        for raw, judged, cursor in ahead:
            if after is not None and cursor == after:
                continue  # the item the cut walk handled last
            if not isinstance(judged, str) and judged[1] < lo and not ahead.inside_follows(lo, _LOOKAHEAD):
                return True
            odd = isinstance(judged, str) or judged[1] < lo
            # An odd item with no place in the service's order costs nothing: a walk cut after it
            # could not go on past it (the pages bound how many come, each going on from a placed one).
            if cursor is not None and (self.odd_budget if odd else self.budget) == 0:
                return False
            if not odd:
                self.budget -= 1
            elif cursor is not None:
                self.odd_budget -= 1
            self.read += 1
            if isinstance(judged, str):
                self._aside(raw, judged)
            elif judged[1] < lo:
                self._aside(
                    raw, f"it is dated {_iso(judged[1])}, before the window ({_iso(lo)}), and items inside it came after it"
                )
            else:
                self._take(raw, *judged)
            self.cursor = cursor or self.cursor
            if self.progress is not None:
                self.progress(self.read, len(self.new))
        return True

    def _aside(self, raw: Any, reason: str) -> None:
        """Set an item aside: counted, and kept with its reason for the quarantine file."""
        self.quarantined += 1
        entry: dict[str, Any] = {"source": self.source, "reason": reason, "at": _now()}
        try:
            if isinstance(raw, _Raw):
                raise ValueError(raw.text)
            text = json.dumps(raw, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
            line = json.dumps({**entry, "item": raw}, ensure_ascii=False, separators=(",", ":"))
        except (ValueError, TypeError, RecursionError):
            text = raw.text if isinstance(raw, _Raw) else repr(type(raw))
            line = json.dumps({**entry, "raw": text}, ensure_ascii=False, separators=(",", ":"))
        digest = hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()
        self.aside.append((digest, reason, line.encode("utf-8", "replace") + b"\n"))

    def _take(self, raw: Any, hit: Any, t: int, keys: tuple[str, str]) -> None:
        by_uuid, by_url = keys
        key = by_url if self.dedupe == "url" else by_uuid
        if key in self.written:
            self.skipped += 1
            self.written[key] = max(self.written[key], t)
        elif self.state.seen(self.source, key):
            self.skipped += 1
            self.touched[key] = max(self.touched.get(key, t), t)
        else:
            try:
                kept = self.keep is None or self.keep(hit)
            except DecodeError as e:
                # The filter read a field of the wrong type: the item's fault, not the filter's.
                self._aside(raw, f"the filter could not read it: {e}")
                return
            if not kept:
                self.filtered += 1
            else:
                self.new.append(hit)
                self.raw[id(hit)] = raw
                for k in (by_uuid, by_url):
                    self.written[k] = max(self.written.get(k, t), t)
        self.newest = t if self.newest is None else max(self.newest, t)
        self.last_t = t

    def sync(self, feed: _Feed, lookback: int, fmt: str) -> FeedReport:
        """First the range a cut run left; then the items new since the mark, and the window
        looked through for late items (from where the last look stopped, when the window holds
        more than the budget); what was handled is written and remembered however the walks end."""
        mark, self.hole, self.recheck = feed
        self.walking: tuple[str, int] | None = None  # the walk under way: a range to finish, or the look
        try:
            self._walks(mark, (self.now if mark is None else mark) - lookback)
        except (Exception, KeyboardInterrupt):
            # Stopped (a page failed, the filter raised, Ctrl-C): keep what was handled; the rest of
            # the walk under way is walked first next time.
            if self.walking is not None and self.cursor is not None:
                if self.walking[0] == "recheck":
                    self.recheck = self.cursor
                else:
                    self.hole = (self.walking[1], self.cursor)
            self.complete = False
            self.save(mark, lookback, fmt)
            raise
        return self.save(mark, lookback, fmt)

    def _walks(self, mark: int | None, window: int) -> None:
        if self.hole is not None:
            self.walking = ("hole", self.hole[0])
            if not self.walk(*self.hole):
                self.hole = (self.hole[0], self.cursor or self.hole[1])
                self.complete = False
                return
            self.hole = None
        if self.budget == 0:
            self.complete = False  # new items may be waiting: the next run reads them first
        elif self.recheck is not None and mark is not None and int(self.recheck.split(",", 1)[0]) >= window:
            # The items new since the mark, then the look through the window from where it stopped.
            self.walking = ("hole", mark)
            if not self.walk(mark, None):
                self.hole = (mark, self.cursor) if self.cursor else None
                self.complete = False
            elif self.budget > 0:
                self.walking = ("recheck", window)
                self.recheck = None if self.walk(window, self.recheck) else self.cursor or self.recheck
        else:
            self.recheck = None
            self.walking = ("hole", window)
            if not self.walk(window, None):
                if self.cursor is not None and mark is not None and self.last_t is not None and self.last_t <= mark:
                    self.recheck = self.cursor  # every new item was read: the look goes on next run
                else:
                    self.hole = (window, self.cursor) if self.cursor else None
                    self.complete = False

    def _writable(self, fmt: str) -> list[Any]:
        """The new items as they will be written (lines, or STIX objects by item); one that cannot
        be written is set aside, and its keys are not kept."""
        out: list[Any] = []
        kept: list[Any] = []
        if fmt == "parquet":
            try:
                _native.table_stream("SCANS", None, self.new).collect()
                kept = self.new
            except UrlscanError:
                kept = [h for h in self.new if self._fits_table(h)]
        for hit in self.new if fmt != "parquet" else ():
            try:
                if fmt == "stix":
                    out.append(hit.to_stix()["objects"])
                else:
                    out.append(json.dumps(hit.to_dict(), ensure_ascii=False, separators=(",", ":")).encode() + b"\n")
            except (UrlscanError, ValueError, TypeError, KeyError, RecursionError) as e:
                self._aside(self.raw.get(id(hit)), f"it cannot be written as {fmt}: {e}")
            else:
                kept.append(hit)
        if len(kept) != len(self.new):
            self.new = kept
            self.written = {}
            for hit in kept:
                t = _when(hit) or 0  # each was judged: it has a time
                for k in _keys(hit):
                    self.written[k] = max(self.written.get(k, t), t)
        return out

    def _fits_table(self, hit: Any) -> bool:
        try:
            _native.table_stream("SCANS", None, [hit]).collect()
        except UrlscanError as e:
            self._aside(self.raw.get(id(hit)), f"it cannot be written as parquet: {e}")
            return False
        return True

    def save(self, mark: int | None, lookback: int, fmt: str) -> FeedReport:
        """Write the new items to one file, then the state: pending before the file, done after it.
        The mark never passes the service's clock (a mark an earlier version set past it comes back)."""
        clock, _ = self.reader.now()
        if self.newest is not None:
            newest = min(self.newest, clock)
            mark = newest if mark is None else max(mark, newest)
        if mark is not None and self.reader.server_ms is not None:
            mark = min(mark, self.reader.server_ms)
        hole, recheck = self.hole, self.recheck
        # No walk goes below the next window or the range left: keys older than that (and one
        # more look-back, should the next run look further) are dropped.
        bounds = [b for b in (None if mark is None else mark - lookback, hole[0] if hole else None) if b is not None]
        keep_from = min(bounds) - lookback if bounds else None
        feed = (mark, hole, recheck)
        data = self._writable(fmt) if self.new else []
        if self.aside:
            self.state.quarantined(self.source, self.aside)
        report = FeedReport(self.source, self.new, self.skipped, self.filtered, self.read, complete=self.complete)
        report.quarantined = self.quarantined
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
            _write(target, self.new, data, fmt, self.source)
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


def _write(target: Path, hits: list[Any], data: list[Any], fmt: str, source: str) -> None:
    """The hits to `target`, whole or not at all (a temporary file beside it, renamed); `data`: the
    lines (JSON lines) or each hit's STIX objects, as :meth:`_Run._writable` made them."""
    if fmt == "parquet":
        from ._tables import ModelTable
        from .schema import of

        ModelTable(hits, of(hits[0])).to_parquet(target)
        return
    if fmt == "stix":
        from .playbook import ID_NAMESPACE

        objects: dict[str, Any] = {}
        for each in data:
            for o in each:
                objects.setdefault(o["id"], o)
        ids = ",".join(str(h.uuid) for h in hits)
        bundle_id = f"bundle--{_uuid.uuid5(ID_NAMESPACE, f'feed:{source}:{ids}')}"
        bundle = {"type": "bundle", "id": bundle_id, "objects": list(objects.values())}
        payload = json.dumps(bundle, ensure_ascii=False, separators=(",", ":")).encode()
    else:
        payload = b"".join(data)
    _native.write_whole(target, payload)


def print_counter(read: int, new: int) -> None:
    """``progress=True``: items read and new on stderr."""
    print(f"\r{read} read, {new} new", end="", file=sys.stderr, flush=True)


def sync_into(
    reader: Reader,
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
    """What ``client.feeds.sync`` runs (its reads given by `reader`); not in ``__all__``: the
    namespace's method is the API."""
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
        if progress is print_counter:
            print(file=sys.stderr)
