"""Every writer of the package against what an attacker, or an accident, leaves at its names.

``WRITERS`` is the registry: one entry for each way the package writes a file (the callers of the
containment module, ``urlscan_core::disk``), with a function that, given the context (a client of
an emulator, a scan, a data-dump file) and a target inside a folder, writes there. Each entry meets
a symbolic link at its final name and at the predictable temporary names (what they lead to, outside
the folder, stays untouched), a named pipe, a private device node and a socket at its target (refused
with a package error and left as they were; the test opens nothing in blocking mode), a read-only
folder and a full disk (in a child process: without the capability that lets root ignore permission
bits, and under ``RLIMIT_FSIZE``), and an existing file (replaced whole, or refused where the writer
documents it). The rule is one: nothing, or a regular file, may be at a target; anything else is a
``ValidationError`` naming the path, and is never written into nor replaced.

Two more tests keep the registry whole: every public writer (a method or function that takes an
output path, and every command-line option that names an output) is covered by an entry or exempt
with a reason, and no file is created anywhere in the package's sources but through the containment
module or a state store it owns (an allowlist, each entry with its reason).
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import errno
import functools
import io
import json
import os
import re
import socket
import stat
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

import urlscan_rs
from urlscan_rs import AsyncClient, Client, cli, datadumps
from urlscan_rs.cli import build_parser as _build_parser
from urlscan_rs.errors import UrlscanError, ValidationError
from urlscan_rs.testing import Emulator

ROOT = Path(__file__).resolve().parent.parent
YEAR = 366 * 86400


class Refused(Exception):
    """A writer that reports a failure instead of raising it: a sync's ``failed``, a bulk scan's
    outcome, a command's exit code. Counted as the package's error."""


# What a writer may raise when it cannot or may not write: the package's errors and OSError.
ACCEPTED = (UrlscanError, OSError, Refused)


@dataclass
class Ctx:
    """What the writers need, made once per module (and sent to the child processes as JSON)."""

    url: str
    key: str
    uuid: str  # a finished scan
    dump: str  # yesterday's daily search file (a sync of three days lists it, even past midnight)
    dump_file: str  # that file as served, on disk (what `datadumps.read` writers read)
    sha: str  # a file the service serves (file download)
    live: str  # a finished live scan of us01

    def client(self) -> Client:
        return Client(self.key, base_url=self.url, max_retries=0)


@functools.cache
def _parser() -> Any:
    """The command line's parser, built once (building it is most of a short command's time)."""
    return _build_parser()


def _cli(ctx: Ctx, *argv: str) -> None:
    """Run a command in this process; a failure (its exit code) is raised as `Refused`."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), mock.patch.object(cli, "build_parser", _parser):
        code = cli.main(["--base-url", ctx.url, "--api-key", ctx.key, *argv])
    if code != 0:
        raise Refused(f"exit {code}: {err.getvalue().strip()}")


def _dump_root(ctx: Ctx, target: Path) -> Path:
    """The folder a data-dump file is kept under (`target` is that folder / its dump path)."""
    return Path(os.fspath(target)[: -len(ctx.dump)])


def _sync(ctx: Ctx, folder: Path) -> None:
    with ctx.client() as c:
        report = c.datadumps.sync(folder, window="days", types=("search",), days=3)
    if report.failed:
        raise Refused(report.failed)


def _bulk(ctx: Ctx, folder: Path) -> None:
    with ctx.client() as c:
        outcomes = c.bulk_scan(["https://www.example.org/bulk"], save_to=folder, initial_wait=0, interval=0.1, timeout=30)
    for o in outcomes:
        if o.error is not None:
            raise o.error


def _async_save(ctx: Ctx, folder: Path) -> None:
    async def go() -> None:
        ac = AsyncClient(ctx.key, base_url=ctx.url, max_retries=0)
        try:
            await ac.save(ctx.uuid, folder, what="json")
        finally:
            ac.close()

    asyncio.run(go())


def _feed(ctx: Ctx, folder: Path) -> None:
    with ctx.client() as c:
        c.feeds.sync("phishfeed", folder, lookback=YEAR)


def _convert(ctx: Ctx, folder: Path) -> None:
    # The dump file in a folder as a sync keeps it (a link to it: no byte written here), converted
    # to the partitions of `folder / "lake"`.
    kept = folder / "src" / ctx.dump
    kept.parent.mkdir(parents=True, exist_ok=True)
    kept.symlink_to(ctx.dump_file)
    datadumps.to_parquet(folder / "src", folder / "lake")


def _recorded(ctx: Ctx, folder: Path) -> None:
    with Client(ctx.key, base_url=ctx.url, max_retries=0, record_to=folder) as c:
        c.result(ctx.uuid)


@functools.cache
def _recording_name(url: str, key: str, uuid: str) -> str:
    """Where a recording of the scan's result is written (by a first recording, elsewhere)."""
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        _recorded(Ctx(url, key, uuid, "", "", "", ""), Path(d))
        (entry,) = Path(d).rglob("*.json")
        return os.fspath(entry.relative_to(d))


def _partition(ctx: Ctx) -> str:
    """Where `datadumps.to_parquet` writes the daily file's rows: lake/type=/date=/part-0.parquet."""
    _, kind, name = ctx.dump.split("/")
    day = name.split(".")[0]
    return f"lake/type={kind}/date={day[:4]}-{day[4:6]}-{day[6:]}/part-0.parquet"


