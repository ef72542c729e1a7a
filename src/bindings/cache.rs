//! The core's result cache (`urlscan_core::cache`) for Python: `urlscan_rs.Cache`
//! (python/urlscan_rs/cache.py) holds one and gives it to its clients.
use std::path::PathBuf;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyDict;
use urlscan_core::cache;

use super::convert::{fields_dict, to_pyerr};

/// One open cache; `urlscan_rs.Cache` documents it.
#[pyclass(module = "urlscan_rs._native", frozen)]
pub struct NativeCache {
    pub inner: Arc<cache::Cache>,
}

#[pymethods]
impl NativeCache {
    #[new]
    // The literal is `cache::DEFAULT_MAX_BYTES`, spelt out so the signature shows it.
    #[pyo3(signature = (path, *, max_bytes = 1073741824, search_ttl = None))]
    fn new(
        py: Python<'_>,
        path: PathBuf,
        max_bytes: u64,
        search_ttl: Option<f64>,
    ) -> PyResult<Self> {
        let inner = py
            .detach(|| cache::Cache::open(&path, max_bytes, search_ttl))
            .map_err(|e| to_pyerr(py, e))?;
        Ok(NativeCache {
            inner: Arc::new(inner),
        })
    }

    /// The folder given.
    #[getter]
    fn path(&self) -> PathBuf {
        self.inner.path().to_path_buf()
    }

    /// The bound on the bodies kept, in bytes.
    #[getter]
    fn max_bytes(&self) -> u64 {
        self.inner.max_bytes()
    }

    /// Seconds a search page is kept (None: search pages are not kept).
    #[getter]
    fn search_ttl(&self) -> Option<f64> {
        self.inner.search_ttl().map(|t| t.as_secs_f64())
    }

    /// What this cache did since it was opened: ``hits``, ``misses``,
    /// ``stored``, ``evicted``, ``errors``, ``damaged``, ``bytes_served``, ``saved``
    /// (requests not sent, by the rate-limit action they would have counted
    /// against, e.g. ``{"retrieve": 12}``), and the file's ``entries`` and
    /// ``bytes`` (all processes').
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = py.detach(|| self.inner.stats());
        Ok(fields_dict!(py, s;
            hits, misses, stored, evicted, errors, damaged, bytes_served, saved, entries, bytes
        ))
    }

    /// Drop every entry of scan ``uuid``; how many there were.
    fn evict(&self, py: Python<'_>, uuid: &str) -> usize {
        py.detach(|| self.inner.evict_scan(uuid))
    }

    /// Drop every entry; how many there were.
    fn clear(&self, py: Python<'_>) -> PyResult<usize> {
        py.detach(|| self.inner.clear())
            .map_err(|e| to_pyerr(py, e))
    }
}
