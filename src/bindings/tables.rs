//! Tables for Python: a walk's pages (or a list of models) decoded into
//! Arrow record batches by `urlscan_tables`, handed out as an Arrow
//! PyCapsule stream (pyarrow, polars, duckdb read it with no copy) or
//! written as Parquet, with no Python object per row.
use std::collections::VecDeque;
use std::io::Write;
use std::sync::{Arc, Mutex};

use arrow_array::{ArrayRef, RecordBatch, RecordBatchReader, StructArray};
use arrow_schema::{ArrowError, Field, SchemaRef};
use bytes::Bytes;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyCapsule, PyString};
use pyo3_arrow::ffi::{to_schema_pycapsule, to_stream_pycapsule, ArrayIterator};
use serde_json::Value;
use tokio::sync::Mutex as AsyncMutex;

use super::client::{NativeCursor, SearchCursorMirror};
use super::convert::{json, to_pyerr};
use super::dump_tables::{DumpReader, DUMP_BATCH};
use super::lazy::ModelBase;
use super::premium::HostnameCursor;
use super::run::block_on;
use urlscan_core::models::index::{self, parsed_array_spans, DocIndex};
use urlscan_core::paginate::SearchCursor;
use urlscan_core::{self as core};
use urlscan_tables::parquet_out::{self, Export, Options, Resume};
use urlscan_tables::{schema, Item, TableBuilder};

/// A batch is finished once it holds this many rows (pages of 100 make few,
/// large batches rather than one small batch a page) ...
const BATCH_ROWS: usize = 65_536;
/// ... or this many bytes of values, whichever comes first.
const BATCH_BYTES: usize = 16 << 20;

/// Where the pages of a table come from.
enum Source {
    /// Nothing more: the rows given at the start only.
    Done,
    Search(
        Arc<AsyncMutex<SearchCursor>>,
        Arc<Mutex<SearchCursorMirror>>,
    ),
    Hostnames(Py<HostnameCursor>),
    /// The JSON lines of a data-dump file.
    Dump(Py<DumpReader>),
}

/// A table being read: batches ready, and the walk that makes more. The
/// builder holds the rows of pages read since the last batch: a batch spans
/// pages, and is finished at `BATCH_ROWS` or `BATCH_BYTES`, at the end, or
/// when a page fails (the rows before it are handed out, then the error).
struct Walk {
    builder: TableBuilder,
    ready: VecDeque<(RecordBatch, Option<String>)>,
    source: Source,
    /// Rows still to read (the iterator's limit).
    remaining: Option<u64>,
    /// The cursor after the last row handed out.
    cursor: Arc<Mutex<Option<String>>>,
    rows: u64,
    /// The cursor after the last row in the builder.
    pending_cursor: Option<String>,
    /// What stopped the walk, raised once the rows read before it are out.
    failed: Option<PyErr>,
    /// `progress(rows)` after each page, rows counted from `progress.1`.
    progress: Option<(Py<PyAny>, u64)>,
    /// Rows read so far (handed out or in the builder).
    read: u64,
    /// The rows `progress` was last told of.
    told: u64,
    /// A batch is finished once it holds this many rows (`BATCH_ROWS`, or
    /// a Parquet export's row group when smaller).
    batch_rows: usize,
}

fn decode_err(py: Python<'_>, e: core::Error) -> PyErr {
    to_pyerr(py, e)
}

impl Walk {
    fn new(builder: TableBuilder, source: Source, remaining: Option<u64>) -> Walk {
        Walk {
            builder,
            ready: VecDeque::new(),
            source,
            remaining,
            cursor: Arc::new(Mutex::new(None)),
            rows: 0,
            pending_cursor: None,
            failed: None,
            progress: None,
            read: 0,
            told: 0,
            batch_rows: BATCH_ROWS,
        }
    }

    /// The next batch and the cursor after its last row; None at the end.
    fn next(&mut self, py: Python<'_>) -> PyResult<Option<RecordBatch>> {
        if !self.fill(py)? {
            return Ok(None);
        }
        let (b, c) = self.ready.pop_front().expect("fill leaves a batch");
        self.rows += b.num_rows() as u64;
        if c.is_some() {
            *self.cursor.lock().unwrap() = c;
        }
        Ok(Some(b))
    }