@dataclass(frozen=True)
class Writer:
    """One way the package writes a file.

    ``write(ctx, folder, target)`` writes ``target`` (``folder / final(ctx)``) or, for a writer whose
    file names are not known ahead (``final`` None: a new scan's uuid, a feed run's time), writes into
    the folder ``target``. ``existing``: what it does to a regular file already there ("replaced",
    "refused" as it documents, or "kept": a converter that skips what it converted before).
    ``temps``: predictable temporary names of its own besides the staged ones.
    ``covers``: the public writers it stands for (qualified names, ``cli:`` command options).
    """

    name: str
    covers: tuple[str, ...]
    write: Callable[[Ctx, Path, Path], object]
    final: Callable[[Ctx], str] | None = None
    existing: str = "replaced"
    temps: tuple[str, ...] = ()


def _named(name: str) -> Callable[[Ctx], str]:
    return lambda ctx: name


WRITERS: tuple[Writer, ...] = (
    # ---- the library
    Writer(
        "search().to_csv",
        ("Tabular.to_csv",),
        lambda ctx, d, t: ctx.client().search("", limit=20).to_csv(t),
        _named("out.csv"),
    ),
    Writer(
        "search().to_parquet",
        ("Tabular.to_parquet",),
        lambda ctx, d, t: ctx.client().search("", limit=20).to_parquet(t),
        _named("out.parquet"),
        existing="refused",
        temps=("{}.parts",),
    ),
    Writer(
        "search().to_parquet(overwrite=True)",
        ("Tabular.to_parquet",),
        lambda ctx, d, t: ctx.client().search("", limit=20).to_parquet(t, overwrite=True),
        _named("out.parquet"),
        temps=("{}.parts",),
    ),
    Writer(
        "search().to_parquet(partition_by=...)",
        ("Tabular.to_parquet",),
        lambda ctx, d, t: ctx.client().search("", limit=20).to_parquet(t, partition_by="date"),
    ),
    Writer(
        "ResultList.to_csv",
        ("Tabular.to_csv",),
        lambda ctx, d, t: ctx.client().results([ctx.uuid]).to_csv(t),
        _named("results.csv"),
    ),
    Writer(
        "datadumps.read().to_parquet",
        ("Tabular.to_parquet",),
        lambda ctx, d, t: datadumps.read(ctx.dump_file).to_parquet(t),
        _named("dump.parquet"),
        existing="refused",
        temps=("{}.parts",),
    ),
    Writer(
        "Client.save",
        ("_BaseClient.save",),
        lambda ctx, d, t: ctx.client().save(ctx.uuid, d),
        lambda ctx: f"{ctx.uuid}.json",
    ),
    Writer(
        "AsyncClient.save",
        ("_BaseClient.save",),
        lambda ctx, d, t: _async_save(ctx, d),
        lambda ctx: f"{ctx.uuid}.json",
    ),
    Writer("Client.bulk_scan(save_to=)", ("_BaseClient.bulk_scan",), lambda ctx, d, t: _bulk(ctx, t)),
    Writer(
        "Screenshot.save",
        ("Screenshot.save",),
        lambda ctx, d, t: ctx.client().screenshot(ctx.uuid).save(t),
        _named("shot.png"),
    ),
    Writer(
        "datadumps.download(path, folder)",
        ("DataDumps.download",),
        lambda ctx, d, t: ctx.client().datadumps.download(ctx.dump, _dump_root(ctx, t)),
        lambda ctx: ctx.dump,
    ),
    Writer(
        "datadumps.download(path, file)",
        ("DataDumps.download",),
        lambda ctx, d, t: ctx.client().datadumps.download(ctx.dump, t),
        _named("dump.gz"),
    ),
    Writer(
        "datadumps.sync",
        ("DataDumps.sync",),
        lambda ctx, d, t: _sync(ctx, _dump_root(ctx, t)),
        lambda ctx: ctx.dump,
    ),
    Writer(
        "urlscan_rs.datadumps.to_parquet",
        ("urlscan_rs.datadumps.to_parquet",),
        lambda ctx, d, t: _convert(ctx, d),
        _partition,
        # A Parquet file already there counts as converted (documented): it is kept, as is
        # anything else at that name.
        existing="kept",
    ),
    Writer("feeds.sync", ("Feeds.sync",), lambda ctx, d, t: _feed(ctx, t)),
    Writer(
        "Client(record_to=)",
        (),  # a constructor's keyword: no writer method for the search above to find
        lambda ctx, d, t: _recorded(ctx, d),
        lambda ctx: _recording_name(ctx.url, ctx.key, ctx.uuid),
    ),
    # ---- the command line
    Writer(
        "cli: -o FILE (any printing command)",
        ("cli:*:output_file",),
        lambda ctx, d, t: _cli(ctx, "--json", "result", ctx.uuid, "-o", os.fspath(t)),
        _named("result.json"),
    ),
    Writer(
        "cli: search --format jsonl -o FILE",
        ("cli:search:output",),
        lambda ctx, d, t: _cli(ctx, "search", "", "--limit", "20", "--format", "jsonl", "-o", os.fspath(t)),
        _named("hits.jsonl"),
    ),
    Writer(
        "cli: search --format csv -o FILE",
        ("cli:search:output",),
        lambda ctx, d, t: _cli(ctx, "search", "", "--limit", "20", "--format", "csv", "-o", os.fspath(t)),
        _named("hits.csv"),
    ),
    Writer(
        "cli: search --format parquet -o FILE",
        ("cli:search:output",),
        lambda ctx, d, t: _cli(ctx, "search", "", "--limit", "20", "--format", "parquet", "-o", os.fspath(t)),
        _named("hits.parquet"),
        temps=("{}.parts",),
    ),
    Writer(
        "cli: phishfeed --format jsonl -o FILE",
        ("cli:phishfeed:output",),
        lambda ctx, d, t: _cli(ctx, "phishfeed", "--format", "jsonl", "-o", os.fspath(t)),
        _named("phish.jsonl"),
    ),
    Writer(
        "cli: similar --format csv -o FILE",
        ("cli:similar:output",),
        lambda ctx, d, t: _cli(ctx, "similar", ctx.uuid, "--limit", "5", "--format", "csv", "-o", os.fspath(t)),
        _named("similar.csv"),
    ),
    Writer(
        "cli: datadump read --format jsonl -o FILE",
        ("cli:datadump read:output",),
        lambda ctx, d, t: _cli(ctx, "datadump", "read", ctx.dump_file, "--format", "jsonl", "-o", os.fspath(t)),
        _named("read.jsonl"),
    ),
    Writer(
        "cli: screenshot UUID -o FILE",
        ("cli:screenshot:output",),
        lambda ctx, d, t: _cli(ctx, "screenshot", ctx.uuid, "-o", os.fspath(t)),
        _named("shot.png"),
    ),
    Writer(
        "cli: screenshot UUID -o DIR",
        ("cli:screenshot:output",),
        lambda ctx, d, t: _cli(ctx, "screenshot", ctx.uuid, "-o", os.fspath(d)),
        lambda ctx: f"{ctx.uuid}.png",
    ),
    Writer(
        "cli: save UUID -o DIR",
        ("cli:save:output",),
        lambda ctx, d, t: _cli(ctx, "save", ctx.uuid, "--what", "json", "-o", os.fspath(d)),
        lambda ctx: f"{ctx.uuid}.json",
    ),
    Writer(
        "cli: scan URL --wait -o DIR",
        ("cli:scan:output",),
        lambda ctx, d, t: _cli(
            ctx, "scan", "https://www.example.org/cli", "--wait", "--initial-wait", "0", "--interval", "0.1", "-o", os.fspath(t)
        ),
    ),
    Writer(
        "cli: file download SHA -o FILE",
        ("cli:file download:output",),
        lambda ctx, d, t: _cli(ctx, "file", "download", ctx.sha, "-o", os.fspath(t)),
        _named("file.bin"),
    ),
    Writer(
        "cli: file download-zip SHA -o FILE",
        ("cli:file download-zip:output",),
        lambda ctx, d, t: _cli(ctx, "file", "download-zip", ctx.sha, "-o", os.fspath(t)),
        _named("file.zip"),
    ),
    Writer(
        "cli: livescan resource SCANNER screenshot UUID -o FILE",
        ("cli:livescan resource:output",),
        lambda ctx, d, t: _cli(ctx, "livescan", "resource", "us01", "screenshot", ctx.live, "-o", os.fspath(t)),
        _named("live.png"),
    ),
    Writer(
        "cli: datadump download PATH -o DIR",
        ("cli:datadump download:output",),
        lambda ctx, d, t: _cli(ctx, "datadump", "download", ctx.dump, "-o", os.fspath(_dump_root(ctx, t))),
        lambda ctx: ctx.dump,
    ),
    Writer(
        "cli: datadump sync DIR",
        ("cli:datadump sync:dir",),
        lambda ctx, d, t: _cli(
            ctx, "datadump", "sync", os.fspath(_dump_root(ctx, t)), "--window", "days", "--type", "search", "--days", "3"
        ),
        lambda ctx: ctx.dump,
    ),
    Writer(
        "cli: feed sync SOURCE DIR",
        ("cli:feed sync:dir",),
        lambda ctx, d, t: _cli(ctx, "feed", "sync", "phishfeed", os.fspath(t), "--lookback", "366d"),
    ),
)

