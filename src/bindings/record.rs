//! `Client(record_to=DIR, record_hook=f)`: the Python function that sees each
//! recorded answer before it is written (`urlscan_core::record`), and the
//! dict it sees (documented in `urlscan_rs.recording`). It is called on the
//! client's I/O thread; what it raises, or a dict it returns that a recording
//! cannot hold, fails the call with a `ValidationError` and nothing is
//! written.
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};

use super::bridge::enter_python;
use super::convert::json;
use super::options::to_json;
use urlscan_core::record::{Body, Entry, Scrub};
use urlscan_core::Error;

/// A client's `record_hook`.
pub struct PyScrub {
    pub hook: Py<PyAny>,
}

fn returned(what: impl std::fmt::Display) -> Error {
    Error::Validation(format!(
        "record_hook returned {what}; nothing was recorded (see urlscan_rs.recording for the entry's shape)"
    ))
}

/// The dict the hook sees: the file's `request` and `response`, a body that
/// is not JSON as `bytes` under `response["body"]`.
fn to_py<'py>(py: Python<'py>, e: &Entry) -> PyResult<Bound<'py, PyDict>> {
    let request = PyDict::new(py);
    request.set_item("method", &e.method)?;
    request.set_item("path", &e.path)?;
    let query = PyDict::new(py);
    for (k, v) in &e.query {
        match query.get_item(k)? {
            None => query.set_item(k, v)?,
            Some(old) => match old.cast::<PyList>() {
                Ok(list) => list.append(v)?,
                Err(_) => {
                    query.set_item(k, PyList::new(py, [old, v.into_pyobject(py)?.into_any()])?)?
                }
            },
        }
    }
    request.set_item("query", query)?;
    if let Some(body) = &e.request_json {
        request.set_item("json", json(py, body.to_string().as_bytes())?)?;
    }
    let response = PyDict::new(py);
    response.set_item("status", e.status)?;
    let headers = PyDict::new(py);
    for (k, v) in &e.headers {
        headers.set_item(k, v)?;
    }
    response.set_item("headers", headers)?;
    match &e.body {
        Body::Json(v) => response.set_item("json", json(py, v.to_string().as_bytes())?)?,
        Body::Bytes(b) => response.set_item("body", PyBytes::new(py, b))?,
    }
    let d = PyDict::new(py);
    d.set_item("request", request)?;
    d.set_item("response", response)?;
    Ok(d)
}

/// A member of a dict the hook returned, cast to `T`, or why not.
fn member<'py, T: FromPyObjectOwned<'py>>(
    d: &Bound<'py, PyDict>,
    path: &str,
    key: &str,
    want: &str,
) -> Result<T, Error> {
    let v = d
        .get_item(key)
        .ok()
        .flatten()
        .ok_or_else(|| returned(format!("no {path}[{key:?}]")))?;
    v.extract::<T>()
        .map_err(|_| returned(format!("{path}[{key:?}] that is not {want}")))
}

fn dict_of<'py>(
    d: &Bound<'py, PyDict>,
    path: &str,
    key: &str,
) -> Result<Bound<'py, PyDict>, Error> {
    let v = d
        .get_item(key)
        .ok()
        .flatten()
        .ok_or_else(|| returned(format!("no {path}[{key:?}]")))?;
    v.cast_into::<PyDict>()
        .map_err(|_| returned(format!("{path}[{key:?}] that is not a dict")))
}