    /// Read pages until a batch is ready; false at the end.
    fn fill(&mut self, py: Python<'_>) -> PyResult<bool> {
        while self.ready.is_empty() {
            if let Some(e) = self.failed.take() {
                return Err(e);
            }
            let more = self.remaining != Some(0) && !matches!(self.source, Source::Done);
            if !more {
                // The rows given at the start, when no page followed them, are told of here.
                let told = self.tell(py);
                if self.builder.is_empty() {
                    return told.map(|()| false);
                }
                self.finish(py, None)?;
                self.failed = told.err();
                continue;
            }
            let before = self.builder.len();
            match self.read_page(py) {
                Ok(()) => {
                    let told = self.tell(py);
                    let full = self.builder.len() >= self.batch_rows
                        || self.builder.bytes() >= BATCH_BYTES;
                    if full || (told.is_err() && !self.builder.is_empty()) {
                        self.finish(py, None)?;
                    }
                    self.failed = told.err();
                }
                // The rows of the pages before the one that failed are handed
                // out first (a writer keeps them, and its cursor is theirs);
                // not rows a walk holds with no cursor after them (given
                // before any page): a resume could not start after them.
                Err(e) if before > 0 && (self.pending_cursor.is_some() || !self.resumable()) => {
                    self.finish(py, Some(before))?;
                    self.failed = Some(e);
                }
                Err(e) => {
                    self.builder.discard();
                    return Err(e);
                }
            }
        }
        Ok(true)
    }

    /// Whether the source's batches carry a cursor to resume after them.
    fn resumable(&self) -> bool {
        matches!(self.source, Source::Search(..) | Source::Hostnames(..))
    }

    /// `progress(rows)`, when rows were read since it was last called.
    fn tell(&mut self, py: Python<'_>) -> PyResult<()> {
        let Some((f, base)) = &self.progress else {
            return Ok(());
        };
        if self.read == self.told {
            return Ok(());
        }
        self.told = self.read;
        f.call1(py, (base + self.read,)).map(drop)
    }

    /// The builder's rows (its first `keep` alone: a page that failed
    /// half-way is dropped) as a batch ready to hand out.
    fn finish(&mut self, py: Python<'_>, keep: Option<usize>) -> PyResult<()> {
        let builder = &mut self.builder;
        let batch = py
            .detach(|| match keep {
                None => builder.finish(),
                Some(n) => builder.finish_first(n),
            })
            .map_err(|e| decode_err(py, e))?;
        self.ready.push_back((batch, self.pending_cursor.take()));
        Ok(())
    }

    /// Read one page into the builder (the source is `Done` after its last).
    fn read_page(&mut self, py: Python<'_>) -> PyResult<()> {
        let remaining = self.remaining.map_or(usize::MAX, |r| r as usize);
        let (n, cursor) = match &self.source {
            Source::Done => return Ok(()),
            Source::Search(cursor, mirror) => {
                let (cursor, mirror) = (Arc::clone(cursor), Arc::clone(mirror));
                let fut = async move {
                    let mut c = cursor.lock().await;
                    let page = c.next_page().await?;
                    *mirror.lock().unwrap() = SearchCursorMirror::of(&c);
                    Ok(page)
                };
                let Some(doc) = block_on(py, fut)?.map_err(|e| decode_err(py, e))? else {
                    self.source = Source::Done;
                    return Ok(());
                };
                let builder = &mut self.builder;
                py.detach(|| -> core::Result<_> {
                    let body = doc.body;
                    let head = if doc.head.hits.len() == doc.head.results.len() {
                        doc.head
                    } else {
                        index::search_page(body.clone())?.head
                    };
                    let n = head.hits.len().min(remaining);
                    for (i, idx) in head.hits.iter().take(n).enumerate() {
                        // The members of the hit's objects, when the page's scan found them.
                        let parts = head.parts.get(i).map_or(&[][..], Vec::as_slice);
                        builder.append_parts(&body, Some(idx), parts, &Item("results", i))?;
                    }
                    let cursor = n.checked_sub(1).and_then(|i| head.results[i].cursor());
                    Ok((n, cursor))
                })
                .map_err(|e| decode_err(py, e))?
            }
            Source::Hostnames(cursor) => {
                let fut = cursor.get().fetch();
                let Some(doc) = block_on(py, fut)?.map_err(|e| decode_err(py, e))? else {
                    self.source = Source::Done;
                    return Ok(());
                };
                let after = cursor.get().page_state_now();
                let builder = &mut self.builder;
                py.detach(|| -> core::Result<_> {
                    let body = doc.body;
                    // The page was checked whole when its head was decoded: a scan finds the list.
                    let Some(Some((a, b))) = index::parsed_member(&body, "results") else {
                        return Ok((0, after));
                    };
                    let list = &body[a..b];
                    let items = parsed_array_spans(list).unwrap_or_default();
                    let n = items.len().min(remaining);
                    for (i, (a, b)) in items.into_iter().take(n).enumerate() {
                        builder.append(&list[a..b], None, &Item("results", i))?;
                    }
                    Ok((n, after))
                })
                .map_err(|e| decode_err(py, e))?
            }
            Source::Dump(reader) => {
                let reader = reader.get();
                let builder = &mut self.builder;
                let n = py
                    .detach(|| -> core::Result<_> {
                        let lines = reader.lines(remaining.min(DUMP_BATCH))?;
                        for (n, body, idx) in &lines {
                            builder.append(body, Some(idx), &format!("line {n}"))?;
                        }
                        Ok(lines.len())
                    })
                    .map_err(|e| decode_err(py, e))?;
                if n == 0 {
                    self.source = Source::Done;
                    return Ok(());
                }
                (n, None)
            }
        };
        if let Some(r) = &mut self.remaining {
            *r = r.saturating_sub(n as u64);
        }
        if cursor.is_some() {
            self.pending_cursor = cursor;
        }
        self.read += n as u64;
        Ok(())
    }

