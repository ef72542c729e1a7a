//! The option bundles the native client takes from Python, each extracted
//! once into one typed value: the client's settings (also what a pickled
//! client is rebuilt from), a scan's options, a wait's timing and a search's
//! parameters. Python passes each as a dict of the public method's keywords.
use pyo3::exceptions::{PyOverflowError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Number, Value};

use super::convert::to_pyerr;
use urlscan_core::api::{ScanOptions, WaitOptions};
use urlscan_core::{self as core, Client, Config};

/// The keywords of `with_options(...)`: the per-call settings a client
/// changes while sharing its pool; each absent one is kept.
pub struct Overrides(Vec<(String, Py<PyAny>)>);

impl<'a, 'py> FromPyObject<'a, 'py> for Overrides {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let d = obj.cast::<PyDict>()?;
        let mut out = Vec::new();
        for (k, v) in d.iter() {
            out.push((k.extract::<String>()?, v.unbind()));
        }
        Ok(Overrides(out))
    }
}

impl Overrides {
    /// `cfg` with these settings, each checked as `Client(...)` checks it.
    pub fn config(&self, py: Python<'_>, cfg: &Config) -> PyResult<Config> {
        let settings = Settings::of(cfg).into_pyobject(py)?.cast_into::<PyDict>()?;
        for (k, v) in &self.0 {
            if !OVERRIDES.contains(&k.as_str()) {
                return Err(PyTypeError::new_err(format!(
                    "with_options() got an unexpected keyword argument '{k}' (it takes {})",
                    OVERRIDES.join(", ")
                )));
            }
            settings.set_item(k, v)?;
        }
        let s: Settings = settings.as_any().extract()?;
        let set = |cfg: Config| -> core::Result<Config> {
            let mut cfg = cfg
                .with_timeout(s.timeout)?
                .with_retry_deadline(s.retry_deadline)?
                .with_max_body_bytes(s.max_body_bytes)?
                .with_max_download_bytes(s.max_download_bytes)?
                .with_max_retries(s.max_retries)?;
            cfg.fail_fast = s.fail_fast;
            Ok(cfg)
        };
        set(cfg.clone()).map_err(|e| to_pyerr(py, e))
    }
}

/// What `with_options` may change: what a request is sent with, not what
/// builds the connection pool.
pub const OVERRIDES: [&str; 6] = [
    "timeout",
    "max_retries",
    "retry_deadline",
    "fail_fast",
    "max_body_bytes",
    "max_download_bytes",
];

/// The keywords of `Client(...)`: what builds a client, and what `_config()`
/// gives back so that a pickled client is rebuilt with the same settings.
#[derive(IntoPyObject)]
pub struct Settings {
    api_key: Option<String>,
    base_url: Option<String>,
    timeout: f64,
    max_retries: i64,
    user_agent: Option<String>,
    proxy: Option<String>,
    verify: bool,
    fail_fast: bool,
    retry_deadline: Option<f64>,
    max_body_bytes: i64,
    max_download_bytes: i64,
    /// The folder every answer is recorded into (`urlscan_core::record`).
    record_to: Option<String>,
}

impl<'a, 'py> FromPyObject<'a, 'py> for Settings {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let d = obj.cast::<PyDict>()?;
        let missing = |k: &str| PyTypeError::new_err(format!("missing setting '{k}'"));
        Ok(Settings {
            api_key: item(&d, "api_key")?,
            base_url: item(&d, "base_url")?,
            timeout: float_given(&d, "timeout")?.ok_or_else(|| missing("timeout"))?,
            max_retries: int_given(&d, "max_retries")?.ok_or_else(|| missing("max_retries"))?,
            user_agent: item(&d, "user_agent")?,
            proxy: item(&d, "proxy")?,
            verify: given(&d, "verify")?.ok_or_else(|| missing("verify"))?,
            fail_fast: given(&d, "fail_fast")?.ok_or_else(|| missing("fail_fast"))?,
            retry_deadline: float_item(&d, "retry_deadline")?,
            max_body_bytes: int_given(&d, "max_body_bytes")?
                .ok_or_else(|| missing("max_body_bytes"))?,
            max_download_bytes: int_given(&d, "max_download_bytes")?
                .ok_or_else(|| missing("max_download_bytes"))?,
            record_to: item(&d, "record_to")?,
        })
    }
}

