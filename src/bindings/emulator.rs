//! The emulator, started from Python on the runtime for servers.
use std::collections::HashMap;
use std::sync::Mutex;

use pyo3::exceptions::{PyKeyError, PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyList};

use super::convert::{json, to_pyerr};
use super::options::{float_item, float_of, item, keywords, number_error, shown};
use urlscan_core as core;
use urlscan_emulator::{
    clock, Emulator, EmulatorConfig, FaultKind, FaultSpec, Latency, Limits, MAX_RESULT_SIZE,
    MAX_SCANS,
};

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
    pub(super) fn with<T>(&self, f: impl FnOnce(&Emulator) -> T) -> PyResult<T> {
        match self.inner.lock().unwrap().as_ref() {
            Some(e) => Ok(f(e)),
            None => Err(PyRuntimeError::new_err("the emulator has been stopped")),
        }
    }
}

#[pymethods]
impl NativeEmulator {
    #[new]
    fn new(py: Python<'_>, settings: &Bound<'_, PyDict>) -> PyResult<NativeEmulator> {
        let cfg = config_of(settings)?;
        let rt = core::runtime::server_runtime().map_err(|e| to_pyerr(py, e))?;
        let listen = format!("{}:{}", cfg.host, cfg.port);
        let emu = py
            .detach(|| rt.block_on(Emulator::start(cfg)))
            .map_err(|e| {
                // What the OS said of the address (in use, not this machine's, ...), as Python's
                // own sockets raise it: an OSError with its errno.
                let message = format!("the emulator cannot listen on {listen}: {e}");
                match e.raw_os_error() {
                    Some(errno) => pyo3::exceptions::PyOSError::new_err((errno, message)),
                    None => pyo3::exceptions::PyOSError::new_err(message),
                }
            })?;
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

    /// Move the clock `seconds` forward; not past the last time the
    /// emulator can show (see `clock::MAX_TIME_MS`).
    fn advance(&self, seconds: &Bound<'_, PyAny>) -> PyResult<()> {
        let secs = float_of(seconds, "advance(): seconds")?;
        self.with(|e| {
            let room = clock::headroom(&e.state);
            if !(0.0..=room).contains(&secs) {
                return Err(invalid(
                    seconds.py(),
                    format!(
                        "advance(): seconds must be from 0 to {room} (the emulator clock stops at \
                         the end of the year 9999), got {}",
                        shown(seconds)
                    ),
                ));
            }
            e.advance(secs);
            Ok(())
        })?
    }

    /// Emulator time, seconds since the epoch.
    fn now(&self) -> PyResult<f64> {
        self.with(|e| e.state.now_ms() as f64 / 1000.0)
    }

    /// Counters: scans submitted, requests served, requests a fault affected,
    /// 429s the rate limiter gave and TCP connections accepted.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let (subs, reqs, faults, throttled, conns) = self.with(|e| {
            use std::sync::atomic::Ordering::Relaxed;
            (
                e.state.submissions.load(Relaxed),
                e.state.requests.load(Relaxed),
                e.state.faults.lock().unwrap().affected(),
                e.state.throttled.load(Relaxed),
                e.state.connections.load(Relaxed),
            )
        })?;
        let d = PyDict::new(py);
        d.set_item("submissions", subs)?;
        d.set_item("requests", reqs)?;
        d.set_item("faults", faults)?;
        d.set_item("throttled", throttled)?;
        d.set_item("connections", conns)?;
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
                let kind = FaultKind::parse_with(k, core::fields::closest).map_err(invalid)?;
                let spec = FaultSpec::new(kind);
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
        let items = self.with(|e| e.state.events().outbox.clone())?;
        json_list(py, items.iter())
    }

    /// Every webhook attempt, oldest first:
    /// `{"url", "status", "error", "attempt", "notification", "at"}`.
    fn deliveries<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let items = self.with(|e| e.state.events().deliveries.clone())?;
        json_list(py, items.iter())
    }

    /// Every notification created (the payloads), oldest first.
    fn notifications<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let items = self.with(|e| {
            let ev = e.state.events();
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

/// A ValidationError (a ValueError) with this message.
fn invalid(py: Python<'_>, message: String) -> PyErr {
    to_pyerr(py, core::Error::Validation(message))
}

/// An integer setting from `lo` to `hi`: `options::int_of` with the
/// setting's own range. A bool (True is not a number), or an int out of the
/// range, even far past 64 bits, is a ValidationError naming the setting
/// and its range; a value that is not an int at all, a TypeError.
fn int_in(v: &Bound<'_, PyAny>, name: &str, lo: u64, hi: u64) -> PyResult<u64> {
    let what = format!("an integer from {lo} to {hi}");
    let out_of_range = || invalid(v.py(), format!("{name} must be {what}, got {}", shown(v)));
    if v.is_instance_of::<PyBool>() {
        return Err(out_of_range());
    }
    match v.extract::<u64>() {
        Ok(n) if (lo..=hi).contains(&n) => Ok(n),
        Ok(_) => Err(out_of_range()),
        Err(e) => Err(number_error(v, name, e, &what)),
    }
}

/// The configuration that the keywords of `Emulator(...)` describe, given
/// as a dict with every one (`latency` split into its default and its
/// groups, `result_size` None or a pair). Every setting is checked: a wrong
/// one is a ValidationError (a ValueError) that names it and the values it
/// takes, or a TypeError for a value of the wrong type. (Read in `new`'s body
/// rather than as a `FromPyObject` argument, whose errors pyo3 notes as
/// "while processing 'settings'", a name the caller never wrote.)
fn config_of<'py>(d: &Bound<'py, PyDict>) -> PyResult<EmulatorConfig> {
    let py = d.py();
    let get = |name: &str| -> PyResult<Bound<'py, PyAny>> {
        d.get_item(name)?
            .ok_or_else(|| PyKeyError::new_err(name.to_string()))
    };
    let defaults = EmulatorConfig::default();
    let result_size = get("result_size")?;
    let result_size = if result_size.is_none() {
        None
    } else {
        let (lo, hi): (Bound<'py, PyAny>, Bound<'py, PyAny>) = result_size.extract()?;
        let max = MAX_RESULT_SIZE as u64;
        let bytes = |v: &Bound<'py, PyAny>| {
            int_in(v, "result_size", 0, max).map_err(|_| {
                invalid(
                    py,
                    format!(
                        "result_size must be (min, max) bytes with min <= max and 0 < max \
                         <= {max}, got ({}, {})",
                        shown(&lo),
                        shown(&hi)
                    ),
                )
            })
        };
        Some((bytes(&lo)? as usize, bytes(&hi)? as usize))
    };
    let compact_json: bool = get("compact_json")?.extract().map_err(|e: PyErr| {
        PyTypeError::new_err(format!("argument 'compact_json': {}", e.value(py)))
    })?;
    let title_size = get("title_size")?;
    let title_size = if title_size.is_none() {
        None
    } else {
        Some(int_in(&title_size, "title_size", 0, (MAX_RESULT_SIZE / 2) as u64)? as usize)
    };
    let mut groups = HashMap::new();
    for (k, v) in get("latency_groups")?.cast::<PyDict>()?.iter() {
        let k: String = k.extract()?;
        let secs = float_of(&v, &format!("latency[{k:?}]"))?;
        groups.insert(k, secs);
    }
    let mut rate_limits = defaults.rate_limits.clone();
    for (action, windows) in get("rate_limits")?.cast::<PyDict>()?.iter() {
        let action: String = action.extract()?;
        let mut l: Limits = rate_limits.get(&action).cloned().unwrap_or_default();
        for (w, v) in windows.cast::<PyDict>()?.iter() {
            let w: String = w.extract()?;
            let limit = match v.is_none() {
                true => None,
                false => Some(int_in(
                    &v,
                    &format!("rate_limits[{action:?}][{w:?}]"),
                    0,
                    u64::MAX,
                )?),
            };
            l.set(&w, limit)
                .map_err(|m| invalid(py, format!("rate_limits[{action:?}]: {m}")))?;
        }
        rate_limits.insert(action, l);
    }
    let cfg = EmulatorConfig {
        host: get("host")?.extract().map_err(|e: PyErr| {
            PyTypeError::new_err(format!("argument 'host': {}", e.value(py)))
        })?,
        port: int_in(&get("port")?, "port", 0, u16::MAX.into())? as u16,
        scans: int_in(&get("scans")?, "scans", 0, MAX_SCANS as u64)? as usize,
        seed: int_in(&get("seed")?, "seed", 0, u64::MAX)?,
        scan_duration: float_of(&get("scan_duration")?, "scan_duration")?,
        latency: Latency {
            default: float_of(&get("latency")?, "latency")?,
            groups,
        },
        rate_limits,
        result_size,
        title_size,
        compact_json,
        webhook_timeout: float_of(&get("webhook_timeout")?, "webhook_timeout")?,
        body_timeout: float_of(&get("body_timeout")?, "body_timeout")?,
        ..defaults
    };
    // The ranges, and the names of latency groups and rate-limit actions.
    cfg.validate_with(core::fields::closest)
        .map_err(|m| invalid(py, m))?;
    // Read last, so a wrong setting is said before a folder is read.
    Ok(EmulatorConfig {
        recordings: super::record::recordings(d)?,
        ..cfg
    })
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
    /// The fault `spec` with these options. Integers are checked here (a
    /// count or every below 1 is refused); the rest where the plan takes the
    /// fault.
    fn onto(self, spec: FaultSpec) -> PyResult<FaultSpec> {
        let d = &self.0;
        let given = |name: &str| -> PyResult<Option<Bound<'_, PyAny>>> {
            Ok(d.get_item(name)?.filter(|v| !v.is_none()))
        };
        let int = |name: &str, lo: u64, hi: u64| -> PyResult<Option<u64>> {
            given(name)?.map(|v| int_in(&v, name, lo, hi)).transpose()
        };
        Ok(FaultSpec {
            // Given as None it is no limit; left out, the spec's one request.
            count: match d.contains("count")? {
                true => int("count", 1, u64::MAX)?,
                false => spec.count,
            },
            path: item(d, "path")?,
            method: item(d, "method")?,
            status: int("status", 0, u16::MAX.into())?.map(|n| n as u16),
            seconds: float_item(d, "seconds")?,
            every: int("every", 1, u64::MAX)?,
            probability: float_item(d, "probability")?,
            location: item(d, "location")?,
            seed: int("seed", 0, u64::MAX)?,
            ..spec
        })
    }
}
