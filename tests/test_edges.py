"""The package's edges under hostile input and real sizes: linear text
handling, bounded output for agents, exports that fail and resume cleanly,
and clear errors for the odd inputs a user or a broken server gives."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import urlscan_rs
from urlscan_rs import Client, ScanResult
from urlscan_rs._summary import fit
from urlscan_rs.errors import ValidationError
from urlscan_rs.testing import Emulator, WebhookReceiver

from .dumphost import KEY
from .loopback import serve

pq = pytest.importorskip("pyarrow.parquet")

# ---------------------------------------------------------------- linear text handling

_HOSTILE = """
import sys
from urlscan_rs import refang
from urlscan_rs._refang import as_url
n = 1 << 20
for text in (" " * n + "x", " dot" * (n // 4), "[ " * (n // 2), "(" + " " * n, "hxxp" + " " * n,
             "\\t" * n + "dot", "[" * n, " [dot]" * (n // 6), "\\\\." * (n // 2), "h" * n):
    out = refang(text)
    assert len(out) <= len(text)
    as_url(text)
print("done")
"""


def test_refang_is_linear_on_a_megabyte_of_hostile_text() -> None:
    # Each input took minutes to hours with the quadratic pattern (20,000 blanks: 12.9 s);
    # linear, all ten take well under a second each. The timeout is a bound, not a measure.
    out = subprocess.run([sys.executable, "-c", _HOSTILE], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == "done", out.stderr
    assert urlscan_rs.refang("evil  dot  example (dot) com") == "evil.example.com"
    assert urlscan_rs.refang("hxxps://evil[.]example/a") == "https://evil.example/a"


# ---------------------------------------------------------------- bounded output


@pytest.fixture(scope="module")
def huge() -> Any:
    """An emulator serving results of 5 to 6 MB with a title of a million characters."""
    with Emulator(scans=5, seed=4, result_size=(5_000_000, 6_000_000), title_size=1_000_000, scan_duration=0) as e:
        yield e


def test_the_emulator_serves_results_of_real_size(huge: Emulator) -> None:
    with huge.client() as c:
        uuid = next(iter(c.search("", limit=1))).id
        r = c.with_raw_response.result(uuid)
    assert 5_000_000 <= len(r.content) <= 6_000_000
    result = r.parse()
    assert len(result.page.title) == 1_000_000
    assert len(result.data["requests"]) > 300
    assert len(result.indicators().domains) > 100 and len(result.lists.ips) > 100


def test_a_summary_of_a_5_mb_result_fits_its_budget_and_says_what_it_left_out(huge: Emulator) -> None:
    with huge.client() as c:
        result = c.result(next(iter(c.search("", limit=1))).id)
    ind = result.indicators()
    for budget in (2048, 4096, 16384):
        s = result.summary(max_bytes=budget)
        assert len(json.dumps(s, ensure_ascii=False, separators=(",", ":")).encode()) <= budget
        # What it keeps whatever the size: the verdict and the page's identity.
        assert s["uuid"] == result.uuid and s["verdict"]["malicious"] == result.verdict.malicious
        assert s["page"]["domain"] == result.page.domain and s["page"]["ip"] == result.page.ip
        assert s["page"]["title"].endswith("…") and len(s["page"]["title"]) <= 256
        assert s["omitted"]["page.title"] == {"kept": len(s["page"]["title"]) - 1, "of": 1_000_000}
        # Lists were halved, never reordered; the counts are the whole ones.
        kept = s["indicators"]["domains"]
        assert kept == list(ind.domains[: len(kept)])
        if len(kept) < len(ind.domains):
            assert s["omitted"]["indicators.domains"] == {"kept": len(kept), "of": len(ind.domains)}
        else:
            assert "indicators.domains" not in s["omitted"]
        # The widest lists went first: of 1,500 URLs, few are left.
        assert s["omitted"]["indicators.urls"]["of"] == len(ind.urls) > s["omitted"]["indicators.urls"]["kept"]
        assert s["counts"]["domains"] == len(ind.domains)
    assert "indicators.domains" in result.summary(max_bytes=2048)["omitted"]
    # A small result fits whole: nothing omitted.
    small = ScanResult(json.loads((Path(__file__).parent / "data" / "result-2018-wikipedia.json").read_text()))
    whole = small.summary(max_bytes=65536)
    assert "omitted" not in whole and whole["indicators"]["domains"] == list(small.indicators().domains)
    with pytest.raises(ValueError, match="at least 2048"):
        result.summary(max_bytes=1024)


def test_fit_keeps_shape_and_bound() -> None:
    data = {"a": "x" * 5000, "b": list(range(3000)), "c": {"d": ["y" * 300] * 50}}
    out = fit(data, 2048)
    assert len(json.dumps(out, separators=(",", ":")).encode()) <= 2048
    assert set(out) == {"a", "b", "c", "omitted"} and data["b"] == list(range(3000))  # the input is untouched
    assert out["omitted"]["a"] == {"kept": len(out["a"]) - 1, "of": 5000}
    assert out["omitted"]["b"]["of"] == 3000 and out["b"] == list(range(out["omitted"]["b"]["kept"]))
    assert fit({"a": 1}, 2048) == {"a": 1}


# ---------------------------------------------------------------- the MCP server

mcp = pytest.importorskip("mcp")


def test_mcp_tools_check_before_work_and_bound_what_they_answer(huge: Emulator) -> None:
    import asyncio

    from .test_mcp import _data, _session_run

    with huge.client() as c:
        uuid = next(iter(c.search("", limit=1))).id
    _, answers = asyncio.run(
        _session_run(
            huge,
            [
                ("result", {"uuid": uuid}),
                ("indicators", {"uuid": uuid, "max_bytes": 8192}),
                ("search", {"query": "", "limit": True}),
                ("search", {"query": "", "limit": 2.0}),
                ("scan", {"url": " " * 200_000 + "x"}),
                ("result", {"uuid": uuid, "max_bytes": 10**9}),
                ("search", {"query": "", "limit": 5, "max_bytes": 2048}),
            ],
        )
    )
    result, indicators, limit_true, limit_float, long_url, too_big, search = answers
    summary = _data(result)
    assert len(json.dumps(summary, ensure_ascii=False, separators=(",", ":")).encode()) <= 4096
    assert summary["uuid"] == uuid and "page.title" in summary["omitted"]
    found = _data(indicators)
    assert len(json.dumps(found, ensure_ascii=False, separators=(",", ":")).encode()) <= 8192
    assert found["omitted"]["domains"]["of"] > 100
    assert limit_true.is_error and limit_float.is_error
    assert long_url.is_error and "url must be at most 8192 characters" in long_url.content[0].text
    assert too_big.is_error and "max_bytes must be from 2048 to 65536" in too_big.content[0].text
    hits = _data(search)
    assert len(json.dumps(hits, ensure_ascii=False, separators=(",", ":")).encode()) <= 2048


# ---------------------------------------------------------------- exports


def _pages(n: int) -> Any:
    hits = [{"_id": f"u{i:04d}", "sort": [10_000 - i], "task": {"time": "2026-11-20T00:00:00Z"}} for i in range(n)]

    def answer(method: str, path: str, query: dict[str, list[str]]) -> tuple[int, Any]:
        size = int(query.get("size", ["100"])[0])
        after = query.get("search_after", [None])[0]
        start = 0 if after is None else next(i for i, h in enumerate(hits) if str(h["sort"][0]) == after) + 1
        page = hits[start : start + size]
        return 200, {"results": page, "total": n, "has_more": False}

    return hits, answer


def test_an_export_whose_last_step_failed_resumes_whatever_its_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hits, answer = _pages(300)
    out = tmp_path / "all.parquet"
    with serve(answer) as s, Client(KEY, base_url=s.url) as c:
        # Every row is written and recorded; the join at the end fails: a folder stands where the
        # file goes (given overwrite=True, the export runs, and only its final rename fails).
        blocker = tmp_path / "all.parquet"
        blocker.mkdir()
        with pytest.raises(OSError):
            c.search("x", size=100, limit=300).to_parquet(out, overwrite=True, row_group_size=100)
        blocker.rmdir()
        state = json.loads((tmp_path / "all.parquet.parts" / "_urlscan_export.json").read_text())
        assert state["rows"] == 300
        before = len(s.requests)
        assert c.search("x", size=100, limit=300).to_parquet(out, resume=True) == 300
        assert len(s.requests) == before  # nothing was left to fetch
    assert pq.read_table(out).column("uuid").to_pylist() == [h["_id"] for h in hits]


def test_long_and_odd_partition_values_keep_every_row(tmp_path: Path) -> None:
    values = ["a" * 300, "a" * 299 + "b", "../..", "", ".", "x/y\\z", "ü" * 200, None]
    hits = [{"_id": f"u{i}", "sort": [100 - i], "page": {"country": v}} for i, v in enumerate(values)]

    def answer(method: str, path: str, query: dict[str, list[str]]) -> tuple[int, Any]:
        return 200, {"results": hits if "search_after" not in query else [], "total": len(hits), "has_more": False}

    lake = tmp_path / "lake"
    with serve(answer) as s, Client(KEY, base_url=s.url) as c:
        assert c.search("x", size=100).to_parquet(lake, partition_by="country") == len(values)
    folders = [p for p in lake.iterdir() if p.is_dir()]
    assert len(folders) == len(values)  # distinct values, distinct folders
    assert all(len(p.name.encode()) <= 128 and p.resolve().parent == lake.resolve() for p in folders)
    table = pq.read_table(lake)
    assert sorted(table.column("uuid").to_pylist()) == sorted(h["_id"] for h in hits)


_FSIZE = """
import resource, signal, sys
from urlscan_rs import Client
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
with Client(sys.argv[1], base_url=sys.argv[2]) as c:
    try:
        c.search("x", size=100, limit=300).to_parquet(sys.argv[3], row_group_size=100)
    except OSError as e:
        print(type(e).__name__, e.errno, e.filename)
    try:
        c.search("x", size=100, limit=300).to_csv(sys.argv[3] + ".csv")
    except OSError as e:
        print(type(e).__name__, e.errno, e.filename)
"""


def test_a_full_disk_is_an_io_error_naming_the_file(tmp_path: Path) -> None:
    import errno

    _, answer = _pages(300)
    out = tmp_path / "big.parquet"
    with serve(answer) as s:
        p = subprocess.run([sys.executable, "-c", _FSIZE, KEY, s.url, str(out)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert len(lines) == 2, p.stdout
    for line in lines:
        kind, code, name = line.split(" ", 2)
        assert kind == "OSError" and int(code) == errno.EFBIG and name.startswith(str(tmp_path)), line
    assert "internal error" not in p.stdout + p.stderr


def test_an_existing_target_is_refused_the_same_way_file_or_folder(tmp_path: Path) -> None:
    _, answer = _pages(50)
    with serve(answer) as s, Client(KEY, base_url=s.url) as c:
        one = tmp_path / "one.parquet"
        one.write_bytes(b"mine")
        with pytest.raises(ValidationError, match="exists: give overwrite=True"):
            c.search("x").to_parquet(one)
        assert one.read_bytes() == b"mine"
        assert c.search("x").to_parquet(one, overwrite=True) == 50
        lake = tmp_path / "lake"
        assert c.search("x").to_parquet(lake, partition_by="date") == 50
        with pytest.raises(ValidationError, match="exists and is not empty: give overwrite=True"):
            c.search("x").to_parquet(lake, partition_by="date")
        assert c.search("x").to_parquet(lake, partition_by="date", overwrite=True) == 50
        (lake / "notes.txt").write_text("mine")
        with pytest.raises(ValidationError, match="holds files that are not an export's"):
            c.search("x").to_parquet(lake, partition_by="date", overwrite=True)
        assert (lake / "notes.txt").read_text() == "mine"


def test_an_export_never_follows_a_planted_link(tmp_path: Path) -> None:
    _, answer = _pages(50)
    victim = tmp_path / "victim"
    victim.write_text("keep")
    for name in ("out.parquet.tmp", ".out.parquet.part"):
        (tmp_path / name).symlink_to(victim)
    with serve(answer) as s, Client(KEY, base_url=s.url) as c:
        assert c.search("x").to_parquet(tmp_path / "out.parquet") == 50
    assert victim.read_text() == "keep"


# ---------------------------------------------------------------- odd inputs, clear errors


def test_a_key_given_as_the_base_url_is_never_echoed() -> None:
    from .test_cli import run_cli

    p = run_cli("--base-url", KEY, "quotas")
    assert p.returncode == 2 and "base_url is not a valid URL" in p.stderr
    assert KEY not in p.stderr + p.stdout
    with pytest.raises(ValidationError) as e:
        Client(KEY, base_url=KEY)
    assert KEY not in str(e.value)


def test_repr_hides_a_password_in_the_base_url() -> None:
    with Client(KEY, base_url="http://user:hunter2@127.0.0.1:9") as c:
        assert "hunter2" not in repr(c) and "user:***@127.0.0.1:9" in repr(c)


def test_similar_without_a_scan_says_so() -> None:
    with Client(KEY, base_url="http://127.0.0.1:9") as c:
        with pytest.raises(ValidationError, match="similar: uuid must be the uuid of the scan to compare with, got None"):
            c.similar(None)  # type: ignore[arg-type]
        with pytest.raises(ValidationError, match="uuid"):
            c.similar("not-a-uuid")


def test_emulator_settings_of_the_wrong_shape_are_clear_errors() -> None:
    with pytest.raises(TypeError, match="rate_limits must be a dict of action to"):
        Emulator(rate_limits=[1])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"rate_limits\['search'\] must be a dict of window to limit"):
        Emulator(rate_limits={"search": 5})  # type: ignore[dict-item]
    for bad in ("no-such-host.invalid", "999.1.1.1"):
        with pytest.raises(ValidationError, match="is not an address or a name this machine resolves"):
            Emulator(scans=0, host=bad)
        with pytest.raises(ValidationError, match="is not an address or a name this machine resolves"):
            WebhookReceiver(host=bad)
    with pytest.raises(OSError, match="cannot listen on 192.0.2.55"):
        Emulator(scans=0, host="192.0.2.55")


def test_a_reader_that_stops_early_ends_the_command_with_141(tmp_path: Path) -> None:
    import gzip

    path = tmp_path / "search" / "x.gz"
    path.parent.mkdir()
    lines = b"".join(b'{"_id":"u%d","sort":[%d],"page":{"title":"%s"}}\n' % (i, i, b"t" * 200) for i in range(50_000))
    path.write_bytes(gzip.compress(lines))
    env = dict(os.environ)
    for fmt in ("jsonl", "csv"):
        cmd = f"{sys.executable} -m urlscan_rs datadump read {path} --format {fmt} | head -1; exit ${{PIPESTATUS[0]}}"
        p = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, env=env, timeout=120)
        assert p.returncode == 141, (fmt, p.returncode, p.stderr)
        assert "invalid input" not in p.stderr and "Traceback" not in p.stderr


def test_saved_artifacts_never_follow_a_planted_link(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("keep")
    with Emulator(scans=5, seed=2) as emu, emu.client() as c:
        uuid = next(iter(c.search("", limit=1))).id
        for ext in (".json", ".png", ".html"):  # the names the old scheme staged them under
            (tmp_path / f".{uuid}{ext}.part").symlink_to(victim)
        paths = c.save(uuid, tmp_path)
    assert victim.read_text() == "keep"
    assert json.loads(paths["json"].read_text())["task"]["uuid"] == uuid
    assert paths["png"].read_bytes().startswith(b"\x89PNG")
