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
import stat
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from . import _native
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


def _nearest(path: Path, names: tuple[str, ...]) -> str | None:
    """The folder name of `names` nearest above a file (``hours/search/20261120/...``: "search")."""
    return next((p for p in reversed(path.parts[:-1]) if p in names), None)


def _partition(src: Path, f: Path) -> Path | None:
    """``type=search/date=2026-11-20/hour=13`` for a dump file, None for what is not one."""
    kind = _nearest(f.relative_to(src), ("search", "api"))
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
# A claim older than this is an abandoned run's (a killed process): another run may take the file.
_STALE_SECONDS = 3600.0
# How long a run waits for another one holding the state's lock.
_LOCK_SECONDS = 60.0
MAX_DAYS = 366
"""The most days :meth:`sync` walks back (a year): every loop has a bound."""
# The data-dump state: how to rebuild it, its table and columns, and the script that makes it.
_DUMP_REBUILD = "sync(..., rebuild_state=True) (urlscan-rs datadump sync --rebuild-state)"
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


def _state_error(
    path: Path,
    e: sqlite3.Error,
    kind: str = "data-dump sync",
    rebuild: str = _DUMP_REBUILD,
) -> Exception:
    """The package's error for a state file that cannot be used, saying what to do (``kind``: whose
    state it is; ``rebuild``: the call that rebuilds it)."""
    from .errors import StateError

    text = str(e)
    if "locked" in text or "busy" in text:
        what = (
            f"is locked by another process for more than {_LOCK_SECONDS:.0f} s (a sync still running on this "
            "folder?); wait for it to end, or stop it"
        )
    elif "readonly" in text or "read-only" in text or "unable to open" in text or "disk I/O" in text:
        what = f"cannot be written ({text}); make it and its folder writable, or sync into another folder"
    else:
        what = f"is not a sync state this package can read ({text}); rebuild it from the files on disk with {rebuild}"
    return StateError(f"{kind} state {path} {what}", path=str(path))


_SIDES = ("", "-journal", "-wal", "-shm")
"""SQLite's side files of a state (a hot journal is replayed into the database when it is opened)."""


def _open_state(
    path: Path,
    *,
    kind: str,
    rebuild: str,
    tables: Mapping[str, tuple[str, ...]],
    schema: str,
    added: Mapping[str, Mapping[str, str]] | None = None,
) -> sqlite3.Connection:
    """The state database at `path`, made if there is none, refused (a ``StateError`` naming it,
    saying what to do) when it is not one this package can use.

    ``tables``: the tables and columns a state of this `kind` has (the first table is the one
    every version made); ``schema``: the script that makes them; ``added``: columns later
    versions added (``{table: {column: type}}``), added to an older state when it is opened.

    Never followed: a link at the name or at a side file's (SQLite would write through it,
    wherever it leads), nor anything but a regular file. A file that is empty (0 bytes) is not a
    state this package made (a new one is made whole, then linked into place): opened as one,
    every item would look new. A database of another layout is not changed. A lock held by
    another process is waited for ``_LOCK_SECONDS``, then a ``StateError``: never a hang."""
    from .errors import StateError

    def refuse(what: str, at: Path = path) -> StateError:
        return StateError(f"{kind} state {at} {what}", path=str(path))

    if not os.path.lexists(path):
        _make_state(path, schema, kind, rebuild)
    for side in _SIDES:
        at = path.with_name(path.name + side)
        try:
            st = os.lstat(at)
        except FileNotFoundError:
            continue
        except OSError as e:
            raise refuse(f"cannot be read ({e.strerror or e}); make it and its folder readable", at) from e
        if stat.S_ISLNK(st.st_mode):
            raise refuse("is a symbolic link, which SQLite would write through; remove it", at)
        if not stat.S_ISREG(st.st_mode):
            raise refuse("is not a regular file (a folder, a pipe or a device); remove it", at)
        if side == "" and st.st_size == 0:
            raise refuse(
                "is empty (0 bytes): not a state this package wrote, and opened as one every item would look "
                f"new; rebuild it from the files on disk with {rebuild}"
            )
    try:
        # The default rollback journal: switching to WAL races between two first runs.
        db = sqlite3.connect(path, timeout=_LOCK_SECONDS, isolation_level=None)
    except sqlite3.Error as e:
        raise _state_error(path, e, kind, rebuild) from e
    try:
        names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        first = next(iter(tables))
        if first not in names:
            shown = ", ".join(sorted(names)[:5]) or "none"
            raise refuse(
                f"is a SQLite database of another layout (its tables: {shown}), not a {kind} state; move it "
                f"away, or sync into another folder"
            )
        for table, columns in tables.items():
            if table not in names:
                continue  # made by the schema below (a state of an older version)
            have = {r[1] for r in db.execute(f"PRAGMA table_info({table})")}
            new = (added or {}).get(table, {})
            missing = [c for c in columns if c not in have and c not in new]
            if missing:
                raise refuse(
                    f"is not a {kind} state this package can read (table {table} has no {', '.join(missing)}); "
                    f"rebuild it from the files on disk with {rebuild}"
                )
            if any(column not in have for column in new):
                # Under the write lock, looked at again: two runs of a new version may upgrade it at once.
                db.execute("BEGIN IMMEDIATE")
                have = {r[1] for r in db.execute(f"PRAGMA table_info({table})")}
                for column, kind_of in new.items():
                    if column not in have:
                        db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind_of}")
                db.execute("COMMIT")
        db.executescript(schema)
    except sqlite3.Error as e:
        db.close()
        raise _state_error(path, e, kind, rebuild) from e
    except BaseException:
        db.close()
        raise
    return db