impl Settings {
    /// The settings a client runs with (the key included; defaults filled in).
    pub fn of(cfg: &Config) -> Settings {
        Settings {
            api_key: cfg.api_key.as_ref().map(|k| k.expose().to_string()),
            base_url: Some(cfg.base_url.clone()),
            timeout: cfg.timeout.as_secs_f64(),
            max_retries: cfg.max_retries.into(),
            user_agent: Some(cfg.user_agent.clone()),
            proxy: cfg.proxy.clone(),
            verify: cfg.verify,
            fail_fast: cfg.fail_fast,
            retry_deadline: cfg.retry_deadline.map(|d| d.as_secs_f64()),
            max_body_bytes: cfg.max_body_bytes as i64,
            max_download_bytes: i64::try_from(cfg.max_download_bytes).unwrap_or(i64::MAX),
            record_to: cfg
                .recorder
                .as_ref()
                .map(|r| r.dir().to_string_lossy().into_owned()),
        }
    }

    /// Check every setting and build the client, telling `observer` (if
    /// any) of every request and answer, recording answers (`record_to`)
    /// through `scrub` (if any).
    pub fn client(
        self,
        observer: Option<std::sync::Arc<dyn core::observe::Observer>>,
        cache: Option<std::sync::Arc<core::cache::Cache>>,
        scrub: Option<std::sync::Arc<dyn core::record::Scrub>>,
    ) -> core::Result<Client> {
        let cfg = Config::new(self.api_key, self.base_url)?
            .with_timeout(self.timeout)?
            .with_retry_deadline(self.retry_deadline)?
            .with_max_body_bytes(self.max_body_bytes)?
            .with_max_download_bytes(self.max_download_bytes)?
            .with_max_retries(self.max_retries)?
            .with_user_agent(self.user_agent)?;
        let mut cfg = cfg.with_proxy(self.proxy)?;
        cfg.verify = self.verify;
        cfg.fail_fast = self.fail_fast;
        cfg.observer = observer;
        cfg.cache = cache;
        cfg.recorder = match &self.record_to {
            Some(dir) => Some(std::sync::Arc::new(core::record::Recorder::open(
                std::path::Path::new(dir),
                scrub,
            )?)),
            None if scrub.is_some() => {
                return Err(core::Error::Validation(
                    "record_hook is given without record_to: give the folder to record into".into(),
                ))
            }
            None => None,
        };
        // reqwest's client must be built inside the runtime it will run on.
        let rt = core::runtime::runtime()?;
        let _guard = rt.enter();
        Client::new(cfg)
    }
}

/// The keywords of `Client.scan` besides the URL (what `**scan_options` may
/// hold): the fields of the core's submission row but the URL.
pub fn scan_keywords() -> Vec<&'static str> {
    urlscan_core::api::scanning::SCAN_FIELDS
        .iter()
        .map(|f| f.name)
        .filter(|n| *n != "url")
        .collect()
}

/// A scan's options, checked by the core's rules for them. A missing or None
/// keyword is not sent; a keyword that is not one of `scan_keywords` is a
/// TypeError, as in a signature. Extracted in the method's body, not as its
/// parameter, so that pyo3 adds no note naming the parameter to the core's
/// `ValidationError`.
pub struct ScanArgs(pub ScanOptions);

