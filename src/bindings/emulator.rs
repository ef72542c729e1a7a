//! The emulator, started from Python on the runtime for servers.
use std::collections::HashMap;
use std::sync::Mutex;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use super::convert::{json, to_pyerr};
use super::options::{item, keywords};
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
    fn new(py: Python<'_>, settings: EmulatorSettings) -> PyResult<NativeEmulator> {
        let EmulatorSettings {
            scans,
            seed,
            scan_duration,
            latency,
            latency_groups,
            rate_limits,
            host,
            port,
            result_size,
            webhook_timeout,
        } = settings;
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
                groups: latency_groups,
            },
            ..EmulatorConfig::default()
        };
        for (action, windows) in rate_limits {
            let mut l: Limits = cfg.rate_limits.get(&action).cloned().unwrap_or_default();
            for (w, v) in windows {
                l.set(&w, v)
                    .map_err(|m| to_pyerr(py, core::Error::Validation(m)))?;
            }
            cfg.rate_limits.insert(action, l);
        }
        let rt = core::runtime::server_runtime().map_err(|e| to_pyerr(py, e))?;
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
    #[pyo3(signature = (kind=None, options=None, *, clear=false))]
    fn faults(
        &self,
        py: Python<'_>,
        kind: Option<&str>,
        options: Option<FaultArgs>,
        clear: bool,
    ) -> PyResult<u64> {
        let invalid = |m: String| to_pyerr(py, core::Error::Validation(m));
        let spec = match kind {
            None => None,
            Some(k) => {
                let spec = FaultSpec::new(FaultKind::parse(k).map_err(invalid)?);
                Some(match options {
                    Some(o) => o.onto(spec)?,
                    None => spec,
                })
            }
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

/// The keywords of `Emulator(...)`, as a dict with every one given
/// (`latency` split into its default and its groups).
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub struct EmulatorSettings {
    scans: usize,
    seed: u64,
    scan_duration: f64,
    latency: f64,
    latency_groups: HashMap<String, f64>,
    rate_limits: HashMap<String, HashMap<String, Option<u64>>>,
    host: String,
    port: u16,
    result_size: Option<(usize, usize)>,
    webhook_timeout: f64,
}

const FAULT_KEYWORDS: [&str; 9] = [
    "count",
    "path",
    "method",
    "status",
    "seconds",
    "every",
    "probability",
    "location",
    "seed",
];

/// The keywords of `Emulator.inject` besides the kind, as a dict; `count`
/// there defaults to 1, and None means no limit.
pub struct FaultArgs<'py>(Bound<'py, PyDict>);

impl<'a, 'py> FromPyObject<'a, 'py> for FaultArgs<'py> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        keywords(&obj, &FAULT_KEYWORDS).map(FaultArgs)
    }
}

impl FaultArgs<'_> {
    /// The fault `spec` with these options; a count or every below 1 is refused.
    fn onto(self, spec: FaultSpec) -> PyResult<FaultSpec> {
        let d = &self.0;
        let positive = |name: &str| match item::<i64>(d, name)? {
            Some(n) if n < 1 => Err(to_pyerr(
                d.py(),
                core::Error::Validation(format!("{name} must be 1 or more, got {n}")),
            )),
            v => Ok(v.map(|n| n as u64)),
        };
        Ok(FaultSpec {
            // Given as None it is no limit; left out, the spec's one request.
            count: match d.contains("count")? {
                true => positive("count")?,
                false => spec.count,
            },
            path: item(d, "path")?,
            method: item(d, "method")?,
            status: item(d, "status")?,
            seconds: item(d, "seconds")?,
            every: positive("every")?,
            probability: item(d, "probability")?,
            location: item(d, "location")?,
            seed: item(d, "seed")?,
            ..spec
        })
    }
}
