//! Tables for Python: a walk's pages (or a list of models) decoded into
//! Arrow record batches by `urlscan_tables`, handed out as an Arrow
//! PyCapsule stream (pyarrow, polars, duckdb read it with no copy) or
//! written as Parquet, with no Python object per row.
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
use urlscan_core::models::index::DocIndex;
use urlscan_core::paginate::SearchCursor;
use urlscan_core::{self as core};
use urlscan_tables::parquet_out::{self, Export, Options, Resume};
use urlscan_tables::walk::{self, Pages};
use urlscan_tables::{schema, TableBuilder};

/// A page or a progress callback that failed: the core's error, or Python's.
enum Failure {
    Core(core::Error),
    Py(PyErr),
}

impl From<core::Error> for Failure {
    fn from(e: core::Error) -> Failure {
        Failure::Core(e)
    }
}

impl Failure {
    fn into_py(self, py: Python<'_>) -> PyErr {
        match self {
            Failure::Core(e) => to_pyerr(py, e),
            Failure::Py(e) => e,
        }
    }
}

/// Where the pages of a table come from (`urlscan_tables::walk` reads them).
enum Source {
    Search(
        Arc<AsyncMutex<SearchCursor>>,
        Arc<Mutex<SearchCursorMirror>>,
    ),
    Hostnames(Py<HostnameCursor>),
    /// The JSON lines of a data-dump file.
    Dump(Py<DumpReader>),
}

/// A page fetched on the I/O runtime, its Python side (telemetry, Ctrl-C)
/// in the GIL.
fn fetched<T: Send>(
    fut: impl std::future::Future<Output = core::Result<T>> + Send,
) -> Result<T, Failure> {
    Ok(Python::attach(|py| block_on(py, fut)).map_err(Failure::Py)??)
}

impl Pages for Source {
    type Error = Failure;

    fn read_into(
        &mut self,
        builder: &mut TableBuilder,
        max: usize,
    ) -> Result<Option<(usize, Option<String>)>, Failure> {
        match self {
            Source::Search(cursor, mirror) => {
                let (cursor, mirror) = (Arc::clone(cursor), Arc::clone(mirror));
                let page = fetched(async move {
                    let mut c = cursor.lock().await;
                    let page = c.next_page().await?;
                    *mirror.lock().unwrap() = SearchCursorMirror::of(&c);
                    Ok(page)
                })?;
                let Some(doc) = page else {
                    return Ok(None);
                };
                Ok(Some(walk::append_search_page(builder, doc, max)?))
            }
            Source::Hostnames(cursor) => {
                let Some(doc) = fetched(cursor.get().fetch())? else {
                    return Ok(None);
                };
                let after = cursor.get().page_state_now();
                Ok(Some((
                    walk::append_results_list(builder, &doc.body, max)?,
                    after,
                )))
            }
            Source::Dump(reader) => {
                let lines = reader.get().lines(max.min(DUMP_BATCH))?;
                for (n, body, idx) in &lines {
                    builder.append(body, Some(idx), &format!("line {n}"))?;
                }
                Ok((!lines.is_empty()).then_some((lines.len(), None)))
            }
        }
    }

    fn resumable(&self) -> bool {
        matches!(self, Source::Search(..) | Source::Hostnames(..))
    }
}

type Walk = walk::Walk<Source>;

/// `walk`'s next batch, read without the GIL (a page's fetch takes it back
/// for its Python side).
fn next_batch(py: Python<'_>, walk: &mut Walk) -> PyResult<Option<RecordBatch>> {
    py.detach(|| walk.next()).map_err(|e| e.into_py(py))
}

fn schema_of(py: Python<'_>, walk: &mut Walk) -> PyResult<SchemaRef> {
    py.detach(|| walk.schema()).map_err(|e| e.into_py(py))
}

/// `progress(rows)` (rows counted from `base`) after each page.
fn tell_progress(walk: &mut Walk, progress: Option<Bound<'_, PyAny>>, base: u64) {
    if let Some(f) = progress.map(Bound::unbind) {
        walk.on_progress(Box::new(move |n| {
            Python::attach(|py| f.call1(py, (base + n,)).map(drop)).map_err(Failure::Py)
        }));
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
        Python::attach(|py| match next_batch(py, &mut self.walk) {
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
        let schema = schema_of(py, walk)?;
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
        let schema = schema_of(py, &mut walk)?;
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
        let batches = py.detach(|| walk.read_all()).map_err(|e| e.into_py(py))?;
        *self.rows.lock().unwrap() = walk.rows;
        Ok(TableStream::new(walk.of_batches(batches)))
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
        tell_progress(&mut walk, progress, export.rows());
        // A chunk is a row group: a batch is finished once it has a row
        // group's rows (memory stays bounded by about a row group and a page).
        walk.batch_rows = row_group_rows.clamp(1, walk::BATCH_ROWS);
        // Rows read before a failure are written and recorded before it is
        // raised: a resume starts after them.
        let failed = |walk: &Walk, export: &mut Export, e: PyErr| {
            *self.rows.lock().unwrap() = walk.rows;
            match py.detach(|| export.checkpoint()) {
                Ok(()) => e,
                Err(w) => to_pyerr(py, w),
            }
        };
        let schema = match schema_of(py, &mut walk) {
            Ok(s) => s,
            Err(e) => return Err(failed(&walk, &mut export, e)),
        };
        loop {
            let batch = match next_batch(py, &mut walk) {
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
        tell_progress(&mut walk, progress, 0);
        let schema = schema_of(py, &mut walk)?;
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
        while let Some(batch) = next_batch(py, &mut walk)? {
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
            builder.append(body, idx.as_deref(), path)?;
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
            builder.append(body, idx.as_deref(), path)?;
        }
        Ok(())
    })
    .map_err(|e| to_pyerr(py, e))?;
    let source = match cursor {
        None => None,
        Some(c) => {
            if let Ok(c) = c.cast::<NativeCursor>() {
                let c = c.get();
                Some(Source::Search(Arc::clone(&c.cursor), Arc::clone(&c.mirror)))
            } else if let Ok(h) = c.cast::<HostnameCursor>() {
                Some(Source::Hostnames(h.clone().unbind()))
            } else if let Ok(d) = c.cast::<DumpReader>() {
                Some(Source::Dump(d.clone().unbind()))
            } else {
                return Err(pyo3::exceptions::PyTypeError::new_err(
                    "cursor: a search or hostname cursor, or a data-dump reader",
                ));
            }
        }
    };
    let walk = Walk::new(builder, source, limit.map(|l| l.saturating_sub(n as u64)));
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
