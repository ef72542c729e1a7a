//! `LazyDoc`: a JSON object kept as bytes, with the span of each top-level
//! value found in one pass; a part becomes Python objects when first read.
//! Search exports and large results mostly read a few parts of each
//! document, so most of the JSON never becomes Python objects.
use std::sync::Mutex;

use bytes::Bytes;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyString, PyType};

use super::convert::{json, model_class, to_pyerr};
use urlscan_core::models::index::{self, DocIndex};
use urlscan_core::models::{Doc, SearchPageHead};
use urlscan_core::Error;

#[pyclass(module = "urlscan_rs._native", frozen)]
pub struct LazyDoc {
    data: Bytes,
    index: DocIndex,
    parts: Mutex<Vec<Option<Py<PyAny>>>>,
}

impl LazyDoc {
    fn new(data: Bytes, index: DocIndex) -> LazyDoc {
        let parts = Mutex::new((0..index.len()).map(|_| None).collect());
        LazyDoc { data, index, parts }
    }

    /// One document (a whole body that is a JSON object).
    pub fn from_body(py: Python<'_>, body: Bytes) -> PyResult<LazyDoc> {
        let index = py
            .detach(|| index::object_index(&body))
            .map_err(|e| to_pyerr(py, e))?;
        Ok(LazyDoc::new(body, index))
    }

    fn part<'py>(&self, py: Python<'py>, i: usize) -> PyResult<Bound<'py, PyAny>> {
        if let Some(v) = &self.parts.lock().unwrap()[i] {
            return Ok(v.bind(py).clone());
        }
        let e = &self.index[i];
        let v = json(py, &self.data[e.start..e.end])?;
        self.parts.lock().unwrap()[i] = Some(v.clone().unbind());
        Ok(v)
    }

    fn find(&self, key: &str) -> Option<usize> {
        // The last of duplicate keys wins, as with json.loads.
        self.index.iter().rposition(|e| e.key(&self.data) == key)
    }
}

#[pymethods]
impl LazyDoc {
    /// A document over the bytes of one JSON object (checked here).
    #[new]
    fn py_new(py: Python<'_>, data: &[u8]) -> PyResult<LazyDoc> {
        LazyDoc::from_body(py, Bytes::copy_from_slice(data))
    }

    /// The top-level keys decoded so far.
    #[getter]
    fn decoded(&self) -> Vec<String> {
        let parts = self.parts.lock().unwrap();
        self.index
            .iter()
            .zip(parts.iter())
            .filter(|(_, p)| p.is_some())
            .map(|(e, _)| e.key(&self.data).to_string())
            .collect()
    }

    /// The value of a top-level key, or `default`.
    #[pyo3(signature = (key, default=None))]
    fn get<'py>(
        &self,
        py: Python<'py>,
        key: &str,
        default: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        match self.find(key) {
            Some(i) => self.part(py, i),
            None => Ok(default.unwrap_or_else(|| py.None().into_bound(py))),
        }
    }

    fn keys(&self) -> Vec<String> {
        let mut seen = std::collections::HashSet::new();
        self.index
            .iter()
            .map(|e| e.key(&self.data))
            .filter(|k| seen.insert(*k))
            .map(String::from)
            .collect()
    }

    fn __contains__(&self, key: &str) -> bool {
        self.find(key).is_some()
    }

    /// The whole object as a dict (parts already read are reused).
    fn full<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (i, e) in self.index.iter().enumerate() {
            let k = e.key(&self.data);
            if self.find(k) == Some(i) {
                d.set_item(k, self.part(py, i)?)?;
            }
        }
        Ok(d)
    }
}