# Public writers that are not in the registry, each with the reason.
EXEMPT = {
    "cli:lookup:cache": "the result cache is a state store (SQLite), met by the state stores' harness",
    "cli:emulator:log": "the emulator's log is appended to as it runs, as `>> FILE` would (not a result file)",
    "urlscan_rs.datadumps.sync_into": "what client.datadumps.sync runs: met through it (DataDumps.sync)",
    "urlscan_rs.feeds.sync_into": "what client.feeds.sync runs: met through it (Feeds.sync)",
}


# ---------------------------------------------------------------- the context


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    with Emulator(scans=20, seed=3, scan_duration=0) as e:
        yield e


@pytest.fixture(scope="module")
def ctx(emu: Emulator, tmp_path_factory: pytest.TempPathFactory) -> Ctx:
    import hashlib

    with emu.client() as c:
        uuid = str(next(iter(c.search("", limit=1))).id)
        day = (datetime.now(timezone.utc) - timedelta(days=1)).strftime("%Y%m%d")
        (f,) = c.datadumps.list("days", "search", day)
        with urllib.request.urlopen(c.datadumps.link(f.path)) as answer:
            data = answer.read()
        assert len(data) > FULL_DISK_BYTES  # more than a full disk takes
        dump_file = tmp_path_factory.mktemp("served") / f.path
        dump_file.parent.mkdir(parents=True)
        dump_file.write_bytes(data)
        r = c.result(uuid)
        sha = next(h for h in r.lists.hashes if h != hashlib.sha256(b"").hexdigest())
        live = str(c.livescan.scan("us01", "https://www.example.net/"))
    return Ctx(emu.url, emu.api_key, uuid, f.path, os.fspath(dump_file), sha, live)


# ---------------------------------------------------------------- probes

IDS = [w.name for w in WRITERS]
STAGED = (".{}.part", "{}.part", "{}.tmp", ".{}.tmp")


def _target(w: Writer, ctx: Ctx, folder: Path) -> Path:
    return folder / (w.final(ctx) if w.final is not None else "out")


