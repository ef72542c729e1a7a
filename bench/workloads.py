"""One side of one workload, run in a fresh process by ``bench/run.py``.

    python bench/workloads.py SIDE '{"url": ..., "key": ..., ...}'

Prints one JSON line: ``wall`` (seconds), ``cpu`` (``time.process_time()``
of this process, every thread), ``cpu_main`` (the main thread's alone),
``rss_start_kb`` (after imports and set-up),
``rss_peak_kb`` (VmHWM), ``count`` (items handled) and side-specific extras.
Each library is used the way its documentation shows.
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any


def _status_kb(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def _rs_client(cfg: dict[str, Any]) -> Any:
    import urlscan_rs

    if cfg.get("otel"):
        _instrument(cfg["otel"])
    return urlscan_rs.Client(cfg["key"], base_url=cfg["url"], **cfg.get("client", {}))


def _instrument(mode: str) -> None:
    """The OpenTelemetry SDK set up as an application would have it (each span exported as it
    ends, to an exporter that drops it; the metrics aggregated), and urlscan-rs instrumented
    (``on``) or not (``sdk``); ``own``: instrumented with the API's no-op providers instead
    (what urlscan-rs itself costs: the records, handing them over, the spans' attributes and
    facts, without the SDK's making of spans and metrics)."""
    from opentelemetry import metrics, trace
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult

    from urlscan_rs.otel import UrlscanInstrumentor

    class Dropped(SpanExporter):
        def export(self, spans: Any) -> SpanExportResult:
            return SpanExportResult.SUCCESS

    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(Dropped()))
    meter_provider = MeterProvider(metric_readers=[InMemoryMetricReader()])
    if mode == "on":
        UrlscanInstrumentor().instrument(tracer_provider=tracer_provider, meter_provider=meter_provider)
    elif mode == "own":
        UrlscanInstrumentor().instrument(tracer_provider=trace.NoOpTracerProvider(), meter_provider=metrics.NoOpMeterProvider())


def _official_client(cfg: dict[str, Any]) -> Any:
    import urlscan

    return urlscan.Client(cfg["key"], base_url=cfg["url"])


# --- search export --------------------------------------------------------------------------------


def _export(client: Any, cfg: dict[str, Any], read: Callable[[Any], int]) -> Callable[[], dict[str, Any]]:
    """Every hit of the search, reading what `read` reads of each (it gives a number to sum)."""

    # `parallel` (ours only) shards the walk; by default both walk one cursor. Both ask for pages of
    # 100 unless `size` says otherwise (ours only: None lets the pages grow to what the key allows),
    # and stop at `hits` unless `limit` says otherwise (None: every hit).
    more = {"parallel": cfg["parallel"]} if "parallel" in cfg else {}
    size, limit = cfg.get("size", 100), cfg.get("limit", cfg["hits"])

    def run() -> dict[str, Any]:
        n, chars = 0, 0
        for hit in client.search(cfg.get("q", ""), size=size, limit=limit, **more):
            n += 1
            chars += read(hit)
        return {"count": n, "chars": chars}

    return run


# The export reads the hit's id, page domain and scan time; the walk reads nothing.


def _three_rs(hit: Any) -> int:
    t = hit.task.time  # an aware datetime
    return len(hit.id) + len(hit.page.domain or "") + (t is not None)


def _three_official(hit: dict[str, Any]) -> int:
    t = hit["task"].get("time")  # the wire string
    return len(hit["_id"]) + len(hit["page"].get("domain") or "") + (t is not None)


