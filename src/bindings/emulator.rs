//! The emulator, started from Python on the shared runtime.
use std::collections::HashMap;
use std::sync::Mutex;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use super::convert::{json, to_pyerr};
use urlscan_core as core;
use urlscan_emulator::{Emulator, EmulatorConfig, FaultKind, FaultSpec, Latency, Limits};

/// JSON values as a list of Python objects (dicts for objects).
fn json_list<'a, 'py>(
    py: Python<'py>,
    items: impl Iterator<Item = &'a serde_json::Value>,
) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    for v in items {
        out.append(json(py, v.to_string().as_bytes())?)?;
    }
    Ok(out)
}

#[pyclass(module = "urlscan_rs._native", frozen)]
pub struct NativeEmulator {
    inner: Mutex<Option<Emulator>>,
    url: String,
    keys: Vec<(&'static str, String)>,
}

impl NativeEmulator {
    fn with<T>(&self, f: impl FnOnce(&Emulator) -> T) -> PyResult<T> {
        match self.inner.lock().unwrap().as_ref() {
            Some(e) => Ok(f(e)),
            None => Err(PyRuntimeError::new_err("the emulator has been stopped")),
        }
    }
}

#[pymethods]
impl NativeEmulator {
    #[new]
    #[pyo3(signature = (*, scans=1000, seed=0, scan_duration=10.0, latency=0.0, latency_groups=None, rate_limits=None, host="127.0.0.1".to_string(), port=0, result_size=None, webhook_timeout=5.0))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        scans: usize,
        seed: u64,
        scan_duration: f64,
        latency: f64,
        latency_groups: Option<HashMap<String, f64>>,
        rate_limits: Option<HashMap<String, HashMap<String, Option<u64>>>>,
        host: String,
        port: u16,
        result_size: Option<(usize, usize)>,
        webhook_timeout: f64,
    ) -> PyResult<NativeEmulator> {
        if let Some((lo, hi)) = result_size {
            if lo > hi || hi == 0 {
                return Err(to_pyerr(
                    py,
                    core::Error::Validation(format!(
                        "result_size must be (min, max) bytes with 0 < max and min <= max, got ({lo}, {hi})"
                    )),
                ));
            }
        }
        if !(scan_duration.is_finite()
            && scan_duration >= 0.0
            && latency.is_finite()
            && latency >= 0.0)
        {
            return Err(to_pyerr(
                py,
                core::Error::Validation(
                    "scan_duration and latency must be zero or more seconds".into(),
                ),
            ));
        }
        if !(webhook_timeout.is_finite() && webhook_timeout > 0.0) {
            return Err(to_pyerr(
                py,
                core::Error::Validation(format!(
                    "webhook_timeout must be more than 0 seconds, got {webhook_timeout}"
                )),
            ));
        }
        let mut cfg = EmulatorConfig {
            host,
            port,
            scans,
            seed,
            scan_duration,
            result_size,
            webhook_timeout,
            latency: Latency {
                default: latency,
                groups: latency_groups.unwrap_or_default(),
            },
            ..EmulatorConfig::default()
        };
        for (action, windows) in rate_limits.unwrap_or_default() {
            let mut l: Limits = cfg.rate_limits.get(&action).cloned().unwrap_or_default();
            for (w, v) in windows {
                l.set(&w, v)
                    .map_err(|m| to_pyerr(py, core::Error::Validation(m)))?;
            }
            cfg.rate_limits.insert(action, l);
        }
        let rt = core::runtime::runtime().map_err(|e| to_pyerr(py, e))?;
        let emu = py
            .detach(|| rt.block_on(Emulator::start(cfg)))
            .map_err(|e| PyRuntimeError::new_err(format!("cannot start the emulator: {e}")))?;
        Ok(NativeEmulator {
            url: emu.url(),
            keys: emu.keys(),
            inner: Mutex::new(Some(emu)),
        })
    }

    #[getter]
    fn url(&self) -> String {
        self.url.clone()
    }

