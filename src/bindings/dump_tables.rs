//! Data-dump files read as tables for Python (`datadumps.read(...)`):
//! their JSON lines or archive members decoded a bounded batch at a time.
use std::sync::Mutex;

use bytes::Bytes;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use super::convert::to_pyerr;
use urlscan_core::models::index::{self, DocIndex};
use urlscan_core::{self as core};

/// JSON lines of a data-dump file decoded per batch.
pub(super) const DUMP_BATCH: usize = 4096;
/// ... or fewer lines once they hold this many bytes: memory is bounded by it,
/// not by the file (a full result can be megabytes).
const DUMP_BATCH_BYTES: usize = 16 << 20;

enum DumpInner {
    Lines(Box<urlscan_tables::dumps::Lines>),
    Members(urlscan_tables::dumps::Members),
}

/// A data-dump file being read: its JSON lines as models (or table rows),
/// or its archive's members as `(uuid, bytes)`.
#[pyclass(module = "urlscan_rs._native", frozen)]
pub struct DumpReader {
    path: std::path::PathBuf,
    kind: urlscan_tables::dumps::Kind,
    inner: Mutex<DumpInner>,
}

impl DumpReader {
    /// Up to `max` JSON lines, each checked to be a JSON object (its index
    /// found), errors naming the file and line.
    pub(super) fn lines(&self, max: usize) -> core::Result<Vec<(u64, Bytes, DocIndex)>> {
        let mut inner = self.inner.lock().unwrap();
        let DumpInner::Lines(lines) = &mut *inner else {
            return Ok(Vec::new());
        };
        lines
            .next_batch(max, DUMP_BATCH_BYTES)?
            .into_iter()
            .map(|(n, line)| {
                let idx = index::object_index(&line).map_err(|e| {
                    core::Error::Decode(format!("data dump {} line {n}: {e}", self.path.display()))
                })?;
                Ok((n, Bytes::from(line), idx))
            })
            .collect()
    }
}

#[pymethods]
impl DumpReader {
    #[new]
    #[pyo3(signature = (path, kind=None, *, max_line_bytes, max_member_bytes))]
    fn py_new(
        py: Python<'_>,
        path: std::path::PathBuf,
        kind: Option<&str>,
        max_line_bytes: Bound<'_, PyAny>,
        max_member_bytes: Bound<'_, PyAny>,
    ) -> PyResult<DumpReader> {
        use urlscan_tables::dumps::{Kind, Limits, Lines, Members};
        let limit = |v: &Bound<'_, PyAny>, name: &str| -> PyResult<u64> {
            let n = super::options::int_of(v, name)?;
            u64::try_from(n).ok().filter(|n| *n >= 1).ok_or_else(|| {
                to_pyerr(
                    py,
                    core::Error::Validation(format!("{name} must be at least 1, got {n}")),
                )
            })
        };
        let limits = Limits {
            max_line_bytes: usize::try_from(limit(&max_line_bytes, "max_line_bytes")?)
                .unwrap_or(usize::MAX),
            max_member_bytes: limit(&max_member_bytes, "max_member_bytes")?,
        };
        let err = |e: core::Error| to_pyerr(py, e);
        let kind = match kind {
            Some(k) => Kind::named(k).ok_or_else(|| {
                err(core::Error::Validation(format!(
                    "type must be one of {}, got {k:?}",
                    Kind::NAMES.join(", ")
                )))
            })?,
            None => match Kind::of_path(&path) {
                Some(k) => k,
                // Not in a dump folder (downloaded elsewhere, renamed): its content tells.
                None => py.detach(|| Kind::sniff(&path)).map_err(err)?.ok_or_else(|| {
                    err(core::Error::Validation(format!(
                        "cannot tell what {} holds from its path or its first line: give type= one of {}",
                        path.display(),
                        Kind::NAMES.join(", ")
                    )))
                })?,
            },
        };
        let inner = py
            .detach(|| -> core::Result<_> {
                Ok(if kind.is_lines() {
                    DumpInner::Lines(Box::new(Lines::open(&path, limits)?))
                } else {
                    DumpInner::Members(Members::open(&path, limits)?)
                })
            })
            .map_err(err)?;
        Ok(DumpReader {
            path,
            kind,
            inner: Mutex::new(inner),
        })
    }

    /// What the file holds: "search", "api", "screenshots" or "dom".
    #[getter]
    fn kind(&self) -> &'static str {
        self.kind.name()
    }

    /// Up to `max` items: `SearchHit`s (search), `ScanResult`s (api) or
    /// `(uuid, bytes)` (screenshots, dom); an empty list at the end.
    fn next_items<'py>(
        &self,
        py: Python<'py>,
        max: usize,
    ) -> PyResult<Bound<'py, pyo3::types::PyList>> {
        let out = pyo3::types::PyList::empty(py);
        if self.kind.is_lines() {
            let class = if self.kind == urlscan_tables::dumps::Kind::Search {
                "SearchHit"
            } else {
                "ScanResult"
            };
            let lines = py.detach(|| self.lines(max)).map_err(|e| to_pyerr(py, e))?;
            for (_, body, idx) in lines {
                out.append(super::lazy::lazy_model(py, class, body, idx)?)?;
            }
            return Ok(out);
        }
        while out.len() < max {
            let next = py
                .detach(|| match &mut *self.inner.lock().unwrap() {
                    DumpInner::Members(m) => m.next_member(),
                    DumpInner::Lines(_) => Ok(None),
                })
                .map_err(|e| to_pyerr(py, e))?;
            let Some((name, data)) = next else { break };
            if name.ends_with('/') {
                continue;
            }
            let uuid = urlscan_tables::dumps::uuid_of(&name).to_string();
            out.append((uuid, PyBytes::new(py, &data)))?;
        }
        Ok(out)
    }
}
