"""Data dumps under hostile listings, hostile files and real sizes: every
write stays under the folder, the sync state cannot be taken or lost,
memory and disk are bounded by configuration, and a download lasts as long
as bytes keep arriving."""

from __future__ import annotations

import gzip
import io
import sqlite3
import subprocess
import sys
import tarfile
import zlib
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from urlscan_rs import AsyncClient, Client, _folder_state, datadumps
from urlscan_rs.errors import DecodeError, StateError, TransportError, ValidationError

from .conftest import run
from .dumphost import KEY, Body, DumpHost, dump_host


def _today() -> str:
    return datetime.now(timezone.utc).strftime("%Y%m%d")


def _hits(n: int) -> bytes:
    lines = b"".join(b'{"_id":"u%d","sort":[%d],"task":{},"page":{"domain":"d%d.example"}}\n' % (i, i, i) for i in range(n))
    return gzip.compress(lines)


# ---------------------------------------------------------------- containment


@pytest.fixture
def hostile(tmp_path: Path) -> Any:
    """A home with a key file and a .bashrc, a dump folder with a symlink leading out,
    and a listing that names each of them next to one honest file."""
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    keys, bashrc = home / ".ssh" / "authorized_keys", home / ".bashrc"
    keys.write_text("ssh-ed25519 AAAA mine\n")
    bashrc.write_text("# mine\n")
    dest = tmp_path / "dumps"
    dest.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (dest / "days").symlink_to(outside)
    day = _today()
    good = f"hours/search/{day}/{day}-01.gz"
    honest = _hits(3)
    bad = {
        str(keys): "absolute",
        str(bashrc): "absolute",
        "../home/.bashrc": ". or ..",
        f"hours/search/{day}/../../../../home/.bashrc": ". or ..",
        ".urlscan-datadumps.sqlite3": "hidden name",
        f"hours/search/{day}/.urlscan-datadumps.sqlite3": "hidden name",
        f"hours/search/{day}/{day}-02.gz.part": ".part or .tmp",
        "days/search/x.gz": "outside the folder",
    }
    return home, keys, bashrc, dest, outside, day, good, honest, bad


def _serve_hostile(host: DumpHost, day: str, good: str, honest: bytes, bad: dict[str, str]) -> None:
    host.listed(*((p, 8) for p in bad), (good, len(honest)), day=day)
    for p in bad:
        host.files[p.lstrip("/")] = Body(b"attacker")
    host.files[good] = Body(honest)


def _check_nothing_escaped(hostile: Any, report: Any) -> None:
    home, keys, bashrc, dest, outside, day, good, honest, bad = hostile
    assert keys.read_text() == "ssh-ed25519 AAAA mine\n" and bashrc.read_text() == "# mine\n"
    assert list(outside.iterdir()) == []
    assert report.downloaded == [good] and (dest / good).read_bytes() == honest
    failed = dict(report.failed)
    assert set(failed) == set(bad)
    for path, why in bad.items():
        assert why in failed[path], (path, failed[path])
    # The state is the package's own, and still a working database.
    with sqlite3.connect(dest / datadumps.STATE_FILE) as db:
        assert db.execute("select path, status from files").fetchall() == [(good, "done")]


def test_a_listing_cannot_write_outside_the_folder_or_over_the_state(hostile: Any) -> None:
    home, keys, bashrc, dest, outside, day, good, honest, bad = hostile
    with dump_host() as host, Client(KEY, base_url=host.url) as c:
        _serve_hostile(host, day, good, honest, bad)
        report = c.datadumps.sync(dest, types=("search",), days=1)
        _check_nothing_escaped(hostile, report)
        # No request was made for what may not be written.
        fetched = [p for _, p, _ in host.requests if p.startswith(("/files/", "/api/v1/datadump/link/"))]
        assert all(good in p for p in fetched) and fetched
        again = c.datadumps.sync(dest, types=("search",), days=1)
        assert again.skipped == [good] and set(dict(again.failed)) == set(bad)


