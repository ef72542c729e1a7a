//! Files the Python layer writes, by the core's one rule (`urlscan_core::disk`).
use pyo3::prelude::*;

use super::convert::to_pyerr;

/// `rel` (a path from a listing or another answer) under `root`, by the one
/// rule every file the package writes follows (`urlscan_core::disk`); a
/// `ValidationError` saying why when it may not be written there.
#[pyfunction]
pub fn contained(
    py: Python<'_>,
    root: std::path::PathBuf,
    rel: &str,
) -> PyResult<std::path::PathBuf> {
    py.detach(|| urlscan_core::disk::contained(&root, rel))
        .map_err(|e| to_pyerr(py, e))
}

/// Write `data` to `path` whole, by the same rule (`urlscan_core::disk`): to a
/// temporary file created exclusively beside it, then renamed.
#[pyfunction]
pub fn write_whole(
    py: Python<'_>,
    path: std::path::PathBuf,
    data: &[u8],
) -> PyResult<std::path::PathBuf> {
    py.detach(|| urlscan_core::disk::write_whole(&path, data))
        .map_err(|e| to_pyerr(py, e))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(contained, m)?)?;
    m.add_function(wrap_pyfunction!(write_whole, m)?)
}
