//! Converting core values to Python: JSON bodies become Python objects
//! (jiter), and core errors become the exception classes of
//! `urlscan_rs.errors`. Bodies become models in `lazy.rs`.
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyType};

use urlscan_core::{ApiErrorKind, Error};

/// A dict of a value's fields, each under its own name (the Python side
/// reads the core's field names); `?` returns the first error from the
/// calling function.
macro_rules! fields_dict {
    ($py:expr, $value:expr; $($field:ident),+ $(,)?) => {{
        let value = $value;
        let d = pyo3::types::PyDict::new($py);
        $(d.set_item(stringify!($field), value.$field)?;)+
        d
    }};
}
pub(crate) use fields_dict;

static MODELS: PyOnceLock<Py<PyModule>> = PyOnceLock::new();
static ERRORS: PyOnceLock<Py<PyModule>> = PyOnceLock::new();

/// A module of the package, imported once.
fn cached_module<'py>(
    py: Python<'py>,
    cell: &'py PyOnceLock<Py<PyModule>>,
    name: &str,
) -> PyResult<&'py Bound<'py, PyModule>> {
    Ok(cell
        .get_or_try_init(py, || py.import(name).map(Bound::unbind))?
        .bind(py))
}

pub fn model_class<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyType>> {
    Ok(cached_module(py, &MODELS, "urlscan_rs.models")?
        .getattr(name)?
        .cast_into::<PyType>()?)
}

/// Parse JSON bytes into Python objects.
pub fn json<'py>(py: Python<'py>, body: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    let parser = jiter::PythonParse {
        cache_mode: jiter::StringCacheMode::Keys,
        ..Default::default()
    };
    parser.python_parse(py, body).map_err(|e| {
        to_pyerr(
            py,
            Error::Decode(format!("invalid JSON: {}", e.description(body))),
        )
    })
}

/// The name in `urlscan_rs.errors` (where every class is defined, once) of
/// the exception class of each core error; None for a local I/O failure,
/// which is Python's own `OSError` (built in `error_value`).
fn error_class_name(e: &Error) -> Option<&'static str> {
    Some(match e {
        Error::Io { .. } => return None,
        Error::Internal(_) => "UrlscanError",
        Error::Validation(_) => "ValidationError",
        Error::Transport(_) | Error::Connect(_) | Error::Closed => "TransportError",
        Error::Timeout(_) => "RequestTimeout",
        Error::ScanTimeout { .. } => "ScanTimeoutError",
        Error::Decode(_) => "DecodeError",
        Error::Api(a) => match a.kind {
            ApiErrorKind::Other => "APIError",
            ApiErrorKind::BadRequest => "BadRequestError",
            ApiErrorKind::ScanRefused => "ScanRefusedError",
            ApiErrorKind::Authentication => "AuthenticationError",
            ApiErrorKind::PermissionDenied => "PermissionDeniedError",
            ApiErrorKind::NotFound => "NotFoundError",
            ApiErrorKind::ScanPending => "ScanPendingError",
            ApiErrorKind::Gone => "GoneError",
            ApiErrorKind::RateLimited => "RateLimitError",
            ApiErrorKind::Server => "ServerError",
        },
    })
}

/// The class itself; a name `urlscan_rs.errors` lacks is an error here, never
/// a quiet fallback to a more general class.
fn error_class<'py>(py: Python<'py>, e: &Error) -> PyResult<Bound<'py, PyType>> {
    let Some(name) = error_class_name(e) else {
        return Ok(py.get_type::<pyo3::exceptions::PyOSError>());
    };
    let module = cached_module(py, &ERRORS, "urlscan_rs.errors")?;
    Ok(module.getattr(name)?.cast_into::<PyType>()?)
}

/// The exception instance for a core error (not raised).
pub fn error_value<'py>(py: Python<'py>, e: Error) -> PyResult<Bound<'py, PyAny>> {
    if let Error::Io {
        errno,
        message,
        path,
    } = &e
    {
        // OSError(errno, strerror, filename) picks the subclass of the errno
        // (BrokenPipeError, PermissionError, ...), as Python's own I/O does.
        let os_error = py.get_type::<pyo3::exceptions::PyOSError>();
        return match errno {
            Some(n) => os_error.call1((*n, message.as_str(), path.as_str())),
            None => os_error.call1((format!("{message}: {path}"),)),
        };
    }
    let cls = error_class(py, &e)?;
    let attrs = PyDict::new(py);
    match &e {
        Error::Api(a) => {
            attrs.set_item("status", a.status)?;
            attrs.set_item("description", a.description.as_deref())?;
            attrs.set_item("code", a.code.as_deref())?;
            let errors = match &a.errors {
                Some(v) => json(py, v.to_string().as_bytes())?,
                None => py.None().into_bound(py),
            };
            attrs.set_item("errors", errors)?;
            attrs.set_item("body", a.body.as_str())?;
            attrs.set_item("method", a.method.as_str())?;
            // Its query may hold a looked-up URL (the lookup's search): shown redacted.
            attrs.set_item("path", urlscan_core::redact::url(&a.path))?;
            if let Some(rl) = &a.rate_limit {
                attrs.set_item("action", rl.action.as_deref())?;
                attrs.set_item("scope", rl.scope.as_deref())?;
                attrs.set_item("window", rl.window.as_deref())?;
                attrs.set_item("limit", rl.limit)?;
                attrs.set_item("remaining", rl.remaining)?;
                attrs.set_item("reset", rl.reset.as_deref())?;
                attrs.set_item("reset_after", rl.reset_after)?;
            }
        }
        Error::ScanTimeout { uuid, timeout } => {
            attrs.set_item("uuid", uuid.as_str())?;
            attrs.set_item("timeout", *timeout)?;
        }
        _ => {}
    }
    let message = match &e {
        Error::Api(a) => a.message.clone(),
        other => other.to_string(),
    };
    // A message shows the URLs in it redacted (a transport failure names its request's).
    let message = urlscan_core::redact::text(&message).into_owned();
    attrs.set_item("_detail", urlscan_core::redact::text(&e.to_string()))?;
    cls.call((message,), Some(&attrs))
}

pub fn to_pyerr(py: Python<'_>, e: Error) -> PyErr {
    match error_value(py, e) {
        Ok(v) => PyErr::from_value(v),
        Err(err) => err,
    }
}