    /// The schema of the batches: known at once, unless a column's type
    /// comes from its first values (then the first batch is read now).
    fn schema(&mut self, py: Python<'_>) -> PyResult<SchemaRef> {
        if self.ready.is_empty() && self.builder.infers() {
            self.fill(py)?;
        }
        Ok(match self.ready.front() {
            Some((b, _)) => b.schema(),
            None => self.builder.arrow_schema(),
        })
    }
}

/// The Arrow stream a consumer reads (pyarrow, polars, duckdb), on whatever
/// thread it reads from: each page is fetched with the GIL released.
struct Reader {
    walk: Walk,
    schema: SchemaRef,
}

impl Iterator for Reader {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        Python::attach(|py| match self.walk.next(py) {
            Ok(b) => b.map(Ok),
            Err(e) => {
                let name = e
                    .get_type(py)
                    .name()
                    .map(|n| n.to_string())
                    .unwrap_or_default();
                Some(Err(ArrowError::ExternalError(
                    format!("{name}: {}", e.value(py)).into(),
                )))
            }
        })
    }
}

impl RecordBatchReader for Reader {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
}

/// A table of rows, read lazily: the Arrow PyCapsule stream of a search,
/// a hostname walk or a list of models (`__arrow_c_stream__`), or all of it
/// at once (`collect`), or written as Parquet (`write_parquet`).
#[pyclass(module = "urlscan_rs._native", frozen)]
pub struct TableStream {
    walk: Mutex<Option<Walk>>,
    cursor: Arc<Mutex<Option<String>>>,
    rows: Arc<Mutex<u64>>,
}

impl TableStream {
    fn new(walk: Walk) -> TableStream {
        TableStream {
            cursor: Arc::clone(&walk.cursor),
            walk: Mutex::new(Some(walk)),
            rows: Arc::new(Mutex::new(0)),
        }
    }

    fn take(&self) -> PyResult<Walk> {
        self.walk.lock().unwrap().take().ok_or_else(|| {
            pyo3::exceptions::PyValueError::new_err(
                "this table was read already: a walk is read once (start a new search for another table)",
            )
        })
    }
}