def test_a_listing_cannot_write_outside_the_folder_async(hostile: Any) -> None:
    home, keys, bashrc, dest, outside, day, good, honest, bad = hostile
    with dump_host() as host:
        _serve_hostile(host, day, good, honest, bad)
        ac = AsyncClient(KEY, base_url=host.url)
        try:
            report = run(ac.datadumps.sync(dest, types=("search",), days=1))
        finally:
            ac.close()
        _check_nothing_escaped(hostile, report)


def test_a_listing_cannot_write_outside_the_folder_from_the_command_line(hostile: Any) -> None:
    home, keys, bashrc, dest, outside, day, good, honest, bad = hostile
    with dump_host() as host:
        _serve_hostile(host, day, good, honest, bad)
        argv = [sys.executable, "-m", "urlscan_rs", "--base-url", host.url, "--api-key", KEY]
        sync = [*argv, "datadump", "sync", str(dest), "--type", "search", "--days", "1"]
        p = subprocess.run(sync, capture_output=True, text=True)
    assert p.returncode == 1, p.stderr  # failures are reported, and the exit code says so
    assert p.stdout.splitlines()[0] == good
    assert all(path in p.stderr for path in bad)
    assert keys.read_text() == "ssh-ed25519 AAAA mine\n" and bashrc.read_text() == "# mine\n"
    assert list(outside.iterdir()) == []


def test_download_into_a_folder_keeps_the_dump_path_and_refuses_an_escape(tmp_path: Path) -> None:
    day = _today()
    search, api = f"hours/search/{day}/{day}-01.gz", f"hours/api/{day}/{day}-01.gz"
    result = gzip.compress(b'{"task":{"uuid":"u1"},"page":{},"data":{"requests":[]},"lists":{},"verdicts":{}}\n')
    with dump_host() as host, Client(KEY, base_url=host.url) as c:
        host.listed((search, len(_hits(2))), day=day)
        host.listed((api, len(result)), kind="api", day=day)
        host.files[search], host.files[api] = Body(_hits(2)), Body(result)
        # Search and api files of one hour share a name: each keeps its own path.
        p1, p2 = c.datadumps.download(search, tmp_path), c.datadumps.download(api, tmp_path)
        assert (p1, p2) == (tmp_path / search, tmp_path / api)
        # ... and read with no type: from the path, or from the content once renamed.
        assert [h.id for h in datadumps.read(p1)] == ["u0", "u1"]
        assert [r.uuid for r in datadumps.read(p2)] == ["u1"]
        plain = p2.rename(tmp_path / "renamed.gz")
        assert datadumps.read(plain).type == "api"
        with pytest.raises(ValidationError, match="may not be written"):
            c.datadumps.download("hours/search/../../../x.gz", tmp_path)


def test_a_temporary_file_never_follows_a_planted_link(tmp_path: Path) -> None:
    day = _today()
    path = f"hours/search/{day}/{day}-01.gz"
    victim = tmp_path / "victim"
    victim.write_text("keep")
    folder = tmp_path / "d" / "hours" / "search" / day
    folder.mkdir(parents=True)
    for name in (f".{day}-01.gz.part", f"{day}-01.gz.tmp"):  # the names the old scheme used
        (folder / name).symlink_to(victim)
    with dump_host() as host, Client(KEY, base_url=host.url) as c:
        host.listed((path, len(_hits(2))), day=day)
        host.files[path] = Body(_hits(2))
        assert c.datadumps.download(path, tmp_path / "d").read_bytes() == _hits(2)
    assert victim.read_text() == "keep"


# ---------------------------------------------------------------- the sync state