/// A model instance over `doc`, made without running Python code
/// (`object.__new__` and the slots set directly: `Model` is frozen); `path`
/// is where the object is in the answer ("" for the whole answer), named by
/// the model's errors.
fn new_model<'py>(
    cls: &Bound<'py, PyType>,
    doc: Bound<'py, LazyDoc>,
    path: &Bound<'py, PyString>,
) -> PyResult<Bound<'py, PyAny>> {
    static OBJECT_NEW: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let py = cls.py();
    let new = OBJECT_NEW.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
        Ok(py
            .import("builtins")?
            .getattr("object")?
            .getattr("__new__")?
            .unbind())
    })?;
    let obj = new.bind(py).call1((cls,))?;
    set_slot(&obj, pyo3::intern!(py, "_json"), doc.as_any())?;
    set_slot(&obj, pyo3::intern!(py, "_cache"), PyDict::new(py).as_any())?;
    set_slot(&obj, pyo3::intern!(py, "_path"), path.as_any())?;
    Ok(obj)
}

fn set_slot(
    obj: &Bound<'_, PyAny>,
    name: &Bound<'_, PyString>,
    value: &Bound<'_, PyAny>,
) -> PyResult<()> {
    // SAFETY: all three are live objects; the generic setter is what
    // `object.__setattr__` calls.
    let rc =
        unsafe { pyo3::ffi::PyObject_GenericSetAttr(obj.as_ptr(), name.as_ptr(), value.as_ptr()) };
    if rc == 0 {
        Ok(())
    } else {
        Err(PyErr::fetch(obj.py()))
    }
}

/// A model over a body not indexed yet (indexed here, off the GIL).
pub fn body_model<'py>(py: Python<'py>, class: &str, body: Bytes) -> PyResult<Bound<'py, PyAny>> {
    let doc = LazyDoc::from_body(py, body)?;
    let root = pyo3::intern!(py, "");
    new_model(&model_class(py, class)?, Bound::new(py, doc)?, root)
}

/// A model over a whole indexed body (no copy, no second pass).
pub fn lazy_model<'py>(
    py: Python<'py>,
    class: &str,
    body: Bytes,
    index: DocIndex,
) -> PyResult<Bound<'py, PyAny>> {
    let cls = model_class(py, class)?;
    let d = Bound::new(py, LazyDoc::new(body, index))?;
    new_model(&cls, d, pyo3::intern!(py, ""))
}

/// The hits of a search page as lazy models sharing the page's bytes (a hit
/// kept alive keeps its page).
pub fn lazy_hits<'py>(
    py: Python<'py>,
    class: &str,
    doc: &Doc<SearchPageHead>,
) -> PyResult<Bound<'py, PyList>> {
    let reindexed;
    let hits = if doc.head.hits.len() == doc.head.results.len() {
        &doc.head.hits
    } else {
        reindexed = py
            .detach(|| index::search_page(doc.body.clone()))
            .map_err(|e| to_pyerr(py, e))?;
        &reindexed.head.hits
    };
    let cls = model_class(py, class)?;
    let out = PyList::empty(py);
    for (i, idx) in hits.iter().enumerate() {
        let d = Bound::new(py, LazyDoc::new(doc.body.clone(), idx.clone()))?;
        let path = PyString::new(py, &format!("results[{i}]"));
        out.append(new_model(&cls, d, &path)?)?;
    }
    Ok(out)
}

/// Documents at least this large become lazy models: Python objects are made
/// only for the top-level parts that are read (results are 100 KB to MBs,
/// most of it `data`, which a playbook reading verdicts never touches).
const LAZY_MIN_BYTES: usize = 32 * 1024;

/// A JSON body wrapped in a model class.
pub fn model<'py>(py: Python<'py>, class: &str, body: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    // The body was already parsed (and so validated) into its typed head.
    let object = body.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
    if body.len() >= LAZY_MIN_BYTES && object {
        return body_model(py, class, Bytes::copy_from_slice(body));
    }
    let raw = json(py, body)?;
    // serde reads a struct from an array too, so the shape is checked here.
    if raw.cast::<PyDict>().is_err() {
        let kind = raw.get_type().name()?.to_string();
        return Err(to_pyerr(
            py,
            Error::Decode(format!("{class}: expected a JSON object, got {kind}")),
        ));
    }
    model_class(py, class)?.call1((raw,))
}
