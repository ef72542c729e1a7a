"""Tables of walks and model lists: Arrow from the Rust core, then pyarrow,
polars, pandas or Parquet.

The rows are decoded from the answers' bytes into Arrow columns natively
(no Python object per row) and handed over through the Arrow PyCapsule
interface, which pyarrow, polars and duckdb read with no copy.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from . import _native
from .schema import Schema, of

if TYPE_CHECKING:
    from .errors import UrlscanError
    from .models import ScanResult

ARROW_HINT = 'pip install "urlscan-rs[arrow]"'


def _module(name: str, what: str, hint: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError as e:
        raise ImportError(f"{what} needs {name}: {hint}") from e


def pyarrow(what: str = "to_arrow()") -> Any:
    return _module("pyarrow", what, ARROW_HINT)


def _columns(columns: Iterable[str] | None) -> list[str] | None:
    if columns is None:
        return None
    if isinstance(columns, str):
        return [columns]
    return list(columns)


def _keys(partition_by: str | Sequence[str] | None) -> list[str]:
    if partition_by is None:
        return []
    if isinstance(partition_by, str):
        return [partition_by]
    return list(partition_by)


def _pandas_of(table: Any) -> Any:
    """An Arrow table as pandas, with nullable integers and booleans (a
    missing value stays missing, never 0 or False)."""
    pa = pyarrow("to_pandas()")
    pd = _module("pandas", "to_pandas()", "pip install pandas")
    mapping = {pa.int64(): pd.Int64Dtype(), pa.bool_(): pd.BooleanDtype()}
    return table.to_pandas(types_mapper=mapping.get)


class Tabular:
    """What every table source has: ``to_arrow``, ``to_polars``,
    ``to_pandas``, ``to_parquet`` and ``__arrow_c_stream__``.

    A walk is read once: a table of it reads the rest of the walk (from the
    next hit not yet handed out, up to its ``limit``). With an
    ``AsyncClient`` the ``to_*`` methods return awaitables (the walk runs
    on a worker thread) and ``__arrow_c_stream__`` is refused.

    A record batch spans pages: it is handed out at 65,536 rows or about
    16 MiB of values (a Parquet export's ``row_group_size`` when smaller),
    so a table has few, large chunks whatever the page size. When a page
    fails, the rows of the pages before it come out first, then the error
    (``to_parquet`` writes and records them, so ``resume=True`` starts
    after them).
    """

    __slots__ = ()

    # -- what a source provides

    def _table(self, columns: list[str] | None, resume: Any = None) -> Any:
        """The native table stream of the rows (from `resume`'s cursor when given)."""
        raise NotImplementedError

    def _table_schema(self) -> Schema:
        raise NotImplementedError

    def _fingerprint(self) -> str:
        raise NotImplementedError

    def _table_is_async(self) -> bool:
        return False

    def _table_done(self, stream: Any) -> None:
        """After a table read the walk: record where it stopped."""

    def _ended(self) -> bool:
        """The walk is over (a walk's span ends, ``urlscan_rs.otel``); False."""
        return False

    def _table_read(self, stream: Any) -> None:
        """A table read the rest of the walk."""
        self._table_done(stream)
        self._ended()

    # -- the interface

    def _run(self, fn: Callable[[], Any]) -> Any:
        if self._table_is_async():
            import asyncio  # only an AsyncClient's tables need it (not loaded on import)

            return asyncio.to_thread(fn)
        return fn()

    @property
    def schema(self) -> Schema:
        """The documented schema of the rows (:mod:`urlscan_rs.schema`)."""
        return self._table_schema()

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        """The rows as an Arrow C stream (read once): ``pyarrow.table(it)``,
        ``polars.DataFrame(it)``, ``duckdb.sql("select ... from it")``.

        Pages are fetched as the consumer reads, with the GIL released.
        """
        if self._table_is_async():
            raise TypeError("an AsyncClient's walk cannot be read as a stream: use 'await it.to_arrow()'")
        stream = self._table(None)
        capsule = stream.__arrow_c_stream__(requested_schema)
        self._table_done(stream)
        return capsule

    def to_arrow(self, columns: Iterable[str] | None = None) -> Any:
        """The rows as a ``pyarrow.Table`` (needs pyarrow: ``pip install "urlscan-rs[arrow]"``).

        ``columns`` picks the columns, in that order and by those names:
        names of the schema (``it.schema.names``) or dotted wire paths
        (``"page.redirected"``, ``"task.source"``; ``"._score"`` for a
        top-level field). A path outside the schema takes the type of its
        first values (strings, booleans, whole numbers, numbers; JSON text
        for objects, lists and mixed values). A path through a list
        (``"data.requests[].request.request.url"``, one ``[]``) is a list
        column of the value in each element: strings as text, other values
        as JSON text, missing as null. Only the parts a column reads are
        decoded, so a few columns of large results cost little more than
        fetching them.

        Raises:
            DecodeError: A value has the wrong type (the message names its path).
            ValidationError: A column name is neither a schema name nor a path.
        """
        pa = pyarrow()
        cols = _columns(columns)

        def read() -> Any:
            stream = self._table(cols)
            # Not pa.table(obj): it looks for a pandas DataFrame first, importing pandas.
            table = pa.RecordBatchReader.from_stream(stream.collect()).read_all()
            self._table_read(stream)
            return table

        return self._run(read)

    def to_polars(self, columns: Iterable[str] | None = None) -> Any:
        """The rows as a ``polars.DataFrame`` (needs polars; pyarrow is not needed)."""
        pl = _module("polars", "to_polars()", "pip install polars")
        cols = _columns(columns)

        def read() -> Any:
            stream = self._table(cols)
            frame = pl.DataFrame(stream.collect())
            self._table_read(stream)
            return frame

        return self._run(read)

    def to_pandas(self, columns: Iterable[str] | None = None) -> Any:
        """The rows as a pandas DataFrame, built on Arrow (needs pandas and pyarrow).

        Integers and booleans are pandas' nullable types: a missing value
        stays missing (``malicious`` is ``<NA>`` when unknown, never False).
        """
        pyarrow("to_pandas()")
        _module("pandas", "to_pandas()", "pip install pandas")
        cols = _columns(columns)

        def read() -> Any:
            stream = self._table(cols)
            frame = _pandas_of(pyarrow().RecordBatchReader.from_stream(stream.collect()).read_all())
            self._table_read(stream)
            return frame

        return self._run(read)

    def to_csv(self, path: str | os.PathLike[str] = "-", *, progress: Callable[[int], Any] | None = None) -> Any:
        """Write the rows as CSV (a header, then each page as it comes) to
        ``path`` ("-": standard output); the number of rows written.

        CSV has no lists: a list column is written as its JSON text.
        """
        target = os.fspath(path)

        def write() -> int:
            if target == "-":
                sys.stdout.flush()
            stream = self._table(None)
            rows = stream.write_csv(target, progress=progress)
            self._table_read(stream)
            return int(rows)

        return self._run(write)

    def to_parquet(
        self,
        path: str | os.PathLike[str],
        *,
        partition_by: str | Sequence[str] | None = None,
        compression: str = "zstd",
        resume: bool = False,
        overwrite: bool = False,
        row_group_size: int = 50_000,
        progress: Callable[[int], Any] | None = None,
    ) -> Any:
        """Write the rows as Parquet as the walk goes; the number of rows written.

        Memory stays bounded by ``row_group_size`` rows (one row group, and
        one file per partition, per that many rows; fewer when their columns
        reach 16 MiB), not by the walk's length. Without ``partition_by``, ``path`` is one file (its row
        groups are staged in ``<path>.parts/`` and joined at the end); with
        it, ``path`` is a folder of Hive partitions:
        ``partition_by=["date"]`` writes ``date=2026-11-20/part-0.parquet``
        (``date`` is the UTC day of ``time``); any column of the table may be
        a key (its values then live in the folder names, not the files).
        ``compression`` is "zstd", "snappy", "gzip" or "none".

        An interrupted export (an error, Ctrl-C, a killed process) leaves
        only complete files and the walk's cursor after the last of them;
        ``resume=True`` continues from that cursor with no duplicate and no
        gap (the same search, and its ``limit`` counts the rows written
        before; a run that wrote every row and failed only at the end is
        finished without a request). ``progress(rows)`` is called after each page.

        An existing target (the file, or a folder that is not empty) is
        refused unless ``overwrite=True`` (a folder is replaced only when it
        holds nothing but an export's partitions and Parquet files), or
        ``resume=True`` continues an interrupted export there (a finished
        one is not started again: that needs ``overwrite=True``). Files appear whole (each is written to a temporary
        file beside it, then renamed); a partition value too long for a folder
        name is cut and ends in a hash of the whole value (``~<16 hex>``), so
        every value keeps its own folder.

        Raises:
            ValidationError: Bad options, an existing target (without
                ``overwrite`` or ``resume``), or a resume of another export.
            OSError: The disk is full, or another I/O failure (naming the file).
        """
        keys = _keys(partition_by)
        target = os.fspath(path)
        fingerprint = self._fingerprint()

        def write() -> int:
            point = _native.parquet_resume_point(target, keys, fingerprint) if resume else None
            if resume and point is None and not overwrite and os.path.exists(target):
                from .errors import ValidationError

                raise ValidationError(
                    f"resume: {target} holds no interrupted export (a finished one, or other files); "
                    "give overwrite=True to replace it, or write elsewhere"
                )
            stream = self._table(None, point)
            rows = stream.write_parquet(
                target,
                partition_by=keys,
                compression=compression,
                row_group_rows=row_group_size,
                fingerprint=fingerprint,
                resume=point,
                progress=progress,
                overwrite=overwrite,
            )
            self._table_read(stream)
            return int(rows)

        return self._run(write)


class ModelTable(Tabular):
    """A table of models already read (a list of them)."""

    __slots__ = ("_items", "_schema")

    def __init__(self, items: Sequence[Any], schema: Schema) -> None:
        self._items = items
        self._schema = schema

    def _table(self, columns: list[str] | None, resume: Any = None) -> Any:
        return _native.table_stream(self._schema.name, columns, self._items)

    def _table_schema(self) -> Schema:
        return self._schema

    def _fingerprint(self) -> str:
        return f"{len(self._items)} {self._schema.name.lower()} rows"


class ResultList(list["ScanResult | UrlscanError"], Tabular):
    """What ``results()`` returns: a list, in input order, of
    :class:`~urlscan_rs.models.ScanResult` or the error each request raised,
    and a table of the results (``to_arrow()``, ``to_pandas()``, ...; the
    ``RESULTS`` (:mod:`urlscan_rs.schema`) schema; errors are left out of it).
    """

    __slots__ = ()

    def _table(self, columns: list[str] | None, resume: Any = None) -> Any:
        ok = [r for r in self if not isinstance(r, BaseException)]
        return _native.table_stream("RESULTS", columns, ok)

    def _table_schema(self) -> Schema:
        from .schema import RESULTS

        return RESULTS

    def _fingerprint(self) -> str:
        return f"results of {len(self)} scans"


def to_arrow(models: Iterable[Any], columns: Iterable[str] | None = None) -> Any:
    """A list of models of one kind as a ``pyarrow.Table``, by their schema
    (:mod:`urlscan_rs.schema`): search hits, results, hostname records,
    data-source hits or notifications.

    An empty list has no kind: it gives an empty table of
    ``SCANS`` (:mod:`urlscan_rs.schema`).

    Raises:
        TypeError: The models are of different kinds, or of none that makes tables.
    """
    items = list(models)
    kinds = {of(m).name for m in items}
    if len(kinds) > 1:
        raise TypeError(f"to_arrow() takes models of one kind, got {', '.join(sorted(kinds))}")
    from .schema import SCANS

    schema = of(items[0]) if items else SCANS
    return ModelTable(items, schema).to_arrow(columns)
