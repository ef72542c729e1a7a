"""The Spark data source over data dumps, in Spark local mode with two task slots:
one partition per file, rows equal to the single-machine reader's, files on disk
or listed and fetched by the tasks themselves."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from urlscan_rs import datadumps
from urlscan_rs.errors import ValidationError
from urlscan_rs.testing import Emulator

pa = pytest.importorskip("pyarrow")
pytest.importorskip("pyspark")
if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip("Spark needs Java (17 or later)", allow_module_level=True)

from pyspark.sql import SparkSession  # noqa: E402

from urlscan_rs.spark import DataDumpsSource  # noqa: E402


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Emulator, Any, Path, str]]:
    """An emulator, yesterday's search and api files synced from it, and a local Spark
    started with the emulator's key in its environment (as a cluster's executors get it)."""
    root = tmp_path_factory.mktemp("dumps")
    day = (datetime.now(timezone.utc) - timedelta(days=1)).strftime("%Y%m%d")
    saved = {k: os.environ.get(k) for k in ("URLSCAN_API_KEY", "PYSPARK_PYTHON")}
    with Emulator(scans=400, seed=11) as emu:
        with emu.client() as c:
            report = c.datadumps.sync(root, days=3)
        # The 24 hours of each of the two days before today, of each type, and today's hours
        # that have ended (none in today's first hour: two whole days keep the folder multi-day).
        assert not report.failed and len(report.downloaded) >= 2 * 2 * 24
        os.environ["URLSCAN_API_KEY"] = emu.api_key
        os.environ["PYSPARK_PYTHON"] = sys.executable
        spark = (
            SparkSession.builder.master("local[2]")
            .appName("urlscan-rs tests")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.session.timeZone", "UTC")
            .getOrCreate()
        )
        spark.sparkContext.setLogLevel("ERROR")
        spark.dataSource.register(DataDumpsSource)
        try:
            yield emu, spark, root, day
        finally:
            spark.stop()
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v


def _local(root: Path, kind: str, day: str) -> Any:
    """The single-machine reader's table of a day's files of a type."""
    files = sorted((root / "hours" / kind / day).iterdir())
    return pa.concat_tables([datadumps.read(f).to_arrow() for f in files])


def _sorted(table: Any) -> Any:
    return table.sort_by("uuid")


def test_files_on_disk_read_as_the_single_machine_reader_reads_them(world: tuple[Emulator, Any, Path, str]) -> None:
    _, spark, root, day = world
    for kind in ("search", "api"):
        df = spark.read.format("urlscan-datadumps").option("path", str(root)).option("type", kind).option("date", day).load()
        assert df.rdd.getNumPartitions() == 24  # one per hourly file
        got, want = _sorted(df.toArrow()), _sorted(_local(root, kind, day))
        assert got.num_rows == want.num_rows > 0
        assert got.column_names == want.column_names
        for name in want.column_names:
            assert got.column(name).to_pylist() == want.column(name).to_pylist(), (kind, name)
    # Without a date, every day the folder holds; a window that is not there, nothing.
    both = spark.read.format("urlscan-datadumps").option("path", str(root)).load()
    assert both.rdd.getNumPartitions() == len(list(root.glob("hours/search/*/*.gz"))) > 24
    none = spark.read.format("urlscan-datadumps").option("path", str(root)).option("window", "days").load()
    assert none.count() == 0


def test_the_reader_lists_and_fetches_a_window_itself(world: tuple[Emulator, Any, Path, str]) -> None:
    emu, spark, root, day = world
    df = (
        spark.read.format("urlscan-datadumps")
        .option("base_url", emu.url)
        .option("window", "hours")
        .option("date", f"{day[:4]}-{day[4:6]}-{day[6:]}")
        .option("type", "api")
        .load()
    )
    assert df.rdd.getNumPartitions() == 24
    got = _sorted(df.select("uuid", "requests", "malicious").toArrow())
    want = _sorted(_local(root, "api", day).select(["uuid", "requests", "malicious"]))
    assert got.num_rows > 0 and got.to_pylist() == want.to_pylist()


def test_a_given_schema_picks_and_casts_columns(world: tuple[Emulator, Any, Path, str]) -> None:
    _, spark, root, day = world
    df = (
        spark.read.format("urlscan-datadumps")
        .schema("uuid string, requests string, `page.domain` string")
        .option("path", str(root / "hours" / "api" / day))
        .option("type", "api")
        .load()
    )
    got = _sorted(df.toArrow())
    want = _sorted(_local(root, "api", day))
    assert got.column("uuid").to_pylist() == want.column("uuid").to_pylist()
    assert got.column("requests").to_pylist() == [str(n) for n in want.column("requests").to_pylist()]
    assert got.column("page.domain").to_pylist() == want.column("domain").to_pylist()


def test_bad_options_are_refused_with_the_reason(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="screenshots and dom dumps hold files"):
        DataDumpsSource({"type": "screenshots", "path": "x"})
    with pytest.raises(ValidationError, match='give a "path"'):
        DataDumpsSource({"type": "search"})
    with pytest.raises(ValidationError, match="window must be one of"):
        DataDumpsSource({"window": "weeks", "date": "20261120"})
    with pytest.raises(ValidationError, match="date must be YYYYMMDD"):
        DataDumpsSource({"date": "Nov 20"})
    source = DataDumpsSource({"path": "/nonexistent/dumps"})
    with pytest.raises(ValidationError, match="neither a dump file nor a folder"):
        source.reader(source.schema()).partitions()
    for name in ("days/search/20261125.gz", "hours/search/20261125/20261125-01.gz"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(b"")
    mixed = DataDumpsSource({"path": str(tmp_path)})
    with pytest.raises(ValidationError, match=r"several windows \(days, hours\)"):
        mixed.reader(mixed.schema()).partitions()
    hours = DataDumpsSource({"path": str(tmp_path), "window": "hours"})
    assert [p.value.rsplit("/", 1)[-1] for p in hours.reader(hours.schema()).partitions()] == ["20261125-01.gz"]
