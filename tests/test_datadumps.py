"""Data-dump files read as served: search hits, results, screenshots and DOMs,
their tables, and a synced folder converted to Parquet partitions."""

from __future__ import annotations

import gzip
import json
import urllib.request
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from urlscan_rs import Client, ScanResult, SearchHit, datadumps, schema
from urlscan_rs.errors import DecodeError, TransportError, ValidationError
from urlscan_rs.testing import Emulator

from .conftest import run
from .dumphost import KEY
from .loopback import JSON_HEADERS, serve_raw

pq = pytest.importorskip("pyarrow.parquet")
duckdb = pytest.importorskip("duckdb")


@pytest.fixture(scope="module")
def dumps(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """Yesterday's hourly search, api, screenshots and dom files of an emulator, as served."""
    root = tmp_path_factory.mktemp("dumps")
    day = (datetime.now(timezone.utc) - timedelta(days=1)).strftime("%Y%m%d")
    with Emulator(scans=400, seed=11) as emu, emu.client() as c:
        for ftype in ("search", "api", "screenshots", "dom"):
            for f in c.datadumps.list("hours", ftype, day):
                with urllib.request.urlopen(c.datadumps.link(f.path)) as answer:
                    data = answer.read()
                assert len(data) == f.size
                target = root / f.path
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
    yield root, day


def _lines(p: Path) -> list[dict[str, object]]:
    return [json.loads(x) for x in gzip.decompress(p.read_bytes()).splitlines() if x.strip()]


def test_search_and_api_files_read_as_models_and_tables(dumps: tuple[Path, str]) -> None:
    root, day = dumps
    search = sorted((root / "hours" / "search" / day).iterdir())
    assert len(search) == 24
    busy = max(search, key=lambda p: len(_lines(p)))
    wire = _lines(busy)
    assert wire, "the emulator put no scan in yesterday's busiest hour"
    hits = list(datadumps.read(busy))
    assert all(isinstance(h, SearchHit) for h in hits)
    assert [h.id for h in hits] == [w["_id"] for w in wire]
    table = datadumps.read(busy).to_arrow()
    assert table.column_names == list(schema.SCANS.names)
    assert table.column("uuid").to_pylist() == [h.id for h in hits]
    assert table.column("domain").to_pylist() == [h.page.domain for h in hits]

    api = root / "hours" / "api" / day / busy.name
    results = list(datadumps.read(api))
    assert all(isinstance(r, ScanResult) for r in results) and [r.uuid for r in results] == [h.id for h in hits]
    rows = datadumps.read(api).to_arrow(columns=["uuid", "malicious", "requests"]).to_pylist()
    assert [(r["uuid"], r["malicious"], r["requests"]) for r in rows] == [
        (r.uuid, r.malicious, len(r.data["requests"])) for r in results
    ]


def test_screenshot_and_dom_archives_read_as_uuid_and_bytes(dumps: tuple[Path, str], tmp_path: Path) -> None:
    root, day = dumps
    search = sorted((root / "hours" / "search" / day).iterdir())
    busy = max(search, key=lambda p: len(_lines(p)))
    ids = [w["_id"] for w in _lines(busy)]
    shots = list(datadumps.read(root / "hours" / "screenshots" / day / busy.name))
    assert [u for u, _ in shots] == ids and all(png.startswith(b"\x89PNG") for _, png in shots)
    doms = dict(datadumps.read(root / "hours" / "dom" / day / busy.name))
    assert list(doms) == ids and all(b"<html" in page.lower() for page in doms.values())
    # The same archive split over two gzip members, then followed by a second archive: read as one.
    raw = gzip.decompress((root / "hours" / "screenshots" / day / busy.name).read_bytes())
    end = len(raw) - 1024  # the two zero blocks that end the archive
    split = gzip.compress(raw[:700]) + gzip.compress(raw[700:end]) + gzip.compress(raw)
    odd = tmp_path / "screenshots" / "two.tar.gz"
    odd.parent.mkdir()
    odd.write_bytes(split)
    assert [u for u, _ in datadumps.read(odd)] == ids + ids
    with pytest.raises(TypeError, match="not rows"):
        datadumps.read(odd).to_arrow()


def test_a_bad_line_is_a_decode_error_naming_it(tmp_path: Path) -> None:
    p = tmp_path / "search" / "x.gz"
    p.parent.mkdir()
    p.write_bytes(gzip.compress(b'{"_id":"a","page":{"domain":"d"}}\n{"_id": oops}\n'))
    with pytest.raises(DecodeError, match="line 2"):
        list(datadumps.read(p))
    with pytest.raises(DecodeError, match="line 2"):
        datadumps.read(p).to_arrow()
    p.write_bytes(gzip.compress(b'{"_id":"a","page":{"domain":7}}\n'))
    with pytest.raises(DecodeError, match=r"line 1\.page\.domain: expected a string"):
        datadumps.read(p).to_arrow()
    # Not in a dump folder, and a first line that is neither a hit nor a result: the type must be given.
    (tmp_path / "other.gz").write_bytes(gzip.compress(b'{"other": 1}\n'))
    with pytest.raises(ValidationError, match="from its path or its first line: give type="):
        datadumps.read(tmp_path / "other.gz")
    with pytest.raises(ValidationError, match="cannot read"):
        datadumps.read(tmp_path / "nothing.gz")
    with pytest.raises(ValidationError, match="cannot read"):
        datadumps.read(tmp_path / "search" / "missing.gz")
    (tmp_path / "search" / "plain.gz").write_bytes(b"not gzip")
    with pytest.raises(DecodeError, match="plain.gz"):
        list(datadumps.read(tmp_path / "search" / "plain.gz"))


def test_a_folder_becomes_parquet_partitions(dumps: tuple[Path, str], tmp_path: Path) -> None:
    root, day = dumps
    lake = tmp_path / "lake"
    report = datadumps.to_parquet(root, lake, workers=2)
    assert report.files == 48 and report.skipped == 0
    expected = sum(len(_lines(p)) for kind in ("search", "api") for p in (root / "hours" / kind / day).iterdir())
    assert report.rows == expected
    d = f"{day[:4]}-{day[4:6]}-{day[6:]}"
    assert (lake / "type=search" / f"date={d}" / "hour=13" / "part-0.parquet").exists()
    got = duckdb.sql(
        f"select type, count(*) from read_parquet('{lake}/**/*.parquet', hive_partitioning=true, union_by_name=true) "
        "group by type order by type"
    ).fetchall()
    assert got == [("api", expected // 2), ("search", expected // 2)]
    # A rerun converts nothing new.
    again = datadumps.to_parquet(root, lake)
    assert (again.files, again.skipped, again.rows) == (0, 48, 0)


# ---------------------------------------------------------------- download


def _yesterday() -> str:
    return (datetime.now(timezone.utc) - timedelta(days=1)).strftime("%Y%m%d")


def test_a_day_is_also_today_or_yesterday(tmp_path: Path) -> None:
    from .test_cli import run_cli

    with Emulator(scans=50, seed=11) as emu, emu.client() as c:
        # Around midnight UTC the day may turn between the two listings: then once more.
        for _ in range(2):
            day = _yesterday()
            by_word, by_day = c.datadumps.list("hours", "api", "yesterday"), c.datadumps.list("hours", "api", day)
            if day == _yesterday():
                break
        assert by_word == by_day and by_day and all(f"/{day}/" in f.path for f in by_day)
        out = run_cli("--json", "datadump", "list", "hours", "api", "yesterday", emu=emu)
        assert out.returncode == 0, out.stderr
        assert [json.loads(line)["path"] for line in out.stdout.splitlines()] == [f.path for f in by_day]
        assert c.datadumps.list("hours", "api", "Today") is not None


def test_download_checks_the_size_and_resumes_a_cut_connection(tmp_path: Path) -> None:
    day = _yesterday()
    with Emulator(scans=400, seed=11) as emu, emu.client() as c:
        files = c.datadumps.list("hours", "api", day)
        f = max(files, key=lambda x: x.size or 0)
        seen: list[tuple[int, int]] = []
        got = c.datadumps.download(f.path, tmp_path, progress=lambda done, total: seen.append((done, total)))
        assert got == tmp_path / f.path and got.stat().st_size == f.size  # its dump path, under the folder
        assert seen[-1] == (f.size, f.size)
        whole = got.read_bytes()
        # The connection is cut halfway: the rest comes with a Range request.
        emu.inject("truncate", path="/datadump-files/", count=1)
        again = c.datadumps.download(f.path, tmp_path / "again.gz")
        assert again.read_bytes() == whole and emu.faults_remaining() == 0
        # Cut on every attempt: after the retries it raises, and leaves no file behind.
        emu.inject("truncate", path="/datadump-files/", count=None)
        with pytest.raises(TransportError, match=r"stopped at \d+ of \d+ bytes after 4 attempts"):
            c.datadumps.download(f.path, tmp_path / "never.gz")
        emu.clear_faults()
        assert not (tmp_path / "never.gz").exists() and not [p for p in tmp_path.rglob("*.part")]
        assert list(datadumps.read(got, type="api"))


def test_download_async(tmp_path: Path) -> None:
    day = _yesterday()
    with Emulator(scans=100, seed=3) as emu:
        ac = emu.async_client()
        try:

            async def main() -> Path:
                files = await ac.datadumps.list("hours", "search", day)
                return await ac.datadumps.download(files[-1].path, tmp_path / "x.gz")

            p = run(main())
        finally:
            ac.close()
    assert p.exists() and p.stat().st_size > 0


def test_download_sends_no_key_to_the_file_host_and_refuses_a_wrong_size(tmp_path: Path) -> None:
    content = gzip.compress(b'{"_id":"a"}\n')
    file_headers: list[dict[str, str]] = []
    size = {"listed": len(content)}

    def file_host(request: Any) -> tuple[int, dict[str, str], bytes]:
        file_headers.append({k.lower(): v for k, v in request.headers.items()})
        return 200, {"content-type": "application/gzip"}, content

    with serve_raw(file_host) as files:

        def service(request: Any) -> tuple[int, dict[str, str], bytes]:
            if "/datadump/link/" in request.path:
                return 302, {"location": f"{files.url}/file?token=t"}, b""
            listing = {"files": [{"path": "hours/search/20261120/20261120-13.gz", "size": size["listed"]}]}
            return 200, JSON_HEADERS, json.dumps(listing).encode()

        with serve_raw(service) as api, Client(KEY, base_url=api.url) as c:
            got = c.datadumps.download("hours/search/20261120/20261120-13.gz", tmp_path)
            assert got.read_bytes() == content
            assert file_headers and all("api-key" not in h for h in file_headers)
            assert all(KEY not in str(h) for h in file_headers)
            size["listed"] = len(content) + 5
            with pytest.raises(DecodeError, match="were announced"):
                c.datadumps.download("hours/search/20261120/20261120-13.gz", tmp_path / "bad.gz")
            assert not (tmp_path / "bad.gz").exists() and not [p for p in tmp_path.rglob("*.part")]


def test_cli_download_and_read(dumps: tuple[Path, str], tmp_path: Path) -> None:
    from .test_cli import run_cli

    root, day = dumps
    with Emulator(scans=400, seed=11) as emu, emu.client() as c:
        f = max(c.datadumps.list("hours", "search", day), key=lambda x: x.size or 0)
        p = run_cli("datadump", "download", f.path, "-o", str(tmp_path), emu=emu)
        assert p.returncode == 0, p.stderr
        got = Path(p.stdout.strip())
        assert got == tmp_path / f.path and got.stat().st_size == f.size
        # -o is a folder, created when missing (the file keeps its dump path there).
        p = run_cli("datadump", "download", f.path, "-o", str(tmp_path / "dl"), emu=emu)
        assert p.returncode == 0 and Path(p.stdout.strip()) == tmp_path / "dl" / f.path, p.stderr
    p = run_cli("datadump", "read", str(got), "--type", "search")
    assert p.returncode == 0, p.stderr
    assert [json.loads(x)["_id"] for x in p.stdout.splitlines()] == [h.id for h in datadumps.read(got, type="search")]
    p = run_cli("datadump", "read", str(got), "--type", "search", "--format", "parquet", "-o", str(tmp_path / "h.parquet"))
    assert p.returncode == 0, p.stderr
    assert pq.read_table(tmp_path / "h.parquet").num_rows == len(list(datadumps.read(got, type="search")))
    shots = root / "hours" / "screenshots" / day / got.name
    p = run_cli("datadump", "read", str(shots))
    assert p.returncode == 0 and all(json.loads(x)["bytes"] > 0 for x in p.stdout.splitlines())
    p = run_cli("datadump", "read", str(got), "--type", "search", "--format", "parquet")
    assert p.returncode == 2 and "needs -o FILE" in p.stderr


# ---------------------------------------------------------------- sync


def test_sync_keeps_a_folder_current_and_retries_what_failed(tmp_path: Path) -> None:
    day = _yesterday()
    with Emulator(scans=200, seed=5) as emu, emu.client() as c:
        broken = c.datadumps.list("days", "api", day)[0].path
        emu.inject("status", path=f"/datadump-files/{broken}", status=500, count=None)
        first = c.datadumps.sync(tmp_path, window="days", days=3)
        assert [p for p, _ in first.failed] == [broken] and "HTTP 500" in first.failed[0][1]
        assert first.downloaded and not (tmp_path / broken).exists()
        for p in first.downloaded:
            window, kind, name = p.split("/")
            listed = {f.path: f.size for f in c.datadumps.list(window, kind, name.removesuffix(".gz"))}
            assert (tmp_path / p).stat().st_size == listed[p]
        emu.clear_faults()
        second = c.datadumps.sync(tmp_path, window="days", days=3)
        # Only the failed file is fetched again (a window that ended meanwhile would be new, never a repeat).
        assert broken in second.downloaded and not set(second.downloaded) & set(first.downloaded)
        third = c.datadumps.sync(tmp_path, window="days", days=3)
        assert not set(third.downloaded) & (set(first.downloaded) | set(second.downloaded)) and not third.failed
        assert set(first.downloaded) | set(second.downloaded) <= set(third.skipped)
        # A file removed from the folder is fetched again.
        (tmp_path / broken).unlink()
        assert broken in c.datadumps.sync(tmp_path, window="days", days=3).downloaded
        with pytest.raises(ValidationError, match="window"):
            c.datadumps.sync(tmp_path, window="weeks")
        with pytest.raises(ValidationError, match="types"):
            c.datadumps.sync(tmp_path, types=("pdf",))
        with pytest.raises(ValidationError, match="days"):
            c.datadumps.sync(tmp_path, days=0)


def test_two_syncs_at_once_share_the_work(tmp_path: Path) -> None:
    import subprocess
    import sys

    with Emulator(scans=200, seed=5) as emu:
        argv = [sys.executable, "-m", "urlscan_rs", "--base-url", emu.url, "--api-key", emu.api_key, "--json"]
        argv += ["datadump", "sync", str(tmp_path), "--type", "search", "--days", "2"]
        procs = [subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
        outs = [p.communicate(timeout=120) for p in procs]
        assert all(p.returncode == 0 for p in procs), outs
        reports = [json.loads(o) for o, _ in outs]
        with emu.client() as c:
            listed = {f.path for d in (0, 1) for f in c.datadumps.list("hours", "search", _day(d))}
    a, b = (set(r["downloaded"]) for r in reports)
    assert not a & b and listed <= a | b
    assert all((tmp_path / p).exists() for p in listed)


def test_sync_async(tmp_path: Path) -> None:
    with Emulator(scans=50, seed=2) as emu:
        ac = emu.async_client()
        try:
            report = run(ac.datadumps.sync(tmp_path, window="days", types=("search",), days=2))
        finally:
            ac.close()
    assert report.downloaded and not report.failed


def _day(back: int) -> str:
    return (datetime.now(timezone.utc) - timedelta(days=back)).strftime("%Y%m%d")
