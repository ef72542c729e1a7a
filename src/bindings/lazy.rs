//! `LazyDoc`: a JSON object kept as bytes, with the span of each top-level
//! value found in one pass; a part becomes Python objects when first read.
//! Every answer becomes models this one way (bytes, indexed once, wrapped):
//! a search hit or a list element shares its answer's bytes, and a field
//! read (reader.rs) opens a nested object as a model over a slice of them,
//! so most of the JSON never becomes Python objects.
use std::sync::Mutex;

use bytes::Bytes;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple, PyType};

use super::convert::{json, model_class, to_pyerr};
use urlscan_core::api::endpoints::part;
use urlscan_core::models::index::{self, DocIndex, Key};
use urlscan_core::models::{first_byte, wrong_json, Doc, SearchPageHead};

#[pyclass(module = "urlscan_rs._native", frozen)]
pub struct LazyDoc {
    data: Bytes,
    index: DocIndex,
    parts: Mutex<Vec<Option<Py<PyAny>>>>,
}

impl LazyDoc {
    pub(super) fn new(data: Bytes, index: DocIndex) -> LazyDoc {
        // Filled on the first decoded part: most documents never decode one.
        let parts = Mutex::new(Vec::new());
        LazyDoc { data, index, parts }
    }

    /// An object the core has parsed already (an answer part, a list
    /// element): its structure is enough, without checking it again; the
    /// checking index (and its error) only when the scan sees no object.
    fn parsed(py: Python<'_>, body: Bytes) -> PyResult<LazyDoc> {
        let idx = off_gil(py, body.len(), || index::parsed_object_index(&body));
        match idx {
            Some(idx) => Ok(LazyDoc::new(body, idx)),
            None => LazyDoc::from_body(py, body),
        }
    }

    /// One document (a whole body that is a JSON object).
    pub fn from_body(py: Python<'_>, body: Bytes) -> PyResult<LazyDoc> {
        let index =
            off_gil(py, body.len(), || index::object_index(&body)).map_err(|e| to_pyerr(py, e))?;
        Ok(LazyDoc::new(body, index))
    }

    fn part<'py>(&self, py: Python<'py>, i: usize) -> PyResult<Bound<'py, PyAny>> {
        if let Some(Some(v)) = self.parts.lock().unwrap().get(i) {
            return Ok(v.bind(py).clone());
        }
        let e = &self.index[i];
        let v = json(py, &self.data[e.start..e.end])?;
        let mut parts = self.parts.lock().unwrap();
        if parts.is_empty() {
            parts.resize_with(self.index.len(), || None);
        }
        parts[i] = Some(v.clone().unbind());
        Ok(v)
    }

    fn find(&self, key: &str) -> Option<usize> {
        // The last of duplicate keys wins, as with json.loads.
        self.index.iter().rposition(|e| e.key_is(&self.data, key))
    }

    /// The bytes and the span of the value of a top-level key.
    pub(super) fn span(&self, key: &str) -> Option<(&Bytes, usize, usize)> {
        let e = &self.index[self.find(key)?];
        Some((&self.data, e.start, e.end))
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
        // `parts` is empty until a part is decoded (the zip lists none then).
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

    /// The object's JSON text, rebuilt from its members' bytes (no decoding;
    /// a hit's document spans only its own members of the page).
    fn json<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let len: usize = self.index.iter().map(|e| e.end - e.start + 8).sum();
        let mut out = Vec::with_capacity(len + 2);
        out.push(b'{');
        for (i, e) in self.index.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            match &e.key {
                Key::At(a, b) => {
                    out.push(b'"');
                    out.extend_from_slice(&self.data[*a..*b]);
                    out.push(b'"');
                }
                Key::Owned(k) => {
                    out.extend_from_slice(serde_json::to_string(k).unwrap_or_default().as_bytes())
                }
            }
            out.push(b':');
            out.extend_from_slice(&self.data[e.start..e.end]);
        }
        out.push(b'}');
        PyBytes::new(py, &out)
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

/// `f()`, which reads `len` bytes, with the GIL released when that is long
/// enough to be worth it: releasing and taking it back costs about as much
/// as indexing a few KB, and can hand the GIL to another thread.
pub(super) fn off_gil<T: Send>(py: Python<'_>, len: usize, f: impl FnOnce() -> T + Send) -> T {
    if len >= 64 * 1024 {
        py.detach(f)
    } else {
        f()
    }
}

