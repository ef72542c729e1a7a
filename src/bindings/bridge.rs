//! Awaitables for Rust futures, and the one way Rust threads enter Python.
//!
//! Rust threads outlive the interpreter. A thread inside Python when the
//! interpreter finalizes (e.g. waking the event loop, which releases the GIL
//! for a socket write) crashes the process, so every entry from a Rust thread
//! goes through `enter_python`, which counts the threads inside and refuses
//! once shutdown began; the atexit hook waits for the count to drop to zero.
use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;

use super::convert::to_pyerr;
use super::outcome::{convert, Conv};
use urlscan_core as core;

static FINALIZING: AtomicBool = AtomicBool::new(false);
static INSIDE: AtomicUsize = AtomicUsize::new(0);

pub fn is_finalizing() -> bool {
    FINALIZING.load(Ordering::SeqCst)
}

struct Inside;

impl Drop for Inside {
    fn drop(&mut self) {
        INSIDE.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Run `f` with the GIL from a Rust thread, unless the interpreter is going away.
pub fn enter_python<R>(f: impl for<'py> FnOnce(Python<'py>) -> R) -> Option<R> {
    if is_finalizing() {
        return None;
    }
    INSIDE.fetch_add(1, Ordering::SeqCst);
    let _inside = Inside;
    // Checked again: shutdown may have begun between the first check and the count.
    if is_finalizing() {
        return None;
    }
    Python::try_attach(f)
}

/// Called at interpreter exit: no Rust thread enters Python from now on, and
/// those inside get up to a second to leave (the GIL is released meanwhile).
#[pyfunction]
pub fn _shutdown(py: Python<'_>) {
    FINALIZING.store(true, Ordering::SeqCst);
    py.detach(|| {
        let deadline = Instant::now() + Duration::from_secs(1);
        while INSIDE.load(Ordering::SeqCst) > 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
    });
}

static RESOLVE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// Cancels the Rust task when the asyncio future is cancelled.
#[pyclass(module = "urlscan_rs._native")]
pub struct CancelOnDone {
    handle: Option<tokio::task::AbortHandle>,
}

#[pymethods]
impl CancelOnDone {
    fn __call__(&mut self, fut: &Bound<'_, PyAny>) -> PyResult<()> {
        if fut.call_method0("cancelled")?.is_truthy()? {
            if let Some(h) = self.handle.take() {
                h.abort();
            }
        }
        Ok(())
    }
}

/// An asyncio future that completes with `conv(result)` of a Rust future run
/// on the shared runtime. Needs a running event loop (the caller is a coroutine).
pub fn awaitable<'py, T, F>(py: Python<'py>, fut: F, conv: Conv<T>) -> PyResult<Bound<'py, PyAny>>
where
    F: Future<Output = core::Result<T>> + Send + 'static,
    T: Send + 'static,
{
    let asyncio = py.import("asyncio")?;
    let event_loop = asyncio.call_method0("get_running_loop")?;
    let py_fut = event_loop.call_method0("create_future")?;
    let resolve = RESOLVE
        .get_or_try_init(py, || {
            py.import("urlscan_rs._bridge")?
                .getattr("resolve")
                .map(Bound::unbind)
        })?
        .clone_ref(py);
    let loop_ref = event_loop.unbind();
    let fut_ref = py_fut.clone().unbind();
    let rt = core::runtime::runtime().map_err(|e| to_pyerr(py, e))?;
    let handle = rt.spawn(async move {
        let out = fut.await;
        // Building Python objects holds the GIL: keep it off the async workers.
        let _ = tokio::task::spawn_blocking(move || {
            enter_python(|py| {
                let (ok, value) = match out
                    .map_err(|e| to_pyerr(py, e))
                    .and_then(|v| convert(py, conv, v))
                {
                    Ok(v) => (true, v.unbind()),
                    Err(e) => (false, e.into_value(py).into_any()),
                };
                // The loop may be closed already (nobody awaits any more): nothing to do then.
                let _ = loop_ref.call_method1(
                    py,
                    "call_soon_threadsafe",
                    (resolve, fut_ref, ok, value),
                );
            });
        })
        .await;
    });
    py_fut.call_method1(
        "add_done_callback",
        (CancelOnDone {
            handle: Some(handle.abort_handle()),
        },),
    )?;
    Ok(py_fut)
}
