"""Data dumps on Spark: a Spark 4 Python data source, one partition per dump file.

Each task decodes its file with the Rust core straight into Arrow record
batches (the ``SCANS`` schema for ``search`` dumps, ``RESULTS`` for ``api``;
see :mod:`urlscan_rs.schema`), so no Python object is made per row::

    from urlscan_rs.spark import DataDumpsSource

    spark.dataSource.register(DataDumpsSource)

    # Files on a disk every executor sees (as client.datadumps.sync keeps them):
    df = spark.read.format("urlscan-datadumps").option("path", "dumps/").option("type", "search").load()

    # Or listed and fetched by the reader itself, each executor downloading its own file
    # (the API key from URLSCAN_API_KEY where each executor runs):
    df = (spark.read.format("urlscan-datadumps")
          .option("window", "hours").option("date", "20261120").option("type", "api").load())

Options:

- ``type``: ``search`` (the default) or ``api``. ``screenshots`` and ``dom``
  dumps hold files, not rows: read them with :func:`urlscan_rs.datadumps.read`.
- ``path``: a dump file, or a folder searched for ``type`` files below it
  (``.../search/...``); ``window`` and ``date`` then narrow what is read.
- ``window``: ``days``, ``hours`` (the default when listing) or ``minutes``.
- ``date``: the day(s) to list, ``YYYYMMDD`` or ``YYYY-MM-DD``, several
  separated by commas. Needed when there is no ``path``.
- ``base_url``: the service's address when listing (else ``URLSCAN_BASE_URL``,
  else the real service). The key is never an option: options show in query
  plans. On a cluster, set it for executors too
  (``spark.executorEnv.URLSCAN_API_KEY``).

A schema given with ``.schema(...)`` picks columns: schema names, or wire
paths (``page.redirected``); its types are what the columns are cast to.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

if importlib.util.find_spec("pyspark") is None:
    raise ImportError('urlscan_rs.spark needs pyspark 4: pip install "urlscan-rs[spark]"')

from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition
from pyspark.sql.types import StructType

from . import _native, datadumps
from ._folder_state import nearest
from ._tables import pyarrow
from .errors import ValidationError

__all__ = ["DataDumpsSource"]

_TYPES = ("search", "api")
_ALL_TYPES = (*_TYPES, "screenshots", "dom")
_WINDOWS = ("days", "hours", "minutes")


def _arrow_schema(kind: str) -> Any:
    """The Arrow schema of a type's table, as the core builds it."""
    empty = _native.table_stream("SCANS" if kind == "search" else "RESULTS", None, [], None)
    return pyarrow("the urlscan-datadumps source").RecordBatchReader.from_stream(empty).schema


class _File(InputPartition):
    """One dump file: a local path, or a dump path the task fetches (with its listed size)."""

    def __init__(self, local: str | None, dump_path: str | None = None, size: int | None = None) -> None:
        super().__init__(local or dump_path)
        self.local = local
        self.dump_path = dump_path
        self.size = size


def _days(raw: str | None) -> list[str]:
    days = [d.strip().replace("-", "") for d in (raw or "").split(",") if d.strip()]
    for d in days:
        if not re.fullmatch(r"\d{8}", d):
            raise ValidationError(f"date must be YYYYMMDD or YYYY-MM-DD (several separated by commas), got {d!r}")
    return days


class DataDumpsSource(DataSource):
    """The ``urlscan-datadumps`` data source (see the module's documentation for its options)."""

    def __init__(self, options: dict[str, str]) -> None:
        super().__init__(options)
        self.kind = options.get("type", "search")
        if self.kind not in _TYPES:
            files = self.kind in ("screenshots", "dom")
            hint = ": screenshots and dom dumps hold files; read them with urlscan_rs.datadumps.read" if files else ""
            raise ValidationError(f"type must be search or api, got {self.kind!r}{hint}")
        window = options.get("window")
        if window is not None and window not in _WINDOWS:
            raise ValidationError(f"window must be one of days, hours, minutes, got {window!r}")
        self.window = window
        self.days = _days(options.get("date"))
        self.path = options.get("path")
        if self.path is None and not self.days:
            raise ValidationError('give a "path" (dump files on a shared disk) or a "date" to list, such as 20261120')
        self.base_url = options.get("base_url")

    @classmethod
    def name(cls) -> str:
        return "urlscan-datadumps"

    def schema(self) -> StructType:
        from pyspark.sql.pandas.types import from_arrow_schema

        return from_arrow_schema(_arrow_schema(self.kind))

    def reader(self, schema: StructType) -> DataSourceReader:
        return _Reader(self, schema)


class _Reader(DataSourceReader):
    def __init__(self, source: DataDumpsSource, schema: StructType) -> None:
        self.source = source
        from pyspark.sql.pandas.types import to_arrow_schema

        self.columns = list(schema.fieldNames())
        try:
            self.target = to_arrow_schema(schema, timezone="UTC")
        except TypeError:  # Spark 4.0 and 4.1 take no timezone: theirs is UTC
            self.target = to_arrow_schema(schema)

    def partitions(self) -> list[_File]:
        s = self.source
        if s.path is not None:
            return [_File(os.fspath(f)) for f in self._local(Path(s.path))]
        from ._client import Client

        with Client(base_url=s.base_url) as client:
            dumps: Any = client.datadumps  # the window and type were checked above
            return [_File(None, f.path, f.size) for day in s.days for f in dumps.list(s.window or "hours", s.kind, day)]

    def _local(self, root: Path) -> list[Path]:
        s = self.source
        if root.is_file():
            return [root]
        if not root.is_dir():
            raise ValidationError(f"path {str(root)!r} is neither a dump file nor a folder")
        found = []
        for f in sorted(p for p in root.resolve().rglob("*.gz") if p.is_file()):
            if nearest(f, _ALL_TYPES) != s.kind:
                continue
            if s.window is not None and nearest(f, _WINDOWS) != s.window:
                continue
            if s.days and not any(f.name.startswith(d) for d in s.days):
                continue
            found.append(f)
        windows = sorted({nearest(f, _WINDOWS) or "?" for f in found})
        if s.window is None and len(windows) > 1:
            # Each window holds the same scans: reading two would give every row twice.
            raise ValidationError(
                f"path {str(root)!r} holds dumps of several windows ({', '.join(windows)}): "
                'give .option("window", ...) to read one'
            )
        return found

    def read(self, partition: InputPartition) -> Iterator[Any]:
        pa = pyarrow("the urlscan-datadumps source")
        if not isinstance(partition, _File):
            return  # Spark's one empty partition of a plan with no files
        if partition.local is not None:
            yield from self._batches(pa, partition.local)
            return
        from ._client import Client

        folder = tempfile.mkdtemp(prefix="urlscan-datadump-")
        try:
            assert partition.dump_path is not None
            target = Path(folder) / partition.dump_path.rsplit("/", 1)[-1]
            with Client(base_url=self.source.base_url) as client:
                dumps: Any = client.datadumps  # _fetch: a download checked against the listed size
                dumps._fetch(partition.dump_path, target, partition.size)
            yield from self._batches(pa, os.fspath(target))
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def _batches(self, pa: Any, path: str) -> Iterator[Any]:
        stream = datadumps.read(path, type=self.source.kind)._table(self.columns)
        for batch in pa.RecordBatchReader.from_stream(stream):
            # A schema given by the user may ask for other types than the core's.
            yield batch if batch.schema.equals(self.target) else batch.cast(self.target)
