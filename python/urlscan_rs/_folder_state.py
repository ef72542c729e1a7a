"""The state of a folder a sync keeps current (data dumps, feeds): SQLite in the folder, opened
only where it is a regular file this package made, refused with a ``StateError`` that says what to
do otherwise; a broken one set aside, never deleted; and one lease rule for what a run holds.

A run is named by its owner id (:func:`new_owner`: host, process, run). What it holds it holds
as long as its process lives, when it is of this host (POSIX), and otherwise until its claim is
older than :data:`STALE_SECONDS`; a :class:`Heartbeat` renews the claim while the run lasts, so
a long wait or a long download never lets it go stale.
"""

from __future__ import annotations

import contextlib
import os
import socket
import sqlite3
import stat
import threading
import time
import uuid
from collections.abc import Mapping
from pathlib import Path

from .errors import StateError

# A claim older than this is an abandoned run's (a killed process on another host): another run may take it.
STALE_SECONDS = 3600.0
# How long a run waits for another one holding the state's lock.
LOCK_SECONDS = 60.0


def new_owner() -> str:
    """The owner id of a new run: this host, this process and a run id of its own."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex}"


def nearest(path: Path, names: tuple[str, ...]) -> str | None:
    """The folder name of `names` nearest above a file (``hours/search/20261120/...``: "search")."""
    return next((p for p in reversed(path.parts[:-1]) if p in names), None)


def state_error(path: Path, e: sqlite3.Error, kind: str, rebuild: str) -> Exception:
    """The package's error for a state file that cannot be used, saying what to do (``kind``: whose
    state it is; ``rebuild``: the call that rebuilds it)."""
    text = str(e)
    if "locked" in text or "busy" in text:
        what = (
            f"is locked by another process for more than {LOCK_SECONDS:.0f} s (a sync still running on this "
            "folder?); wait for it to end, or stop it"
        )
    elif "readonly" in text or "read-only" in text or "unable to open" in text or "disk I/O" in text:
        what = f"cannot be written ({text}); make it and its folder writable, or sync into another folder"
    else:
        what = f"is not a sync state this package can read ({text}); rebuild it from the files on disk with {rebuild}"
    return StateError(f"{kind} state {path} {what}", path=str(path))


SIDES = ("", "-journal", "-wal", "-shm")
"""SQLite's side files of a state (a hot journal is replayed into the database when it is opened)."""


def open_state(
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
    another process is waited for ``LOCK_SECONDS``, then a ``StateError``: never a hang."""

    def refuse(what: str, at: Path = path) -> StateError:
        return StateError(f"{kind} state {at} {what}", path=str(path))

    if not os.path.lexists(path):
        _make_state(path, schema, kind, rebuild)
    for side in SIDES:
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
        db = sqlite3.connect(path, timeout=LOCK_SECONDS, isolation_level=None)
    except sqlite3.Error as e:
        raise state_error(path, e, kind, rebuild) from e
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
        raise state_error(path, e, kind, rebuild) from e
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
        raise state_error(path, e, kind, rebuild) from e
    finally:
        for side in SIDES:
            with contextlib.suppress(OSError):
                os.unlink(temp.with_name(temp.name + side))


def set_aside(path: Path) -> None:
    """Move a broken state file (and SQLite's side files: a hot journal would be replayed into
    a new state) to ``<name>.<time>-<id>.broken``: kept, not deleted, for a look later."""
    aside = f"{path.name}.{time.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:8]}.broken"
    for side in SIDES:
        old = path.with_name(path.name + side)
        if os.path.lexists(old):
            os.replace(old, path.with_name(aside + side))


def prepare_folder(folder: Path, rebuild: bool = False) -> None:
    """Make the folder a sync writes into (a ``StateError`` when something else is at its name).

    A rebuild reads the files already there: a folder that does not exist holds none, so it is
    an error naming it (a mistyped path), not a new folder and a state rebuilt from nothing."""
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


class Heartbeat:
    """Renews a run's claim every eighth of the stale age, on a thread of its own with a
    connection of its own, for as long as the run lasts: waits the run cannot see into (a
    rate-limit wait, a slow page, a long write or download) never let its claim go stale, so no
    run on another host takes over what it holds and writes it again.

    ``renew`` is the statement that renews the claim: its parameters are the time, then ``key``
    (what is held, and the owner: ``UPDATE feeds SET claimed_at = ? WHERE source = ? AND owner = ?``).
    """

    def __init__(self, path: Path, renew: str, key: tuple[str, ...], name: str) -> None:
        self.path, self.renew, self.key = path, renew, key
        self.every = max(STALE_SECONDS / 8, 0.01)
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, name=f"urlscan-claim-{name}", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.done.set()
        self.thread.join(timeout=10)

    def _run(self) -> None:
        db: sqlite3.Connection | None = None
        try:
            while not self.done.wait(self.every):
                try:
                    if db is None:
                        db = sqlite3.connect(self.path, timeout=min(self.every, 5.0), isolation_level=None)
                    db.execute(self.renew, (time.time(), *self.key))
                except sqlite3.Error:
                    pass  # tried again at the next beat; the run's own writes check that it still holds what it claimed
        finally:
            if db is not None:
                db.close()


def read_regular(path: Path) -> bytes:
    """A file's bytes, b"" when there is none; a link or a special file at its name is refused
    (an ``OSError`` naming it), never followed."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return b""
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise OSError(f"{path} is not a regular file; remove it")
        return f.read()


def holds(owner: str, claimed_at: float) -> bool:
    """The lease rule: whether a run still holds what it claimed: one of this host as long as its
    process lives, one of another host until its claim (renewed while it runs) is older than
    :data:`STALE_SECONDS`."""
    host = owner.partition(":")[0]
    if os.name == "posix" and host == socket.gethostname():
        return alive(owner)
    return time.time() - claimed_at < STALE_SECONDS


def alive(owner: str) -> bool:
    """Whether the run of `owner` may still be running: always, unless it is of this
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