impl<'a, 'py> FromPyObject<'a, 'py> for ScanArgs {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let d = keywords(&obj, &scan_keywords())?;
        let mut opts = serde_json::Map::new();
        for (k, v) in d.iter() {
            if !v.is_none() {
                let k: String = k.extract()?;
                let value = to_json(&v, &k)?;
                opts.insert(k, value);
            }
        }
        ScanOptions::new(&opts)
            .map(ScanArgs)
            .map_err(|e| to_pyerr(obj.py(), e))
    }
}

const WAIT_KEYWORDS: [&str; 3] = ["timeout", "initial_wait", "interval"];

/// A wait's timing (the keywords of `Client.wait_for_result` besides the
/// uuid); a missing or None keyword takes the documented default.
pub struct WaitArgs(pub WaitOptions);

impl<'a, 'py> FromPyObject<'a, 'py> for WaitArgs {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let d = keywords(&obj, &WAIT_KEYWORDS)?;
        let default = WaitOptions::default();
        Ok(WaitArgs(WaitOptions {
            timeout: float_item(&d, "timeout")?.unwrap_or(default.timeout),
            initial_wait: float_item(&d, "initial_wait")?.unwrap_or(default.initial_wait),
            interval: float_item(&d, "interval")?.unwrap_or(default.interval),
        }))
    }
}

/// The dict of keywords, refused when it holds one the bundle does not have.
pub(super) fn keywords<'py>(
    obj: &Bound<'py, PyAny>,
    known: &[&str],
) -> PyResult<Bound<'py, PyDict>> {
    let d = obj.cast::<PyDict>()?;
    for key in d.keys() {
        let name: String = key.extract()?;
        if !known.contains(&name.as_str()) {
            return Err(PyTypeError::new_err(format!(
                "got an unexpected keyword argument '{name}'"
            )));
        }
    }
    Ok(d.clone())
}

/// One keyword's value (None when missing or None); a value of the wrong
/// type names the keyword, as pyo3 names a wrong argument.
pub(super) fn item<'py, T>(d: &Bound<'py, PyDict>, key: &str) -> PyResult<Option<T>>
where
    T: FromPyObjectOwned<'py>,
{
    match d.get_item(key)? {
        Some(v) if v.is_none() => Ok(None),
        _ => given(d, key),
    }
}

/// One keyword's value when given (None when missing); a given None is a
/// wrong type, as for a parameter that does not take None.
pub(super) fn given<'py, T>(d: &Bound<'py, PyDict>, key: &str) -> PyResult<Option<T>>
where
    T: FromPyObjectOwned<'py>,
{
    let Some(v) = d.get_item(key)? else {
        return Ok(None);
    };
    v.extract::<T>().map(Some).map_err(|e| {
        let e: PyErr = e.into();
        if e.is_instance_of::<PyTypeError>(d.py()) {
            PyTypeError::new_err(format!("argument '{key}': {}", e.value(d.py())))
        } else {
            e
        }
    })
}

/// One numeric check for every number the client takes from Python: a bool
/// is not a number (`True` would be taken as 1), and a value past the
/// type's range is a `ValidationError` naming the parameter, not a bare
/// `OverflowError`. Other types are a `TypeError` naming it.
pub(super) fn int_of(v: &Bound<'_, PyAny>, name: &str) -> PyResult<i64> {
    not_bool(v, name)?;
    v.extract::<i64>()
        .map_err(|e| number_error(v, name, e, "a whole number between -2**63 and 2**63-1"))
}

/// See [`int_of`]; an int is taken as a float.
pub(super) fn float_of(v: &Bound<'_, PyAny>, name: &str) -> PyResult<f64> {
    not_bool(v, name)?;
    v.extract::<f64>()
        .map_err(|e| number_error(v, name, e, "a number within a float's range"))
}

fn not_bool(v: &Bound<'_, PyAny>, name: &str) -> PyResult<()> {
    if v.is_instance_of::<PyBool>() {
        return Err(to_pyerr(
            v.py(),
            core::Error::Validation(format!("{name} must be a number, not a bool (got {v})")),
        ));
    }
    Ok(())
}