/// A model instance over `doc`, made without running Python code
/// (allocated as `object.__new__` does, the slots set directly: `Model` is
/// frozen); `path` is where the object is in the answer ("" for the whole
/// answer), named by the model's errors.
pub(super) fn new_model<'py>(
    cls: &Bound<'py, PyType>,
    doc: Bound<'py, LazyDoc>,
    path: &Bound<'py, PyString>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = cls.py();
    let no_args = PyTuple::empty(py);
    // SAFETY: `cls` is a live type and `no_args` a live tuple; PyType_GenericNew
    // only allocates (what `object.__new__` does for a class with slots),
    // without the call and argument checks.
    let obj = unsafe {
        let p = pyo3::ffi::PyType_GenericNew(
            cls.as_ptr().cast(),
            no_args.as_ptr(),
            std::ptr::null_mut(),
        );
        Bound::from_owned_ptr_or_err(py, p)?
    };
    set_slot(&obj, pyo3::intern!(py, "_json"), doc.as_any())?;
    set_slot(&obj, pyo3::intern!(py, "_cache"), PyDict::new(py).as_any())?;
    set_slot(&obj, pyo3::intern!(py, "_path"), path.as_any())?;
    // A model cannot be part of a reference cycle: it is frozen, and holds
    // only its document, its path and the values read from it (never a model
    // above it). Left to the cycle collector, the models of an export are
    // most of what each collection walks.
    // SAFETY: `obj` is a live object of a GC type (a class with slots).
    unsafe { pyo3::ffi::PyObject_GC_UnTrack(obj.as_ptr().cast()) };
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
    doc: Doc<SearchPageHead>,
) -> PyResult<Bound<'py, PyList>> {
    let body = doc.body;
    let hits = if doc.head.hits.len() == doc.head.results.len() {
        doc.head.hits
    } else {
        py.detach(|| index::search_page(body.clone()))
            .map_err(|e| to_pyerr(py, e))?
            .head
            .hits
    };
    let cls = model_class(py, class)?;
    let out = PyList::empty(py);
    for (i, idx) in hits.into_iter().enumerate() {
        let d = Bound::new(py, LazyDoc::new(body.clone(), idx))?;
        let path = PyString::new(py, &format!("results[{i}]"));
        out.append(new_model(&cls, d, &path)?)?;
    }
    Ok(out)
}

/// A JSON body as its model: every object answer is read the same way (one
/// pass indexes it, fields are read from its bytes).
pub fn model<'py>(py: Python<'py>, class: &str, body: Bytes) -> PyResult<Bound<'py, PyAny>> {
    if first_byte(&body) == Some(b'{') {
        return body_model(py, class, body);
    }
    Err(to_pyerr(py, wrong_json(class, "a JSON object", &body)))
}

/// The list under `key` of a JSON object, or the body itself when it is a
/// list (`{}`, null or a missing key read as `[]`), as models sharing the
/// body's bytes; element `i` is named `{key}[i]` in errors.
pub fn model_list<'py>(
    py: Python<'py>,
    class: &str,
    key: &str,
    body: Bytes,
) -> PyResult<Bound<'py, PyAny>> {
    let items = part(body, class, &[key], true).map_err(|e| to_pyerr(py, e))?;
    let spans =
        off_gil(py, items.len(), || index::array_spans(&items)).map_err(|e| to_pyerr(py, e))?;
    let cls = model_class(py, class)?;
    let out = PyList::empty(py);
    for (i, (start, end)) in spans.into_iter().enumerate() {
        let item = items.slice(start..end);
        let at = format!("{key}[{i}]");
        if item.first() != Some(&b'{') {
            return Err(to_pyerr(py, wrong_json(&at, "an object", &item)));
        }
        // The array was parsed whole: each element's structure is enough.
        let doc = Bound::new(py, LazyDoc::parsed(py, item)?)?;
        out.append(new_model(&cls, doc, &PyString::new(py, &at))?)?;
    }
    Ok(out.into_any())
}

/// An answer part of `Client::call_raw` (checked by the core) as Python
/// values, wrapped in `class` when given: an object is a model, a list a
/// list of models (each must be an object), null None.
pub fn wrap<'py>(
    py: Python<'py>,
    body: Bytes,
    class: Option<&str>,
    key: &str,
) -> PyResult<Bound<'py, PyAny>> {
    match (class, first_byte(&body)) {
        (Some(class), Some(b'{')) => {
            let doc = Bound::new(py, LazyDoc::parsed(py, body)?)?;
            new_model(&model_class(py, class)?, doc, pyo3::intern!(py, ""))
        }
        (Some(class), Some(b'[')) => model_list(py, class, key, body),
        (Some(_), Some(b'n')) if &body[..] == b"null" => Ok(py.None().into_bound(py)),
        _ => json(py, &body),
    }
}

/// The value of `key` in the JSON object `body`, an answer part of
/// `Client::call_raw` (null when absent or when `body` is not an object).
pub fn field_of(py: Python<'_>, body: Bytes, key: &str) -> PyResult<Bytes> {
    if first_byte(&body) != Some(b'{') {
        return Ok(Bytes::from_static(b"null"));
    }
    let doc = LazyDoc::parsed(py, body)?;
    Ok(match doc.span(key) {
        Some((data, start, end)) => data.slice(start..end),
        None => Bytes::from_static(b"null"),
    })
}