/// The entry a hook gave back (its shape checked; its values by the core).
fn from_py(out: &Bound<'_, PyAny>) -> Result<Entry, Error> {
    let d = out
        .cast::<PyDict>()
        .map_err(|_| returned("something that is not a dict or None"))?;
    let request = dict_of(d, "entry", "request")?;
    let response = dict_of(d, "entry", "response")?;
    let method: String = member(&request, "request", "method", "a str")?;
    let path: String = member(&request, "request", "path", "a str")?;
    let mut query = Vec::new();
    if let Some(q) = request
        .get_item("query")
        .ok()
        .flatten()
        .filter(|q| !q.is_none())
    {
        let q = q
            .cast::<PyDict>()
            .map_err(|_| returned("a request[\"query\"] that is not a dict"))?;
        for (k, v) in q.iter() {
            let k: String = k
                .extract()
                .map_err(|_| returned("a query name that is not a str"))?;
            let bad = || returned(format!("query[{k:?}] that is not a str or a list of str"));
            if let Ok(s) = v.cast::<PyString>() {
                query.push((k.clone(), s.to_string()));
            } else {
                let list = v.cast::<PyList>().map_err(|_| bad())?;
                for item in list.iter() {
                    let s: String = item.extract().map_err(|_| bad())?;
                    query.push((k.clone(), s));
                }
            }
        }
    }
    query.sort_by(|a, b| a.0.cmp(&b.0));
    let json_of = |d: &Bound<'_, PyDict>, path: &str| -> Result<Option<serde_json::Value>, Error> {
        match d.get_item("json").ok().flatten() {
            None => Ok(None),
            Some(v) => to_json(&v, "record_hook")
                .map(Some)
                .map_err(|e| returned(format!("a {path}[\"json\"] that is not JSON ({e})"))),
        }
    };
    let request_json = json_of(&request, "request")?;
    let status: i64 = member(&response, "response", "status", "an int")?;
    let mut headers = Vec::new();
    if let Some(h) = response
        .get_item("headers")
        .ok()
        .flatten()
        .filter(|h| !h.is_none())
    {
        let h = h
            .cast::<PyDict>()
            .map_err(|_| returned("a response[\"headers\"] that is not a dict"))?;
        for (k, v) in h.iter() {
            let bad = || returned("a header that is not a str to a str");
            let k: String = k.extract().map_err(|_| bad())?;
            let v: String = v.extract().map_err(|_| bad())?;
            headers.push((k.to_ascii_lowercase(), v));
        }
    }
    let body = match (
        json_of(&response, "response")?,
        response.get_item("body").ok().flatten(),
    ) {
        (Some(_), Some(_)) => {
            return Err(returned("both response[\"json\"] and response[\"body\"]"))
        }
        (Some(v), None) => Body::Json(v),
        (None, Some(b)) if b.is_none() => Body::Bytes(bytes::Bytes::new()),
        (None, Some(b)) => match (b.extract::<Vec<u8>>(), b.cast::<PyString>()) {
            (_, Ok(s)) => Body::Bytes(bytes::Bytes::from(s.to_string().into_bytes())),
            (Ok(v), _) => Body::Bytes(bytes::Bytes::from(v)),
            _ => return Err(returned("a response[\"body\"] that is not bytes or str")),
        },
        (None, None) => Body::Bytes(bytes::Bytes::new()),
    };
    Ok(Entry {
        method,
        path,
        query,
        request_json,
        status: u16::try_from(status).unwrap_or(0),
        headers,
        body,
    })
}

impl Scrub for PyScrub {
    fn scrub(&self, entry: Entry) -> urlscan_core::Result<Option<Entry>> {
        enter_python(|py| {
            let arg = to_py(py, &entry).map_err(|e| {
                Error::Validation(format!("cannot give record_hook the entry: {e}"))
            })?;
            let out = self.hook.call1(py, (arg,)).map_err(|e| {
                let name = e
                    .get_type(py)
                    .name()
                    .map(|n| n.to_string())
                    .unwrap_or_default();
                Error::Validation(format!(
                    "record_hook raised {name}: {}; nothing was recorded",
                    e.value(py)
                ))
            })?;
            let out = out.bind(py);
            if out.is_none() {
                return Ok(None);
            }
            from_py(out).map(Some)
        })
        .unwrap_or_else(|| {
            Err(Error::Validation(
                "the interpreter is shutting down: record_hook cannot run, nothing was recorded"
                    .into(),
            ))
        })
    }
}

/// The recordings an emulator serves (`settings["recordings"]`, a folder or
/// None), read and checked now: a recording that cannot be served is a
/// `ValidationError` naming its file, a folder the system cannot read an
/// `OSError` naming it.
pub fn recordings(
    settings: &Bound<'_, PyDict>,
) -> PyResult<Option<std::sync::Arc<urlscan_emulator::replay::Recordings>>> {
    use urlscan_emulator::replay::{LoadError, Recordings};
    let py = settings.py();
    let Some(dir) = super::options::item::<String>(settings, "recordings")? else {
        return Ok(None);
    };
    let loaded = py.detach(|| Recordings::load(std::path::Path::new(&dir)));
    loaded.map(|r| Some(std::sync::Arc::new(r))).map_err(|e| {
        let e = match e {
            LoadError::Io { path, error } => {
                urlscan_core::disk::io_error("read the recordings", &path, &error)
            }
            LoadError::Invalid(m) => Error::Validation(m),
        };
        super::convert::to_pyerr(py, e)
    })
}
