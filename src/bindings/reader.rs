//! `FieldReader`: the getter of a declared model field, reading it straight
//! from the bytes of a `LazyDoc`. The common values (a string, a number, a
//! boolean, a date-time, a nested object) become Python objects here without
//! decoding the part they are in; a nested object becomes a model over a
//! slice of the same bytes (no copy). Anything else (a missing or null value,
//! a wrong type, a list, a dotted path, a model over a dict) is read by the
//! field's Python reader, which owns the rules and the error messages.
use bytes::Bytes;
use chrono::{Datelike, Timelike};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDateTime, PyFloat, PyString, PyType, PyTzInfo};

use super::convert::json;
use super::lazy::{new_model, off_gil, LazyDoc, ModelBase};
use urlscan_core::models::index;

/// What a field holds, as far as the native read goes.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Str,
    /// int or float, as the JSON number is written
    Number,
    Int,
    Float,
    Bool,
    DateTime,
    Model,
    /// read by the Python reader only
    Other,
}

impl Kind {
    fn parse(name: &str) -> PyResult<Kind> {
        Ok(match name {
            "str" => Kind::Str,
            "number" => Kind::Number,
            "int" => Kind::Int,
            "float" => Kind::Float,
            "bool" => Kind::Bool,
            "datetime" => Kind::DateTime,
            "model" => Kind::Model,
            "other" => Kind::Other,
            _ => {
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "unknown field kind {name:?}"
                )))
            }
        })
    }
}

/// One declared field: the class attribute (a descriptor) that reads it.
/// Read on the class, it gives the field's `property` (what type checkers,
/// stubtest and the docs see).
#[pyclass(module = "urlscan_rs._native", frozen)]
pub struct FieldReader {
    /// The attribute's name: the key of the instance's `_cache` (where the
    /// Python reader keeps what it reads).
    name: Py<PyString>,
    /// The JSON key (a top-level key of the model's object).
    wire: Py<PyString>,
    /// `slow(obj)`: the Python reader (reads, checks and caches).
    slow: Py<PyAny>,
    /// `plan()`: `(kind, model class or None)`, asked on first read, when
    /// every model class the annotation names exists.
    planner: Py<PyAny>,
    plan: PyOnceLock<(Kind, Option<Py<PyType>>)>,
    /// The field's property, read on the class.
    view: Py<PyAny>,
}

/// The JSON string `span` (quotes included) when it has no escapes.
fn plain_str(span: &[u8]) -> Option<&str> {
    let inner = span.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
    if inner.contains(&b'\\') {
        return None;
    }
    std::str::from_utf8(inner).ok()
}

fn number(span: &[u8]) -> Option<&str> {
    match span.first()? {
        b'-' | b'0'..=b'9' => std::str::from_utf8(span).ok(),
        _ => None,
    }
}

/// An ISO 8601 date-time with an offset, as an aware datetime in UTC; None
/// for any other text (the Python reader has the full rules).
fn datetime<'py>(py: Python<'py>, text: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
    let Ok(t) = chrono::DateTime::parse_from_rfc3339(text) else {
        return Ok(None);
    };
    let t = t.with_timezone(&chrono::Utc);
    let nanos = t.nanosecond();
    if nanos >= 1_000_000_000 {
        return Ok(None); // a leap second: Python's datetime has none
    }
    let utc = PyTzInfo::utc(py)?;
    let d = PyDateTime::new(
        py,
        t.year(),
        t.month() as u8,
        t.day() as u8,
        t.hour() as u8,
        t.minute() as u8,
        t.second() as u8,
        nanos / 1000,
        Some(&utc),
    )?;
    Ok(Some(d.into_any()))
}

impl FieldReader {
    fn plan<'a>(&'a self, py: Python<'_>) -> PyResult<&'a (Kind, Option<Py<PyType>>)> {
        self.plan.get_or_try_init(py, || {
            let (kind, model): (String, Option<Py<PyType>>) =
                self.planner.call0(py)?.extract(py)?;
            Ok((Kind::parse(&kind)?, model))
        })
    }