def test_a_corrupt_state_is_named_and_can_be_rebuilt_from_the_files(tmp_path: Path) -> None:
    day = _today()
    paths = [f"hours/search/{day}/{day}-0{h}.gz" for h in range(3)]
    with dump_host() as host, Client(KEY, base_url=host.url) as c:
        host.listed(*((p, len(_hits(h + 1))) for h, p in enumerate(paths)), day=day)
        for h, p in enumerate(paths):
            host.files[p] = Body(_hits(h + 1))
        assert c.datadumps.sync(tmp_path, types=("search",), days=1).downloaded == paths
        state = tmp_path / datadumps.STATE_FILE
        state.write_bytes(b"this is not a database" * 100)
        (tmp_path / paths[2]).write_bytes(b"half")  # one file on disk is not whole
        with pytest.raises(StateError, match="rebuild_state=True") as e:
            c.datadumps.sync(tmp_path, types=("search",), days=1)
        assert e.value.path == str(state) and str(state) in str(e.value)
        before = len(host.requests)
        report = c.datadumps.sync(tmp_path, types=("search",), days=1, rebuild_state=True)
        # The files of the listed size count as fetched; the one that is not is fetched again.
        assert report.skipped == paths[:2] and report.downloaded == [paths[2]]
        assert [p for _, p, _ in host.requests[before:] if p.startswith("/files/")] == [f"/files/{paths[2]}"]
        assert len(list(tmp_path.glob(f"{datadumps.STATE_FILE}.*.broken"))) == 1
        assert c.datadumps.sync(tmp_path, types=("search",), days=1).skipped == paths


def test_a_locked_state_is_named_with_what_to_do(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_folder_state, "LOCK_SECONDS", 0.2)
    day = _today()
    path = f"hours/search/{day}/{day}-01.gz"
    with dump_host() as host, Client(KEY, base_url=host.url) as c:
        host.listed((path, len(_hits(1))), day=day)
        host.files[path] = Body(_hits(1))
        c.datadumps.sync(tmp_path, types=("search",), days=1)
        other = sqlite3.connect(tmp_path / datadumps.STATE_FILE, isolation_level=None)
        other.execute("BEGIN EXCLUSIVE")
        try:
            with pytest.raises(StateError, match="locked by another process") as e:
                c.datadumps.sync(tmp_path, types=("search",), days=1)
            assert str(tmp_path / datadumps.STATE_FILE) in str(e.value)
        finally:
            other.execute("ROLLBACK")
            other.close()


def test_a_read_only_state_is_named_with_what_to_do(tmp_path: Path) -> None:
    # The error SQLite raises for a state that cannot be written, as the package words it
    # (a permission test cannot be run as root, who may write anything).
    db = tmp_path / "s.sqlite3"
    sqlite3.connect(db).execute("create table t (x)").connection.close()
    ro = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    with pytest.raises(sqlite3.OperationalError) as raised:
        ro.execute("insert into t values (1)")
    err = _folder_state.state_error(db, raised.value, "data-dump sync", "sync(..., rebuild_state=True)")
    assert isinstance(err, StateError) and str(db) in str(err) and "make it and its folder writable" in str(err)


def test_days_has_a_bound_and_nothing_is_sent_past_it(tmp_path: Path) -> None:
    with dump_host() as host, Client(KEY, base_url=host.url) as c:
        with pytest.raises(ValidationError, match=f"days must be a whole number from 1 to {datadumps.MAX_DAYS}"):
            c.datadumps.sync(tmp_path, days=10**6)
        assert host.requests == []
        # At the bound, one listing per day and type: no more.
        c.datadumps.sync(tmp_path, types=("search",), days=datadumps.MAX_DAYS)
        assert len(host.requests) == datadumps.MAX_DAYS


def test_listings_are_paced_by_the_limits_the_service_announces(tmp_path: Path) -> None:
    # A service that limits the listing (X-Rate-Limit-* on its answer): the next
    # listing waits for the window, or fails fast without being sent.
    def spent(n: int) -> dict[str, str]:
        return {
            "x-rate-limit-action": "datadump",
            "x-rate-limit-limit": "1",
            "x-rate-limit-remaining": "0",
            "x-rate-limit-reset-after": "3600",
            "x-rate-limit-window": "hour",
        }

    with dump_host() as host, Client(KEY, base_url=host.url, fail_fast=True) as c:
        host.listing_headers = spent
        from urlscan_rs.errors import RateLimitError

        with pytest.raises(RateLimitError, match="datadump"):
            c.datadumps.sync(tmp_path, types=("search",), days=5)
        assert len(host.requests) == 1


