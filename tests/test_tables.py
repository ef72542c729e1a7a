"""Tables: Arrow built in the Rust core from the answers' bytes, read by
pyarrow, polars, pandas and duckdb, and Parquet exports that resume."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

import urlscan_rs
from urlscan_rs import AsyncClient, Client, _generate, schema
from urlscan_rs.errors import DecodeError, ValidationError
from urlscan_rs.testing import Emulator

from .conftest import run
from .dumphost import KEY
from .loopback import serve

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pl = pytest.importorskip("polars")
duckdb = pytest.importorskip("duckdb")
pd = pytest.importorskip("pandas")

DATA = Path(__file__).parent / "data"


def _utc(dt: datetime | None) -> datetime | None:
    return None if dt is None else dt.astimezone(timezone.utc)


# ---------------------------------------------------------------- schemas against models


def test_every_scan_column_agrees_with_the_models(client: Client) -> None:
    hits = list(client.search("", limit=120))
    table = client.search("", limit=120).to_arrow()
    assert table.column_names == list(schema.SCANS.names)
    assert table.schema.metadata == {b"urlscan_rs.schema": b"SCANS", b"urlscan_rs.schema_version": b"1"}
    rows = table.to_pylist()
    assert [r["uuid"] for r in rows] == [h.id for h in hits]
    for h, r in zip(hits, rows, strict=True):
        assert r["time"] == _utc(h.task.time)
        assert r["url"] == (h.page.url or h.task.url)
        assert r["submitted_url"] == h.task.url
        assert (r["domain"], r["ip"], r["asn"], r["country"]) == (h.page.domain, h.page.ip, h.page.asn, h.page.country)
        assert (r["tls_valid_days"], r["uniq_ips"], r["requests"]) == (h.page.tls_valid_days, h.stats.uniq_ips, h.stats.requests)
        assert r["malicious"] is h.verdicts.malicious and r["score"] == h.verdicts.score
        assert r["tags"] == h.task.tags
        assert r["screenshot"] == h.screenshot and r["result"] == h.result
        # The report page is on the host that served the hit (the emulator here).
        assert r["report"] == h.result.replace("/api/v1/result/", "/result/")


def test_result_columns_agree_with_the_models(client: Client) -> None:
    uuids = [h.id for h in client.search("", limit=6)]
    results = client.results(uuids)
    assert isinstance(results, urlscan_rs.ResultList)
    rows = results.to_arrow().to_pylist()
    assert [r["uuid"] for r in rows] == uuids
    for res, r in zip(results, rows, strict=True):
        assert not isinstance(res, Exception)
        assert r["time"] == _utc(res.task.time) and r["domain"] == res.page.domain
        assert r["malicious"] is res.malicious and r["score"] == res.verdicts.overall.score
        assert r["requests"] == len(res.data["requests"]) and r["uniq_ips"] == len(res.lists.ips)
        assert r["ips"] == res.lists.ips and r["hashes"] == res.lists.hashes
        assert r["report"] == res.task.report_url and r["screenshot"] == res.task.screenshot_url
    # The module-level function reads any list of one kind.
    assert urlscan_rs.to_arrow(list(results)).to_pylist() == rows


def test_schema_types_agree_with_model_annotations() -> None:
    """A schema column read from a model field's path has that field's type."""
    from urlscan_rs import models

    kinds = {"string": {"str"}, "int64": {"int"}, "float64": {"float"}, "bool": {"bool"}, "timestamp[us, UTC]": {"datetime"}}
    # Each schema's widest model: a data source's hit model over its base class.
    classes = {s.name: getattr(models, cls) for cls, s in reversed(schema._OF_CLASS.items())}
    assert set(classes) == {s.name for s in schema.ALL}
    checked = 0
    missing: list[str] = []
    for name, cls in classes.items():
        for col in getattr(schema, name):
            wire = col.paths[0]
            head, _, rest = wire.partition(".")
            owner: Any = cls
            if rest:
                field = next((f for f, (w, _) in cls._fields.items() if w == head), None)
                if field is None:
                    continue
                owner = models._base._expect(cls, field).model
                if owner is None or "." in rest:
                    continue
                wire = rest
            field = next((f for f, (w, _) in owner._fields.items() if wire in w.split("|")), None)
            if field is None and owner is cls and not col.type.startswith("int64 ("):
                # A flat column of the row's own member: the model reads it too.
                missing.append(f"{name}.{col.name} ({wire})")
            if field is None or col.type not in kinds:
                continue
            ann = models._base._annotation(owner, field) or ""
            assert any(k in ann for k in kinds[col.type]), (name, col.name, ann)
            checked += 1
    assert not missing, missing
    assert checked > 80


def test_records_are_the_table_rows_of_every_schema(client: Client) -> None:
    """``to_record()`` and ``to_records()`` are decoded by the tables' own code: for every
    schema, the same columns and the same values as ``to_arrow()``."""
    from .loopback import serve
    from .test_events import data_sources

    hits = list(client.search("", limit=40))
    domains = [h.page.domain for h in hits if h.page.domain]
    items: dict[str, list[Any]] = {
        "SCANS": hits,
        "RESULTS": [r for r in client.results([h.id for h in hits[:4]]) if not isinstance(r, Exception)],
        "HOSTNAMES": list(client.hostnames.history(max(set(domains), key=domains.count), limit=20)),
    }
    with serve(data_sources) as served, Client("00000000-0000-4000-8000-000000000001", base_url=served.url) as other:
        for d in schema._DATA_SOURCES[1:]:
            it = other.search("", datasource=d["name"])
            items[d["schema"]] = list(other.search("", datasource=d["name"]))
            assert it.to_records() == [h.to_record() for h in items[d["schema"]]]
    assert set(items) == {s.name for s in schema.ALL}
    for name, objs in items.items():
        assert objs, name
        table = urlscan_rs.to_arrow(objs)
        assert table.column_names == list(getattr(schema, name).names), name
        assert [o.to_record() for o in objs] == table.to_pylist(), name
    assert client.search("", limit=40).to_records() == urlscan_rs.to_arrow(hits).to_pylist()


# ---------------------------------------------------------------- every library reads the stream


def test_the_capsule_stream_is_read_by_pyarrow_polars_and_duckdb(client: Client) -> None:
    ids = [h.id for h in client.search("", limit=250)]
    assert pa.table(client.search("", limit=250)).column("uuid").to_pylist() == ids
    assert pl.DataFrame(client.search("", limit=250))["uuid"].to_list() == ids
    it = client.search("", limit=250)
    assert duckdb.sql("select uuid from it").fetchall() == [(i,) for i in ids]
    # A walk is read once: what is left of it afterwards is nothing.
    assert pa.table(it).num_rows == 0 and list(it) == []


def test_pandas_and_polars_keep_unknown_unknown(client: Client) -> None:
    df = client.search("", limit=50).to_pandas()
    assert list(df.columns) == list(schema.SCANS.names)
    assert str(df["malicious"].dtype) == "boolean" and str(df["score"].dtype) == "Int64"
    assert str(df["time"].dtype) == "datetime64[us, UTC]"
    frame = client.search("", limit=50).to_polars(columns=["uuid", "time", "tags"])
    assert frame.columns == ["uuid", "time", "tags"] and frame.height == 50


def test_an_empty_search_has_every_column(client: Client) -> None:
    table = client.search("domain:nothing-matches.invalid").to_arrow()
    assert table.num_rows == 0 and table.column_names == list(schema.SCANS.names)
    df = client.search("domain:nothing-matches.invalid").to_pandas()
    assert len(df) == 0 and list(df.columns) == list(schema.SCANS.names)


def test_columns_take_names_and_wire_paths(client: Client) -> None:
    table = client.search("", limit=30).to_arrow(
        columns=["domain", "page.redirected", "stats.consoleMsgs", "sort", "._score", "page.tlsValidDays"]
    )
    assert table.column_names == ["domain", "page.redirected", "stats.consoleMsgs", "sort", "._score", "page.tlsValidDays"]
    types = {f.name: str(f.type) for f in table.schema}
    assert types["stats.consoleMsgs"] == "int64"  # inferred from the values
    assert types["sort"] == "string"  # a list: its JSON text
    assert types["page.tlsValidDays"] == "int64"  # the schema's type for its path
    first = client.search("", limit=1).to_arrow(columns=["uuid", "sort"]).to_pylist()[0]
    assert json.loads(first["sort"])[1] == first["uuid"]
    with pytest.raises(ValidationError, match="named twice"):
        client.search("", limit=3).to_arrow(columns=["domain", "domain"])


def test_limit_and_items_already_handed_out(client: Client) -> None:
    it = client.search("", size=40, limit=130)
    first = [next(it) for _ in range(5)]
    table = it.to_arrow()
    ids = [h.id for h in client.search("", size=40, limit=130)]
    assert [h.id for h in first] == ids[:5]
    assert table.column("uuid").to_pylist() == ids[5:]
    assert it.search_after is not None and it.search_after.endswith(ids[-1])


def test_async_iterators_give_awaitables(emu: Emulator, aclient: AsyncClient, client: Client) -> None:
    ids = [h.id for h in client.search("", limit=150)]

    async def main() -> tuple[Any, Any, Any]:
        table = await aclient.search("", limit=150).to_arrow()
        frame = await aclient.search("", limit=150).to_polars()
        df = await aclient.search("", limit=150).to_pandas()
        return table, frame, df

    table, frame, df = run(main())
    assert table.column("uuid").to_pylist() == ids and frame["uuid"].to_list() == ids and list(df["uuid"]) == ids
    with pytest.raises(TypeError, match="await it.to_arrow"):
        aclient.search("", limit=3).__arrow_c_stream__()


def test_async_parquet(aclient: AsyncClient, client: Client, tmp_path: Path) -> None:
    rows = run(aclient.search("", limit=210).to_parquet(tmp_path / "a.parquet"))
    assert rows == 210
    assert pq.read_table(tmp_path / "a.parquet").column("uuid").to_pylist() == [h.id for h in client.search("", limit=210)]


def test_hostname_history_table() -> None:
    with Emulator(scans=150, scan_duration=5.0, seed=4) as e, e.client() as c:
        hits = list(c.search("", size=150))
        busiest = max({h.page.domain for h in hits}, key=lambda d: sum(h.page.domain == d for h in hits))
        records = list(c.hostnames.history(busiest, limit=10))
        table = c.hostnames.history(busiest, limit=10).to_arrow()
        assert table.column_names == list(schema.HOSTNAMES.names) and table.num_rows == len(records) > 10
        assert table.column("source").to_pylist() == [r.source for r in records]
        assert table.column("last_seen").to_pylist() == [_utc(r.last_seen) for r in records]
        assert [json.loads(d) if d else None for d in table.column("data").to_pylist()] == [r.data for r in records]


def test_missing_pyarrow_names_the_extra(client: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with pytest.raises(ImportError, match=r'pip install "urlscan-rs\[arrow\]"'):
        client.search("", limit=3).to_arrow()
    # The stream and polars need no pyarrow.
    assert pl.DataFrame(client.search("", limit=3)).height == 3


# ---------------------------------------------------------------- recorded and hostile bodies


def _paged(hits: list[dict[str, Any]], total: int | None = None) -> Any:
    """A search endpoint over `hits` (newest first), following search_after."""

    def answer(method: str, path: str, query: dict[str, list[str]]) -> tuple[int, Any]:
        size = int(query.get("size", ["100"])[0])
        start = 0
        if "search_after" in query:
            after = query["search_after"][0]
            keys = [",".join(str(v) for v in h["sort"]) for h in hits]
            start = keys.index(after) + 1
        return 200, {"results": hits[start : start + size], "total": len(hits) if total is None else total, "has_more": False}

    return answer


def _hit(i: int, **parts: Any) -> dict[str, Any]:
    uuid = f"00000000-0000-4000-8000-{i:012d}"
    hit: dict[str, Any] = {
        "_id": uuid,
        "sort": [1_700_000_000_000 - i * 1000, uuid],
        "task": {"uuid": uuid, "time": "2023-11-14T22:13:20.000Z", "url": f"https://e{i}.example/"},
        "page": {"domain": f"e{i}.example", "asn": "AS1", "country": ("DE", "US", "FR")[i % 3]},
    }
    for k, v in parts.items():
        hit[k] = v
    return hit


def test_recorded_search_page() -> None:
    body = json.loads((DATA / "search-2020-wikipedia.json").read_text())
    with serve(_paged(body["results"])) as s, Client(KEY, base_url=s.url) as c:
        hits = list(c.search("x"))
        rows = c.search("x").to_arrow().to_pylist()
    assert len(rows) == len(hits) == 20
    for h, r in zip(hits, rows, strict=True):
        assert r["uuid"] == h.id and r["url"] == h.page.url and r["ip"] == h.page.ip
        assert r["time"] == _utc(h.task.time) and r["data_length"] == h.stats.data_length
        # Recorded hits carry no verdicts: unknown, never False.
        assert r["malicious"] is None and h.verdicts.malicious is None
        assert r["report"] == f"https://urlscan.io/result/{h.id}/"


@pytest.mark.parametrize("name", ["result-2018-google.json", "result-2018-wikipedia.json"])
def test_recorded_results(name: str) -> None:
    doc = json.loads((DATA / name).read_text())
    uuid = doc["task"]["uuid"]
    with serve(lambda m, p, q: (200, doc)) as s, Client(KEY, base_url=s.url) as c:
        res = c.result(uuid)
        (row,) = c.results([uuid]).to_arrow().to_pylist()
    assert row["uuid"] == uuid and row["domain"] == res.page.domain and row["time"] == _utc(res.task.time)
    assert row["requests"] == len(doc["data"]["requests"]) and row["ips"] == res.lists.ips
    assert row["malicious"] == res.malicious


@pytest.mark.parametrize("name", ["result-2018-google.json", "result-2018-wikipedia.json", "result-2021-unresolved.json"])
def test_recorded_results_projected(name: str) -> None:
    # A few columns of a result, paths into data.requests[] included, as json.loads reads them.
    doc = json.loads((DATA / name).read_text())
    uuid = doc["task"]["uuid"]
    cols = ["uuid", "data.requests[].request.request.url", "data.requests[].response.response.status", "lists.ips", "page.ip"]
    with serve(lambda m, p, q: (200, doc)) as s, Client(KEY, base_url=s.url) as c:
        results = c.results([uuid, uuid])
        table = results.to_arrow(columns=cols)
        frame = results.to_polars(columns=cols[:2])
    assert table.column_names == cols and table.num_rows == 2
    assert str(table.schema.field(cols[1]).type) == "list<item: string>"
    row = table.to_pylist()[0]

    def each(*keys: str) -> list[Any]:
        out = []
        for r in doc["data"]["requests"]:
            for k in keys:
                r = r.get(k) if isinstance(r, dict) else None
            out.append(r if r is None or isinstance(r, str) else json.dumps(r, separators=(",", ":")))
        return out

    assert row["uuid"] == uuid
    assert row[cols[1]] == each("request", "request", "url") and len(row[cols[1]]) == len(doc["data"]["requests"])
    assert row[cols[2]] == each("response", "response", "status")
    assert row["lists.ips"] == doc["lists"]["ips"]  # the path of the `ips` column: its type
    assert row["page.ip"] == doc["page"].get("ip")
    assert frame[cols[1]].to_list()[1] == row[cols[1]]


def test_a_path_through_a_list_names_what_is_wrong() -> None:
    doc = json.loads((DATA / "result-2018-wikipedia.json").read_text())
    doc["data"]["requests"][3]["request"] = ["not", "an", "object"]
    uuid = doc["task"]["uuid"]
    with serve(lambda m, p, q: (200, doc)) as s, Client(KEY, base_url=s.url) as c:
        results = c.results([uuid])
        with pytest.raises(DecodeError, match=r"data\.requests\[3\]\.request: expected an object, found a list"):
            results.to_arrow(columns=["data.requests[].request.request.url"])
        for bad in ["data.requests[]x", "data.requests[].a[].b", "[]"]:
            with pytest.raises(ValidationError, match="not a wire path"):
                results.to_arrow(columns=[bad])


def test_lenient_on_missing_and_unknown() -> None:
    hits = [
        _hit(0, stats={"uniqIPs": "7", "dataLength": 12.9}, verdicts={"malicious": True, "score": 100}),
        _hit(1, task={"uuid": "x", "time": 1_700_000_000_000, "tags": {}}, page=None),
        _hit(2, page={"title": 'Ünïcødé \u2603 \\ "q"', "domain": "xn--d.example"}, unknown={"kept": 1}),
        {"_id": "00000000-0000-4000-8000-000000000003", "sort": [1, "00000000-0000-4000-8000-000000000003"]},
    ]
    with serve(_paged(hits)) as s, Client(KEY, base_url=s.url) as c:
        rows = c.search("x").to_arrow().to_pylist()
    assert rows[0]["uniq_ips"] == 7 and rows[0]["data_length"] == 12 and rows[0]["malicious"] is True
    assert rows[1]["time"] == datetime(2023, 11, 14, 22, 13, 20, tzinfo=timezone.utc)
    assert rows[1]["tags"] == [] and rows[1]["domain"] is None
    assert rows[2]["title"] == 'Ünïcødé \u2603 \\ "q"'
    assert rows[3]["time"] is None and rows[3]["tags"] is None and rows[3]["malicious"] is None


@pytest.mark.parametrize(
    ("part", "message"),
    [
        ({"page": {"asn": 123}}, r"results\[1\]\.page\.asn: expected a string, found a number \(123\)"),
        ({"page": "x"}, r"results\[1\]\.page: expected an object, found a string"),
        ({"verdicts": {"malicious": "yes"}}, r"results\[1\]\.verdicts\.malicious: expected a boolean"),
        ({"stats": {"requests": "many"}}, r"results\[1\]\.stats\.requests: expected a number"),
        ({"task": {"time": "yesterday"}}, r"results\[1\]\.task\.time: expected a date-time"),
        ({"task": {"tags": ["ok", 3]}}, r"results\[1\]\.task\.tags\[1\]: expected a string"),
    ],
)
def test_a_wrong_type_names_its_path(part: dict[str, Any], message: str) -> None:
    hits = [_hit(0), _hit(1, **part)]
    with serve(_paged(hits)) as s, Client(KEY, base_url=s.url) as c:
        with pytest.raises(DecodeError, match=message):
            c.search("x").to_arrow()
        # Through a consumer's stream, the error keeps its class and message.
        with pytest.raises(Exception, match="DecodeError: .*" + message):
            pa.table(c.search("x"))


# ---------------------------------------------------------------- Parquet


def test_parquet_round_trip(client: Client, tmp_path: Path) -> None:
    path = tmp_path / "scans.parquet"
    assert client.search("", size=70).to_parquet(path, row_group_size=100) == 300
    expected = client.search("", size=70).to_arrow()
    f = pq.ParquetFile(path)
    assert f.metadata.num_rows == 300 and f.metadata.num_row_groups == 3
    assert f.read().equals(expected)
    assert f.schema_arrow.metadata[b"urlscan_rs.schema"] == b"SCANS"
    assert not (tmp_path / "scans.parquet.parts").exists()
    # Read by duckdb too.
    assert duckdb.sql(f"select count(distinct uuid) from '{path}'").fetchall() == [(300,)]
    # An empty export still has the columns.
    assert client.search("domain:nothing-matches.invalid").to_parquet(tmp_path / "none.parquet", compression="snappy") == 0
    assert pq.read_table(tmp_path / "none.parquet").column_names == list(schema.SCANS.names)


def test_parquet_partitions(client: Client, tmp_path: Path) -> None:
    out = tmp_path / "lake"
    assert client.search("", limit=200).to_parquet(out, partition_by=["date"]) == 200
    hits = list(client.search("", limit=200))
    days = {h.task.time.astimezone(timezone.utc).strftime("%Y-%m-%d") for h in hits if h.task.time}
    assert {p.name for p in out.iterdir()} == {f"date={d}" for d in days}
    assert all((out / f"date={d}" / "part-0.parquet").exists() for d in days)
    got = duckdb.sql(f"select uuid, cast(date as varchar) from read_parquet('{out}/**/*.parquet', hive_partitioning=true)")
    assert sorted(got.fetchall()) == sorted((h.id, h.task.time.astimezone(timezone.utc).strftime("%Y-%m-%d")) for h in hits)
    # A real column as a key leaves the files.
    assert client.search("", limit=50).to_parquet(tmp_path / "by_country", partition_by="country") == 50
    some = next((tmp_path / "by_country").iterdir())
    assert some.name.startswith("country=") and "country" not in pq.read_table(some / "part-0.parquet").column_names
    with pytest.raises(ValidationError, match="not empty"):
        client.search("", limit=5).to_parquet(out, partition_by=["date"])
    with pytest.raises(ValidationError, match="not a column"):
        client.search("", limit=5).to_parquet(tmp_path / "x", partition_by=["nope"])
    with pytest.raises(ValidationError, match="compression"):
        client.search("", limit=5).to_parquet(tmp_path / "y.parquet", compression="lzma")


@pytest.fixture
def flaky_search() -> Iterator[tuple[Any, list[dict[str, Any]], dict[str, int]]]:
    """A search of 1,000 hits whose 6th page fails once (a 400: not retried)."""
    hits = [_hit(i) for i in range(1000)]
    state = {"pages": 0, "fail_at": 6}
    pages = _paged(hits)

    def answer(method: str, path: str, query: dict[str, list[str]]) -> tuple[int, Any]:
        state["pages"] += 1
        if state["pages"] == state["fail_at"]:
            return 400, {"message": "interrupted", "status": 400}
        return pages(method, path, query)  # type: ignore[no-any-return]

    with serve(answer) as s:
        yield s, hits, state


def test_a_batch_spans_pages(client: Client, tmp_path: Path) -> None:
    # Pages of 40 make one batch (not one a page); every row once, in walk order.
    uuids = [h.id for h in client.search("", size=40, limit=300)]
    table = client.search("", size=40, limit=300).to_arrow()
    assert table.column("uuid").to_pylist() == uuids and len(uuids) == 300
    assert [len(b) for b in table.to_batches()] == [300]
    # Progress still comes after each page; the hits the iterator held (39 of its
    # first page, one handed out) are the first rows and are counted.
    seen: list[int] = []
    it = client.search("", size=40, limit=150)
    assert next(it).id == uuids[0]
    assert it.to_csv(tmp_path / "x.csv", progress=seen.append) == 149
    assert seen == [79, 119, 149]
    lines = (tmp_path / "x.csv").read_text().splitlines()
    assert len(lines) == 150 and lines[1].startswith(uuids[1]) and lines[-1].startswith(uuids[149])


def test_rows_before_a_failed_page_are_handed_out_before_its_error(
    flaky_search: tuple[Any, list[dict[str, Any]], dict[str, int]],
) -> None:
    import pyarrow as pa

    s, hits, _ = flaky_search
    with Client(KEY, base_url=s.url, max_retries=0) as c:
        reader = pa.RecordBatchReader.from_stream(c.search("x", size=90))
        batch = reader.read_next_batch()
        assert batch.column("uuid").to_pylist() == [h["_id"] for h in hits[:450]]
        with pytest.raises(Exception, match="interrupted"):
            reader.read_next_batch()


def test_a_wrong_value_keeps_the_rows_of_the_pages_before_it() -> None:
    import pyarrow as pa

    # The 150th hit (on the second page of 100) has a wrong type, after some of its cells were read.
    hits = [_hit(i) for i in range(300)]
    hits[149]["page"] = {"domain": "x.example", "asn": 15169}
    with serve(_paged(hits)) as s, Client(KEY, base_url=s.url) as c:
        reader = pa.RecordBatchReader.from_stream(c.search("x", size=100))
        batch = reader.read_next_batch()
        assert batch.num_rows == 100 and batch.column("uuid").to_pylist() == [h["_id"] for h in hits[:100]]
        with pytest.raises(Exception, match=r"results\[49\]\.page\.asn: expected a string"):
            reader.read_next_batch()
        with pytest.raises(DecodeError, match=r"results\[49\]\.page\.asn"):
            c.search("x", size=100).to_arrow()


def test_progress_is_told_of_each_row_once(client: Client, tmp_path: Path) -> None:
    # A walk that ends by itself (its last fetch is empty) and a list with no page at all.
    seen: list[int] = []
    assert client.search("", size=100).to_csv(tmp_path / "all.csv", progress=seen.append) == 300
    assert seen == [100, 200, 300]
    uuids = [h.id for h in client.search("", limit=3)]
    told: list[int] = []
    assert client.results(uuids).to_csv(tmp_path / "r.csv", progress=told.append) == 3
    assert told == [3]


def test_rows_held_by_the_iterator_are_not_recorded_without_a_cursor(
    flaky_search: tuple[Any, list[dict[str, Any]], dict[str, int]], tmp_path: Path
) -> None:
    # The iterator holds 89 hits of its first page; the next page fails. Those rows have
    # no cursor after them: the export records nothing, and a resume starts over.
    s, hits, state = flaky_search
    state["fail_at"] = 2
    out = tmp_path / "held.parquet"
    with Client(KEY, base_url=s.url, max_retries=0) as c:
        it = c.search("x", size=90)
        next(it)
        with pytest.raises(urlscan_rs.UrlscanError, match="interrupted"):
            it.to_parquet(out, row_group_size=50)
        state_file = tmp_path / "held.parquet.parts" / "_urlscan_export.json"
        assert not state_file.exists() or json.loads(state_file.read_text())["rows"] == 0
        assert c.search("x", size=90).to_parquet(out, resume=True) == 1000
    ids = pq.read_table(out).column("uuid").to_pylist()
    assert ids == [h["_id"] for h in hits]


@pytest.mark.parametrize("partitioned", [False, True])
def test_an_interrupted_export_resumes_without_duplicate_or_gap(
    flaky_search: tuple[Any, list[dict[str, Any]], dict[str, int]], tmp_path: Path, partitioned: bool
) -> None:
    s, hits, state = flaky_search
    out = tmp_path / ("lake" if partitioned else "all.parquet")
    keys = ["country"] if partitioned else None
    with Client(KEY, base_url=s.url, max_retries=0) as c:
        with pytest.raises(urlscan_rs.UrlscanError, match="interrupted"):
            c.search("x", size=90).to_parquet(out, partition_by=keys, row_group_size=200)
        # 5 pages of 90 were read before the 6th failed: a chunk closed at 270 rows
        # (200 or more), and the 180 after it were written and recorded before the error.
        staged = out if partitioned else tmp_path / "all.parquet.parts"
        state_file = json.loads((staged / "_urlscan_export.json").read_text())
        assert state_file["rows"] == 450 and state_file["chunk"] == 2
        # A chunk written but not recorded (killed between the two) is dropped on resume.
        stray = (next(d for d in staged.iterdir() if d.is_dir()) if partitioned else staged) / "part-2.parquet"
        stray.write_bytes(b"not parquet")
        # Another search may not resume this export.
        with pytest.raises(ValidationError, match="something else"):
            c.search("y", size=90).to_parquet(out, partition_by=keys, resume=True)
        seen: list[int] = []
        rows = c.search("x", size=90).to_parquet(out, partition_by=keys, row_group_size=200, resume=True, progress=seen.append)
    assert rows == 1000 and seen[-1] == 1000
    if partitioned:
        table = pq.read_table(out, partitioning="hive")
        assert not (out / "_urlscan_export.json").exists()
    else:
        table = pq.read_table(out)
        assert not (tmp_path / "all.parquet.parts").exists()
    ids = table.column("uuid").to_pylist()
    assert sorted(ids) == sorted(h["_id"] for h in hits) and len(set(ids)) == 1000
    if not partitioned:
        assert ids == [h["_id"] for h in hits]  # in walk order too


def test_resume_after_a_finished_export_is_refused_unless_overwritten(client: Client, tmp_path: Path) -> None:
    # A finished export leaves no cursor: resuming it would wipe it and walk again.
    for path, keys in ((tmp_path / "a.parquet", None), (tmp_path / "lake", ["date"])):
        assert client.search("", limit=40).to_parquet(path, partition_by=keys) == 40
        with pytest.raises(ValidationError, match="holds no interrupted export"):
            client.search("", limit=40).to_parquet(path, partition_by=keys, resume=True)
        assert pq.read_table(path).num_rows == 40
        assert client.search("", limit=40).to_parquet(path, partition_by=keys, resume=True, overwrite=True) == 40
        assert pq.read_table(path).num_rows == 40


def test_the_reference_page_lists_every_schema() -> None:
    text = (Path(__file__).parents[1] / "docs" / "reference" / "tables.md").read_text()
    generated = _generate.regions(text)["schemas"]
    assert generated.strip() == schema.markdown().strip(), (
        "docs/reference/tables.md is stale: run python3 -m urlscan_rs._generate"
    )


# ---------------------------------------------------------------- command line


def test_cli_exports_in_every_format(emu: Emulator, client: Client, tmp_path: Path) -> None:
    from .test_cli import run_cli

    ids = [h.id for h in client.search("", limit=250)]
    base = ["search", "", "--limit", "250", "--size", "90"]
    p = run_cli(*base, "--format", "parquet", "-o", str(tmp_path / "h.parquet"), emu=emu)
    assert p.returncode == 0, p.stderr
    assert "250 hits written" in p.stderr
    assert pq.read_table(tmp_path / "h.parquet").column("uuid").to_pylist() == ids
    p = run_cli(*base, "--format", "csv", emu=emu)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].split(",")[:3] == ["uuid", "time", "url"] and len(lines) == 251
    frame = pl.read_csv(p.stdout.encode())
    assert frame["uuid"].to_list() == ids and frame["tags"][0].startswith("[")
    p = run_cli(*base, "--format", "jsonl", "-o", str(tmp_path / "h.jsonl"), emu=emu)
    assert p.returncode == 0, p.stderr
    assert [json.loads(x)["_id"] for x in (tmp_path / "h.jsonl").read_text().splitlines()] == ids
    p = run_cli("search", "", "--all", "--format", "parquet", emu=emu)
    assert p.returncode == 2 and "needs -o FILE" in p.stderr


@pytest.mark.parametrize(
    ("datasource", "name", "fields"),
    [
        (
            "hostnames",
            "HOSTNAME_HITS",
            {"hostname": "hostname", "domain": "domain", "apex_domain": "apex_domain", "sources": "sources"},
        ),
        (
            "certificates",
            "CERTIFICATES",
            {"domain": "domain", "issuer": "issuer", "subject_name": "subject_name", "hostnames": "hostnames"},
        ),
        ("domains", "DOMAINS", {"domain": "domain", "scan_count": "scan_count", "last_scan_id": "last_scan_id", "asn": "asn"}),
    ],
)
def test_data_source_columns_agree_with_their_models(client: Client, datasource: str, name: str, fields: dict[str, str]) -> None:
    hits = list(client.search("", datasource=datasource, limit=80))
    table = client.search("", datasource=datasource, limit=80).to_arrow()
    assert hits and table.column_names == list(getattr(schema, name).names)
    rows = table.to_pylist()
    for h, r in zip(hits, rows, strict=True):
        assert r["id"] == h.id and r["date"] == _utc(h.date)
        for col in fields:
            v = getattr(h, col)
            assert r[col] == (_utc(v) if isinstance(v, datetime) else v), (col, r[col], v)


def test_cli_output_file_on_commands_that_print(emu: Emulator, tmp_path: Path) -> None:
    from .test_cli import run_cli

    target = tmp_path / "quotas.jsonl"
    p = run_cli("--json", "quotas", "-o", str(target), emu=emu)
    assert p.returncode == 0, p.stderr
    assert p.stdout == "" and all(json.loads(line) for line in target.read_text().splitlines())
    p = run_cli("countries", "-o", str(tmp_path / "countries.txt"), emu=emu)
    assert p.returncode == 0 and p.stdout == "" and "de" in (tmp_path / "countries.txt").read_text().lower()
    p = run_cli("quotas", "-o", str(tmp_path / "no" / "such" / "dir"), emu=emu)
    assert p.returncode == 2 and "cannot write" in p.stderr


def test_an_export_goes_past_ten_thousand_hits(tmp_path: Path) -> None:
    # The service answers at most 10,000 hits a query; the walk goes on with search_after.
    with Emulator(scans=10_500, seed=2) as e, e.client() as c:
        assert c.search("").count() >= 10_000
        path = tmp_path / "all.parquet"
        assert c.search("", size=1000).to_parquet(path, row_group_size=4000) == 10_500
    ids = pq.read_table(path, columns=["uuid"]).column("uuid").to_pylist()
    assert len(ids) == len(set(ids)) == 10_500
    assert pq.ParquetFile(path).metadata.num_row_groups == 3