#[pymethods]
impl TableStream {
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        let mut guard = self.walk.lock().unwrap();
        let walk = guard.as_mut().ok_or_else(|| {
            pyo3::exceptions::PyValueError::new_err("this table was read already")
        })?;
        let schema = walk.schema(py)?;
        Ok(to_schema_pycapsule(py, schema.as_ref())?)
    }

    /// The Arrow C stream of the rows (read once).
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyCapsule>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let mut walk = self.take()?;
        let schema = walk.schema(py)?;
        let reader = Reader {
            walk,
            schema: schema.clone(),
        };
        let arrays = reader.map(|b| b.map(|b| Arc::new(StructArray::from(b)) as ArrayRef));
        let field = Field::new_struct("", schema.fields().clone(), false)
            .with_metadata(schema.metadata().clone());
        let stream = Box::new(ArrayIterator::new(arrays, field.into()));
        Ok(to_stream_pycapsule(py, stream, requested_schema)?)
    }

    /// Every row read now (errors raised as themselves): a table over the
    /// batches, in memory.
    fn collect(&self, py: Python<'_>) -> PyResult<TableStream> {
        let mut walk = self.take()?;
        let schema = walk.schema(py)?;
        let mut ready = VecDeque::new();
        while let Some(b) = walk.next(py)? {
            ready.push_back((b, None));
        }
        *self.rows.lock().unwrap() = walk.rows;
        let mut out = Walk::new(walk.builder, Source::Done, None);
        out.ready = ready;
        *out.cursor.lock().unwrap() = walk.cursor.lock().unwrap().clone();
        if out.ready.is_empty() {
            out.ready.push_back((RecordBatch::new_empty(schema), None));
        }
        Ok(TableStream::new(out))
    }

    /// Write the rows as Parquet (see `parquet_out`); the rows written in
    /// all (with those of the run resumed). `progress(rows)` is called after
    /// each page.
    #[pyo3(signature = (path, *, partition_by, compression, row_group_rows, fingerprint, resume=None, progress=None, overwrite=false))]
    #[allow(clippy::too_many_arguments)]
    fn write_parquet(
        &self,
        py: Python<'_>,
        path: std::path::PathBuf,
        partition_by: Vec<String>,
        compression: &str,
        row_group_rows: usize,
        fingerprint: String,
        resume: Option<(Option<String>, u64, u64)>,
        progress: Option<Bound<'_, PyAny>>,
        overwrite: bool,
    ) -> PyResult<u64> {
        let opts = Options {
            partition_by,
            compression: parquet_out::compression(compression).map_err(|e| to_pyerr(py, e))?,
            row_group_rows,
            fingerprint,
            overwrite,
        };
        let resume = resume.map(|(cursor, rows, chunk)| Resume {
            cursor,
            rows,
            chunk,
        });
        let mut walk = self.take()?;
        let mut export = py
            .detach(|| Export::start(&path, opts, resume))
            .map_err(|e| to_pyerr(py, e))?;
        walk.progress = progress.map(|p| (p.unbind(), export.rows()));
        // A chunk is a row group: a batch is finished once it has a row
        // group's rows (memory stays bounded by about a row group and a page).
        walk.batch_rows = row_group_rows.clamp(1, BATCH_ROWS);
        // Rows read before a failure are written and recorded before it is
        // raised: a resume starts after them.
        let failed = |walk: &Walk, export: &mut Export, e: PyErr| {
            *self.rows.lock().unwrap() = walk.rows;
            match py.detach(|| export.checkpoint()) {
                Ok(()) => e,
                Err(w) => to_pyerr(py, w),
            }
        };
        let schema = match walk.schema(py) {
            Ok(s) => s,
            Err(e) => return Err(failed(&walk, &mut export, e)),
        };
        loop {
            let batch = match walk.next(py) {
                Ok(Some(b)) => b,
                Ok(None) => break,
                Err(e) => return Err(failed(&walk, &mut export, e)),
            };
            let cursor = walk.cursor.lock().unwrap().clone();
            py.detach(|| export.write(batch, cursor))
                .map_err(|e| to_pyerr(py, e))?;
            *self.rows.lock().unwrap() = walk.rows;
        }
        py.detach(|| export.finish(schema))
            .map_err(|e| to_pyerr(py, e))
    }

    /// Write the rows as CSV to `path` ("-": standard output) as pages
    /// come; the rows written. `progress(rows)` is called after each page.
    #[pyo3(signature = (path, *, progress=None))]
    fn write_csv(
        &self,
        py: Python<'_>,
        path: std::path::PathBuf,
        progress: Option<Bound<'_, PyAny>>,
    ) -> PyResult<u64> {
        let mut walk = self.take()?;
        walk.progress = progress.map(|p| (p.unbind(), 0));
        let schema = walk.schema(py)?;
        // A file is written whole (staged beside it, renamed at the end; see
        // `urlscan_core::disk`); `written` keeps a handle to flush it to disk.
        let mut staged = None;
        let mut written = None;
        let sink: Box<dyn std::io::Write + Send> = if path.as_os_str() == "-" {
            Box::new(std::io::stdout())
        } else {
            let mut s = core::disk::Staged::new(&path).map_err(|e| to_pyerr(py, e))?;
            let file = s.take_file();
            written = Some(
                file.try_clone()
                    .map_err(|e| to_pyerr(py, core::disk::io_error("write", &path, &e)))?,
            );
            staged = Some(s);
            Box::new(std::io::BufWriter::new(file))
        };
        let mut out = urlscan_tables::csv_out::CsvOut::new(sink, &path);
        let mut rows = 0u64;
        let mut wrote = false;
        while let Some(batch) = walk.next(py)? {
            rows += batch.num_rows() as u64;
            py.detach(|| out.write(&batch))
                .map_err(|e| to_pyerr(py, e))?;
            wrote = true;
        }
        if !wrote {
            // The header, for a table with no row.
            py.detach(|| out.write(&RecordBatch::new_empty(schema)))
                .map_err(|e| to_pyerr(py, e))?;
        }
        let mut sink = out.into_inner();
        sink.flush()
            .map_err(|e| to_pyerr(py, core::disk::io_error("write", &path, &e)))?;
        drop(sink);
        if let (Some(s), Some(f)) = (staged, written) {
            f.sync_all()
                .map_err(|e| to_pyerr(py, core::disk::io_error("write", &path, &e)))?;
            s.commit().map_err(|e| to_pyerr(py, e))?;
        }
        *self.rows.lock().unwrap() = rows;
        Ok(rows)
    }

    /// The cursor after the last row read (resumes the walk there).
    #[getter]
    fn cursor(&self) -> Option<String> {
        self.cursor.lock().unwrap().clone()
    }

    /// Rows read so far.
    #[getter]
    fn rows(&self) -> u64 {
        *self.rows.lock().unwrap()
    }
}