# ---------------------------------------------------------------- bounded reads


_RSS = """
import resource, sys
from urlscan_rs import datadumps
from urlscan_rs.errors import DecodeError
try:
    for _ in datadumps.read(sys.argv[1], type=sys.argv[2]):
        pass
    print("read", end=" ")
except DecodeError as e:
    print("refused", str(e)[:300].replace(" ", "_"), end=" ")
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
"""


def _peak(path: Path, kind: str) -> tuple[str, int]:
    out = subprocess.run([sys.executable, "-c", _RSS, str(path), kind], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    *what, mb = out.stdout.split()
    return " ".join(what), int(mb)


def _baseline(tmp_path: Path) -> int:
    small = tmp_path / "small.gz"
    small.write_bytes(_hits(1))
    return _peak(small, "search")[1]


def test_one_huge_line_is_refused_with_memory_near_the_limit(tmp_path: Path) -> None:
    # A 1 GiB line in a gzip of about a megabyte, after two honest lines.
    big = tmp_path / "huge.gz"
    with gzip.open(big, "wb", compresslevel=1) as f:
        f.write(b'{"_id":"a","sort":[1]}\n{"_id":"b","sort":[2]}\n{"_id":"c","page":{"title":"')
        block = b"x" * (1 << 20)
        for _ in range(1024):
            f.write(block)
        f.write(b'"}}\n')
    assert big.stat().st_size < 8 << 20
    base = _baseline(tmp_path)
    what, peak = _peak(big, "search")
    assert what.startswith("refused") and "line_3:_longer_than_max_line_bytes" in what, what
    assert peak - base < 3 * (datadumps.MAX_LINE_BYTES >> 20), (peak, base)
    # A smaller limit is the caller's: the error names file and line.
    with pytest.raises(DecodeError, match=r"huge.gz line 3: longer than max_line_bytes \(1000 bytes\)"):
        list(datadumps.read(big, type="search", max_line_bytes=1000))
    with pytest.raises(ValidationError, match="max_line_bytes must be at least 1"):
        datadumps.read(big, type="search", max_line_bytes=0)


def _tar_gz_with_member(path: Path, name: str, size: int) -> None:
    """A gzipped tar whose one member is `size` zero bytes, written without holding it."""
    info = tarfile.TarInfo(name)
    info.size = size
    z = zlib.compressobj(1, zlib.DEFLATED, 31)
    with open(path, "wb") as out:
        out.write(z.compress(info.tobuf(tarfile.USTAR_FORMAT)))
        block = bytes(1 << 20)
        left = size
        while left:
            n = min(left, len(block))
            out.write(z.compress(block[:n]))
            left -= n
        out.write(z.compress(bytes(-size % 512 + 1024)))
        out.write(z.flush())


def test_one_huge_archive_member_is_refused_before_it_is_read(tmp_path: Path) -> None:
    shots = tmp_path / "shots.tar.gz"
    _tar_gz_with_member(shots, "0b1c2d3e-4f50-4a6b-8c7d-9e0f1a2b3c4d.png", 700 << 20)
    assert shots.stat().st_size < 4 << 20
    base = _baseline(tmp_path)
    what, peak = _peak(shots, "screenshots")
    assert "more_than_max_member_bytes" in what, what
    assert peak - base < 3 * (datadumps.MAX_MEMBER_BYTES >> 20), (peak, base)
    ok = tmp_path / "ok.tar.gz"
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as t:
        info = tarfile.TarInfo("u1.png")
        info.size = 3
        t.addfile(info, io.BytesIO(b"png"))
    ok.write_bytes(gzip.compress(buf.getvalue()))
    assert list(datadumps.read(ok, type="screenshots")) == [("u1", b"png")]
    with pytest.raises(DecodeError, match="member u1.png is 3 bytes, more than max_member_bytes"):
        list(datadumps.read(ok, type="screenshots", max_member_bytes=2))


# ---------------------------------------------------------------- bounded, long downloads


def test_a_host_sending_past_the_listed_size_is_cut_there(tmp_path: Path) -> None:
    day = _today()
    path = f"hours/api/{day}/{day}-01.gz"
    seen: list[int] = []
    with dump_host() as host, Client(KEY, base_url=host.url) as c:
        host.listed((path, 1000), kind="api", day=day)
        host.files[path] = Body(bytes(40 << 20), length=False)
        with pytest.raises(DecodeError, match="past the 1000 bytes the listing announced; stopped writing there"):
            c.datadumps.download(path, tmp_path, progress=lambda done, total: seen.append(done))
    assert max(seen, default=0) <= 1000
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []
    # Without a size in the listing, the client's own bound holds.
    with dump_host() as host, Client(KEY, base_url=host.url, max_download_bytes=1 << 20) as c:
        host.listed((path, None), kind="api", day=day)
        host.files[path] = Body(bytes(4 << 20), length=False)
        with pytest.raises(DecodeError, match=r"past max_download_bytes \(1048576\)"):
            c.datadumps.download(path, tmp_path)
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []


def _download_once(tmp_path: Path, data: bytes, timeout: float, **body: Any) -> list[str | None]:
    """Download ``data`` served as ``Body(data, **body)`` with the client's ``timeout``: the
    Range headers of its requests for the file (None for a request from the start)."""
    day = _today()
    path = f"hours/search/{day}/{day}-01.gz"
    with dump_host() as host, Client(KEY, base_url=host.url, timeout=timeout, max_retries=1) as c:
        host.listed((path, len(data)), day=day)
        host.files[path] = Body(data, **body)
        assert c.datadumps.download(path, tmp_path).read_bytes() == data
        return [r for _, p, r in host.requests if p.startswith("/files/")]


def test_a_slow_steady_download_is_not_cut_by_the_request_timeout(tmp_path: Path) -> None:
    # 60 KB at about 20 KB/s: three times the timeout in all, never a second without a byte.
    ranges = _download_once(tmp_path, bytes(range(256)) * 240, 1.0, chunk=2048, pause=0.1)
    assert ranges == [None]  # one request, never resumed


def test_a_stalled_download_resumes_with_a_range(tmp_path: Path) -> None:
    ranges = _download_once(tmp_path, bytes(range(256)) * 400, 0.5, chunk=4096, stall_after=40960, stall=3.0)
    assert ranges == [None, "bytes=40960-"]


def test_a_dead_download_host_fails_after_the_retries_with_nothing_left(tmp_path: Path) -> None:
    day = _today()
    path = f"hours/search/{day}/{day}-01.gz"
    with dump_host() as host, Client(KEY, base_url=host.url, timeout=0.5, max_retries=1) as c:
        host.listed((path, 100_000), day=day)
        host.files[path] = Body(bytes(100_000), stall_after=0, stall=5.0, stalls=100)
        with pytest.raises(TransportError, match="stopped at 0 of 100000 bytes"):
            c.datadumps.download(path, tmp_path)
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []


def test_a_host_that_starts_over_on_every_attempt_is_not_retried_for_ever(tmp_path: Path) -> None:
    # Each answer is the whole file from its first byte (Range ignored), cut after 1.5 MiB: each
    # attempt "brings" 1.5 MiB, none gets further than the first.
    day = _today()
    path = f"hours/search/{day}/{day}-01.gz"
    data = bytes(3 << 20)
    with dump_host() as host, Client(KEY, base_url=host.url, timeout=5.0, max_retries=2) as c:
        host.listed((path, len(data)), day=day)
        host.files[path] = Body(data, stall_after=3 << 19, stall=0.0, stalls=100, ranges=False)
        with pytest.raises(TransportError, match=r"stopped at \d+ of 3145728 bytes after 3 attempts"):
            c.datadumps.download(path, tmp_path)
        assert len([r for _, p, r in host.requests if p.startswith("/files/")]) == 3
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []
