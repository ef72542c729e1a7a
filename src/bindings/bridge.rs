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
use crate::inbox::{Inbox, Wake};
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

static COMPLETIONS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// The outcome of a finished Rust future, converted on the event loop.
type Outcome = Box<dyn for<'py> FnOnce(Python<'py>) -> PyResult<Bound<'py, PyAny>> + Send>;

/// The finished futures of one event loop, settled there in batches (see
/// `crate::inbox`): where the loop can watch a socket (`add_reader`:
/// the selector loops and uvloop on Unix) a push rings it, with no GIL and
/// no extra thread; elsewhere (Windows) a blocking-pool thread takes the GIL
/// to call `call_soon_threadsafe(self)`, once per batch too.
#[pyclass(module = "urlscan_rs._native", frozen)]
pub struct Completions(Inbox<(Py<PyAny>, Outcome)>);

#[pymethods]
impl Completions {
    #[new]
    fn py_new() -> Completions {
        Completions(Inbox::new())
    }

    /// The socket the loop can watch, or -1 when there is none.
    fn fileno(&self) -> i64 {
        #[cfg(unix)]
        if let Some(fd) = self.0.fd() {
            return fd.into();
        }
        -1
    }

    /// The loop watches `fileno()` now: pushes ring it from here on.
    fn watched(&self) {
        self.0.watched();
    }

    /// Settle every future finished so far (run by the event loop).
    fn __call__(&self, py: Python<'_>) -> PyResult<()> {
        // Every future is settled even if one fails; the first failure is raised after.
        let mut first = None;
        for (fut, outcome) in self.0.drain() {
            if let Err(e) = settle(py, fut.bind(py), outcome) {
                first.get_or_insert(e);
            }
        }
        first.map_or(Ok(()), Err)
    }
}

fn settle(py: Python<'_>, fut: &Bound<'_, PyAny>, outcome: Outcome) -> PyResult<()> {
    if fut.call_method0(pyo3::intern!(py, "done"))?.is_truthy()? {
        return Ok(()); // cancelled meanwhile
    }
    // The outcome converts through `outcome::convert`, which turns a panic into an error.
    match outcome(py) {
        Ok(v) => fut.call_method1(pyo3::intern!(py, "set_result"), (v,))?,
        Err(e) => fut.call_method1(pyo3::intern!(py, "set_exception"), (e.into_value(py),))?,
    };
    Ok(())
}

impl Completions {
    /// Queue a finished future. Takes the task's references (dropped without
    /// the GIL when no wake is needed: pyo3 releases them later).
    fn push(this: Py<Completions>, event_loop: Py<PyAny>, fut: Py<PyAny>, outcome: Outcome) {
        if this.get().0.push((fut, outcome)) == Wake::Done {
            return;
        }
        // Taking the GIL can wait: keep that off the async workers.
        tokio::task::spawn_blocking(move || {
            enter_python(|py| {
                // The loop may be closed already (nobody awaits any more): nothing to do then.
                let _ = event_loop.call_method1(py, "call_soon_threadsafe", (this,));
            });
        });
    }
}

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
    let completions = COMPLETIONS
        .get_or_try_init(py, || {
            py.import("urlscan_rs._bridge")?
                .getattr("completions")
                .map(Bound::unbind)
        })?
        .bind(py)
        .call1((&event_loop,))?
        .cast_into::<Completions>()?
        .unbind();
    let loop_ref = event_loop.unbind();
    let fut_ref = py_fut.clone().unbind();
    let rt = core::runtime::runtime().map_err(|e| to_pyerr(py, e))?;
    let handle = rt.spawn(async move {
        let out = fut.await;
        let outcome: Outcome = Box::new(move |py| match out {
            Ok(v) => convert(py, conv, v),
            Err(e) => Err(to_pyerr(py, e)),
        });
        Completions::push(completions, loop_ref, fut_ref, outcome);
    });
    py_fut.call_method1(
        "add_done_callback",
        (CancelOnDone {
            handle: Some(handle.abort_handle()),
        },),
    )?;
    Ok(py_fut)
}