/// A value as a message shows it: its repr, cut short.
pub(super) fn shown(v: &Bound<'_, PyAny>) -> String {
    match v.repr() {
        Ok(r) => core::validate::shown(&r.to_string_lossy(), 40),
        // Python refuses to print ints of more than 4,300 digits.
        Err(_) => "a number too large to show".into(),
    }
}

/// The error of a failed number extraction: an overflow is a
/// `ValidationError` saying `name` must be `what`; a wrong type a
/// `TypeError` naming the argument.
pub(super) fn number_error(v: &Bound<'_, PyAny>, name: &str, e: PyErr, what: &str) -> PyErr {
    let py = v.py();
    if e.is_instance_of::<PyOverflowError>(py) {
        to_pyerr(
            py,
            core::Error::Validation(format!("{name} must be {what}, got {}", shown(v))),
        )
    } else if e.is_instance_of::<PyTypeError>(py) {
        PyTypeError::new_err(format!("argument '{name}': {}", e.value(py)))
    } else {
        e
    }
}

/// A numeric keyword when given (None when missing; a given None is a wrong type).
pub(super) fn int_given(d: &Bound<'_, PyDict>, key: &str) -> PyResult<Option<i64>> {
    d.get_item(key)?.map(|v| int_of(&v, key)).transpose()
}

/// A numeric keyword (None when missing or None), checked by [`float_of`].
pub(super) fn float_item(d: &Bound<'_, PyDict>, key: &str) -> PyResult<Option<f64>> {
    match d.get_item(key)? {
        Some(v) if !v.is_none() => float_of(&v, key).map(Some),
        _ => Ok(None),
    }
}

/// A numeric keyword when given (None when missing; a given None is a wrong type).
pub(super) fn float_given(d: &Bound<'_, PyDict>, key: &str) -> PyResult<Option<f64>> {
    d.get_item(key)?.map(|v| float_of(&v, key)).transpose()
}

/// A dict of keyword options as JSON, each value by [`to_json`] (None kept as
/// null: a row's nullable field sends it); no dict is no option.
pub fn opts_map(opts: Option<&Bound<'_, PyDict>>) -> PyResult<Map<String, Value>> {
    let mut m = Map::new();
    for (k, v) in opts.iter().flat_map(|d| d.iter()) {
        let k: String = k.extract()?;
        let value = to_json(&v, &k)?;
        m.insert(k, value);
    }
    Ok(m)
}

/// Python values to JSON (options of premium calls); a number out of range
/// names `name` (the option or parameter it is, or is inside of).
pub fn to_json(v: &Bound<'_, PyAny>, name: &str) -> PyResult<Value> {
    let bad =
        || {
            to_pyerr(
                v.py(),
                core::Error::Validation(format!(
                "option values must be JSON-like (str, int, float, bool, None, list, dict), got {}",
                v.get_type().name().map(|n| n.to_string()).unwrap_or_default()
            )),
            )
        };
    Ok(if v.is_none() {
        Value::Null
    } else if v.is_instance_of::<PyBool>() {
        Value::Bool(v.extract()?)
    } else if v.is_instance_of::<PyInt>() {
        Value::Number(Number::from(int_of(v, name)?))
    } else if v.is_instance_of::<PyFloat>() {
        Number::from_f64(v.extract()?)
            .map(Value::Number)
            .ok_or_else(bad)?
    } else if let Ok(s) = v.cast::<PyString>() {
        Value::String(s.to_str()?.to_string())
    } else if let Ok(d) = v.cast::<PyDict>() {
        let mut m = Map::new();
        for (k, val) in d.iter() {
            m.insert(
                k.extract::<String>().map_err(|_| bad())?,
                to_json(&val, name)?,
            );
        }
        Value::Object(m)
    } else if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        Value::Array(
            v.try_iter()?
                .map(|x| to_json(&x?, name))
                .collect::<PyResult<_>>()?,
        )
    } else {
        return Err(bad());
    })
}