def search_rs(cfg: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    return _export(_rs_client(cfg), cfg, _three_rs)


def search_official(cfg: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    return _export(_official_client(cfg), cfg, _three_official)


def walk_rs(cfg: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    return _export(_rs_client(cfg), cfg, lambda hit: 0)


def walk_official(cfg: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    return _export(_official_client(cfg), cfg, lambda hit: 0)


# --- tables ---------------------------------------------------------------------------------------

# The nine columns of a search export to a DataFrame: the official client's documented recipe
# (iterate, then pandas.json_normalize) against ours, built in Rust.
NINE_WIRE = ["_id", "page.domain", "page.ip", "page.country", "page.asn", "page.status", "task.time", "task.url", "stats.uniqIPs"]
NINE_RS = ["uuid", "domain", "ip", "country", "asn", "status", "time", "submitted_url", "uniq_ips"]


def table_pandas_official(cfg: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    import pandas as pd

    client = _official_client(cfg)

    def run() -> dict[str, Any]:
        hits = list(client.search(cfg.get("q", ""), size=100, limit=cfg["hits"]))
        df = pd.json_normalize(hits)[NINE_WIRE]
        return {"count": len(df)}

    return run


def table_pandas_rs(cfg: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    import pandas  # noqa: F401  (imported before the timed run, as the official side's)
    import pyarrow  # noqa: F401

    client = _rs_client(cfg)

    def run() -> dict[str, Any]:
        df = client.search(cfg.get("q", ""), size=cfg.get("size", 100), limit=cfg["hits"]).to_pandas(columns=NINE_RS)
        return {"count": len(df)}

    return run


def table_arrow_rs(cfg: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    import pyarrow  # noqa: F401  (imported before the timed run)

    client = _rs_client(cfg)

    def run() -> dict[str, Any]:
        t = client.search(cfg.get("q", ""), size=cfg.get("size", 100), limit=cfg["hits"]).to_arrow(columns=NINE_RS)
        return {"count": t.num_rows}

    return run


def table_arrow_all_rs(cfg: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    """Every SCANS column, the walk's own page size: the table's size, for its peak memory."""
    import pyarrow  # noqa: F401  (imported before the timed run)

    client = _rs_client(cfg)

    def run() -> dict[str, Any]:
        t = client.search(cfg.get("q", ""), limit=cfg["hits"]).to_arrow()
        return {"count": t.num_rows, "nbytes": t.nbytes, "chunks": t.column(0).num_chunks}

    return run


def table_parquet_rs(cfg: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    import os
    import tempfile

    client = _rs_client(cfg)

    def run() -> dict[str, Any]:
        with tempfile.TemporaryDirectory() as d:
            n = client.search(cfg.get("q", ""), size=100, limit=cfg["hits"]).to_parquet(os.path.join(d, "x.parquet"))
        return {"count": n}

    return run


def table_results_official(cfg: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    import pandas as pd

    client, uuids = _official_client(cfg), cfg["uuids"]

    def run() -> dict[str, Any]:
        docs = [client.get_result(u) for u in uuids]
        df = pd.json_normalize(docs)
        return {"count": len(df)}

    return run


# One path into data.requests[] of each result: every request's URL.
def projection_official(cfg: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    client, uuids = _official_client(cfg), cfg["uuids"]

    def run() -> dict[str, Any]:
        urls = []
        for u in uuids:
            doc = client.get_result(u)
            urls.append([r.get("request", {}).get("request", {}).get("url") for r in doc["data"]["requests"]])
        return {"count": len(urls), "urls": sum(len(x) for x in urls)}

    return run


def projection_rs(cfg: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    import pyarrow  # noqa: F401  (imported before the timed run)

    client, uuids = _rs_client(cfg), cfg["uuids"]

    def run() -> dict[str, Any]:
        t = client.results(uuids, concurrency=None).to_arrow(columns=["data.requests[].request.request.url"])
        urls = t.column(0).combine_chunks().flatten()
        return {"count": t.num_rows, "urls": len(urls)}

    return run


def table_results_rs(cfg: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    import pyarrow  # noqa: F401  (imported before the timed run)

    client, uuids = _rs_client(cfg), cfg["uuids"]

    def run() -> dict[str, Any]:
        t = client.results(uuids, concurrency=None).to_arrow()
        return {"count": t.num_rows}

    return run


# --- data dumps -----------------------------------------------------------------------------------
# The files of `paths` downloaded and made Parquet: the official client's download_file, then its
# extract, then pandas.read_json(lines=True) and to_parquet, against download() and the folder
# converter (decoded in Rust, files in parallel). `local` instead converts files already on disk.


def _uuid_digest(uuids: list[str]) -> str:
    import hashlib

    return hashlib.sha256("\n".join(sorted(uuids)).encode()).hexdigest()[:16]


def dumps_official(cfg: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    import os
    import tempfile

    import pandas as pd
    import pyarrow  # noqa: F401  (to_parquet's engine, imported before the timed run)
    import urlscan
    from urlscan.utils import extract

    client = urlscan.Pro(cfg["key"], base_url=cfg["url"])

    def run() -> dict[str, Any]:
        rows = 0
        with tempfile.TemporaryDirectory() as d:
            for i, path in enumerate(cfg["paths"]):
                gz = os.path.join(d, f"{i}-{os.path.basename(path)}")
                with open(gz, "wb") as f:
                    client.datadump.download_file(path, f)
                out = os.path.join(d, f"x{i}")
                os.mkdir(out)
                extract(gz, out)
                (name,) = os.listdir(out)
                df = pd.read_json(os.path.join(out, name), lines=True)
                # to_parquet refuses object columns of mixed types (a hit's `sort` holds a number
                # and a string; nested objects differ between rows): written as text instead.
                mixed = [c for c in df.columns if df[c].dtype == object]
                df[mixed] = df[mixed].astype(str)
                df.to_parquet(os.path.join(d, f"{i}.parquet"))
                rows += len(df)
        return {"count": rows}

    return run


def dumps_rs(cfg: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    import tempfile
    from pathlib import Path

    from urlscan_rs import datadumps

    client = _rs_client(cfg)

    def run() -> dict[str, Any]:
        with tempfile.TemporaryDirectory() as d:
            src = Path(cfg["local"]) if cfg.get("local") else Path(d) / "dumps"
            for path in cfg["paths"] if not cfg.get("local") else []:
                (src / path).parent.mkdir(parents=True, exist_ok=True)
                client.datadumps.download(path, src / path)
            report = datadumps.to_parquet(src, Path(d) / "lake")
        return {"count": report.rows}

    return run


def dumps_single(cfg: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    """The rows of the files under `local`, read one after the other on one machine (uuid digest)."""
    from pathlib import Path

    from urlscan_rs import datadumps

    def run() -> dict[str, Any]:
        uuids = []
        for f in sorted(Path(cfg["local"]).rglob(f"{cfg['type']}/**/*.gz")):
            uuids += datadumps.read(f).to_arrow(columns=["uuid"]).column("uuid").to_pylist()
        return {"count": len(uuids), "digest": _uuid_digest(uuids)}

    return run


def dumps_spark(cfg: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    """The same files through the Spark data source, Spark in local mode with two task slots."""
    import os

    os.environ["PYSPARK_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    from urlscan_rs.spark import DataDumpsSource

    spark = SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false").getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    spark.dataSource.register(DataDumpsSource)

    def run() -> dict[str, Any]:
        df = spark.read.format("urlscan-datadumps").option("path", cfg["local"]).option("type", cfg["type"]).load()
        uuids = df.select("uuid").toArrow().column("uuid").to_pylist()
        return {"count": len(uuids), "digest": _uuid_digest(uuids), "partitions": df.rdd.getNumPartitions()}

    return run


# --- result fetch ---------------------------------------------------------------------------------

# Ten fields a playbook reads of a result, across page, verdicts, stats, lists and task (each
# side sums the same numbers from them).


def _ten_rs(r: Any) -> int:
    page, overall, stats, task = r.page, r.verdicts.overall, r.stats, r.task
    return (
        len(page.domain or "")
        + len(page.ip or "")
        + len(page.country or "")
        + int(bool(overall.malicious))
        + (overall.score or 0)
        + (stats.malicious or 0)
        + (stats.uniq_countries or 0)
        + len(r.lists.ips)
        + (task.time is not None)
        + len(task.url or "")
    )


def _ten_official(d: dict[str, Any]) -> int:
    page, overall, stats, task = d["page"], d["verdicts"]["overall"], d["stats"], d["task"]
    return (
        len(page.get("domain") or "")
        + len(page.get("ip") or "")
        + len(page.get("country") or "")
        + int(bool(overall.get("malicious")))
        + (overall.get("score") or 0)
        + (stats.get("malicious") or 0)
        + (stats.get("uniqCountries") or 0)
        + len(d["lists"].get("ips") or [])
        + (task.get("time") is not None)
        + len(task.get("url") or "")
    )


def _fetch_each(
    cfg: dict[str, Any], fetch: Callable[[str], Any], few: Callable[[Any], int], threads: int | None = None
) -> Callable[[], dict[str, Any]]:
    """Every result, reading a few fields of each: one after the other, or on a pool of ``threads``."""

    def read(uuid: str) -> int:
        return few(fetch(uuid))

    def run() -> dict[str, Any]:
        if threads is None:
            s = sum(map(read, cfg["uuids"]))
        else:
            with ThreadPoolExecutor(threads) as pool:
                s = sum(pool.map(read, cfg["uuids"]))
        return {"count": len(cfg["uuids"]), "fields": s}

    return run


def results_rs_loop(cfg: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    return _fetch_each(cfg, _rs_client(cfg).result, _ten_rs)


def results_rs_batch(cfg: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    client = _rs_client(cfg)

    def run() -> dict[str, Any]:
        out = client.results(cfg["uuids"], concurrency=cfg.get("concurrency", 8))
        errors = [r for r in out if isinstance(r, Exception)]
        s = sum(_ten_rs(r) for r in out if not isinstance(r, Exception))
        return {"count": len(out) - len(errors), "errors": len(errors), "fields": s}

    return run


def results_official_loop(cfg: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    return _fetch_each(cfg, _official_client(cfg).get_result, _ten_official)


def results_official_threads(cfg: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    return _fetch_each(cfg, _official_client(cfg).get_result, _ten_official, threads=cfg.get("threads", 16))


# --- bulk scan and wait ---------------------------------------------------------------------------


# cfg["wait"]: the polling rules every side follows, as keyword arguments (timeout, initial_wait, interval)


def bulk_rs(cfg: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    client = _rs_client(cfg)

    def run() -> dict[str, Any]:
        out = client.bulk_scan(cfg["urls"], concurrency=cfg.get("concurrency", 8), visibility="public", **cfg["wait"])
        ok = sum(1 for o in out if o.error is None and o.result is not None)
        return {"count": ok, "errors": len(out) - ok}

    return run


def bulk_official(cfg: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    client = _official_client(cfg)

    def run() -> dict[str, Any]:
        out = client.bulk_scan_and_get_results(cfg["urls"], visibility="public", **cfg["wait"])
        ok = sum(1 for _, r in out if not isinstance(r, Exception))
        return {"count": ok, "errors": len(out) - ok}

    return run


def bulk_official_threads(cfg: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    """16 threads: submit every URL, then wait for and fetch every result (same polling rules)."""
    client = _official_client(cfg)

    def one_wait(sub: Any) -> Any:
        if isinstance(sub, Exception):
            return sub
        try:
            client.wait_for_result(sub["uuid"], **cfg["wait"])
            return client.get_result(sub["uuid"])
        except Exception as e:
            return e

    def one_scan(url: str) -> Any:
        try:
            return client.scan(url, visibility="public")
        except Exception as e:
            return e

    def run() -> dict[str, Any]:
        with ThreadPoolExecutor(cfg.get("threads", 16)) as pool:
            subs = list(pool.map(one_scan, cfg["urls"]))
            out = list(pool.map(one_wait, subs))
        ok = sum(1 for r in out if not isinstance(r, Exception))
        return {"count": ok, "errors": len(out) - ok}

    return run


# --- threads and async ----------------------------------------------------------------------------


def threads_rs(cfg: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    client = _rs_client(cfg)
    n = cfg["threads"]
    uuids = cfg["uuids"]

    def run() -> dict[str, Any]:
        done = [0] * n

        def worker(i: int) -> None:
            for u in uuids[i::n]:
                client.result(u)
                done[i] += 1

        ts = [threading.Thread(target=worker, args=(i,)) for i in range(n)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        return {"count": sum(done)}

    return run


def fanout_rs(cfg: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    import urlscan_rs

    async def main() -> int:
        async with urlscan_rs.AsyncClient(cfg["key"], base_url=cfg["url"]) as client:
            results = await asyncio.gather(*(client.result(u) for u in cfg["uuids"]))
            return len(results)

    def run() -> dict[str, Any]:
        return {"count": asyncio.run(main())}

    return run


# --- quota pacing ---------------------------------------------------------------------------------


def quota_rs(cfg: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    import urlscan_rs

    client = _rs_client(cfg)

    def run() -> dict[str, Any]:
        window = cfg.get("window", 1.0)
        start_at = cfg.get("start_at")  # several processes start together at this epoch second
        if start_at is None:
            time.sleep(window - time.time() % window + 0.005)  # start on a window boundary
        else:
            time.sleep(max(0.0, start_at - time.time()))
        started = time.perf_counter()
        out = client.bulk_scan(cfg["urls"], wait=False, concurrency=cfg.get("concurrency", 4), visibility="public")
        job = time.perf_counter() - started
        ok = sum(1 for o in out if o.error is None)
        limited = sum(1 for o in out if isinstance(o.error, urlscan_rs.RateLimitError))
        return {
            "count": ok,
            "rate_limited": limited,
            "other_errors": len(out) - ok - limited,
            "job_wall": job,
            "ended_at": time.time(),
        }

    return run


SIDES: dict[str, Callable[[dict[str, Any]], Callable[[], dict[str, Any]]]] = {
    f.__name__: f
    for f in (
        search_rs,
        search_official,
        walk_rs,
        table_arrow_all_rs,
        projection_official,
        projection_rs,
        walk_official,
        results_rs_loop,
        results_rs_batch,
        results_official_loop,
        results_official_threads,
        bulk_rs,
        bulk_official,
        bulk_official_threads,
        threads_rs,
        fanout_rs,
        quota_rs,
        table_pandas_official,
        table_pandas_rs,
        table_arrow_rs,
        table_parquet_rs,
        table_results_official,
        table_results_rs,
        dumps_official,
        dumps_rs,
        dumps_single,
        dumps_spark,
    )
}


def main() -> int:
    side, cfg = sys.argv[1], json.loads(sys.argv[2])
    if cfg.get("uuids_file"):
        with open(cfg["uuids_file"]) as f:
            cfg["uuids"] = json.load(f)[: cfg.get("n")]
    run = SIDES[side](cfg)
    rss_start = _status_kb("VmRSS")
    wall0, cpu0, main0 = time.perf_counter(), time.process_time(), time.thread_time()
    # ``runs``: the workload again in the same process (instruction counts: see bench/run.py).
    for _ in range(cfg.get("runs", 1)):
        out = run()
    out.update(
        wall=time.perf_counter() - wall0,
        cpu=time.process_time() - cpu0,
        # The Python thread alone (the rest is the I/O threads of either client).
        cpu_main=time.thread_time() - main0,
        rss_start_kb=rss_start,
        rss_peak_kb=_status_kb("VmHWM"),
    )
    print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
