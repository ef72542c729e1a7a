"""The hostile harness for state stores: every file the package keeps its state in (``STORES``, a
registry a test holds complete: a new ``sqlite3.connect(`` or ``STATE_FILE`` in the package, or a
new SQLite connection in the core, that is not here fails it) meets a zero-byte file, random bytes,
another process's lock, a database of another layout, a link at its name, and another host's claim.
Each ends in a ``StateError`` naming the file, or in a correct run: never a builtin exception, a
hang, a file written through a link, or an item lost or written twice."""

from __future__ import annotations

import dataclasses
import gc
import gzip
import json
import os
import random
import re
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from urlscan_rs import Client, StateError, _folder_state, datadumps, feeds

from .dumphost import KEY, Body, DumpHost, dump_host
from .loopback import serve_raw
from .test_hostile_feeds import Feed, item, now_ms, text

ROOT = Path(__file__).resolve().parent.parent
YEAR = 366 * 86400


@dataclasses.dataclass
class Services:
    """The scripted services the stores' runs talk to (one of each for the module)."""

    feed: Feed
    feed_client: Client
    dumps: DumpHost
    dump_client: Client
    day: str
    dump_paths: list[str]


@dataclasses.dataclass(frozen=True)
class Store:
    """A state store: where it is opened (a file of the repository), its file's name in the folder
    it serves, a run that uses it (items written this run, by key), what the folder holds (by key,
    once per copy), every item the service has, and how another run's claim is planted in it.
    ``run`` None: not in this harness yet (the entry says who fills it)."""

    name: str
    opened_in: str
    state_file: str | None
    run: Callable[[Services, Path], set[str]] | None = None
    on_disk: Callable[[Path], list[str]] | None = None
    everything: Callable[[Services], set[str]] | None = None
    claim: Callable[[Path, str, float], None] | None = None
    pending: str = ""


# ---------------------------------------------------------------- the data-dump sync state


def _dump_run(s: Services, folder: Path) -> set[str]:
    report = s.dump_client.datadumps.sync(folder, types=("search",), days=1)
    assert not report.failed, report.failed
    return set(report.downloaded)


def _dump_files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*.gz"))


def _dump_claim(state: Path, owner: str, at: float) -> None:
    with sqlite3.connect(state) as db:
        db.execute("UPDATE files SET status = 'downloading', owner = ?, claimed_at = ?", (owner, at))


# ---------------------------------------------------------------- the feed sync state


def _feed_run(s: Services, folder: Path) -> set[str]:
    return {str(h.uuid) for h in s.feed_client.feeds.sync("phishfeed", folder, lookback=YEAR).new}


def _feed_items(folder: Path) -> list[str]:
    return [json.loads(line)["_id"] for f in sorted(folder.glob("[!.]*.jsonl")) for line in f.read_text().splitlines()]


def _feed_claim(state: Path, owner: str, at: float) -> None:
    with sqlite3.connect(state) as db:
        db.execute("UPDATE feeds SET owner = ?, claimed_at = ?", (owner, at))


STORES: tuple[Store, ...] = (
    Store(
        "data-dump sync",
        "python/urlscan_rs/datadumps.py",
        datadumps.STATE_FILE,
        run=_dump_run,
        on_disk=_dump_files,
        everything=lambda s: set(s.dump_paths),
        claim=_dump_claim,
    ),
    Store(
        "feed sync",
        "python/urlscan_rs/feeds.py",
        feeds.STATE_FILE,
        run=_feed_run,
        on_disk=_feed_items,
        everything=lambda s: {json.loads(raw)["_id"] for raw in s.feed.items},
        claim=_feed_claim,
    ),
    # The result cache keeps copies of answers, not a run's progress: it has no claim, and a file
    # it cannot use is an OSError naming it (or the call goes on without it), not a StateError.
    # test_the_result_cache_meets_a_hostile_file holds it to the same conditions.
    Store("result cache", "crates/urlscan-core/src/cache.rs", None, pending="met by test_the_result_cache_meets_a_hostile_file"),
)
"""Every state store of the package."""

