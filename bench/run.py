"""The benchmark suite: urlscan-rs against the official client (urlscan-python).

    python bench/run.py            # every workload; writes bench/RESULTS.md
    python bench/run.py --quick    # a smoke run with small sizes (minutes)
    python bench/run.py --only search_cpu,results_cpu --repeat 5

Needs a release build in the active environment (``maturin develop --release``)
and the official client (``pip install urlscan-python``, part of the ``test``
extra). The pure-Rust ceiling is built with ``cargo bench --bench ceiling
--no-run`` (done here when missing). Build outputs go to ``bench/out/``.

Every side of every workload runs in a fresh process (``bench/workloads.py``)
so CPU time and peak RSS are its own; emulators run in their own processes
(``bench/emu_server.py``). CPU regime: the client process's
``time.process_time()`` (all its threads), emulator without latency. Latency
regime: wall clock, emulator with service-like latency.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
OUT = HERE / "out"
PY = sys.executable
UNLIMITED = {a: {"minute": None, "hour": None, "day": None} for a in ("public", "unlisted", "private", "retrieve", "search")}


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


class Emu:
    """An emulator in its own process."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("rate_limits", UNLIMITED)
        self.proc = subprocess.Popen(
            [PY, str(HERE / "emu_server.py"), json.dumps(kwargs)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the emulator did not start ({kwargs})")
        info = json.loads(line)
        self.url: str = info["url"]
        self.key: str = info["api_key"]
        self.build_seconds: float = info["build_seconds"]

    def cmd(self, c: str) -> Any:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(c + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def requests(self) -> int:
        return int(self.cmd("stats")["requests"])

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()

    def __enter__(self) -> Emu:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def side(name: str, emu: Emu, **cfg: Any) -> dict[str, Any]:
    """Run one side once in a fresh process; also count the requests the emulator served."""
    cfg.update(url=emu.url, key=emu.key)
    before = emu.requests()
    # Neither side does linear algebra: numpy's OpenBLAS worker threads (numpy comes with pandas
    # and pyarrow) would spin idle and be counted as client CPU.
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    p = subprocess.run([PY, str(HERE / "workloads.py"), name, json.dumps(cfg)], capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise RuntimeError(f"{name} failed:\n{p.stderr[-3000:]}")
    out: dict[str, Any] = json.loads(p.stdout.strip().splitlines()[-1])
    out["requests"] = emu.requests() - before
    out["req_rate"] = out["requests"] / out["wall"] if out["wall"] > 0 else 0.0
    return out


def repeat(times: int, name: str, emu: Emu, **cfg: Any) -> list[dict[str, Any]]:
    runs = []
    for i in range(times):
        r = side(name, emu, **cfg)
        log(
            f"    {name} #{i + 1}: wall {r['wall']:.3f}s cpu {r['cpu']:.3f}s (main thread {r['cpu_main']:.3f}s) "
            f"count {r['count']} peak {r['rss_peak_kb'] / 1024:.0f} MB"
        )
        runs.append(r)
    return runs


def med(runs: list[dict[str, Any]], k: str) -> float:
    return float(statistics.median(r[k] for r in runs))


def uuids_file(emu: Emu, n: int, name: str) -> str:
    import urlscan_rs

    with urlscan_rs.Client(emu.key, base_url=emu.url) as c:
        ids = [h.id for h in c.search("", limit=n)]
    path = OUT / f"uuids-{name}.json"
    path.write_text(json.dumps(ids))
    return str(path)


def ceiling_bin() -> Path | None:
    p = subprocess.run(
        ["cargo", "bench", "--bench", "ceiling", "--no-run", "--message-format=json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    for line in p.stdout.splitlines():
        try:
            m = json.loads(line)
        except ValueError:
            continue
        if m.get("reason") == "compiler-artifact" and m.get("target", {}).get("name") == "ceiling" and m.get("executable"):
            return Path(m["executable"])
    log(f"  (the ceiling binary did not build: {p.stderr[-2000:]})")
    return None


def ceiling(binary: Path | None, *args: Any) -> dict[str, Any] | None:
    if binary is None:
        return None
    p = subprocess.run([str(binary), *map(str, args)], capture_output=True, text=True)
    if p.returncode != 0:
        log(f"  ceiling {args[0]} failed: {p.stderr[-2000:]}")
        return None
    out: dict[str, Any] = json.loads(p.stdout.strip().splitlines()[-1])
    return out


def ceiling_median(
    binary: Path | None, repeat: int, *args: Any, of: Callable[[dict[str, Any]], float] = lambda run: run["cpu"]
) -> float | None:
    """The median of `of` (default: CPU seconds) over `repeat` ceiling runs; None when none ran."""
    runs = [run for run in (ceiling(binary, *args) for _ in range(repeat)) if run]
    return statistics.median(of(run) for run in runs) if runs else None


# --------------------------------------------------------------------------------------------------


class Report:
    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []
        self.notes: list[str] = []
        self.extra: list[tuple[str, str]] = []

    def row(self, workload: str, metric: str, ours: float, theirs: float, target: float | None, what: str) -> None:
        """ours/theirs in units where smaller is better; ratio = theirs / ours."""
        ratio = theirs / ours if ours > 0 else float("inf")
        verdict = "" if target is None else ("PASS" if ratio >= target else "MISS")
        self.rows.append(
            dict(
                workload=workload, metric=metric, ours=ours, theirs=theirs, ratio=ratio, target=target, verdict=verdict, what=what
            )
        )
        t = "" if target is None else f" (target {target:g}x: {verdict})"
        log(f"  => {workload}: {metric} ours {ours:.4g} vs {what} {theirs:.4g}: {ratio:.2f}x{t}")


def machine(args: argparse.Namespace) -> list[tuple[str, str]]:
    import urlscan_rs

    def version(mod: str) -> str:
        from importlib.metadata import version as v

        try:
            return v(mod)
        except Exception:
            return "?"

    def git(*a: str) -> str:
        return subprocess.run(["git", *a], cwd=ROOT, capture_output=True, text=True).stdout.strip()

    cpu = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    mem = "?"
    with open("/proc/meminfo") as f:
        mem = f"{int(f.readline().split()[1]) / 1024 / 1024:.1f} GB"
    dirty = " (with uncommitted changes)" if git("status", "--porcelain", "--untracked-files=no") else ""
    return [
        ("date", time.strftime("%Y-%m-%d %H:%M:%S %Z")),
        ("machine", f"{platform.machine()}, {os.cpu_count()} cores ({cpu}), {mem} RAM, {platform.platform()}"),
        ("python", sys.version.split()[0]),
        ("urlscan-rs", f"{version('urlscan-rs')} ({urlscan_rs.__file__})"),
        ("urlscan-python (official)", version("urlscan-python")),
        ("git commit", git("rev-parse", "--short", "HEAD") + dirty),
        ("command", "python bench/run.py " + " ".join(sys.argv[1:])),
    ]


def write_results(rep: Report, facts: list[tuple[str, str]], path: Path) -> None:
    lines = ["# Benchmark results", "", "Written by `python bench/run.py` (see the module docstring).", ""]
    lines += [f"- **{k}**: {v}" for k, v in facts]
    lines += [
        "",
        "Ratios are how many times better urlscan-rs is (theirs / ours; CPU seconds or wall seconds,",
        "medians over the runs shown). The machine is shared and small: absolute times are noisy, ratios",
        "measured within one run are what counts.",
        "",
        "| workload | metric | urlscan-rs | compared with | theirs | ratio | target | verdict |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rep.rows:
        t = "" if r["target"] is None else f"{r['target']:.3g}x"
        lines.append(
            f"| {r['workload']} | {r['metric']} | {r['ours']:.4g} | {r['what']} | {r['theirs']:.4g} | "
            f"{r['ratio']:.2f}x | {t} | {r['verdict']} |"
        )
    if rep.extra:
        lines += ["", "## Other measurements", "", "| what | value |", "|---|---|"]
        lines += [f"| {k} | {v} |" for k, v in rep.extra]
    if rep.notes:
        lines += ["", "## Notes", ""] + [f"- {n}" for n in rep.notes]
    path.write_text("\n".join(lines) + "\n")


# --------------------------------------------------------------------------------------------------


def w_search_cpu(a: argparse.Namespace, rep: Report, ceil: Path | None) -> None:
    hits = 10_000 if a.quick else 100_000
    small = hits // 10
    log(f"search export, CPU regime: {hits} hits (and {small} for the RSS growth)")
    # The emulator's corpus holds at most 100,000 scans.
    with Emu(scans=min(hits + 500, 100_000), seed=1) as emu:
        rep.extra.append((f"emulator start with {min(hits + 500, 100_000)} scans (corpus build)", f"{emu.build_seconds:.2f} s"))
        ours = repeat(a.repeat, "search_rs", emu, hits=hits)
        theirs = repeat(a.repeat, "search_official", emu, hits=hits)
        walk_ours = repeat(a.repeat, "walk_rs", emu, hits=hits)
        walk_theirs = repeat(a.repeat, "walk_official", emu, hits=hits)
        ours_s = repeat(1, "search_rs", emu, hits=small)
        theirs_s = repeat(1, "search_official", emu, hits=small)
        rep.row(
            "search export (CPU)",
            f"client CPU s / {hits} hits, reading id, page.domain, task.time",
            med(ours, "cpu"),
            med(theirs, "cpu"),
            3,
            "official iterator",
        )
        rep.row(
            "search export (CPU)",
            f"client CPU s / {hits} hits, walk only (no field read)",
            med(walk_ours, "cpu"),
            med(walk_theirs, "cpu"),
            3.5,
            "official iterator",
        )
        rep.extra.append(
            (
                "search export: client CPU s on the Python thread / on the other threads (reading three fields)",
                # Process and thread clocks are read apart: a process with one
                # thread can show a few microseconds less than its thread.
                f"urlscan-rs {med(ours, 'cpu_main'):.3f} / {max(0.0, med(ours, 'cpu') - med(ours, 'cpu_main')):.3f}, "
                f"official {med(theirs, 'cpu_main'):.3f} / {max(0.0, med(theirs, 'cpu') - med(theirs, 'cpu_main')):.3f}",
            )
        )
        rep.extra.append(("search export: urlscan-rs hits per CPU second", f"{hits / med(ours, 'cpu'):,.0f}"))
        rep.extra.append(("search export: official hits per CPU second", f"{hits / med(theirs, 'cpu'):,.0f}"))
        g_ours = (med(ours, "rss_peak_kb") - ours_s[0]["rss_peak_kb"]) / 1024
        g_theirs = (med(theirs, "rss_peak_kb") - theirs_s[0]["rss_peak_kb"]) / 1024
        verdict = "PASS" if g_ours < 50 else "MISS"
        rep.extra.append(
            (
                f"search export: peak RSS growth {small} -> {hits} hits",
                f"urlscan-rs {g_ours:+.1f} MB ({verdict}, target < 50 MB); official {g_theirs:+.1f} MB",
            )
        )
        rep.extra.append(
            (
                "search export: client request rate (pages/s, wall)",
                f"urlscan-rs {med(ours, 'req_rate'):.0f}, official {med(theirs, 'req_rate'):.0f}",
            )
        )
        rates.append(("search export (CPU)", max(med(ours, "req_rate"), med(theirs, "req_rate"))))
        cpu = ceiling_median(ceil, a.repeat, "search", emu.url, emu.key, hits)
        if cpu is not None:
            rep.row(
                "search export (CPU)",
                f"pure-Rust core CPU s / {hits} hits, same three fields (ceiling)",
                med(ours, "cpu"),
                cpu,
                None,
                "pure-Rust core",
            )
            rep.extra.append(("search export: pure-Rust core hits per CPU second", f"{hits / cpu:,.0f} (tick resolution 10 ms)"))


def w_json_layout(a: argparse.Namespace, rep: Report, ceil: Path | None) -> None:
    """The client's CPU on the service's indented JSON against the same answers on one line."""
    hits = 10_000 if a.quick else 50_000
    log(f"JSON layout: a search export of {hits} hits, indented (the service's form) and compact")
    with Emu(scans=hits + 500, seed=1) as indented, Emu(scans=hits + 500, seed=1, compact_json=True) as compact:
        pairs = [(side("search_rs", indented, hits=hits), side("search_rs", compact, hits=hits)) for _ in range(a.repeat)]
    # Results of 100 KB to 2 MB, the documents where layout adds the most bytes.
    size = [100_000, 2_000_000]
    with (
        Emu(scans=250, seed=3, result_size=size) as indented,
        Emu(scans=250, seed=3, result_size=size, compact_json=True) as compact,
    ):
        uf_i, uf_c = uuids_file(indented, 200, "layout-i"), uuids_file(compact, 200, "layout-c")
        res = [
            (side("results_rs_loop", indented, uuids_file=uf_i, n=200), side("results_rs_loop", compact, uuids_file=uf_c, n=200))
            for _ in range(a.repeat)
        ]
    res_i, res_c = [r[0] for r in res], [r[1] for r in res]
    ours = [p[0] for p in pairs]
    flat = [p[1] for p in pairs]
    for what, indented_runs, compact_runs in (
        (f"{hits} hits, three fields", ours, flat),
        ("200 results, ten fields", res_i, res_c),
    ):
        rep.row(
            "JSON layout (CPU)",
            f"client CPU s / {what}, indented answers (ratio: compact / indented)",
            med(indented_runs, "cpu"),
            med(compact_runs, "cpu"),
            0.9,
            "the same answers on one line",
        )


def w_search_latency(a: argparse.Namespace, rep: Report, ceil: Path | None) -> None:
    hits = 5_000 if a.quick else 50_000
    log(f"search export, latency 150 ms per search: {hits} hits")
    with Emu(scans=hits + 500, seed=2, latency={"search": 0.15}) as emu:
        ours = repeat(a.repeat, "search_rs", emu, hits=hits)
        grown = repeat(a.repeat, "search_rs", emu, hits=hits, size=None)
        every = repeat(a.repeat, "search_rs", emu, hits=hits + 500, size=None, limit=None)
        sharded = repeat(a.repeat, "search_rs", emu, hits=hits, parallel="auto")
        theirs = repeat(a.slow_repeat, "search_official", emu, hits=hits)
        rep.row(
            "search export (latency 150 ms), size=100",
            f"wall s / {hits} hits",
            med(ours, "wall"),
            med(theirs, "wall"),
            None,
            "official iterator",
        )
        rep.row(
            "search export (latency 150 ms), no size",
            f"wall s / {hits} hits",
            med(grown, "wall"),
            med(theirs, "wall"),
            20,
            "official iterator",
        )
        rep.row(
            "search export (latency 150 ms), no size",
            f"search requests (quota units) / {hits} hits",
            med(grown, "requests"),
            med(theirs, "requests"),
            None,
            "official iterator",
        )
        rep.row(
            'search export (latency 150 ms), parallel="auto"',
            f"wall s / {hits} hits",
            med(sharded, "wall"),
            med(theirs, "wall"),
            4,
            "official iterator",
        )
        pages = hits / 100
        rep.notes.append(
            f"search export (latency): {pages:.0f} pages of 100 at 150 ms each is {pages * 0.15:.1f} s for any client "
            "that fetches such pages one after another; urlscan-rs took "
            f"{med(ours, 'wall'):.1f} s with size=100 ({med(ours, 'requests'):.0f} requests), "
            f"{med(grown, 'wall'):.1f} s with no size ({med(grown, 'requests'):.0f} requests: the limit's worth at once, "
            "up to 10,000 a page, the emulator's premium key), "
            f"{med(every, 'wall'):.1f} s for all {hits + 500} hits with no size and no limit "
            f"({med(every, 'requests'):.0f} requests: pages growing from 100), "
            f'and {med(sharded, "wall"):.1f} s with parallel="auto" ({med(sharded, "requests"):.0f} requests). '
            f"The official client made {med(theirs, 'requests'):.0f} requests. Each request is one unit of the search quota."
        )


def w_tables(a: argparse.Namespace, rep: Report, ceil: Path | None) -> None:
    hits = 5_000 if a.quick else 50_000
    big = 10_000 if a.quick else 100_000
    n = 100
    log(f"tables: {hits} search hits to pandas/Arrow, {big} to Parquet, {n} results to Arrow")
    # The emulator's corpus holds at most 100,000 scans.
    with Emu(scans=min(big + 500, 100_000), seed=1) as emu:
        theirs = repeat(a.repeat, "table_pandas_official", emu, hits=hits)
        pandas = repeat(a.repeat, "table_pandas_rs", emu, hits=hits)
        arrow = repeat(a.repeat, "table_arrow_rs", emu, hits=hits)
        rep.row(
            "search export to a table (CPU)",
            f"client CPU s / {hits} hits, nine columns, to_pandas()",
            med(pandas, "cpu"),
            med(theirs, "cpu"),
            25,
            "official iterator + pandas.json_normalize",
        )
        rep.row(
            "search export to a table (CPU)",
            f"client CPU s / {hits} hits, nine columns, to_arrow()",
            med(arrow, "cpu"),
            med(theirs, "cpu"),
            30,
            "official iterator + pandas.json_normalize",
        )
        natural = repeat(a.repeat, "table_pandas_rs", emu, hits=hits, size=None)
        pages = med(natural, "cpu") / med(pandas, "cpu")
        rep.extra.append(
            (
                f"{hits} hits to pandas, nine columns: the natural call (no size) against pages of 100",
                f"client CPU {med(natural, 'cpu'):.3f} s against {med(pandas, 'cpu'):.3f} s: {pages:.2f}x "
                f"({'PASS' if pages <= 1 else 'MISS'}, target at most 1x)",
            )
        )
        whole = repeat(a.repeat, "table_arrow_all_rs", emu, hits=big)
        rep.row(
            "search export to a table, every column (CPU)",
            f"client CPU s / {hits} hits (measured on {big}), every SCANS column, to_arrow()",
            med(whole, "cpu") * hits / big,
            med(theirs, "cpu"),
            15,
            "official iterator + pandas.json_normalize (nine columns; it normalizes every field)",
        )
        per_hit = med(whole, "cpu") / big * 1e6
        rep.extra.append(
            (
                f"to_arrow() of every SCANS column, {big} hits: client CPU a hit",
                f"{per_hit:.1f} us ({'PASS' if per_hit <= 4 else 'MISS'}, target at most 4 us)",
            )
        )
        grown = (med(whole, "rss_peak_kb") - med(whole, "rss_start_kb")) * 1024
        ratio = grown / med(whole, "nbytes")
        rep.extra.append(
            (
                f"to_arrow() of every SCANS column, {big} hits, default pages: peak memory against the table",
                f"the process grew {grown / 1e6:.0f} MB over its start for a table of {med(whole, 'nbytes') / 1e6:.0f} MB "
                f"in {med(whole, 'chunks'):.0f} chunks: {ratio:.2f}x ({'PASS' if ratio <= 1.2 else 'MISS'}, target at most 1.2x)",
            )
        )
        walk = repeat(a.repeat, "walk_rs", emu, hits=big)
        parquet = repeat(a.repeat, "table_parquet_rs", emu, hits=big)
        rep.row(
            "search export to Parquet (CPU)",
            f"client CPU s / {big} hits, every SCANS column, to_parquet() "
            "(ratio: walk alone / Parquet; target: Parquet at most 1.5x the walk)",
            med(parquet, "cpu"),
            med(walk, "cpu"),
            1 / 1.5,
            "urlscan-rs walk alone (no field read)",
        )
        peak = med(parquet, "rss_peak_kb") / 1024
        rep.extra.append(
            (
                f"search export to Parquet: peak RSS of the process, {big} hits",
                f"{peak:.0f} MB ({'PASS' if peak < 300 else 'MISS'}, target < 300 MB); "
                f"the walk alone {med(walk, 'rss_peak_kb') / 1024:.0f} MB",
            )
        )
    with Emu(scans=n + 50, seed=3, result_size=[100_000, 2_000_000]) as emu:
        uf = uuids_file(emu, n, "tables")
        ours = repeat(a.repeat, "table_results_rs", emu, uuids_file=uf, n=n)
        theirs = repeat(a.repeat, "table_results_official", emu, uuids_file=uf, n=n)
        rep.row(
            "results to a table (CPU)",
            f"client CPU s / {n} results of 100 KB to 2 MB, RESULTS columns, results().to_arrow()",
            med(ours, "cpu"),
            med(theirs, "cpu"),
            20,
            "official get_result loop + pandas.json_normalize",
        )
    with Emu(scans=n + 50, seed=5, result_size=[1_000_000, 5_000_000]) as emu:
        uf = uuids_file(emu, n, "projection")
        ours = repeat(a.repeat, "projection_rs", emu, uuids_file=uf, n=n)
        theirs = repeat(a.repeat, "projection_official", emu, uuids_file=uf, n=n)
        if med(ours, "urls") != med(theirs, "urls"):
            raise RuntimeError(f"the sides read different URLs: {med(ours, 'urls')} and {med(theirs, 'urls')}")
        rep.row(
            "results projected (CPU)",
            f"client CPU s / {n} results of 1 to 5 MB, one column: data.requests[].request.request.url",
            med(ours, "cpu"),
            med(theirs, "cpu"),
            30,
            "official get_result loop + a list comprehension over json.loads's dicts",
        )


@contextlib.contextmanager
def extension(build: Path) -> Iterator[None]:
    """The installed extension replaced by `build` (a .so) for the block, then put back."""
    out = subprocess.run(
        [PY, "-c", "import urlscan_rs._native as n; print(n.__file__)"], capture_output=True, text=True, check=True
    )
    target = Path(out.stdout.strip())
    saved = target.with_suffix(".fast")
    shutil.copy(target, saved)
    try:
        # A rename, not a copy over the file: a running emulator keeps the file it loaded.
        shutil.copy(build, target.with_suffix(".new"))
        os.replace(target.with_suffix(".new"), target)
        yield
    finally:
        os.replace(saved, target)


def w_portable(a: argparse.Namespace, rep: Report, ceil: Path | None) -> None:
    """The portable build (`--features portable`: bodies read eight bytes to a word) against
    the installed one on the tables' workloads, alternating the two in each round."""
    if not a.portable:
        raise SystemExit("--only portable needs --portable FILE (a portable build's extension)")
    build = Path(a.portable)
    hits, n = (5_000, 20) if a.quick else (50_000, 100)
    sides: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
        ("table_pandas_rs", dict(scans=hits + 500, seed=1), dict(hits=hits)),
        ("table_arrow_all_rs", dict(scans=hits + 500, seed=1), dict(hits=hits)),
        ("table_results_rs", dict(scans=n + 50, seed=3, result_size=[100_000, 2_000_000]), dict(n=n)),
        ("projection_rs", dict(scans=n + 50, seed=5, result_size=[1_000_000, 5_000_000]), dict(n=n)),
    ]
    for name, corpus, cfg in sides:
        with Emu(**corpus) as emu:
            if "n" in cfg:
                cfg["uuids_file"] = uuids_file(emu, cfg["n"], "portable")
            # A first run after the emulator starts is slower whichever build makes it: one
            # run is discarded, and the builds take turns going first.
            side(name, emu, **cfg)
            fast, slow = [], []
            for r in range(max(a.repeat, 4)):
                for portable in (r % 2 == 0, r % 2 == 1):
                    if portable:
                        with extension(build):
                            slow.append(side(name, emu, **cfg))
                    else:
                        fast.append(side(name, emu, **cfg))
        rep.row(
            "the portable build (CPU)",
            f"{name} {json.dumps({k: v for k, v in cfg.items() if k != 'uuids_file'})}: client CPU s, "
            "portable build (ratio: fast / portable; target: portable at most 1.2x the fast one)",
            med(slow, "cpu"),
            med(fast, "cpu"),
            1 / 1.2,
            "the installed (fast) build, alternating",
        )


def w_datadumps(a: argparse.Namespace, rep: Report, ceil: Path | None) -> None:
    """One hour of search and api dumps to Parquet, each side downloading the files; our
    converter's peak RSS on the hour's files repeated, and repeated four times as often; the
    hour through Spark."""
    import gzip
    import tempfile

    import urlscan_rs

    scans = 20_000 if a.quick else 100_000
    with Emu(scans=scans, seed=5) as emu:
        # The corpus is densest just before its start: an hour on, the hour it started in is complete.
        emu.cmd("advance 3600")
        with urlscan_rs.Client(emu.key, base_url=emu.url) as c:
            now = c.datadumps.list("hours", "search", time.strftime("%Y%m%d", time.gmtime()))
            if not now:  # just after midnight: the last hour of yesterday
                now = c.datadumps.list("hours", "search", time.strftime("%Y%m%d", time.gmtime(time.time() - 3600)))
            hour = now[-1]
            api = [f for f in c.datadumps.list("hours", "api", hour.path.split("/")[2]) if f.path.endswith(hour.path[-8:])]
        paths = [hour.path, api[0].path]
        hour_mb = (hour.size + api[0].size) / 1e6
        log(f"datadumps: {paths} ({hour_mb:.1f} MB gzip) of a {scans}-scan corpus")
        theirs = repeat(a.slow_repeat, "dumps_official", emu, paths=paths)
        ours = repeat(a.repeat, "dumps_rs", emu, paths=paths)
        rows = int(ours[0]["count"])
        rep.row(
            "data dumps to Parquet (CPU)",
            f"client CPU s / one hour's search and api files ({rows} rows, {hour_mb:.1f} MB gzip), downloaded and converted",
            med(ours, "cpu"),
            med(theirs, "cpu"),
            10,
            "official download_file + extract + pandas.read_json(lines=True) + to_parquet",
        )
        with tempfile.TemporaryDirectory() as d, urlscan_rs.Client(emu.key, base_url=emu.url) as c:
            for path in paths:
                (Path(d) / "hour" / path).parent.mkdir(parents=True, exist_ok=True)
                c.datadumps.download(path, Path(d) / "hour" / path)
            # Files of the same content repeated (valid dumps of several gzip members): enough
            # copies for 25,000 rows a file (past one 16 MiB Parquet chunk of full results), then
            # four times as many.
            copies = max(1, math.ceil(25_000 / max(1, rows // 2)))
            for name, n in (("big", copies), ("bigger", 4 * copies)):
                for path in paths:
                    (Path(d) / name / path).parent.mkdir(parents=True, exist_ok=True)
                    (Path(d) / name / path).write_bytes((Path(d) / "hour" / path).read_bytes() * n)
            big = repeat(a.repeat, "dumps_rs", emu, local=str(Path(d) / "big"), paths=[])
            bigger = repeat(a.repeat, "dumps_rs", emu, local=str(Path(d) / "bigger"), paths=[])
            peak_big, peak_bigger = med(big, "rss_peak_kb") / 1024, med(bigger, "rss_peak_kb") / 1024
            rep.extra.append(
                (
                    "data dumps to Parquet: peak RSS against file size (files on disk)",
                    f"{peak_big:.0f} MB for the hour's files {copies} times over ({big[0]['count']} rows), "
                    f"{peak_bigger:.0f} MB for them {4 * copies} times over ({bigger[0]['count']} rows) "
                    f"({'PASS' if peak_bigger < 1.15 * peak_big else 'MISS'}, target: not growing with the file); "
                    f"the official side on the hour alone: {med(theirs, 'rss_peak_kb') / 1024:.0f} MB",
                )
            )
            # Spark reads the same hour split into 60 files (60 partitions on two task slots); the
            # emulator's own minute files would take it minutes to list for a 100,000-scan day.
            for kind, path in (("search", paths[0]), ("api", paths[1])):
                lines = gzip.decompress((Path(d) / "hour" / path).read_bytes()).splitlines(keepends=True)
                split = Path(d) / "split" / kind
                split.mkdir(parents=True)
                for i in range(60):
                    (split / f"part-{i:02d}.gz").write_bytes(gzip.compress(b"".join(lines[i::60])))
                single = side("dumps_single", emu, local=str(Path(d) / "hour"), type=kind)
                spark = side("dumps_spark", emu, local=str(split), type=kind)
                same = (single["count"], single["digest"]) == (spark["count"], spark["digest"])
                rep.extra.append(
                    (
                        f"data dumps on Spark (local[2]): the hour's {kind} rows",
                        f"{spark['count']} rows from the hour's file split in 60, in {spark['partitions']} partitions, "
                        f"{'equal to' if same else 'DIFFERENT from'} the single-machine reader's of the hour's file "
                        f"({single['count']} rows; uuid digest {single['digest']})",
                    )
                )


def w_results_cpu(a: argparse.Namespace, rep: Report, ceil: Path | None) -> None:
    n = 100 if a.quick else 500
    log(f"result fetch, CPU regime: {n} results of 100 KB to 2 MB")
    with Emu(scans=n + 50, seed=3, result_size=[100_000, 2_000_000]) as emu:
        uf = uuids_file(emu, n, "results")
        ours = repeat(a.repeat, "results_rs_loop", emu, uuids_file=uf, n=n)
        batch = repeat(a.repeat, "results_rs_batch", emu, uuids_file=uf, n=n, concurrency=8)
        theirs = repeat(a.repeat, "results_official_loop", emu, uuids_file=uf, n=n)
        rep.row(
            "result fetch (CPU)",
            f"client CPU s / {n} results, ten fields read, result() loop",
            med(ours, "cpu"),
            med(theirs, "cpu"),
            6,
            "official get_result loop",
        )
        rep.row(
            "result fetch (CPU)",
            f"client CPU s / {n} results, ten fields read, results() batch",
            med(batch, "cpu"),
            med(theirs, "cpu"),
            6,
            "official get_result loop",
        )
        rates.append(("result fetch (CPU)", max(med(ours, "req_rate"), med(batch, "req_rate"), med(theirs, "req_rate"))))
        emu_rate = n / med(ours, "wall")
        rep.extra.append(
            (
                "result fetch (CPU): results per wall second, result() loop",
                f"urlscan-rs {emu_rate:.0f}, official {n / med(theirs, 'wall'):.0f}",
            )
        )
        cpu = ceiling_median(ceil, a.repeat, "results", emu.url, emu.key, n, 1)
        if cpu is not None:
            rep.row(
                "result fetch (CPU)",
                f"pure-Rust core CPU s / {n} results, same ten fields (ceiling)",
                med(ours, "cpu"),
                cpu,
                None,
                "pure-Rust core",
            )


def w_results_latency(a: argparse.Namespace, rep: Report, ceil: Path | None) -> None:
    n = 100 if a.quick else 500
    log(f"result fetch, latency 80 ms: {n} results")
    with Emu(scans=n + 50, seed=4, latency={"result": 0.08}) as emu:
        uf = uuids_file(emu, n, "results-latency")
        ours = repeat(a.repeat, "results_rs_batch", emu, uuids_file=uf, n=n, concurrency=None)
        ours8 = repeat(a.repeat, "results_rs_batch", emu, uuids_file=uf, n=n, concurrency=8)
        theirs = repeat(a.slow_repeat, "results_official_loop", emu, uuids_file=uf, n=n)
        theirs16 = repeat(a.repeat, "results_official_threads", emu, uuids_file=uf, n=n, threads=16)
        # Each of ours against each of theirs, with the target set by theirs.
        for call, our_runs in (("results(concurrency=None)", ours), ("results() default concurrency 8", ours8)):
            for their_runs, target, what in ((theirs, 10, "official loop"), (theirs16, 1.5, "official in 16 threads")):
                rep.row(
                    "result fetch (latency 80 ms)",
                    f"wall s, {call}",
                    med(our_runs, "wall"),
                    med(their_runs, "wall"),
                    target,
                    what,
                )


def w_bulk(a: argparse.Namespace, rep: Report, ceil: Path | None) -> None:
    n = 60 if a.quick else 500
    dur = 5.0 if a.quick else 15.0
    wait = {"timeout": 120.0, "initial_wait": 10.0 if not a.quick else 3.0, "interval": 1.0}
    log(f"bulk scan and wait: {n} URLs, latency 80 ms, scans finish after {dur} s, polling {wait}")
    urls = [f"https://bench-{i}.example.com/page/{i}" for i in range(n)]
    with Emu(scans=10, seed=5, latency=0.08, scan_duration=dur) as emu:
        ours = repeat(a.repeat, "bulk_rs", emu, urls=urls, wait=wait, concurrency=None)
        theirs16 = repeat(a.repeat, "bulk_official_threads", emu, urls=urls, wait=wait, threads=16)
        theirs = repeat(a.slow_repeat, "bulk_official", emu, urls=urls, wait=wait)
        rep.row(
            "bulk scan and wait (latency 80 ms)",
            "wall s, bulk_scan(concurrency=None)",
            med(ours, "wall"),
            med(theirs, "wall"),
            50,
            "official bulk_scan_and_get_results",
        )
        rep.row(
            "bulk scan and wait (latency 80 ms)",
            "wall s, bulk_scan(concurrency=None)",
            med(ours, "wall"),
            med(theirs16, "wall"),
            3,
            "official in 16 threads",
        )
        rep.notes.append(
            f"bulk scan: every scan takes {dur:g} s on the emulator, so no client can finish in under {dur:g} s; the official "
            f"sequential run took {med(theirs, 'wall'):.1f} s, which caps any client's ratio at about "
            f"{med(theirs, 'wall') / dur:.1f}x "
            f"(and {med(theirs16, 'wall') / dur:.1f}x against the 16-thread run). Errors: urlscan-rs {med(ours, 'errors'):.0f}, "
            f"official {med(theirs, 'errors'):.0f}, official 16 threads {med(theirs16, 'errors'):.0f}."
        )


def w_threads(a: argparse.Namespace, rep: Report, ceil: Path | None) -> None:
    n = 80 if a.quick else 400
    log(f"threads: {n} sync result() calls, latency 20 ms, 8 threads vs 1")
    with Emu(scans=n + 50, seed=6, latency={"result": 0.02}) as emu:
        uf = uuids_file(emu, n, "threads")
        one = repeat(a.repeat, "threads_rs", emu, uuids_file=uf, n=n, threads=1)
        eight = repeat(a.repeat, "threads_rs", emu, uuids_file=uf, n=n, threads=8)
        rep.row(
            "8 Python threads, sync calls (latency 20 ms)",
            f"wall s / {n} calls",
            med(eight, "wall"),
            med(one, "wall"),
            6,
            "1 thread",
        )


def w_fanout(a: argparse.Namespace, rep: Report, ceil: Path | None) -> None:
    n = 1000
    log(f"async fan-out: {n} concurrent result() awaits, CPU regime")
    with Emu(scans=n + 50, seed=7) as emu:
        uf = uuids_file(emu, n, "fanout")
        ours = repeat(a.repeat, "fanout_rs", emu, uuids_file=uf, n=n)
        rust = ceiling_median(ceil, a.repeat, "fanout", emu.url, emu.key, n)
        if rust is not None:
            # target: Python costs at most 1.3x the pure-Rust CPU, i.e. rust/ours >= 1/1.3
            rep.row(
                "async fan-out, 1,000 result() awaits (CPU)",
                "client CPU s",
                med(ours, "cpu"),
                rust,
                1 / 1.3,
                "same loop in pure Rust",
            )
            rep.notes.append(
                f"async fan-out: Python {med(ours, 'cpu'):.3f} CPU s vs pure Rust {rust:.3f} CPU s = "
                f"{med(ours, 'cpu') / rust:.2f}x "
                "(target at most 1.3x; CPU from /proc ticks, 10 ms resolution, for the Rust side)."
            )


def w_quota(a: argparse.Namespace, rep: Report, ceil: Path | None) -> None:
    limit, secs = 20, 1.0
    n = 100 if a.quick else 300
    spec = {"1s": limit}
    log(f"quota pacing: {n} scans against {spec} per window (public)")
    with Emu(scans=10, seed=8, rate_limits={**UNLIMITED, "public": {"minute": None, "hour": None, "day": None, **spec}}) as emu:
        urls = [f"https://quota-{i}.example.org/" for i in range(n)]
        runs = repeat(1, "quota_rs", emu, urls=urls, concurrency=None, window=secs)
        r = runs[0]
        stats = emu.cmd("stats")
        # The job starts on a window boundary; each window it touches offers `limit` scans.
        windows = math.ceil(r["job_wall"] / secs - 1e-9)
        used = r["count"] / (limit * windows)
        rep.extra.append(
            (
                f"quota pacing ({limit} public scans per {secs:g} s window, bulk_scan(concurrency=None))",
                f"{r['count']} of {n} scans accepted in {r['job_wall']:.2f} s ({windows} windows): "
                f"{100 * used:.1f}% of the quota used (target >= 95%: {'PASS' if used >= 0.95 else 'MISS'}); "
                f"429s surfaced: {r['rate_limited']} (target 0: {'PASS' if r['rate_limited'] == 0 else 'MISS'}); "
                f"429s the emulator sent: {stats.get('throttled', '?')}; other errors: {r['other_errors']}",
            )
        )


def w_quota_processes(a: argparse.Namespace, rep: Report, ceil: Path | None) -> None:
    """Several processes share one key: each paces itself from the service's X-Rate-Limit-* answers."""
    procs, limit, secs = 4, 20, 1.0
    n = 100 if a.quick else 300
    spec = {"1s": limit}
    log(f"quota pacing across {procs} processes sharing one key: {n} scans against {spec} per window (public)")
    with Emu(scans=10, seed=8, rate_limits={**UNLIMITED, "public": {"minute": None, "hour": None, "day": None, **spec}}) as emu:
        start_at = math.ceil(time.time() / secs) * secs + 3 * secs  # on a window boundary, after start-up
        running = []
        for p in range(procs):
            urls = [f"https://quota-{p}-{i}.example.org/" for i in range(n // procs)]
            cfg = dict(url=emu.url, key=emu.key, urls=urls, concurrency=None, window=secs, start_at=start_at)
            running.append(
                subprocess.Popen(
                    [PY, str(HERE / "workloads.py"), "quota_rs", json.dumps(cfg)],
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                )
            )
        outs = []
        for pr in running:
            out, err = pr.communicate(timeout=600)
            if pr.returncode != 0:
                raise RuntimeError(f"quota_rs failed:\n{err[-3000:]}")
            outs.append(json.loads(out.strip().splitlines()[-1]))
        stats = emu.cmd("stats")
    accepted = sum(o["count"] for o in outs)
    surfaced = sum(o["rate_limited"] for o in outs)
    others = sum(o["other_errors"] for o in outs)
    span = max(o["ended_at"] for o in outs) - start_at
    windows = math.ceil(span / secs - 1e-9)
    used = accepted / (limit * windows)
    log(f"  => {accepted} accepted in {span:.2f} s ({windows} windows): {100 * used:.1f}% used, {surfaced} 429s surfaced")
    rep.extra.append(
        (
            f"quota pacing, {procs} processes sharing one key ({limit} public scans per {secs:g} s window)",
            f"{accepted} of {n // procs * procs} scans accepted in {span:.2f} s ({windows} windows): "
            f"{100 * used:.1f}% of the quota used (target >= 95%: {'PASS' if used >= 0.95 else 'MISS'}); "
            f"429s surfaced: {surfaced} (target 0: {'PASS' if surfaced == 0 else 'MISS'}); "
            f"429s the emulator sent (answered by waiting and retrying): {stats.get('throttled', '?')}; other errors: {others}",
        )
    )


def w_emulator(a: argparse.Namespace, rep: Report, ceil: Path | None) -> None:
    log("emulator throughput on a trivial endpoint (GET /api/v1/quotas/, 64 concurrent)")
    with Emu(scans=10, seed=9) as emu:
        reqs = 5_000 if a.quick else 30_000
        rate = ceiling_median(ceil, 3, "trivial", emu.url, emu.key, reqs, 64, of=lambda run: run["count"] / run["wall"])
        if rate is not None:
            emu_rate.append(rate)
            rep.extra.append(
                ("emulator: trivial endpoint throughput (separate process, client in Rust)", f"{rate:,.0f} requests/s")
            )
    if ceil is not None:
        scans = 10_000 if a.quick else 100_000
        e = ceiling(ceil, "emulator", scans, 1000)
        if e:
            rep.extra.append(
                (
                    f"emulator in-process: corpus of {scans} scans",
                    f"build {e['build']:.2f} s; search page (size 100, search_after walk of {e['pages']} pages) "
                    f"{e['per_page'] * 1e6:.0f} us",
                )
            )


def _usage(pid: int) -> tuple[float, float]:
    """CPU seconds (all threads) and peak RSS in MB of a running process, from /proc (Linux)."""
    stat = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    cpu = (int(stat[11]) + int(stat[12])) / os.sysconf("SC_CLK_TCK")
    status = Path(f"/proc/{pid}/status").read_text()
    hwm = next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:"))
    return cpu, int(hwm) / 1024


def w_emulator_start(a: argparse.Namespace, rep: Report, ceil: Path | None) -> None:
    """The emulator's start at its documented maximum, 100,000 scans (the corpus built before it
    serves), as a test suite starts it: `Emulator(scans=100_000)` in a process of its own. The
    target (issue 52) is 10 s on this machine's two cores. Full size even with --quick."""
    scans = 100_000
    log(f"emulator start: {scans} scans, {a.repeat} run(s)")
    runs: list[tuple[float, float, float]] = []
    for _ in range(a.repeat):
        with Emu(scans=scans, seed=1) as emu:
            cpu, rss = _usage(emu.proc.pid)  # it does nothing more until asked
            runs.append((emu.build_seconds, cpu, rss))
            log(f"    start #{len(runs)}: {emu.build_seconds:.2f} s wall, {cpu:.1f} s CPU, peak RSS {rss:.0f} MB")
    wall = statistics.median(r[0] for r in runs)
    verdict = "PASS" if wall < 10 else "MISS"
    rep.extra.append(
        (
            f"emulator start with {scans:,} scans (the documented maximum): Emulator(scans={scans}) in its own process",
            f"{wall:.2f} s wall ({verdict}, target < 10 s; median of {len(runs)}, from {min(r[0] for r in runs):.2f} "
            f"to {max(r[0] for r in runs):.2f} s); {statistics.median(r[1] for r in runs):.1f} s CPU; "
            f"peak RSS {statistics.median(r[2] for r in runs):,.0f} MB",
        )
    )


class BlackHole:
    """A TCP endpoint that accepts connections and never answers: a webhook receiver gone dark."""

    def __init__(self) -> None:
        import socket
        import threading

        self.sock = socket.create_server(("127.0.0.1", 0), backlog=1024)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/hook"
        self.conns: list[Any] = []
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(conn)  # held open, never read, never answered

    def __enter__(self) -> BlackHole:
        return self

    def __exit__(self, *exc: object) -> None:
        self.sock.close()
        for c in self.conns:
            c.close()


def w_webhooks(a: argparse.Namespace, rep: Report, ceil: Path | None) -> None:
    import urlscan_rs

    sys.path.insert(0, str(ROOT / "examples"))
    from alerting import subscribe  # type: ignore[import-not-found]  # examples/ is no package

    hooks = 20 if a.quick else 50
    rounds = 10 if a.quick else 40
    per = 25
    log(f"search latency with {hooks} webhook deliveries hanging on an endpoint that never answers, against none")
    cfg: dict[str, Any] = dict(scans=2000, seed=5, scan_duration=0.0, webhook_timeout=3600.0)
    with BlackHole() as hole, Emu(**cfg) as dark, Emu(**cfg) as calm:
        clients = {"dark": urlscan_rs.Client(dark.key, base_url=dark.url), "calm": urlscan_rs.Client(calm.key, base_url=calm.url)}
        try:
            c = clients["dark"]
            # a webhook channel, a saved search and a live subscription on it, as the alerting example makes them
            subscribe(c, query="task.tags:bench", webhook_url=hole.url, name="bench")
            for name, emu in (("dark", dark), ("calm", calm)):  # the same scans on both sides
                for i in range(hooks):
                    clients[name].scan(f"https://bench-{i}.example.com/", visibility="public", tags=["bench"])
                    emu.cmd("advance 1")  # one live batch, so one notification and one delivery, per scan
            deadline = time.monotonic() + 30
            while len(hole.conns) < hooks and time.monotonic() < deadline:
                time.sleep(0.05)
            held = len(hole.conns)
            lat: dict[str, list[float]] = {"dark": [], "calm": []}
            for r in range(rounds):  # interleaved, so drift on the machine hits both sides alike
                for name in ("dark", "calm") if r % 2 == 0 else ("calm", "dark"):
                    for _ in range(per):
                        t = time.perf_counter()
                        n = sum(1 for _ in clients[name].search("", limit=100))
                        lat[name].append(time.perf_counter() - t)
                        assert n == 100
        finally:
            for cl in clients.values():
                cl.close()
    d, q = statistics.median(lat["dark"]), statistics.median(lat["calm"])
    d95 = sorted(lat["dark"])[int(0.95 * len(lat["dark"]))]
    q95 = sorted(lat["calm"])[int(0.95 * len(lat["calm"]))]
    ok = "PASS" if d <= 1.10 * q else "MISS"
    log(f"  => webhooks: median {d * 1000:.2f} ms (dark) vs {q * 1000:.2f} ms (calm); {held} connections held")
    rep.extra.append(
        (
            f"search latency with {held} webhook deliveries hanging (endpoint never answers), {len(lat['dark'])} searches",
            f"median {d * 1000:.2f} ms vs {q * 1000:.2f} ms without: {d / q:.3f}x ({ok}, target <= 1.10x); "
            f"p95 {d95 * 1000:.2f} ms vs {q95 * 1000:.2f} ms",
        )
    )


def w_import(a: argparse.Namespace, rep: Report, ceil: Path | None) -> None:
    def t(mod: str) -> float:
        code = f"import time; t = time.perf_counter(); import {mod}; print(time.perf_counter() - t)"
        return float(subprocess.run([PY, "-c", code], capture_output=True, text=True, check=True).stdout)

    # Both packages timed as installed ones load: from bytecode. pip compiles
    # an installed wheel; an editable install writes its bytecode on first
    # import unless PYTHONDONTWRITEBYTECODE is set, which would otherwise
    # time a compile of the sources on every import.
    for mod in ("urlscan_rs", "urlscan"):
        pkg = subprocess.run(
            [PY, "-c", f"import {mod}, os; print(os.path.dirname({mod}.__file__))"], capture_output=True, text=True, check=True
        ).stdout.strip()
        subprocess.run([PY, "-m", "compileall", "-q", pkg], capture_output=True, check=False)
    ours = statistics.median(t("urlscan_rs") for _ in range(7))
    theirs = statistics.median(t("urlscan") for _ in range(7))
    rep.extra.append(
        (
            "import time (median of 7 fresh processes)",
            f"urlscan_rs {ours * 1000:.1f} ms; urlscan (official) {theirs * 1000:.1f} ms",
        )
    )


def instructions(name: str, emu: Emu, per: int, **cfg: Any) -> float | None:
    """Instructions the client process executes per item of a workload, counted by callgrind
    (None without valgrind): a process running the workload three times less one running it
    once, over two runs' items (``per`` each), so that start-up and imports cancel out. Counts
    do not move with the machine's load, as times do; they do not see what a cache miss costs."""
    import re
    import shutil

    if shutil.which("valgrind") is None:
        return None
    cfg.update(url=emu.url, key=emu.key)
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    counts = []
    for runs in (1, 3):
        out = OUT / f"callgrind.{name}.{runs}"
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", PY, str(HERE / "workloads.py"), name]
        p = subprocess.run([*cmd, json.dumps({**cfg, "runs": runs})], capture_output=True, text=True, env=env)
        out.unlink(missing_ok=True)
        found = re.search(r"Collected : (\d+)", p.stderr)
        if p.returncode != 0 or found is None:
            raise RuntimeError(f"{name} under callgrind failed:\n{p.stderr[-3000:]}")
        counts.append(int(found.group(1)))
    return (counts[1] - counts[0]) / (2 * per)


def w_otel(a: argparse.Namespace, rep: Report, ceil: Path | None) -> None:
    """What spans and metrics (UrlscanInstrumentor().instrument()) cost the client's CPU, against
    the same client in the same process setup (the OpenTelemetry SDK imported and its providers
    made) without them: the search export with pages of 100 (the search workload's) and with
    the pages a walk asks for by default, and the result fetch loop. Beside them, urlscan-rs's
    own part: instrumented with the API's no-op providers (its records, their handing over on
    the calling thread as each call ends, the spans' attributes), the rest being the SDK's
    making of the spans and metrics. The sides alternate run by run, so that the machine's
    drift falls on all. A last pair of runs measures what the SDK's presence alone costs (no
    SDK at all against the SDK set up)."""
    hits, n = (10_000, 100) if a.quick else (100_000, 500)
    log(f"telemetry cost: search export of {hits} hits, {n} results fetched one by one, spans and metrics on and off")
    target = 1 / 1.10

    def alternate(emu: Emu, name: str, label: str, **cfg: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        off: list[dict[str, Any]] = []
        own: list[dict[str, Any]] = []
        on: list[dict[str, Any]] = []
        for _ in range(a.repeat):
            off += repeat(1, name, emu, otel="sdk", **cfg)
            own += repeat(1, name, emu, otel="own", **cfg)
            on += repeat(1, name, emu, otel="on", **cfg)

        # Each set ran back to back: the median of their ratios is less moved by the drift.
        def paired(xs: list[dict[str, Any]]) -> float:
            return statistics.median(b["cpu"] / a_["cpu"] for a_, b in zip(off, xs, strict=True)) - 1

        what = f"telemetry cost, {label}: more client CPU, median of the runs' ratios to telemetry off"
        rep.extra.append(
            (what, f"{paired(on):+.1%} in all; urlscan-rs's own part (no-op providers) {paired(own):+.1%}, the SDK's the rest")
        )
        return off, on

    with Emu(scans=min(hits + 500, 100_000), seed=1) as emu:
        for size, what in ((100, "pages of 100"), (None, "default pages")):
            off, on = alternate(emu, "search_rs", f"search export ({what})", hits=hits, size=size)
            rep.row(
                "telemetry cost",
                f"client CPU s / {hits} hits ({what}), spans and metrics on (target: at most 10% more)",
                med(on, "cpu"),
                med(off, "cpu"),
                target,
                "telemetry off (SDK set up)",
            )
    with Emu(scans=n + 50, seed=3, result_size=[100_000, 2_000_000]) as emu:
        uf = uuids_file(emu, n, "results")
        off, on = alternate(emu, "results_rs_loop", "result fetch loop", uuids_file=uf, n=n)
        rep.row(
            "telemetry cost",
            f"client CPU s / {n} results, result() loop, spans and metrics on (target: at most 10% more)",
            med(on, "cpu"),
            med(off, "cpu"),
            target,
            "telemetry off (SDK set up)",
        )
        bare: list[dict[str, Any]] = []
        sdk: list[dict[str, Any]] = []
        for _ in range(a.repeat):
            bare += repeat(1, "results_rs_loop", emu, uuids_file=uf, n=n)
            sdk += repeat(1, "results_rs_loop", emu, uuids_file=uf, n=n, otel="sdk")
        # Instructions, which the machine's load does not move: how much of the cost is
        # urlscan-rs's own recording, and how much the SDK's making of the spans and metrics.
        m = 40
        counted = {mode: instructions("results_rs_loop", emu, m, uuids_file=uf, n=m, otel=mode) for mode in ("sdk", "own", "on")}
        if None not in counted.values():
            base, own, full = counted["sdk"], counted["own"], counted["on"]
            assert base and own and full
            rep.extra.append(
                (
                    f"telemetry cost in instructions (callgrind, {m} results, per result() call)",
                    f"{base / 1e6:.2f} M off; urlscan-rs's own part {(own - base) / 1e3:+.0f} k ({own / base - 1:+.1%}); "
                    f"with the SDK making the two spans and the metric {(full - base) / 1e3:+.0f} k ({full / base - 1:+.1%})",
                )
            )
        else:
            rep.extra.append(("telemetry cost in instructions", "not counted: valgrind is not installed"))
        rep.extra.append(
            (
                f"telemetry cost: the OpenTelemetry SDK set up but urlscan-rs not instrumented, {n} results",
                f"client CPU {med(sdk, 'cpu'):.3f} s against {med(bare, 'cpu'):.3f} s with no SDK in the process "
                f"({med(sdk, 'cpu') / med(bare, 'cpu') - 1:+.1%}: the SDK in the process, not urlscan-rs)",
            )
        )


def w_wheel(a: argparse.Namespace, rep: Report, ceil: Path | None) -> None:
    wheels = OUT / "wheels"
    if not a.quick or not list(wheels.glob("*.whl")):
        log("building the release wheel (maturin build --release)")
        for w in wheels.glob("*.whl"):
            w.unlink()
        subprocess.run(["maturin", "build", "--release", "-o", str(wheels)], cwd=ROOT, capture_output=True, check=False)
    for w in sorted(wheels.glob("*.whl")):
        rep.extra.append((f"wheel size ({w.name})", f"{w.stat().st_size / 1e6:.2f} MB"))


rates: list[tuple[str, float]] = []
emu_rate: list[float] = []

WORKLOADS = {
    # CPU-regime workloads first, while nothing else runs; the latency ones mostly wait.
    "search_cpu": w_search_cpu,
    "results_cpu": w_results_cpu,
    "tables": w_tables,
    "portable": w_portable,
    "datadumps": w_datadumps,
    "json_layout": w_json_layout,
    "fanout": w_fanout,
    "emulator": w_emulator,
    "emulator_start": w_emulator_start,
    "import": w_import,
    "threads": w_threads,
    "search_latency": w_search_latency,
    "results_latency": w_results_latency,
    "bulk": w_bulk,
    "quota": w_quota,
    "quota_processes": w_quota_processes,
    "wheel": w_wheel,
    "webhooks": w_webhooks,
    "otel": w_otel,
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small sizes, one run each: a smoke test")
    ap.add_argument("--repeat", type=int, default=None, help="runs per side (default 3, quick 1)")
    ap.add_argument("--slow-repeat", type=int, default=None, help="runs of the slow official sequential sides (default 1)")
    ap.add_argument("--only", default="", help="comma-separated workloads: " + ", ".join(WORKLOADS))
    ap.add_argument("--output", default=str(HERE / "RESULTS.md"))
    ap.add_argument(
        "--portable",
        default="",
        help="for --only portable: the extension of a portable build, compared with the installed one "
        "(cargo build --release --lib --features python,portable; copy target/release/liburlscan_rs.so)",
    )
    a = ap.parse_args()
    a.repeat = a.repeat or (1 if a.quick else 3)
    a.slow_repeat = a.slow_repeat or 1
    OUT.mkdir(exist_ok=True)
    chosen = [w for w in (a.only.split(",") if a.only else WORKLOADS) if w]
    for w in chosen:
        if w not in WORKLOADS:
            ap.error(f"unknown workload {w!r}")
    ceil = ceiling_bin() if {"search_cpu", "results_cpu", "fanout", "emulator"} & set(chosen) else None
    rep = Report()
    started = time.monotonic()
    for w in chosen:
        try:
            WORKLOADS[w](a, rep, ceil)
        except Exception as e:  # one broken workload must not lose the others
            log(f"  {w} FAILED: {e}")
            rep.notes.append(f"{w}: failed: {str(e)[-500:]}")
    if emu_rate and rates:
        for name, r in rates:
            ok = "PASS" if emu_rate[0] >= 10 * r else "MISS"
            rep.extra.append(
                (
                    f"emulator headroom vs {name}",
                    f"{emu_rate[0] / r:.1f}x the client's request rate ({r:.0f}/s) ({ok}, target >= 10x)",
                )
            )
    facts = machine(a)
    facts.append(("suite wall time", f"{time.monotonic() - started:.0f} s"))
    out = Path(a.output)
    write_results(rep, facts, out)
    log(f"wrote {out}")
    print(out.read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