def _make_state(path: Path, schema: str, kind: str, rebuild: str) -> None:
    """A new state at `path`, made whole beside it and then linked into place: a run that finds
    the name taken opens that state, and no run ever sees a half-made or empty one."""
    temp = path.with_name(f"{path.name}.{uuid.uuid4().hex[:12]}.tmp")
    try:
        db = sqlite3.connect(temp, isolation_level=None)
        try:
            db.executescript(f"BEGIN; {schema} COMMIT;")  # one transaction: one write to disk, not one a table
        finally:
            db.close()
        try:
            os.link(temp, path)
        except FileExistsError:
            pass  # another run made it first: that one is the state
        except OSError:
            # A file system without hard links: renamed, unless another run made one meanwhile.
            if not os.path.lexists(path):
                os.replace(temp, path)
    except sqlite3.Error as e:
        raise _state_error(path, e, kind, rebuild) from e
    finally:
        for side in _SIDES:
            with contextlib.suppress(OSError):
                os.unlink(temp.with_name(temp.name + side))


def _set_aside(path: Path) -> None:
    """Move a broken state file (and SQLite's side files: a hot journal would be replayed into
    a new state) to ``<name>.<time>-<id>.broken``: kept, not deleted, for a look later."""
    aside = f"{path.name}.{time.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:8]}.broken"
    for side in _SIDES:
        old = path.with_name(path.name + side)
        if os.path.lexists(old):
            os.replace(old, path.with_name(aside + side))


def _folder(folder: Path, rebuild: bool = False) -> None:
    """Make the folder a sync writes into (a ``StateError`` when something else is at its name).

    A rebuild reads the files already there: a folder that does not exist holds none, so it is
    an error naming it (a mistyped path), not a new folder and a state rebuilt from nothing."""
    from .errors import StateError

    if rebuild and not os.path.lexists(folder):
        raise StateError(
            f"cannot rebuild the sync state of {folder}: no such folder (to start syncing into a new folder, "
            "leave out the rebuild)",
            path=str(folder),
        )
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise StateError(f"{folder} is not a folder; give a folder to sync into", path=str(folder)) from None


class _State:
    """The sync state in SQLite inside the folder: what was fetched (size,
    when), what failed and why, and which run holds which file. Claims are
    taken in ``BEGIN IMMEDIATE`` transactions, so of two runs at once one
    wins each file. Every SQLite failure is a ``StateError`` naming the file."""

    def __init__(self, folder: Path, rebuild: bool) -> None:
        _folder(folder, rebuild)
        self.path = folder / STATE_FILE
        if rebuild and os.path.lexists(self.path):
            _set_aside(self.path)  # the sizes of the files on disk rebuild the state
        self.rebuilt = rebuild
        self.db = _open_state(self.path, kind="data-dump sync", rebuild=_DUMP_REBUILD, tables=_DUMP_TABLES, schema=_DUMP_SCHEMA)
        self.me = uuid.uuid4().hex

    @contextlib.contextmanager
    def _sql(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.Error as e:
            raise _state_error(self.path, e) from e

    def claim(self, path: str, size: int | None, target: Path) -> bool:
        """Whether this run should fetch `path` to `target` (and then holds it)."""
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
                    if status == "downloading" and owner != self.me and now - (claimed or 0) < _STALE_SECONDS:
                        return False
                self.db.execute(
                    "INSERT INTO files (path, size, status, attempts, owner, claimed_at) VALUES (?, ?, 'downloading', 1, ?, ?) "
                    "ON CONFLICT(path) DO UPDATE SET status = 'downloading', size = excluded.size, "
                    "attempts = attempts + 1, owner = excluded.owner, claimed_at = excluded.claimed_at",
                    (path, size, self.me, now),
                )
                return True
            finally:
                self.db.execute("COMMIT")

    def _record_done(self, path: str, size: int) -> None:
        stamp = datetime.now(timezone.utc).isoformat(timespec="seconds")
        self.db.execute(
            "INSERT INTO files (path, size, status, fetched_at, attempts) VALUES (?, ?, 'done', ?, 0) "
            "ON CONFLICT(path) DO UPDATE SET status = 'done', size = excluded.size, fetched_at = excluded.fetched_at, "
            "error = NULL, owner = NULL",
            (path, size, stamp),
        )

    def done(self, path: str, size: int) -> None:
        with self._sql():
            self._record_done(path, size)

    def failed(self, path: str, why: str) -> None:
        with self._sql():
            self.db.execute("UPDATE files SET status = 'failed', error = ?, owner = NULL WHERE path = ?", (why, path))

    def close(self) -> None:
        db = getattr(self, "db", None)
        if db is not None:
            db.close()


def _sync(
    list_files: Callable[[str, str, date], Any],
    download: Callable[[str, Path, int | None], Any],
    dest_dir: str | os.PathLike[str],
    window: str,
    types: Sequence[str],
    days: int,
    progress: Callable[[int, int], object] | None,
    rebuild_state: bool = False,
) -> SyncReport:
    """The sync of a client's ``datadumps`` (its list call, and a download given the listed size)."""
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
