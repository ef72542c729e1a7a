//! Running a core future for Python: blocking (sync clients) or as an
//! awaitable (async clients), with the GIL released while it runs.
use std::future::Future;
use std::time::Duration;

use pyo3::prelude::*;

use super::convert::to_pyerr;
use super::outcome::{convert, panic_free, Conv};
use urlscan_core as core;

pub fn run<T, F>(py: Python<'_>, is_async: bool, fut: F, conv: Conv<T>) -> PyResult<Py<PyAny>>
where
    F: Future<Output = core::Result<T>> + Send + 'static,
    T: Send + 'static,
{
    let fut = panic_free(fut);
    if is_async {
        Ok(super::bridge::awaitable(py, fut, conv)?.unbind())
    } else {
        let out = block_on(py, fut)?;
        match out {
            Ok(v) => convert(py, conv, v).map(Bound::unbind),
            Err(e) => Err(to_pyerr(py, e)),
        }
    }
}

/// Block on a future with the GIL released, checking for Ctrl-C (and other
/// signals, and exceptions left set by Python code the wait ran) every 50 ms
/// so a long wait can be interrupted.
pub fn block_on<T, F>(py: Python<'_>, fut: F) -> PyResult<core::Result<T>>
where
    F: Future<Output = core::Result<T>> + Send,
    T: Send,
{
    if tokio::runtime::Handle::try_current().is_ok() {
        return Err(pyo3::exceptions::PyRuntimeError::new_err(
            "a blocking urlscan_rs call was made from inside a running urlscan_rs task (e.g. a progress callback); use the AsyncClient there",
        ));
    }
    let rt = core::runtime::runtime().map_err(|e| to_pyerr(py, e))?;
    py.detach(|| {
        rt.block_on(async {
            tokio::pin!(fut);
            // The first check is a tick after the call, and the call is polled
            // first: a call that is done at once (a search page fetched ahead)
            // registers no timer, which would wake the runtime's I/O thread.
            let every = Duration::from_millis(50);
            let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    biased;
                    out = &mut fut => return Ok(out),
                    _ = tick.tick() => {
                        Python::attach(|py| {
                            // Python code run on this thread during the wait (a log record
                            // handed to `logging`) may have run the Ctrl-C handler already;
                            // its KeyboardInterrupt was left set there, not raised.
                            if let Some(e) = PyErr::take(py) {
                                return Err(e);
                            }
                            py.check_signals()
                        })?;
                    }
                }
            }
        })
    })
}
