"""Data-dump files, read as the service serves them (no unpacking to disk).

``search`` and ``api`` files are gzipped JSON lines: :func:`read` gives their
search hits or results as the same models, with the same strict-on-wrong
rule, as the API; their tables (``to_arrow()``, ``to_parquet()``, ...) use
the ``SCANS`` and ``RESULTS`` schemas (:mod:`urlscan_rs.schema`), decoded in
Rust in batches. ``screenshots`` and ``dom`` files are gzipped tar archives,
read as ``(uuid, bytes)``. Files of several gzip members, and tar streams of
several archives, read as one::

    from urlscan_rs import datadumps

    for hit in datadumps.read("hours/search/20261120/20261120-13.gz"):
        print(hit.page.domain)
    datadumps.read("hours/api/20261120/20261120-13.gz").to_parquet("13.parquet")
    datadumps.to_parquet("dumps/", "lake/")   # type=search/date=2026-11-20/hour=13/part-0.parquet
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from . import _native
from ._folder_state import Heartbeat, holds, nearest, new_owner, open_state, prepare_folder, set_aside, state_error
from ._tables import Tabular
from .schema import RESULTS, SCANS, Schema

__all__ = ["DumpFile", "read", "to_parquet", "ConvertReport", "SyncReport", "MAX_LINE_BYTES", "MAX_MEMBER_BYTES", "MAX_DAYS"]

# Items read from the file per call into the core.
_BATCH = 1000
MAX_LINE_BYTES = 64 << 20
"""The default longest line :func:`read` takes (64 MiB): a result of the
service is up to a few megabytes; a longer line is a ``DecodeError``."""
MAX_MEMBER_BYTES = 64 << 20
"""The default largest archive member :func:`read` takes (64 MiB): a
screenshot or a DOM of the service is far smaller."""


class DumpFile(Tabular):
    """A data-dump file being read: iterate it once for its items
    (:class:`~urlscan_rs.models.SearchHit`, :class:`~urlscan_rs.models.ScanResult`
    or ``(uuid, bytes)``), or make a table of it (``search`` and ``api`` files)."""

    __slots__ = ("path", "type", "_reader")

    def __init__(
        self,
        path: str | os.PathLike[str],
        type: str | None = None,
        *,
        max_line_bytes: int = MAX_LINE_BYTES,
        max_member_bytes: int = MAX_MEMBER_BYTES,
    ) -> None:
        self.path = Path(path)
        self._reader = _native.DumpReader(os.fspath(path), type, max_line_bytes=max_line_bytes, max_member_bytes=max_member_bytes)
        self.type: str = self._reader.kind

    def __iter__(self) -> Iterator[Any]:
        while True:
            items = self._reader.next_items(_BATCH)
            if not items:
                return
            yield from items

    def __repr__(self) -> str:
        return f"DumpFile({str(self.path)!r}, type={self.type!r})"

    # -- tables (see Tabular)

    def _table_schema(self) -> Schema:
        if self.type == "search":
            return SCANS
        if self.type == "api":
            return RESULTS
        raise TypeError(f"a {self.type} dump holds files, not rows: iterate it for (uuid, bytes)")

    def _fingerprint(self) -> str:
        return f"data dump {self.path}"

    def _table(self, columns: list[str] | None, resume: Any = None) -> Any:
        return _native.table_stream(self._table_schema().name, columns, [], self._reader)


def read(
    path: str | os.PathLike[str],
    *,
    type: str | None = None,
    max_line_bytes: int = MAX_LINE_BYTES,
    max_member_bytes: int = MAX_MEMBER_BYTES,
) -> DumpFile:
    """Open a data-dump file. ``type`` ("search", "api", "screenshots" or
    "dom") is read from the path (``hours/search/...``) unless given, else
    from the content (a file downloaded or renamed out of its dump folder).

    Memory stays bounded by the limits, not by the file: a line longer than
    ``max_line_bytes`` (``search`` and ``api`` files) or an archive member
    larger than ``max_member_bytes`` (``screenshots`` and ``dom``) is a
    ``DecodeError`` naming the file and the line or member, raised before
    more than the limit is held (defaults: :data:`MAX_LINE_BYTES`,
    :data:`MAX_MEMBER_BYTES`).

    Raises:
        ValidationError: The file cannot be opened, its type is unknown, or a
            limit is not a positive whole number.
        DecodeError: (while reading) The file is not what its type says, or
            breaks a limit; the message names the line or member.
    """
    return DumpFile(path, type, max_line_bytes=max_line_bytes, max_member_bytes=max_member_bytes)


class ConvertReport(dict[str, int]):
    """What :func:`to_parquet` did: ``files`` converted, ``skipped`` (already
    converted), ``rows`` written."""

    @property
    def files(self) -> int:
        return self["files"]

    @property
    def skipped(self) -> int:
        return self["skipped"]

    @property
    def rows(self) -> int:
        return self["rows"]


_STAMP = re.compile(r"^(\d{4})(\d{2})(\d{2})(?:-(\d{2}))?(?:-?(\d{2}))?")


def _partition(src: Path, f: Path) -> Path | None:
    """``type=search/date=2026-11-20/hour=13`` for a dump file, None for what is not one."""
    kind = nearest(f.relative_to(src), ("search", "api"))
    m = _STAMP.match(f.name)
    if kind is None or m is None:
        return None
    year, month, day, hour, minute = m.groups()
    parts = [f"type={kind}", f"date={year}-{month}-{day}"]
    if hour is not None:
        parts.append(f"hour={hour}")
    if minute is not None:
        parts.append(f"minute={minute}")
    return Path(*parts)


def to_parquet(src_dir: str | os.PathLike[str], dest_dir: str | os.PathLike[str], *, workers: int | None = None) -> ConvertReport:
    """Turn a folder of ``search`` and ``api`` dump files (as ``client.datadumps``
    keeps them) into Hive-partitioned Parquet:
    ``dest_dir/type=search/date=2026-11-20/hour=13/part-0.parquet``.

    Each file is decoded once, in Rust, in batches (memory is bounded by the
    batch, not the file), on ``workers`` threads at once (default: the
    machine's cores; the decoding runs without the GIL). A file whose Parquet
    already exists is skipped, so a rerun converts only new files.

    Raises:
        ValidationError: ``src_dir`` does not exist or is not a folder (a
            mistyped path would otherwise convert nothing, silently).
    """
    src, dest = Path(src_dir), Path(dest_dir)
    _source_folder(src, "convert")
    jobs = []
    skipped = 0
    for f in sorted(p for p in src.rglob("*") if p.is_file()):
        part = _partition(src, f)
        if part is None:
            continue
        out = dest / part / "part-0.parquet"
        if out.exists():
            skipped += 1
            continue
        jobs.append((f, out))

    def convert(job: tuple[Path, Path]) -> int:
        f, out = job
        out.parent.mkdir(parents=True, exist_ok=True)
        return int(read(f).to_parquet(out))

    with ThreadPoolExecutor(max_workers=workers or os.cpu_count() or 1) as pool:
        rows = sum(pool.map(convert, jobs))
    return ConvertReport(files=len(jobs), skipped=skipped, rows=rows)


def _source_folder(src: Path, what: str) -> None:
    """A folder to read from that exists: a missing one is an error naming it, never an empty run."""
    from .errors import ValidationError

    if not src.exists():
        raise ValidationError(f"cannot {what} {src}: no such folder")
    if not src.is_dir():
        raise ValidationError(f"cannot {what} {src}: not a folder (give the folder that holds the dump files)")


# ---------------------------------------------------------------- keeping a local copy current

STATE_FILE = ".urlscan-datadumps.sqlite3"
# A hidden name: no listed path can take it (hidden names are refused, see _native.contained).
MAX_DAYS = 366
"""The most days :meth:`sync` walks back (a year): every loop has a bound."""
# The data-dump state: how to rebuild it, its table and columns, and the script that makes it.
_DUMP_KIND = "data-dump sync"
_DUMP_REBUILD = "sync(..., rebuild_state=True) (urlscan-rs datadump sync --rebuild-state)"
# What renews a claim on a file while it downloads (see _folder_state.Heartbeat).
_DUMP_RENEW = "UPDATE files SET claimed_at = ? WHERE path = ? AND owner = ?"
_DUMP_TABLES = {"files": ("path", "size", "status", "fetched_at", "error", "attempts", "owner", "claimed_at")}
_DUMP_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, size INTEGER, status TEXT NOT NULL, "
    "fetched_at TEXT, error TEXT, attempts INTEGER NOT NULL DEFAULT 0, owner TEXT, claimed_at REAL);"
)


@dataclasses.dataclass
class SyncReport:
    """What :meth:`client.datadumps.sync <urlscan_rs._namespaces.DataDumps.sync>` did:
    the dump paths ``downloaded``, ``skipped`` (complete already, or being
    fetched by another run) and ``failed`` (path and why; the next run tries
    them again, except a path that may not be written under the folder)."""

    downloaded: list[str] = dataclasses.field(default_factory=list)
    skipped: list[str] = dataclasses.field(default_factory=list)
    failed: list[tuple[str, str]] = dataclasses.field(default_factory=list)

    def __str__(self) -> str:
        return f"{len(self.downloaded)} downloaded, {len(self.skipped)} skipped, {len(self.failed)} failed"


class _State:
    """The sync state in SQLite inside the folder: what was fetched (size,
    when), what failed and why, and which run holds which file (held by the
    folder state's lease rule, renewed while its download lasts). Claims are
    taken in ``BEGIN IMMEDIATE`` transactions, so of two runs at once one
    wins each file. Every SQLite failure is a ``StateError`` naming the file."""

    def __init__(self, folder: Path, rebuild: bool) -> None:
        prepare_folder(folder, rebuild)
        self.path = folder / STATE_FILE
        if rebuild and os.path.lexists(self.path):
            set_aside(self.path)  # the sizes of the files on disk rebuild the state
        self.rebuilt = rebuild
        self.db = open_state(self.path, kind=_DUMP_KIND, rebuild=_DUMP_REBUILD, tables=_DUMP_TABLES, schema=_DUMP_SCHEMA)
        self.me = new_owner()
        self._beat: Heartbeat | None = None

    @contextlib.contextmanager
    def _sql(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.Error as e:
            raise state_error(self.path, e, _DUMP_KIND, _DUMP_REBUILD) from e

    def claim(self, path: str, size: int | None, target: Path) -> bool:
        """Whether this run should fetch `path` to `target` (and then holds it until :meth:`done`
        or :meth:`failed`, its claim renewed meanwhile)."""
        now = time.time()
        with self._sql():
            self.db.execute("BEGIN IMMEDIATE")
            try:
                # Looked at under the lock: another run may have just finished the file. A link
                # planted at the name is not a file this sync wrote.
                have = target.stat().st_size if target.is_file() and not target.is_symlink() else None
                row = self.db.execute("SELECT status, size, owner, claimed_at FROM files WHERE path = ?", (path,)).fetchone()
                if row is None and self.rebuilt and size is not None and have == size:
                    # A rebuilt state trusts a file on disk of the listed size.
                    self._record_done(path, size)
                    return False
                if row is not None:
                    status, known, owner, claimed = row
                    if status == "done" and known == size and have == size:
                        return False
                    if status == "downloading" and owner != self.me and _held(owner, claimed):
                        return False
                self.db.execute(
                    "INSERT INTO files (path, size, status, attempts, owner, claimed_at) VALUES (?, ?, 'downloading', 1, ?, ?) "
                    "ON CONFLICT(path) DO UPDATE SET status = 'downloading', size = excluded.size, "
                    "attempts = attempts + 1, owner = excluded.owner, claimed_at = excluded.claimed_at",
                    (path, size, self.me, now),
                )
            finally:
                self.db.execute("COMMIT")
        self._beat = Heartbeat(self.path, _DUMP_RENEW, (path, self.me), "datadump")
        self._beat.start()
        return True

    def _record_done(self, path: str, size: int) -> None:
        stamp = datetime.now(timezone.utc).isoformat(timespec="seconds")
        self.db.execute(
            "INSERT INTO files (path, size, status, fetched_at, attempts) VALUES (?, ?, 'done', ?, 0) "
            "ON CONFLICT(path) DO UPDATE SET status = 'done', size = excluded.size, fetched_at = excluded.fetched_at, "
            "error = NULL, owner = NULL",
            (path, size, stamp),
        )

    def _let_go(self) -> None:
        if self._beat is not None:
            self._beat.stop()
            self._beat = None

    def done(self, path: str, size: int) -> None:
        self._let_go()
        with self._sql():
            self._record_done(path, size)

    def failed(self, path: str, why: str) -> None:
        self._let_go()
        with self._sql():
            self.db.execute("UPDATE files SET status = 'failed', error = ?, owner = NULL WHERE path = ?", (why, path))

    def close(self) -> None:
        self._let_go()
        db = getattr(self, "db", None)
        if db is not None:
            db.close()


def _held(owner: object, claimed: object) -> bool:
    """Whether the run of a ``downloading`` row still holds it (the lease rule); a row of an
    earlier version (its owner a bare run id) is held until its claim is stale."""
    if not isinstance(claimed, (int, float)):
        return False
    return holds(owner if isinstance(owner, str) else "", float(claimed))


def sync_into(
    list_files: Callable[[str, str, date], Any],
    download: Callable[[str, Path, int | None], Any],
    dest_dir: str | os.PathLike[str],
    window: str,
    types: Sequence[str],
    days: int,
    progress: Callable[[int, int], object] | None,
    rebuild_state: bool = False,
) -> SyncReport:
    """What ``client.datadumps.sync`` runs (its list call, and a download given the listed size);
    not in ``__all__``: the namespace's method is the API."""
    from .errors import UrlscanError, ValidationError

    if window not in ("days", "hours", "minutes"):
        raise ValidationError(f"window must be one of days, hours, minutes, got {window!r}")
    if isinstance(types, str):
        types = (types,)
    bad = [t for t in types if t not in ("search", "api", "screenshots", "dom")]
    if bad or not types:
        raise ValidationError(f"types must be some of search, api, screenshots, dom, got {list(types)!r}")
    if isinstance(days, bool) or not isinstance(days, int) or not 1 <= days <= MAX_DAYS:
        raise ValidationError(f"days must be a whole number from 1 to {MAX_DAYS}, got {days!r}")
    folder = Path(dest_dir)
    state = _State(folder, rebuild_state)
    report = SyncReport()
    try:
        today = datetime.now(timezone.utc).date()
        listed = [
            (f.path, f.size)
            for back in range(days)
            for kind in types
            for f in list_files(window, kind, today - timedelta(days=back))
        ]
        for n, (path, size) in enumerate(listed, 1):
            try:
                # The one containment rule: an absolute path, "..", a hidden or reserved name is never written.
                target = _native.contained(folder, str(path))
            except ValidationError as e:
                report.failed.append((str(path), str(e)))
            else:
                if not state.claim(path, size, target):
                    report.skipped.append(path)
                else:
                    try:
                        download(path, target, size)
                    except (UrlscanError, OSError) as e:
                        state.failed(path, str(e))
                        report.failed.append((path, str(e)))
                    else:
                        state.done(path, target.stat().st_size)
                        report.downloaded.append(path)
            if progress is not None:
                progress(n, len(listed))
    finally:
        state.close()
    return report