CONDITIONS = ("zero bytes", "random bytes", "locked for writing", "locked for reading", "another layout", "a link at its name")


@pytest.fixture(scope="module")
def services() -> Iterator[Services]:
    day = datetime.now(timezone.utc).strftime("%Y%m%d")
    paths = [f"hours/search/{day}/{day}-0{h}.gz" for h in range(2)]
    feed = Feed([text(item(i, now_ms() - 3_600_000 - i * 1000)) for i in range(1, 4)])
    with dump_host() as host, serve_raw(lambda request: feed.answer(request)) as served:
        host.listed(*((p, len(gzip.compress(p.encode()))) for p in paths), day=day)
        for p in paths:
            host.files[p] = Body(gzip.compress(p.encode()))
        with Client(KEY, base_url=host.url) as dc, Client(KEY, base_url=served.url, max_retries=0) as fc:
            yield Services(feed, fc, host, dc, day, paths)


def _store_params() -> list[Any]:
    return [pytest.param(s, id=s.name) for s in STORES]


def _usable(store: Store) -> None:
    if store.run is None:
        pytest.skip(f"{store.name}: {store.pending}")


# ---------------------------------------------------------------- the registry is complete


def test_every_state_store_is_in_the_registry() -> None:
    """A new state file in the package, not in STORES, fails here: add it there, with a run, and it
    meets every condition below; a SQLite connection opened outside the folder-state module too."""
    registered = {s.opened_in for s in STORES}
    python = ROOT / "python" / "urlscan_rs"
    opened = {str(p.relative_to(ROOT)) for p in python.rglob("*.py") if "sqlite3.connect(" in p.read_text(encoding="utf-8")}
    states = {
        str(p.relative_to(ROOT))
        for p in python.rglob("*.py")
        if re.search(r"^STATE_FILE\s*=", p.read_text(encoding="utf-8"), re.MULTILINE)
    }
    rust = {
        str(p.relative_to(ROOT))
        for top in ("crates", "src")
        for p in (ROOT / top).rglob("*.rs")
        if not p.stem.endswith("tests")  # a test's own databases are not the package's state
        and re.search(r"Connection::open|rusqlite::Connection::open", p.read_text(encoding="utf-8"))
    }
    assert states and rust  # the scan finds what it looks for
    # Every state file is opened through the one folder-state module, whose rules each store meets below.
    assert opened == {"python/urlscan_rs/_folder_state.py"}, sorted(opened)
    assert states | rust <= registered, sorted((states | rust) - registered)


# ---------------------------------------------------------------- every store, every condition


def _plant(condition: str, state: Path, outside: Path) -> Any:
    """Make the condition at the state's name; gives what must be undone after the run (a lock)."""
    if condition == "zero bytes":
        state.write_bytes(b"")
    elif condition == "random bytes":
        state.write_bytes(random.Random(51).randbytes(8192))
    elif condition == "another layout":
        state.unlink()  # another program's database, at the state's name
        with sqlite3.connect(state) as db:
            db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
            db.execute("INSERT INTO notes (text) VALUES ('mine')")
    elif condition == "a link at its name":
        state.unlink()
        state.symlink_to(outside)
    elif condition.startswith("locked"):
        other = sqlite3.connect(state, isolation_level=None)
        other.execute("BEGIN IMMEDIATE" if condition == "locked for writing" else "BEGIN EXCLUSIVE")
        return other
    return None


