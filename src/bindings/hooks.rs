//! `Client(event_hooks=...)`: Python functions told of every attempt of every
//! request and of every answer, called on the client's I/O thread. What they
//! get never holds the API key, nor a credential header, and the URL is
//! redacted (`urlscan_core::redact`); what they raise is logged, and the call
//! goes on as it would without them.
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyMapping, PyString};

use urlscan_core::observe::{Answered, HeaderMap, Observer, Sent, Token};
use urlscan_core::redact;

use super::bridge::enter_python;

/// The headers a hook sees: credentials (cookies, authorization) left out
/// (telemetry's hooks see the same).
pub(crate) fn shown(h: &HeaderMap) -> impl Iterator<Item = (&str, std::borrow::Cow<'_, str>)> {
    h.iter()
        .filter(|(k, v)| !v.is_sensitive() && !redact::is_secret_header(k.as_str()))
        .map(|(k, v)| (k.as_str(), String::from_utf8_lossy(v.as_bytes())))
}

fn pairs<'py>(py: Python<'py>, h: &HeaderMap) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (k, v) in shown(h) {
        d.set_item(k, v)?;
    }
    Ok(d)
}

/// The hooks of one client.
#[derive(Debug)]
pub struct PyHooks {
    request: Vec<Py<PyAny>>,
    response: Vec<Py<PyAny>>,
    /// `urlscan_rs.hooks.HookRequest` and `HookResponse`.
    classes: (Py<PyAny>, Py<PyAny>),
}

impl PyHooks {
    /// From `{"request": [f, ...], "response": [g, ...]}` (any mapping of
    /// either key to any iterable of plain functions); None when there is no
    /// hook.
    pub fn from_py(hooks: &Bound<'_, PyAny>) -> PyResult<Option<PyHooks>> {
        let py = hooks.py();
        let d = hooks.cast::<PyMapping>().map_err(|_| {
            PyTypeError::new_err(format!(
                "event_hooks must be a dict of \"request\" and \"response\" to lists of functions, got {}",
                hooks.repr().map(|r| r.to_string()).unwrap_or_default()
            ))
        })?;
        let module = py.import("urlscan_rs.hooks")?;
        let is_async = py.import("inspect")?.getattr("iscoroutinefunction")?;
        let mut out = PyHooks {
            request: Vec::new(),
            response: Vec::new(),
            classes: (
                module.getattr("HookRequest")?.unbind(),
                module.getattr("HookResponse")?.unbind(),
            ),
        };
        for item in d.items()?.iter() {
            let (k, v): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item.extract()?;
            let name: String = k.extract()?;
            let slot = match name.as_str() {
                "request" => &mut out.request,
                "response" => &mut out.response,
                other => {
                    return Err(PyValueError::new_err(format!(
                        "event_hooks takes the keys \"request\" and \"response\", got {other:?}"
                    )))
                }
            };
            let not_a_list = || {
                PyTypeError::new_err(format!("event_hooks[{name:?}] must be a list of functions"))
            };
            if v.is_instance_of::<PyString>() || v.is_instance_of::<PyBytes>() {
                return Err(not_a_list());
            }
            for f in v.try_iter().map_err(|_| not_a_list())? {
                let f = f?;
                if !f.is_callable() {
                    return Err(PyTypeError::new_err(format!(
                        "event_hooks[{name:?}] holds {}, which is not callable",
                        f.repr()?
                    )));
                }
                if is_async.call1((&f,))?.is_truthy()? {
                    return Err(PyTypeError::new_err(format!(
                        "event_hooks[{name:?}]: {} is async; hooks are plain functions, called on the client's I/O thread",
                        f.repr()?
                    )));
                }
                slot.push(f.unbind());
            }
        }
        Ok((!out.request.is_empty() || !out.response.is_empty()).then_some(out))
    }

    /// `hooks` called with what `make` builds, if there is any hook; what
    /// building or a hook raises is logged.
    fn tell(
        &self,
        hooks: &[Py<PyAny>],
        which: &str,
        make: impl for<'py> FnOnce(Python<'py>) -> PyResult<Bound<'py, PyAny>>,
    ) {
        if hooks.is_empty() {
            return;
        }
        enter_python(|py| match make(py) {
            Ok(arg) => {
                for f in hooks {
                    if let Err(e) = f.call1(py, (&arg,)) {
                        log::warn!(
                            "an event hook ({which}) raised {e}; the request goes on without it"
                        );
                    }
                }
            }
            Err(e) => log::warn!("event hook ({which}): {e}"),
        });
    }

    fn request<'py>(&self, py: Python<'py>, e: &Sent<'_>) -> PyResult<Bound<'py, PyAny>> {
        let kw = PyDict::new(py);
        kw.set_item("method", e.method)?;
        kw.set_item("url", redact::url(e.url))?;
        kw.set_item("headers", pairs(py, e.headers)?)?;
        kw.set_item("attempt", e.attempt)?;
        kw.set_item("action", e.action)?;
        kw.set_item("route", e.template)?;
        self.classes.0.bind(py).call((), Some(&kw))
    }

    fn response<'py>(&self, py: Python<'py>, e: &Answered<'_>) -> PyResult<Bound<'py, PyAny>> {
        let kw = PyDict::new(py);
        kw.set_item("status_code", e.status)?;
        kw.set_item("headers", pairs(py, e.headers)?)?;
        kw.set_item("elapsed", e.elapsed.as_secs_f64())?;
        kw.set_item("attempt", e.sent.attempt)?;
        kw.set_item("request", self.request(py, e.sent)?)?;
        self.classes.1.bind(py).call((), Some(&kw))
    }
}

impl Observer for PyHooks {
    fn sent(&self, e: &Sent<'_>, _add: &mut HeaderMap) -> Option<Token> {
        self.tell(&self.request, "request", |py| self.request(py, e));
        None
    }
    fn answered(&self, e: &Answered<'_>, _token: Option<Token>) {
        self.tell(&self.response, "response", |py| self.response(py, e));
    }
}
