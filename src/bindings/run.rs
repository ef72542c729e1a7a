//! Running a core future for Python: blocking (sync clients) or as an
//! awaitable (async clients), with the GIL released while it runs.
use std::future::Future;
use std::time::Duration;

use pyo3::prelude::*;

use super::convert::to_pyerr;
use super::outcome::{convert, panic_free, Conv};
use urlscan_core as core;
use urlscan_core::transport::RawCell;

pub fn run<T, F>(py: Python<'_>, is_async: bool, fut: F, conv: Conv<T>) -> PyResult<Py<PyAny>>
where
    F: Future<Output = core::Result<T>> + Send + 'static,
    T: Send + 'static,
{
    // A call made inside `with RawCapture()` records its last answer there (an async
    // call's future is made now, so it records even when awaited after the block).
    let fut = panic_free(match capturing(py)? {
        Some(cell) => futures::future::Either::Left(core::transport::RAW_RESPONSE.scope(cell, fut)),
        None => futures::future::Either::Right(fut),
    });
    if is_async {
        // The caller's trace context, taken now (in the calling task).
        let fut = super::telemetry::scoped(py, fut)?;
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
    let fut = super::telemetry::scoped(py, fut)?;
    let out = py.detach(|| {
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
    });
    // The requests' telemetry, recorded while the GIL was released (a batch of it).
    super::telemetry::flush_due(py);
    out
}

/// The capture of the innermost `with RawCapture()` in the calling context: a
/// context variable, so concurrent asyncio tasks each see only their own.
static CAPTURE: pyo3::sync::PyOnceLock<Py<PyAny>> = pyo3::sync::PyOnceLock::new();

fn capture_var(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    CAPTURE
        .get_or_try_init(py, || {
            let var = py
                .import("contextvars")?
                .getattr("ContextVar")?
                .call1(("urlscan_rs_raw_capture",))?;
            Ok::<_, PyErr>(var.unbind())
        })
        .map(|v| v.bind(py))
}

/// Set once a `RawCapture` has been entered: until then no call looks the variable up.
static EVER_CAPTURED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn capturing(py: Python<'_>) -> PyResult<Option<RawCell>> {
    if !EVER_CAPTURED.load(std::sync::atomic::Ordering::Relaxed) {
        return Ok(None);
    }
    let current = capture_var(py)?.call_method1("get", (py.None(),))?;
    Ok(current
        .cast::<RawCapture>()
        .ok()
        .map(|c| c.get().cell.clone()))
}

/// `with RawCapture() as cap:` records the last HTTP answer of the client calls
/// made in the block (`client.with_raw_response`).
#[pyclass(module = "urlscan_rs._native", frozen)]
pub struct RawCapture {
    cell: RawCell,
    /// The context variable's token while the block runs.
    token: std::sync::Mutex<Option<Py<PyAny>>>,
}

#[pymethods]
impl RawCapture {
    #[new]
    fn py_new() -> RawCapture {
        RawCapture {
            cell: RawCell::default(),
            token: std::sync::Mutex::new(None),
        }
    }

    fn __enter__(slf: Bound<'_, Self>) -> PyResult<Bound<'_, Self>> {
        EVER_CAPTURED.store(true, std::sync::atomic::Ordering::Relaxed);
        let token = capture_var(slf.py())?.call_method1("set", (&slf,))?;
        *slf.get().token.lock().unwrap() = Some(token.unbind());
        Ok(slf)
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, py: Python<'_>, _exc: &Bound<'_, pyo3::types::PyTuple>) -> PyResult<()> {
        if let Some(token) = self.token.lock().unwrap().take() {
            capture_var(py)?.call_method1("reset", (token,))?;
        }
        Ok(())
    }

    /// `(method, url, status, [(header, value), ...], body)` of the last answer, or None.
    fn response<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, pyo3::types::PyTuple>>> {
        let last = self.cell.lock().unwrap().clone();
        let Some((method, url, resp)) = last else {
            return Ok(None);
        };
        let headers: Vec<(String, String)> = resp
            .headers
            .iter()
            .map(|(k, v)| {
                (
                    k.as_str().to_string(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect();
        let body = pyo3::types::PyBytes::new(py, &resp.body);
        Ok(Some(pyo3::types::PyTuple::new(
            py,
            [
                method.into_pyobject(py)?.into_any(),
                url.into_pyobject(py)?.into_any(),
                resp.status.into_pyobject(py)?.into_any(),
                headers.into_pyobject(py)?.into_any(),
                body.into_any(),
            ],
        )?))
    }
}