/// The rows of models (or dicts, or JSON bytes) given from Python: each
/// one's bytes, its members' spans when known, and its path in errors.
pub(super) fn rows_of(
    items: &Bound<'_, PyAny>,
) -> PyResult<Vec<(Bytes, Option<DocIndex>, String)>> {
    let py = items.py();
    let dumps = py.import("json")?.getattr("dumps")?;
    let mut out = Vec::new();
    for (i, item) in items.try_iter()?.enumerate() {
        let item = item?;
        if let Ok(m) = item.cast::<ModelBase>() {
            let m = m.get();
            let path = m.path().text(py)?.to_str()?.to_string();
            let path = if path.is_empty() {
                format!("[{i}]")
            } else {
                path
            };
            if let Some(d) = m.doc() {
                let (data, idx) = d.parts(py)?;
                out.push((data, Some(idx), path));
                continue;
            }
            // The model's own JSON (not `to_dict()`'s copy): it is only read.
            let dict = item.getattr("_raw")?;
            let text = dumps.call1((dict,))?;
            out.push((
                Bytes::from(text.cast::<PyString>()?.to_str()?.to_owned()),
                None,
                path,
            ));
        } else if let Ok(b) = item.cast::<PyBytes>() {
            out.push((Bytes::copy_from_slice(b.as_bytes()), None, format!("[{i}]")));
        } else {
            let text = dumps.call1((item,))?;
            out.push((
                Bytes::from(text.cast::<PyString>()?.to_str()?.to_owned()),
                None,
                format!("[{i}]"),
            ));
        }
    }
    Ok(out)
}

/// `rows` (from `rows_of`) decoded into one batch, without the GIL.
pub(super) fn batch_of(
    py: Python<'_>,
    builder: &mut TableBuilder,
    rows: &[(Bytes, Option<DocIndex>, String)],
) -> PyResult<RecordBatch> {
    py.detach(|| -> core::Result<_> {
        for (body, idx, path) in rows {
            builder.append(body, idx.as_ref(), path)?;
        }
        builder.finish()
    })
    .map_err(|e| to_pyerr(py, e))
}

pub(super) fn builder(
    py: Python<'_>,
    schema: &str,
    columns: Option<Vec<String>>,
) -> PyResult<TableBuilder> {
    let s = schema::by_name(schema).ok_or_else(|| {
        to_pyerr(
            py,
            core::Error::Validation(format!("no table schema {schema:?}")),
        )
    })?;
    TableBuilder::new(s, columns.as_deref()).map_err(|e| to_pyerr(py, e))
}

