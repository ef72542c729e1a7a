//! The emulator, started from Python on the shared runtime.
use std::collections::HashMap;
use std::sync::Mutex;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::convert::to_pyerr;
use crate::core;
use crate::emulator::{Emulator, EmulatorConfig, Latency, Limits};

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
    #[pyo3(signature = (*, scans=1000, seed=0, scan_duration=10.0, latency=0.0, latency_groups=None, rate_limits=None, host="127.0.0.1".to_string(), port=0))]
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
    ) -> PyResult<NativeEmulator> {
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
        let mut cfg = EmulatorConfig {
            host,
            port,
            scans,
            seed,
            scan_duration,
            latency: Latency {
                default: latency,
                groups: latency_groups.unwrap_or_default(),
            },
            ..EmulatorConfig::default()
        };
        for (action, windows) in rate_limits.unwrap_or_default() {
            let mut l: Limits = cfg.rate_limits.get(&action).copied().unwrap_or_default();
            for (w, v) in windows {
                match w.as_str() {
                    "minute" => l.minute = v,
                    "hour" => l.hour = v,
                    "day" => l.day = v,
                    other => {
                        return Err(to_pyerr(
                            py,
                            core::Error::Validation(format!(
                                "rate limit windows are minute, hour and day, got {other:?}"
                            )),
                        ))
                    }
                }
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

    /// Counters: scans submitted and requests served.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let (subs, reqs) = self.with(|e| {
            use std::sync::atomic::Ordering::Relaxed;
            (
                e.state.submissions.load(Relaxed),
                e.state.requests.load(Relaxed),
            )
        })?;
        let d = PyDict::new(py);
        d.set_item("submissions", subs)?;
        d.set_item("requests", reqs)?;
        Ok(d)
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