    #[getter]
    fn api_key(&self) -> String {
        self.keys[0].1.clone()
    }

    #[getter]
    fn keys<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (kind, key) in &self.keys {
            d.set_item(*kind, key)?;
        }
        Ok(d)
    }

    fn advance(&self, seconds: f64) -> PyResult<()> {
        if !seconds.is_finite() || seconds < 0.0 {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "advance() takes zero or more seconds",
            ));
        }
        self.with(|e| e.advance(seconds))
    }

    /// Emulator time, seconds since the epoch.
    fn now(&self) -> PyResult<f64> {
        self.with(|e| e.state.now_ms() as f64 / 1000.0)
    }

    /// Counters: scans submitted, requests served, requests a fault affected
    /// and 429s the rate limiter gave.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let (subs, reqs, faults, throttled) = self.with(|e| {
            use std::sync::atomic::Ordering::Relaxed;
            (
                e.state.submissions.load(Relaxed),
                e.state.requests.load(Relaxed),
                e.state.faults.lock().unwrap().affected(),
                e.state.throttled.load(Relaxed),
            )
        })?;
        let d = PyDict::new(py);
        d.set_item("submissions", subs)?;
        d.set_item("requests", reqs)?;
        d.set_item("faults", faults)?;
        d.set_item("throttled", throttled)?;
        Ok(d)
    }

    /// The fault plan: with `clear` drop every queued fault; with a `kind`
    /// queue one; either way return how many requests the plan will still affect.
    #[pyo3(signature = (kind=None, *, count=Some(1), path=None, method=None, status=None, seconds=None, every=None, probability=None, location=None, seed=None, clear=false))]
    #[allow(clippy::too_many_arguments)]
    fn faults(
        &self,
        py: Python<'_>,
        kind: Option<&str>,
        count: Option<i64>,
        path: Option<String>,
        method: Option<String>,
        status: Option<u16>,
        seconds: Option<f64>,
        every: Option<i64>,
        probability: Option<f64>,
        location: Option<String>,
        seed: Option<u64>,
        clear: bool,
    ) -> PyResult<u64> {
        let invalid = |m: String| to_pyerr(py, core::Error::Validation(m));
        let positive = |name: &str, v: Option<i64>| match v {
            Some(n) if n < 1 => Err(invalid(format!("{name} must be 1 or more, got {n}"))),
            v => Ok(v.map(|n| n as u64)),
        };
        let spec = match kind {
            None => None,
            Some(k) => Some(FaultSpec {
                count: positive("count", count)?,
                path,
                method,
                status,
                seconds,
                every: positive("every", every)?,
                probability,
                location,
                seed,
                ..FaultSpec::new(FaultKind::parse(k).map_err(invalid)?)
            }),
        };
        self.with(|e| {
            if clear {
                e.clear_faults();
            }
            if let Some(spec) = spec {
                e.inject(spec).map_err(invalid)?;
            }
            Ok(e.faults_remaining())
        })?
    }

    /// Delivered e-mails, oldest first: `{"to", "subject", "notification", "at"}`.
    fn outbox<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let items = self.with(|e| e.state.events.lock().unwrap().outbox.clone())?;
        json_list(py, items.iter())
    }

    /// Every webhook attempt, oldest first:
    /// `{"url", "status", "error", "attempt", "notification", "at"}`.
    fn deliveries<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let items = self.with(|e| e.state.events.lock().unwrap().deliveries.clone())?;
        json_list(py, items.iter())
    }

    /// Every notification created (the payloads), oldest first.
    fn notifications<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let items = self.with(|e| {
            let ev = e.state.events.lock().unwrap();
            ev.notifications
                .iter()
                .map(|n| n.payload.clone())
                .collect::<Vec<_>>()
        })?;
        json_list(py, items.iter())
    }

    fn stop(&self) {
        if let Some(mut e) = self.inner.lock().unwrap().take() {
            e.stop();
        }
    }

    #[getter]
    fn running(&self) -> bool {
        self.inner.lock().unwrap().is_some()
    }
}
