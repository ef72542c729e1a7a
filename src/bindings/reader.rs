//! `FieldReader`: the getter of a declared model field, reading it straight
//! from the bytes of a `LazyDoc`. The common values (a string, a number, a
//! boolean, a date-time, a nested object) become Python objects here without
//! decoding the part they are in; a nested object becomes a model over a
//! slice of the same bytes (no copy). Anything else (a missing or null value,
//! a wrong type, a list, a dotted path, a model over a dict) is read by the
//! field's Python reader, which owns the rules and the error messages.
use chrono::{Datelike, Timelike};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyFloat, PyString, PyType};

use urlscan_core::models::json::span;

use super::convert::json;
use super::lazy::{new_model, LazyDoc, ModelBase, Wrapped};

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

/// An ISO 8601 date-time with an offset, as an aware datetime in UTC; None
/// for any other text (the Python reader has the full rules).
fn datetime<'py>(py: Python<'py>, text: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
    let Ok(t) = chrono::DateTime::parse_from_rfc3339(text) else {
        return Ok(None);
    };
    let Some(iso) = utc_isoformat(&t.with_timezone(&chrono::Utc)) else {
        return Ok(None);
    };
    // `datetime.fromisoformat` of the canonical UTC text: one call with one
    // argument, where the constructor (all the limited API offers) takes
    // eight and costs about 2.5 times as much. A zero offset reads as
    // `timezone.utc` itself.
    static FROM_ISO: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let from_iso = FROM_ISO.get_or_try_init(py, || -> PyResult<_> {
        Ok(py
            .import("datetime")?
            .getattr("datetime")?
            .getattr("fromisoformat")?
            .unbind())
    })?;
    let iso = std::str::from_utf8(&iso)
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(format!("date-time text: {e}")))?;
    Ok(Some(from_iso.bind(py).call1((iso,))?))
}

/// `YYYY-MM-DDTHH:MM:SS.ffffff+00:00`, which every `fromisoformat` since
/// Python 3.7 reads; None for what Python's datetime cannot hold (a year
/// outside 1-9999, a leap second).
fn utc_isoformat(t: &chrono::DateTime<chrono::Utc>) -> Option<[u8; 32]> {
    let year = u32::try_from(t.year())
        .ok()
        .filter(|y| (1..=9999).contains(y))?;
    let micros = t.nanosecond() / 1000;
    if micros >= 1_000_000 {
        return None;
    }
    let mut out = *b"0000-00-00T00:00:00.000000+00:00";
    let mut put = |at: usize, width: usize, mut v: u32| {
        for i in (at..at + width).rev() {
            out[i] = b'0' + (v % 10) as u8;
            v /= 10;
        }
    };
    put(0, 4, year);
    put(5, 2, t.month());
    put(8, 2, t.day());
    put(11, 2, t.hour());
    put(14, 2, t.minute());
    put(17, 2, t.second());
    put(20, 6, micros);
    Some(out)
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
        let Some((data, start, end)) = doc.span(py, wire.to_str()?) else {
            return Ok(None);
        };
        let span = &data[start..end];
        Ok(match kind {
            Kind::Str => match span::plain_str(span) {
                Some(s) => Some(PyString::new(py, s).into_any()),
                None if span.first() == Some(&b'"') => Some(json(py, span)?),
                None => None,
            },
            Kind::Number => match span::number(span) {
                Some(_) => Some(json(py, span)?),
                None => None,
            },
            Kind::Int => match span::number(span).and_then(|s| s.parse::<i64>().ok()) {
                Some(n) => Some(n.into_pyobject(py)?.into_any()),
                None => None,
            },
            Kind::Float => span::number(span)
                .and_then(|s| s.parse::<f64>().ok())
                .map(|f| PyFloat::new(py, f).into_any()),
            Kind::Bool => match span {
                b"true" => Some(PyBool::new(py, true).to_owned().into_any()),
                b"false" => Some(PyBool::new(py, false).to_owned().into_any()),
                _ => None,
            },
            Kind::DateTime => match span::plain_str(span) {
                Some(s) => datetime(py, s)?,
                None => None,
            },
            Kind::Model => match (model, span.first()) {
                (Some(cls), Some(b'{')) => {
                    // A part of a document already parsed, indexed when read.
                    let sub = LazyDoc::part_of_parsed(data.slice(start..end));
                    let path = base.path().member(py, wire);
                    Some(new_model(cls.bind(py), Wrapped::Doc(sub), path)?)
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
            if let Some(doc) = base.doc() {
                if let Some(v) = self.fast(py, base, doc, *kind, model.as_ref())? {
                    base.keep(me, &v);
                    return Ok(v);
                }
            }
        }
        self.slow.bind(py).call1((obj,))
    }
}
