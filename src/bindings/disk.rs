//! Files the Python layer writes, by the core's one rule (`urlscan_core::disk`).
use std::path::PathBuf;
use std::sync::Mutex;

use pyo3::prelude::*;
use urlscan_core::disk::Staged;
use urlscan_core::Error;

use super::convert::to_pyerr;

/// `rel` (a path from a listing or another answer) under `root`, by the one
/// rule every file the package writes follows (`urlscan_core::disk`); a
/// `ValidationError` saying why when it may not be written there.
#[pyfunction]
pub fn contained(py: Python<'_>, root: PathBuf, rel: &str) -> PyResult<PathBuf> {
    py.detach(|| urlscan_core::disk::contained(&root, rel))
        .map_err(|e| to_pyerr(py, e))
}

/// Write `data` to `path` whole, by the same rule (`urlscan_core::disk`): to a
/// temporary file created exclusively beside it, then renamed.
#[pyfunction]
pub fn write_whole(py: Python<'_>, path: PathBuf, data: &[u8]) -> PyResult<PathBuf> {
    py.detach(|| urlscan_core::disk::write_whole(&path, data))
        .map_err(|e| to_pyerr(py, e))
}

/// `path`, when the rule allows writing there (nothing, or a regular file);
/// else the `ValidationError` naming what is there (a pipe, device, socket,
/// link or folder), which is left as it is.
#[pyfunction]
pub fn checked_target(py: Python<'_>, path: PathBuf) -> PyResult<PathBuf> {
    py.detach(|| urlscan_core::disk::checked_target(&path))
        .map_err(|e| to_pyerr(py, e))?;
    Ok(path)
}

/// A file the Python layer writes as a stream (the command line's outputs),
/// by the same rule: made by `open_for_write` (the target checked, a
/// temporary file created exclusively beside it), renamed into place by
/// `commit` (checked again). After a write failed, `commit` raises that
/// failure again and removes the temporary file: no part of a file appears
/// under its name. `discard`, or dropping it, removes the temporary file.
#[pyclass(module = "urlscan_rs._native", frozen)]
pub struct StagedFile {
    staged: Mutex<Option<Staged>>,
    failed: Mutex<Option<Error>>,
    path: PathBuf,
}

impl StagedFile {
    fn closed(&self) -> Error {
        Error::Validation(format!(
            "{} was already written or discarded",
            self.path.display()
        ))
    }
}

#[pymethods]
impl StagedFile {
    /// The final path.
    #[getter]
    fn path(&self) -> PathBuf {
        self.path.clone()
    }

    /// Write all of `data`; its length.
    fn write(&self, py: Python<'_>, data: &[u8]) -> PyResult<usize> {
        py.detach(|| {
            use std::io::Write;
            let mut staged = self.staged.lock().unwrap();
            let Some(s) = staged.as_mut() else {
                return Err(self.closed());
            };
            s.file().write_all(data).map_err(|e| {
                let err = urlscan_core::disk::io_error("write", &self.path, &e);
                *self.failed.lock().unwrap() = Some(err.clone());
                err
            })?;
            Ok(data.len())
        })
        .map_err(|e| to_pyerr(py, e))
    }

    /// Rename the file into place (flushed to disk first); the final path.
    fn commit(&self, py: Python<'_>) -> PyResult<PathBuf> {
        py.detach(|| {
            let staged = self.staged.lock().unwrap().take();
            let Some(s) = staged else {
                return Err(self.closed());
            };
            if let Some(e) = self.failed.lock().unwrap().clone() {
                return Err(e); // `s` dropped: the temporary file removed
            }
            s.commit()
        })
        .map_err(|e| to_pyerr(py, e))
    }

    /// Remove the temporary file; nothing appears under the final name.
    fn discard(&self) {
        drop(self.staged.lock().unwrap().take());
    }
}

/// Start writing `path` as a stream (see `StagedFile`).
#[pyfunction]
pub fn open_for_write(py: Python<'_>, path: PathBuf) -> PyResult<StagedFile> {
    let staged = py
        .detach(|| Staged::new(&path))
        .map_err(|e| to_pyerr(py, e))?;
    Ok(StagedFile {
        staged: Mutex::new(Some(staged)),
        failed: Mutex::new(None),
        path,
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<StagedFile>()?;
    m.add_function(wrap_pyfunction!(contained, m)?)?;
    m.add_function(wrap_pyfunction!(write_whole, m)?)?;
    m.add_function(wrap_pyfunction!(checked_target, m)?)?;
    m.add_function(wrap_pyfunction!(open_for_write, m)?)
}
