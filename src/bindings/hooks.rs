//! `Client(event_hooks=...)`: Python functions told of every attempt of every
//! request and of every answer, called on the client's I/O thread. What they
//! get never holds the API key; what they raise is logged, and the call goes
//! on as it would without them.
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use urlscan_core::observe::{Answered, HeaderMap, Observer, Sent};

use super::bridge::enter_python;

fn pairs<'py>(py: Python<'py>, h: &HeaderMap) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (k, v) in h {
        d.set_item(k.as_str(), String::from_utf8_lossy(v.as_bytes()))?;
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
    /// From `{"request": [f, ...], "response": [g, ...]}` (either may be
    /// missing); None when there is no hook.
    pub fn from_py(hooks: &Bound<'_, PyAny>) -> PyResult<Option<PyHooks>> {
        let d = hooks.cast::<PyDict>().map_err(|_| {
            pyo3::exceptions::PyTypeError::new_err(
                "event_hooks must be a dict: {\"request\": [functions], \"response\": [functions]}",
            )
        })?;
        let module = hooks.py().import("urlscan_rs.hooks")?;
        let mut out = PyHooks {
            request: Vec::new(),
            response: Vec::new(),
            classes: (
                module.getattr("HookRequest")?.unbind(),
                module.getattr("HookResponse")?.unbind(),
            ),
        };
        for (k, v) in d.iter() {
            let name: String = k.extract()?;
            let slot = match name.as_str() {
                "request" => &mut out.request,
                "response" => &mut out.response,
                other => {
                    return Err(pyo3::exceptions::PyValueError::new_err(format!(
                        "event_hooks takes the keys \"request\" and \"response\", got {other:?}"
                    )))
                }
            };
            let list = v.cast::<PyList>().map_err(|_| {
                pyo3::exceptions::PyTypeError::new_err(format!(
                    "event_hooks[{name:?}] must be a list of functions"
                ))
            })?;
            for f in list.iter() {
                if !f.is_callable() {
                    return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                        "event_hooks[{name:?}] holds {}, which is not callable",
                        f.repr()?
                    )));
                }
                slot.push(f.unbind());
            }
        }
        Ok((!out.request.is_empty() || !out.response.is_empty()).then_some(out))
    }

    fn call(py: Python<'_>, hooks: &[Py<PyAny>], arg: &Bound<'_, PyAny>, which: &str) {
        for f in hooks {
            if let Err(e) = f.call1(py, (arg,)) {
                log::warn!("an event hook ({which}) raised {e}; the request goes on without it");
            }
        }
    }
}

impl PyHooks {
    fn request<'py>(&self, py: Python<'py>, e: &Sent<'_>) -> PyResult<Bound<'py, PyAny>> {
        let kw = PyDict::new(py);
        kw.set_item("method", e.method)?;
        kw.set_item("url", e.url)?;
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
    fn sent(&self, e: &Sent<'_>) {
        if self.request.is_empty() {
            return;
        }
        enter_python(|py| match self.request(py, e) {
            Ok(r) => PyHooks::call(py, &self.request, &r, "request"),
            Err(err) => log::warn!("event hook (request): {err}"),
        });
    }
    fn answered(&self, e: &Answered<'_>) {
        if self.response.is_empty() {
            return;
        }
        enter_python(|py| match self.response(py, e) {
            Ok(r) => PyHooks::call(py, &self.response, &r, "response"),
            Err(err) => log::warn!("event hook (response): {err}"),
        });
    }
}