    /// The value read natively from the document's bytes, or None when the
    /// Python reader must read it.
    fn fast<'py>(
        &self,
        py: Python<'py>,
        base: &ModelBase,
        doc: &LazyDoc,
        kind: Kind,
        model: Option<&Py<PyType>>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let wire = self.wire.bind(py);
        let Some((data, start, end)) = doc.span(wire.to_str()?) else {
            return Ok(None);
        };
        let span = &data[start..end];
        Ok(match kind {
            Kind::Str => match plain_str(span) {
                Some(s) => Some(PyString::new(py, s).into_any()),
                None if span.first() == Some(&b'"') => Some(json(py, span)?),
                None => None,
            },
            Kind::Number => match number(span) {
                Some(_) => Some(json(py, span)?),
                None => None,
            },
            Kind::Int => match number(span).and_then(|s| s.parse::<i64>().ok()) {
                Some(n) => Some(n.into_pyobject(py)?.into_any()),
                None => None,
            },
            Kind::Float => number(span)
                .and_then(|s| s.parse::<f64>().ok())
                .map(|f| PyFloat::new(py, f).into_any()),
            Kind::Bool => match span {
                b"true" => Some(PyBool::new(py, true).to_owned().into_any()),
                b"false" => Some(PyBool::new(py, false).to_owned().into_any()),
                _ => None,
            },
            Kind::DateTime => match plain_str(span) {
                Some(s) => datetime(py, s)?,
                None => None,
            },
            Kind::Model => match (model, span.first()) {
                (Some(cls), Some(b'{')) => {
                    let part: Bytes = data.slice(start..end);
                    // A part of a document already parsed: its structure is enough.
                    let idx = off_gil(py, part.len(), || index::parsed_object_index(&part));
                    let Some(idx) = idx else { return Ok(None) };
                    let base = base.path(py).to_str()?;
                    let path = if base.is_empty() {
                        wire.clone()
                    } else {
                        PyString::new(py, &format!("{base}.{}", wire.to_str()?))
                    };
                    let sub = Bound::new(py, LazyDoc::new(part, idx))?;
                    Some(new_model(cls.bind(py), sub.into_any(), &path)?)
                }
                _ => None,
            },
            Kind::Other => None,
        })
    }
}

#[pymethods]
impl FieldReader {
    #[new]
    fn py_new(
        name: Bound<'_, PyString>,
        wire: Bound<'_, PyString>,
        slow: Bound<'_, PyAny>,
        planner: Bound<'_, PyAny>,
        view: Bound<'_, PyAny>,
    ) -> FieldReader {
        FieldReader {
            name: name.unbind(),
            wire: wire.unbind(),
            slow: slow.unbind(),
            planner: planner.unbind(),
            plan: PyOnceLock::new(),
            view: view.unbind(),
        }
    }

    fn __get__<'py>(
        &self,
        py: Python<'py>,
        obj: Option<&Bound<'py, PyAny>>,
        _owner: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        match obj {
            Some(obj) if !obj.is_none() => self.read(obj),
            _ => Ok(self.view.bind(py).clone()),
        }
    }
}

impl FieldReader {
    /// The field of `obj`: cached, read from the bytes, or by the Python reader.
    fn read<'py>(&self, obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let py = obj.py();
        let base = obj.cast::<ModelBase>()?.get();
        // This reader's address names its values in the model's native cache
        // (a reader lives as long as its class).
        let me = self as *const FieldReader as usize;
        if let Some(v) = base.cached(py, me) {
            return Ok(v);
        }
        if let Some(v) = base.cache(py).map(|c| c.get_item(self.name.bind(py))) {
            if let Some(v) = v? {
                return Ok(v);
            }
        }
        let (kind, model) = self.plan(py)?;
        if *kind != Kind::Other {
            let doc = base.json(py);
            if let Ok(doc) = doc.cast::<LazyDoc>() {
                if let Some(v) = self.fast(py, base, doc.get(), *kind, model.as_ref())? {
                    base.keep(me, &v);
                    return Ok(v);
                }
            }
        }
        self.slow.bind(py).call1((obj,))
    }
}