/// A walk's table: the rows waiting in the iterator (`items`), then the
/// pages of `cursor` (a search or hostname cursor), at most `limit` rows.
#[pyfunction]
#[pyo3(signature = (schema, columns, items, cursor=None, limit=None))]
pub fn table_stream(
    py: Python<'_>,
    schema: &str,
    columns: Option<Vec<String>>,
    items: &Bound<'_, PyAny>,
    cursor: Option<&Bound<'_, PyAny>>,
    limit: Option<u64>,
) -> PyResult<TableStream> {
    let mut builder = builder(py, schema, columns)?;
    let rows = rows_of(items)?;
    let n = rows.len().min(limit.map_or(usize::MAX, |l| l as usize));
    // The rows given are the first of the first batch.
    py.detach(|| -> core::Result<()> {
        for (body, idx, path) in &rows[..n] {
            builder.append(body, idx.as_ref(), path)?;
        }
        Ok(())
    })
    .map_err(|e| to_pyerr(py, e))?;
    let source = match cursor {
        None => Source::Done,
        Some(c) => {
            if let Ok(c) = c.cast::<NativeCursor>() {
                let c = c.get();
                Source::Search(Arc::clone(&c.cursor), Arc::clone(&c.mirror))
            } else if let Ok(h) = c.cast::<HostnameCursor>() {
                Source::Hostnames(h.clone().unbind())
            } else if let Ok(d) = c.cast::<DumpReader>() {
                Source::Dump(d.clone().unbind())
            } else {
                return Err(pyo3::exceptions::PyTypeError::new_err(
                    "cursor: a search or hostname cursor, or a data-dump reader",
                ));
            }
        }
    };
    let mut walk = Walk::new(builder, source, limit.map(|l| l.saturating_sub(n as u64)));
    walk.read = n as u64;
    Ok(TableStream::new(walk))
}

/// Where an interrupted export to `path` stopped: (cursor, rows, chunk), or None.
#[pyfunction]
pub fn parquet_resume_point(
    py: Python<'_>,
    path: std::path::PathBuf,
    partition_by: Vec<String>,
    fingerprint: String,
) -> PyResult<Option<(Option<String>, u64, u64)>> {
    let opts = Options {
        partition_by,
        compression: parquet_out::compression("none").map_err(|e| to_pyerr(py, e))?,
        row_group_rows: 1,
        fingerprint,
        overwrite: false,
    };
    Ok(Export::resume_point(&path, &opts)
        .map_err(|e| to_pyerr(py, e))?
        .map(|r| (r.cursor, r.rows, r.chunk)))
}

/// The documented schemas, for `urlscan_rs.schema` and the reference.
#[pyfunction]
pub fn table_schemas(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    let all: Vec<Value> = schema::ALL
        .iter()
        .map(|s| {
            let cols: Vec<Value> = s
                .columns
                .iter()
                .map(|c| {
                    serde_json::json!({
                        "name": c.name, "type": c.ty.name(), "paths": c.paths, "doc": c.doc,
                    })
                })
                .collect();
            serde_json::json!({
                "name": s.name, "row": s.row, "version": schema::VERSION, "columns": cols,
            })
        })
        .collect();
    json(py, Value::Array(all).to_string().as_bytes())
}

/// The search data sources (`urlscan_tables::sources::DATA_SOURCES`): name, hit model,
/// table schema and the columns the CLI shows.
#[pyfunction]
pub fn data_sources(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    let all: Vec<Value> = urlscan_tables::sources::DATA_SOURCES
        .iter()
        .map(|d| {
            serde_json::json!({
                "name": d.name, "model": d.model, "schema": d.schema, "shown": d.shown,
            })
        })
        .collect();
    json(py, Value::Array(all).to_string().as_bytes())
}

/// A search cursor's walk again from `after` (a resumed export), and what it is of.
#[pyfunction]
pub fn search_resumed(
    py: Python<'_>,
    cursor: &NativeCursor,
    after: Option<String>,
    limit: Option<u64>,
) -> PyResult<NativeCursor> {
    let c = cursor.cursor.blocking_lock();
    let fresh = c.resumed(after, limit).map_err(|e| to_pyerr(py, e))?;
    Ok(cursor.with(fresh))
}

/// What a search cursor's walk is of (its endpoint, query and options).
#[pyfunction]
pub fn search_fingerprint(cursor: &NativeCursor) -> String {
    cursor.cursor.blocking_lock().fingerprint()
}

pub fn register(m: &Bound<'_, pyo3::types::PyModule>) -> PyResult<()> {
    m.add_class::<TableStream>()?;
    m.add_function(wrap_pyfunction!(table_stream, m)?)?;
    m.add_function(wrap_pyfunction!(table_schemas, m)?)?;
    m.add_function(wrap_pyfunction!(data_sources, m)?)?;
    m.add_function(wrap_pyfunction!(parquet_resume_point, m)?)?;
    m.add_function(wrap_pyfunction!(search_resumed, m)?)?;
    m.add_function(wrap_pyfunction!(search_fingerprint, m)?)?;
    Ok(())
}