def _run(w: Writer, ctx: Ctx, folder: Path, target: Path, timeout: float = 60.0) -> BaseException | None:
    """Run the writer in a thread (a writer stuck on a pipe fails the test instead of hanging it);
    the exception it raised, if any."""
    got: dict[str, BaseException] = {}

    def go() -> None:
        try:
            w.write(ctx, folder, target)
        except BaseException as e:  # noqa: BLE001 (handed to the test)
            got["e"] = e

    t = threading.Thread(target=go, daemon=True)
    t.start()
    t.join(timeout)
    if t.is_alive():
        with contextlib.suppress(OSError):  # a reader blocked on a pipe there gets its end
            os.close(os.open(target, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail(f"{w.name}: still writing after {timeout} s")
    return got.get("e")


def _refused(w: Writer, e: BaseException | None) -> None:
    assert e is not None, f"{w.name}: wrote where it should have refused"
    assert isinstance(e, ACCEPTED), f"{w.name}: {type(e).__name__}: {e}"


def _leftovers(folder: Path, planted: set[Path] = frozenset()) -> list[str]:  # type: ignore[assignment]
    """Temporary files (or staging folders) under `folder` that were not planted."""
    out = []
    for p in folder.rglob("*"):
        n = p.name
        staged = (n.startswith(".") and n.endswith(".part")) or n.endswith(".tmp") or n.endswith(".parts")
        if staged and p not in planted:
            out.append(os.fspath(p.relative_to(folder)))
    return out


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder outside the writer's, with a file and a folder links may lead to."""
    d = tmp_path / "outside"
    (d / "parts").mkdir(parents=True)
    (d / "victim").write_text("keep")
    (d / "parts" / "part-0.parquet").write_text("keep")
    (d / "parts" / "_urlscan_export.json").write_text("keep")
    return d


def _untouched(outside: Path) -> None:
    found = sorted(os.fspath(p.relative_to(outside)) for p in outside.rglob("*"))
    assert found == ["parts", "parts/_urlscan_export.json", "parts/part-0.parquet", "victim"], found
    for f in ("victim", "parts/part-0.parquet", "parts/_urlscan_export.json"):
        assert (outside / f).read_text() == "keep"


@pytest.mark.parametrize("w", WRITERS, ids=IDS)
def test_a_link_at_the_final_name_is_not_followed(w: Writer, ctx: Ctx, tmp_path: Path, outside: Path) -> None:
    # Decided: refused (like the state files), not replaced: where the link leads is not this
    # folder's to decide, and a link the user made is not silently broken either.
    for name, to in (("live", outside / "victim"), ("dangling", outside / "nothing")):
        folder = tmp_path / name
        target = _target(w, ctx, folder)
        target.parent.mkdir(parents=True)
        target.symlink_to(to)
        e = _run(w, ctx, folder, target)
        if w.existing == "kept" and e is None:
            pass  # skipped as converted before: nothing written through it either
        else:
            _refused(w, e)
        assert target.is_symlink(), f"{w.name}: the link was replaced"
        assert not (outside / "nothing").exists()
        _untouched(outside)
        assert not _leftovers(folder), _leftovers(folder)


@pytest.mark.parametrize("w", [w for w in WRITERS if w.final is not None], ids=[w.name for w in WRITERS if w.final is not None])
def test_links_at_the_temporary_names_are_not_followed(w: Writer, ctx: Ctx, tmp_path: Path, outside: Path) -> None:
    folder = tmp_path / "w"
    target = _target(w, ctx, folder)
    target.parent.mkdir(parents=True)
    planted = set()
    for pattern in STAGED + w.temps:
        p = target.parent / pattern.format(target.name)
        p.symlink_to(outside / ("parts" if p.name.endswith(".parts") else "victim"))
        planted.add(p)
    e = _run(w, ctx, folder, target)
    assert e is None, f"{w.name}: {type(e).__name__}: {e}"
    assert target.is_file() and not target.is_symlink() and target.stat().st_size > 0
    _untouched(outside)
    assert not _leftovers(folder, planted), _leftovers(folder, planted)


@contextlib.contextmanager
def _drained(path: Path) -> Iterator[None]:
    """A reader on the pipe at `path`, opened without blocking and kept draining, so a writer that
    opens the pipe never waits on it; no byte may have gone into it."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    got = [0]
    stop = threading.Event()

    def drain() -> None:
        import select

        while not stop.is_set():
            if select.select([fd], [], [], 0.05)[0]:
                with contextlib.suppress(BlockingIOError):
                    got[0] += len(os.read(fd, 65536))

    t = threading.Thread(target=drain, daemon=True)
    t.start()
    try:
        yield
    finally:
        stop.set()
        t.join()
        os.close(fd)
    assert got[0] == 0, f"{got[0]} bytes were written into the pipe {path}"


def _special(
    w: Writer,
    ctx: Ctx,
    folder: Path,
    make: Callable[[Path], None],
    is_kind: Callable[[int], bool],
    around: Callable[[Path], contextlib.AbstractContextManager[Any]] = lambda p: contextlib.nullcontext(),
) -> None:
    target = _target(w, ctx, folder)
    target.parent.mkdir(parents=True)
    make(target)
    before = os.lstat(target)
    with around(target):
        e = _run(w, ctx, folder, target)
    if not (w.existing == "kept" and e is None):
        _refused(w, e)
    after = os.lstat(target)
    assert is_kind(after.st_mode) and after.st_ino == before.st_ino, f"{w.name}: {target} was replaced"
    assert not _leftovers(folder), _leftovers(folder)
    if w.final is not None and not isinstance(e, (ValidationError, Refused)) and w.existing != "kept":
        # The library's writers say why in the rule's words (the commands say it on stderr).
        assert isinstance(e, ValidationError), f"{w.name}: {type(e).__name__}: {e}"


@pytest.mark.parametrize("w", WRITERS, ids=IDS)
def test_a_named_pipe_at_the_target_is_refused(w: Writer, ctx: Ctx, tmp_path: Path) -> None:
    _special(w, ctx, tmp_path / "w", os.mkfifo, stat.S_ISFIFO, _drained)


@pytest.mark.parametrize("w", WRITERS, ids=IDS)
def test_a_device_node_at_the_target_is_refused(w: Writer, ctx: Ctx, tmp_path: Path) -> None:
    probe = tmp_path / "probe"
    try:  # a private node like /dev/null (1, 3), in this test's own folder
        os.mknod(probe, stat.S_IFCHR | 0o600, os.makedev(1, 3))
    except (PermissionError, AttributeError) as e:
        pytest.skip(f"this process may not make a device node: {e}")
    probe.unlink()
    folder = tmp_path / "w"
    _special(w, ctx, folder, lambda p: os.mknod(p, stat.S_IFCHR | 0o600, os.makedev(1, 3)), stat.S_ISCHR)


@pytest.mark.parametrize("w", WRITERS, ids=IDS)
def test_a_socket_at_the_target_is_refused(w: Writer, ctx: Ctx, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def bind(p: Path) -> None:
        # Bound by a short relative name: a socket's path has room for about 100 bytes.
        monkeypatch.chdir(p.parent)
        s = socket.socket(socket.AF_UNIX)
        s.bind(p.name)
        s.close()
        monkeypatch.undo()

    _special(w, ctx, tmp_path / "w", bind, stat.S_ISSOCK)


@pytest.mark.parametrize("w", WRITERS, ids=IDS)
def test_an_existing_file_is_replaced_whole_or_refused(w: Writer, ctx: Ctx, tmp_path: Path) -> None:
    target = _target(w, ctx, tmp_path)
    target.parent.mkdir(parents=True, exist_ok=True)
    old = b"mine " * 10_000
    target.write_bytes(old)
    e = _run(w, ctx, tmp_path, target)
    if w.final is None:  # a file where the writer wants its folder
        _refused(w, e)
        assert target.read_bytes() == old
    elif w.existing == "replaced":
        assert e is None, f"{w.name}: {type(e).__name__}: {e}"
        data = target.read_bytes()
        assert data != old and b"mine " not in data, f"{w.name}: not replaced whole"
    elif w.existing == "refused":
        assert isinstance(e, ValidationError), f"{w.name}: {type(e).__name__}: {e}"
        assert target.read_bytes() == old
    else:
        assert e is None and target.read_bytes() == old, f"{w.name}: {e}"
    assert not _leftovers(tmp_path), _leftovers(tmp_path)


# ---------------------------------------------------------------- in a child process: a full disk, a read-only folder

# Files larger than this fail to be written in the full-disk child (EFBIG); every writer's file is
# larger (the smallest, a screenshot, is about 1 kB). The states' first pages fail too: a StateError.
FULL_DISK_BYTES = 512


def _child(condition: str, job_file: str) -> None:
    """The child's side: set the condition, run the writers of the job, print what happened."""
    import resource
    import signal

    job = json.loads(Path(job_file).read_text())
    ctx = Ctx(**job["ctx"])
    if condition == "full":
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead
        resource.setrlimit(resource.RLIMIT_FSIZE, (FULL_DISK_BYTES, resource.RLIM_INFINITY))
    else:
        probe = Path(job["probe"]) / "x"
        try:
            probe.write_bytes(b"x")
        except PermissionError:
            pass
        else:
            probe.unlink()
            print(json.dumps({"skip": "permission bits do not stop this process's writes"}))
            return
    out = []
    by_name = {w.name: w for w in WRITERS}
    for name, folder, target in job["runs"]:
        w = by_name[name]
        try:
            w.write(ctx, Path(folder), Path(target))
            e: BaseException | None = None
        except BaseException as x:  # noqa: BLE001 (reported to the parent)
            e = x
        out.append(
            {
                "name": name,
                "error": None if e is None else f"{type(e).__name__}: {e}",
                "ok": isinstance(e, ACCEPTED),
                "errno": getattr(e, "errno", None),
            }
        )
    print(json.dumps({"runs": out}))


def _drop_dac() -> None:
    """In the child, before it runs: root without the capabilities that let it ignore permission
    bits (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER), so a read-only folder is one."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (1, 2, 3):
        if libc.prctl(24, cap, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


@dataclass
class _Child:
    """A child process running every writer under a condition; `runs`: (name, folder, target)."""

    runs: list[tuple[str, str, str]]
    proc: subprocess.Popen[str] | None = None
    skip: str = ""

    def result(self) -> list[dict[str, Any]]:
        if self.proc is None:
            pytest.skip(self.skip)
        out, err = self.proc.communicate(timeout=120)
        assert self.proc.returncode == 0, err[-3000:]
        result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
        if "skip" in result:
            pytest.skip(result["skip"])
        runs: list[dict[str, Any]] = result["runs"]
        return runs


def _start(condition: str, ctx: Ctx, runs: list[tuple[str, str, str]], job: Path, probe: str = "") -> _Child:
    job.write_text(json.dumps({"ctx": asdict(ctx), "runs": runs, "probe": probe}))
    env = {
        **os.environ,
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONPATH": os.pathsep.join([os.fspath(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    code = f"import tests.test_hostile_writers as h; h._child({condition!r}, {os.fspath(job)!r})"
    preexec = _drop_dac if condition == "read-only" and os.geteuid() == 0 else None
    try:
        proc = subprocess.Popen(
            [sys.executable, "-c", code],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env=env,
            preexec_fn=preexec,
        )
    except (OSError, subprocess.SubprocessError) as e:  # the capabilities could not be dropped here
        return _Child(runs, skip=f"cannot make a process that permission bits stop: {e}")
    return _Child(runs, proc)


@pytest.fixture(scope="module")
def children(ctx: Ctx, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, _Child]]:
    """Both children, started at once: a full disk, and a read-only folder for each writer (its
    target's folder, or the folder it is given; the child keeps root's uid, so it may still enter
    pytest's folders, which only their owner may)."""
    full, ro = tmp_path_factory.mktemp("full"), tmp_path_factory.mktemp("ro")
    runs = []
    for i, w in enumerate(WRITERS):
        target = _target(w, ctx, full / str(i))
        if w.final is not None:
            target.parent.mkdir(parents=True)
        runs.append((w.name, os.fspath(full / str(i)), os.fspath(target)))
    ro_runs = []
    for i, w in enumerate(WRITERS):
        target = _target(w, ctx, ro / str(i))
        locked = target if w.final is None else target.parent
        locked.mkdir(parents=True)
        locked.chmod(0o555)
        ro_runs.append((w.name, os.fspath(ro / str(i)), os.fspath(target)))
    (ro / "probe").mkdir()
    (ro / "probe").chmod(0o555)
    started = {
        "full": _start("full", ctx, runs, full / "job.json"),
        "read-only": _start("read-only", ctx, ro_runs, ro.parent / "ro-job.json", os.fspath(ro / "probe")),
    }
    yield started
    for child in started.values():
        if child.proc is not None and child.proc.poll() is None:
            child.proc.kill()
            child.proc.communicate()


@pytest.fixture(scope="module", autouse=True)
def _children_early(children: dict[str, _Child]) -> None:
    """The children start with the module's first test and run while the others do."""


def test_a_full_disk_leaves_no_file_and_no_temporary_file(children: dict[str, _Child]) -> None:
    child = children["full"]
    for w, (_, folder, target), got in zip(WRITERS, child.runs, child.result(), strict=True):
        assert got["error"] is not None and got["ok"], f"{w.name}: {got['error']}"
        # The file's write failed (EFBIG), or, for a writer with a state, the state's first page did.
        assert got["errno"] == errno.EFBIG or "File too large" in got["error"] or "state" in got["error"], got
        t = Path(target)
        if w.final is not None:
            assert not t.exists(), f"{w.name}: a part of {t.name} was left under its name"
        else:  # no file but the states' (hidden) ones
            assert all(p.name.startswith(".") for p in t.rglob("*") if p.is_file()), f"{w.name}: {list(t.rglob('*'))}"
        assert not _leftovers(Path(folder)), f"{w.name}: {_leftovers(Path(folder))}"


def test_a_read_only_folder_is_an_error_and_stays_empty(children: dict[str, _Child]) -> None:
    child = children["read-only"]
    for w, (_, _, target), got in zip(WRITERS, child.runs, child.result(), strict=True):
        locked = Path(target) if w.final is None else Path(target).parent
        assert got["error"] is not None and got["ok"], f"{w.name}: {got['error']}"
        assert "Permission denied" in got["error"] or "state" in got["error"], got
        assert got["errno"] in (None, errno.EACCES), got  # a library writer's OSError is a PermissionError
        if not got["error"].startswith(("Refused", "StateError")):
            assert got["errno"] == errno.EACCES, got
        assert list(locked.iterdir()) == [], f"{w.name}: {list(locked.iterdir())}"


# ---------------------------------------------------------------- the registry is whole

# A method or function of these names that takes one of these parameters writes a file.
WRITER_NAME = re.compile(
    r"^(to_(csv|parquet|json\w*|jsonl|file|excel|feather)|save\w*|download\w*|sync\w*|write\w*|export\w*|dump\w*)$"
)
PATH_PARAMS = {"path", "dest", "dest_dir", "save_to", "target", "file", "filename", "folder", "directory", "out", "output"}


def _public_writers() -> set[str]:
    """Every public method or function of the package that writes a file, by qualified name."""
    import importlib
    import inspect
    import pkgutil

    found: set[str] = set()
    # Not imported: the generator (development), the entry points (they run), and the Spark source
    # (loads pyspark; it writes only its private temporary folder, in ALLOWED below).
    skip = ("urlscan_rs._generate", "urlscan_rs.__main__", "urlscan_rs.cli.__main__", "urlscan_rs.spark")
    for m in pkgutil.walk_packages(urlscan_rs.__path__, "urlscan_rs."):
        if m.name in skip:
            continue
        mod = importlib.import_module(m.name)
        public_module = not any(part.startswith("_") for part in m.name.split("."))
        for name, obj in vars(mod).items():
            if name.startswith("_") or getattr(obj, "__module__", None) != m.name:
                continue
            if inspect.isclass(obj):
                # Inherited ones too (a private base's), named where they are defined.
                for attr in dir(obj):
                    f = inspect.getattr_static(obj, attr)
                    if not attr.startswith("_") and inspect.isfunction(f) and _writes(attr, f):
                        found.add(f.__qualname__)
            elif inspect.isfunction(obj) and public_module and _writes(name, obj):
                found.add(f"{m.name}.{name}")
    return found


def _writes(name: str, f: Any) -> bool:
    import inspect

    params = set(inspect.signature(f).parameters)
    return "save_to" in params or (bool(WRITER_NAME.match(name)) and bool(params & PATH_PARAMS))


def _cli_writers() -> set[str]:
    """Every command-line option (or argument) that names a file or folder the command writes."""
    from urlscan_rs.cli import build_parser, leaf_commands

    out = set()
    for path, leaf in leaf_commands(build_parser()).items():
        for a in leaf._actions:
            names_output = a.dest in ("output", "output_file", "log", "cache") or (
                a.dest == "dir" or (a.metavar in ("FILE", "DIR") and re.search(r"\b(write|save|folder|keep)", a.help or ""))
            )
            if names_output:
                out.add(f"cli:{' '.join(path)}:{a.dest}")
    return out


def _covered(key: str) -> bool:
    covers = {c for w in WRITERS for c in w.covers}
    return key in covers or key in EXEMPT or (key.endswith(":output_file") and "cli:*:output_file" in covers)


def test_every_public_writer_is_in_the_registry() -> None:
    surface = _public_writers() | _cli_writers()
    missing = sorted(k for k in surface if not _covered(k))
    assert not missing, f"writers the harness does not meet (add each to WRITERS, or to EXEMPT with why): {missing}"
    # ... and the registry names nothing that is gone.
    stale = sorted({c for w in WRITERS for c in w.covers if c != "cli:*:output_file"} - surface)
    assert not stale, stale
    # The rule of the search: the writers this harness was built for are found by it.
    assert {"Tabular.to_csv", "Tabular.to_parquet", "Screenshot.save", "DataDumps.sync", "Feeds.sync"} <= surface
    assert {"cli:search:output", "cli:datadump sync:dir", "cli:result:output_file"} <= surface


# ---------------------------------------------------------------- no file is created but through the rule

# (module, call): why it may create a file without the containment module. Anything else fails.
ALLOWED = {
    ("python/urlscan_rs/_generate.py", "write_text"): "the code generator writes the package's own sources (development)",
    ("python/urlscan_rs/_folder_state.py", "sqlite3.connect"): "the sync states (SQLite, no links; the state stores' harness)",
    ("python/urlscan_rs/_folder_state.py", "os.link"): "a new state made whole, then linked to its name (the store's file)",
    ("python/urlscan_rs/_folder_state.py", "os.replace"): "a state set aside, or moved into place (the store's files)",
    ("python/urlscan_rs/mcp_server.py", "open(?)"): "Pillow's Image.open of a screenshot in memory (writes no file)",
    ("python/urlscan_rs/cli/emulator.py", "open(a)"): "--log FILE: the emulator's messages appended as it runs, as >> FILE would",
    ("python/urlscan_rs/cli/emulator.py", "tempfile.TemporaryFile"): "an anonymous file (no name) for the emulator's messages",
    ("python/urlscan_rs/spark.py", "tempfile.mkdtemp"): "a private folder (0700) the dump files Spark reads are downloaded to",
    ("crates/urlscan-core/src/disk.rs", "*"): "the containment module itself: the one rule",
    ("crates/urlscan-core/src/cache.rs", "*"): "the result cache, a state store (SQLite) with its own rules and harness",
}

_PY_OPEN_MODE = re.compile(r"^[rwaxbtU+]{1,4}$")
# Modules whose open() takes the mode second, as the builtin does (a method's is first: Path.open).
_OPEN_MODULES = {"builtins", "io", "codecs", "gzip", "bz2", "lzma", "tarfile", "zipfile", "dbm", "shelve"}


def _python_writes(source: str) -> list[tuple[int, str]]:
    """The calls in a Python source that create or replace a file: (line, call)."""
    tree = ast.parse(source)
    imported_tempfile = {
        a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module == "tempfile" for a in n.names
    }
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        attr = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
        owner = f.value.id if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) else ""
        call = ""
        if attr in ("open", "fdopen") and owner not in ("os", "webbrowser"):
            # open(file, mode) and gzip.open(file, mode); Path(...).open(mode)
            at = 0 if isinstance(f, ast.Attribute) and owner not in _OPEN_MODULES else 1
            given = [k.value for k in node.keywords if k.arg == "mode"] or node.args[at : at + 1]
            mode = given[0].value if given and isinstance(given[0], ast.Constant) else "r" if not given else "?"
            if mode == "?" or (isinstance(mode, str) and _PY_OPEN_MODE.match(mode) and set(mode) & set("wax+")):
                call = f"open({''.join(sorted(set(str(mode)) & set('wax+?')))})"
        elif owner == "os" and attr == "open":
            flags = ast.dump(node)
            if "O_CREAT" in flags or "O_TRUNC" in flags:
                call = "os.open(O_CREAT)"
        elif attr in ("write_text", "write_bytes", "symlink_to", "hardlink_to", "touch"):
            call = attr
        elif owner == "tempfile" or (isinstance(f, ast.Name) and f.id in imported_tempfile):
            call = f"tempfile.{attr}"
        elif owner == "os" and attr in ("replace", "rename", "renames", "link", "symlink", "mkfifo", "mknod"):
            call = f"os.{attr}"
        elif owner == "shutil" and (attr.startswith("copy") or attr == "move"):
            call = f"shutil.{attr}"
        elif owner == "sqlite3" and attr == "connect":
            call = "sqlite3.connect"
        elif attr in ("rename", "replace") and owner not in ("os",) and len(node.args) == 1 and not node.keywords:
            # Path.rename / Path.replace (str.replace takes two arguments, datetime.replace keywords)
            call = f"Path.{attr}"
        if call:
            out.append((node.lineno, call))
    return sorted(out)


_RUST_WRITES = re.compile(
    r"File::create|OpenOptions::new\(\)[^;]*\.(?:create|create_new|append|write|truncate)\(true\)|\bfs::write\(|\bfs::rename\(|"
    r"\bfs::copy\(|\bfs::hard_link\(|\bsymlink\(|tempfile::|Connection::open|\.persist(?:_noclobber)?\(|\bmkfifo\b|\bmknod\b"
)


# What is not code in Rust: comments, strings (raw ones too) and character literals (not lifetimes).
_RUST_NOT_CODE = re.compile(
    r"//[^\n]*|/\*[\s\S]*?\*/|\br(#*)\"[\s\S]*?\"\1|\"(?:\\[\s\S]|[^\"\\])*\"|'(?:\\'|\\[^']{1,10}|[^'\\])'"
)


def _rust_code(text: str) -> str:
    """Rust source without comments, string contents and `#[cfg(test)]` modules (lines kept)."""

    def blank(m: re.Match[str]) -> str:
        lines = "\n" * m.group(0).count("\n")
        return lines if m.group(0).startswith("/") else f"''{lines}"

    code = _RUST_NOT_CODE.sub(blank, text)
    # Test modules, braces matched (strings are gone, so their braces do not count).
    while (m := re.search(r"#\[cfg\(test\)\]\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*\{", code)) is not None:
        depth, j = 1, m.end()
        while depth and j < len(code):
            depth += {"{": 1, "}": -1}.get(code[j], 0)
            j += 1
        code = code[: m.start()] + "\n" * code[m.start() : j].count("\n") + code[j:]
    return code


def _rust_sources() -> Iterator[Path]:
    """Non-test Rust sources of the package (the emulator, a test double, is allowed to write)."""
    for top in [*sorted((ROOT / "crates").iterdir()), ROOT / "src"]:
        src = top / "src" if top.parent.name == "crates" else top
        if top.name == "urlscan-emulator" or not src.is_dir():
            continue
        tests = set()
        for f in sorted(src.rglob("*.rs")):
            declared = r"#\[cfg\(test\)\]\s*((?:#\[[^\]]*\]\s*)*)mod\s+(\w+)\s*;"
            for m in re.finditer(declared, f.read_text(encoding="utf-8")):
                tests |= {f.parent / f"{m[2]}.rs", f.parent / m[2] / "mod.rs"}
                if (path := re.search(r'#\[path\s*=\s*"([^"]+)"\]', m[1])) is not None:
                    tests.add(f.parent / path[1])  # `#[path = "cache_tests.rs"] mod tests;`
        yield from (f for f in sorted(src.rglob("*.rs")) if f not in tests)


@functools.cache
def _creating_calls() -> list[tuple[str, int, str]]:
    found = []
    for f in sorted((ROOT / "python" / "urlscan_rs").rglob("*.py")):
        rel = os.fspath(f.relative_to(ROOT))
        found += [(rel, line, call) for line, call in _python_writes(f.read_text(encoding="utf-8"))]
    for f in _rust_sources():
        rel = os.fspath(f.relative_to(ROOT))
        code = _rust_code(f.read_text(encoding="utf-8"))
        found += [(rel, code.count("\n", 0, m.start()) + 1, m.group(0)[:40]) for m in _RUST_WRITES.finditer(code)]
    return found


def test_no_file_is_created_but_through_the_containment_module() -> None:
    unexplained = [
        f"{path}:{line}: {call}"
        for path, line, call in _creating_calls()
        if (path, call) not in ALLOWED and (path, "*") not in ALLOWED
    ]
    assert not unexplained, (
        "files created outside the containment module (urlscan_core::disk; from Python _native.write_whole, "
        f"open_for_write, contained): route them through it, or add them to ALLOWED with the reason: {unexplained}"
    )
    # Each allowance is still needed (a stale one would let a new writer in unseen).
    used = {(p, c) for p, _, c in _creating_calls()} | {(p, "*") for p, _, _ in _creating_calls()}
    assert set(ALLOWED) <= used, sorted(set(ALLOWED) - used)


def test_the_search_for_created_files_finds_them() -> None:
    # The scanner itself: each kind of call it must see, and what it must not mistake for one.
    text = (
        "import os, shutil, sqlite3, tempfile\nfrom pathlib import Path\n"
        "open('a', 'w')\nopen('a', mode='ab')\nPath('a').open('x')\nPath('a').write_text('')\n"
        "os.open('a', os.O_WRONLY | os.O_CREAT)\ntempfile.mkstemp()\nos.replace('a', 'b')\n"
        "shutil.copyfile('a', 'b')\nsqlite3.connect('a')\nPath('a').rename('b')\n"
        # not writes:
        "open('a')\nopen('a', 'rb')\n'x'.replace('a', 'b')\nos.open(os.devnull, os.O_WRONLY)\n"
    )
    calls = [c for _, c in _python_writes(text)]
    assert calls == [
        "open(w)",
        "open(a)",
        "open(x)",
        "write_text",
        "os.open(O_CREAT)",
        "tempfile.mkstemp",
        "os.replace",
        "shutil.copyfile",
        "sqlite3.connect",
        "Path.rename",
    ], calls
    rust = (
        'fn f() { let s = "File::create"; /* fs::write( */ }\n'
        "fn g() { std::fs::write(p, b)?; }\n"
        "#[cfg(test)]\nmod tests {\n fn h() { let c = '{'; File::create(p); }\n}\n"
        "fn k() { OpenOptions::new().append(true).open(p); }\n"
    )
    hits = [m.group(0) for m in _RUST_WRITES.finditer(_rust_code(rust))]
    assert hits == ["fs::write(", "OpenOptions::new().append(true)"], hits