@pytest.mark.parametrize("condition", CONDITIONS)
@pytest.mark.parametrize("store", _store_params())
def test_a_state_store_meets_a_hostile_file(
    services: Services, tmp_path: Path, store: Store, condition: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _usable(store)
    assert store.run and store.on_disk and store.everything and store.state_file
    monkeypatch.setattr(_folder_state, "LOCK_SECONDS", 0.3)
    folder, outside = tmp_path / "folder", tmp_path / "outside.sqlite3"
    everything = store.everything(services)
    # A first run: the state exists, with every item written.
    assert store.run(services, folder) == everything
    state = folder / store.state_file
    before = sorted(store.on_disk(folder))
    held = _plant(condition, state, outside)
    started = time.monotonic()
    try:
        with pytest.raises(StateError) as raised:
            store.run(services, folder)
    finally:
        if held is not None:
            held.execute("ROLLBACK")
            held.close()
    assert raised.value.path == str(state) and str(state) in str(raised.value)
    assert time.monotonic() - started < 10  # a lock is waited for a bounded time, never for good
    assert {
        "zero bytes": "empty (0 bytes)",
        "random bytes": "rebuild",
        "locked for writing": "locked by another process",
        "locked for reading": "locked by another process",
        "another layout": "another layout",
        "a link at its name": "symbolic link",
    }[condition] in str(raised.value)
    # Nothing was written: no item twice, nothing through the link, the other database as it was.
    assert sorted(store.on_disk(folder)) == before
    assert not outside.exists()
    if condition == "another layout":
        with sqlite3.connect(state) as db:
            assert [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")] == ["notes"]
    if condition.startswith("locked"):
        # The lock gone, the next run is correct: nothing new, nothing twice.
        assert store.run(services, folder) in (set(), everything)
        assert sorted(store.on_disk(folder)) == before


@pytest.mark.parametrize("side", ["-journal", "-wal", "-shm"])
@pytest.mark.parametrize("store", _store_params())
def test_a_link_at_a_side_file_is_not_followed(services: Services, tmp_path: Path, store: Store, side: str) -> None:
    _usable(store)
    assert store.run and store.state_file
    folder, outside = tmp_path / "folder", tmp_path / "outside"
    folder.mkdir()
    (folder / (store.state_file + side)).symlink_to(outside)
    with pytest.raises(StateError, match="symbolic link"):
        store.run(services, folder)
    assert not outside.exists()


@pytest.mark.parametrize("store", _store_params())
def test_another_hosts_claim_is_honoured_until_stale_then_taken(
    services: Services, tmp_path: Path, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    _usable(store)
    assert store.run and store.on_disk and store.everything and store.claim and store.state_file
    folder = tmp_path / "folder"
    everything = store.everything(services)
    assert store.run(services, folder) == everything
    state = folder / store.state_file
    other = "elsewhere.example:4242:another-run"
    # A live claim of a run on another host: honoured (the run refuses, or leaves its items alone).
    store.claim(state, other, time.time())
    try:
        assert store.run(services, folder) == set()
    except StateError as e:
        assert e.path == str(state) and "another sync" in str(e)
    # Its claim is stale: taken, and the run is correct (each item on disk once).
    store.claim(state, other, time.time() - _folder_state.STALE_SECONDS - 60)
    assert store.run(services, folder) <= everything
    on_disk = store.on_disk(folder)
    assert len(on_disk) == len(set(on_disk)) and set(on_disk) == everything


def _held_by(state: Path, owner: str) -> int:
    """How many rows of a state's tables name `owner` as their holder."""
    with sqlite3.connect(state) as db:
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        held = [t for t in tables if "owner" in {c[1] for c in db.execute(f"PRAGMA table_info({t})")}]
        return sum(db.execute(f"SELECT count(*) FROM {t} WHERE owner = ?", (owner,)).fetchone()[0] for t in held)


@pytest.mark.parametrize("store", _store_params())
def test_one_lease_rule_this_hosts_claims_hold_while_their_process_lives(
    services: Services, tmp_path: Path, store: Store
) -> None:
    """Both stores by the folder state's one rule: a claim of a process of this host that is gone
    is taken at once, however fresh; one of a live process is honoured, however old."""
    _usable(store)
    assert store.run and store.on_disk and store.everything and store.claim and store.state_file
    if sys.platform == "win32":
        pytest.skip("signal 0 tells only on POSIX")
    folder = tmp_path / "folder"
    everything = store.everything(services)
    assert store.run(services, folder) == everything
    state = folder / store.state_file
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()  # reaped: its pid names no process
    dead = f"{socket.gethostname()}:{gone.pid}:a-killed-run"
    store.claim(state, dead, time.time())
    assert store.run(services, folder) <= everything
    assert _held_by(state, dead) == 0  # taken: nothing is left to the run that is gone
    on_disk = store.on_disk(folder)
    assert len(on_disk) == len(set(on_disk)) and set(on_disk) == everything
    # A live process of this host (this one): honoured, a day after its claim.
    store.claim(state, f"{socket.gethostname()}:{os.getpid()}:a-live-run", time.time() - 86_400)
    try:
        assert store.run(services, folder) == set()
    except StateError as e:
        assert e.path == str(state) and "another sync" in str(e)


@pytest.mark.parametrize("store", _store_params())
def test_a_folder_that_is_a_file_is_a_state_error(services: Services, tmp_path: Path, store: Store) -> None:
    """``feed sync FILE``: a traceback (FileExistsError) before; the package's error naming it now."""
    _usable(store)
    assert store.run
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("mine")
    with pytest.raises(StateError, match="is not a folder") as raised:
        store.run(services, not_a_folder)
    assert raised.value.path == str(not_a_folder) and not_a_folder.read_text() == "mine"


# ---------------------------------------------------------------- the result cache


CACHE_U = "0a1b2c3d-0000-4000-8000-000000000001"


@pytest.fixture(scope="module")
def result_server() -> Iterator[str]:
    doc = json.dumps({"task": {"uuid": CACHE_U, "url": "https://example.com/"}, "page": {}, "data": {}}).encode()
    with serve_raw(lambda request: (200, {"content-type": "application/json"}, doc)) as served:
        yield served.url


def _cached_result(url: str, folder: Path) -> dict[str, Any]:
    from urlscan_rs import Cache

    cache = Cache(folder)
    with Client(KEY, base_url=url, cache=cache) as c:
        assert str(c.result(CACHE_U).uuid) == CACHE_U
        assert str(c.result(CACHE_U).uuid) == CACHE_U
    return cache.stats()


@pytest.mark.parametrize("condition", [c for c in CONDITIONS if not c.startswith("locked")])
def test_the_result_cache_meets_a_hostile_file(result_server: str, tmp_path: Path, condition: str) -> None:
    # (Another process's lock is waited for, 10 s at most, then the call goes on without the cache:
    # the cache's own tests hold that.)
    from urlscan_rs.cache import FILE_NAME

    folder, outside = tmp_path / "cache", tmp_path / "outside.sqlite3"
    assert _cached_result(result_server, folder)["hits"] == 1
    # Closed, as a file found damaged is (its -wal and -shm checkpointed away).
    gc.collect()
    state = folder / FILE_NAME
    assert not (folder / (FILE_NAME + "-wal")).exists()
    _plant(condition, state, outside)
    if condition == "zero bytes":
        # An empty file is an empty database: the cache is made in it, and works.
        assert _cached_result(result_server, folder)["hits"] == 1
        return
    with pytest.raises(OSError) as raised:
        _cached_result(result_server, folder)
    assert str(state) in str(raised.value) and "remove" not in str(raised.value)
    assert {
        "random bytes": "not a cache or it is damaged",
        "another layout": "another program's SQLite database",
        "a link at its name": "symbolic link",
    }[condition] in str(raised.value)
    assert not outside.exists()
    if condition == "another layout":
        with sqlite3.connect(state) as db:
            assert [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")] == ["notes"]


@pytest.mark.parametrize("side", ["-wal", "-shm"])
def test_a_link_at_a_cache_side_file_is_not_followed(result_server: str, tmp_path: Path, side: str) -> None:
    from urlscan_rs.cache import FILE_NAME

    folder, outside = tmp_path / "cache", tmp_path / "outside"
    folder.mkdir()
    (folder / (FILE_NAME + side)).symlink_to(outside)
    with pytest.raises(OSError, match="symbolic link"):
        _cached_result(result_server, folder)
    assert not outside.exists()
