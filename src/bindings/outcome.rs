//! Core outcomes on their way to Python: the conversion of a value (with
//! the GIL held), and panics on either side turned into errors instead of
//! unwinding into Python or silently ending an async task.
use std::future::Future;

use pyo3::prelude::*;

use super::convert::to_pyerr;
use urlscan_core as core;

/// Turns a core value into a Python object, with the GIL held.
pub type Conv<T> = Box<dyn for<'py> FnOnce(Python<'py>, T) -> PyResult<Bound<'py, PyAny>> + Send>;

/// A panic inside a core future becomes an error value instead of
/// unwinding into Python (or silently ending an async task).
pub fn panic_free<T, F>(fut: F) -> impl Future<Output = core::Result<T>> + Send
where
    F: Future<Output = core::Result<T>> + Send,
{
    use futures::FutureExt;
    std::panic::AssertUnwindSafe(fut)
        .catch_unwind()
        .map(|r| r.unwrap_or_else(|p| Err(core::Error::Internal(panic_message(&*p)))))
}

pub fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".into())
}

/// Convert with the GIL held; a panic in the conversion becomes an exception.
pub fn convert<'py, T>(py: Python<'py>, conv: Conv<T>, v: T) -> PyResult<Bound<'py, PyAny>> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| conv(py, v))) {
        Ok(r) => r,
        Err(p) => Err(to_pyerr(py, core::Error::Internal(panic_message(&*p)))),
    }
}
