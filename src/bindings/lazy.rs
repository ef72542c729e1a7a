//! `LazyDoc`: a JSON object kept as bytes, with the span of each top-level
//! value found in one pass; a part becomes Python objects when first read.
//! Every answer becomes models this one way (bytes, indexed once, wrapped):
//! a search hit or a list element shares its answer's bytes, and a field
//! read (reader.rs) opens a nested object as a model over a slice of them,
//! so most of the JSON never becomes Python objects.
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};

use bytes::Bytes;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple, PyType};
use smallvec::SmallVec;

use super::convert::{json, model_class, to_pyerr};
use urlscan_core::api::endpoints::part;
use urlscan_core::models::index::{self, DocIndex, Key};
use urlscan_core::models::{first_byte, wrong_json, Doc, SearchPageHead};

#[pyclass(module = "urlscan_rs._native", frozen)]
pub struct LazyDoc {
    data: Bytes,
    /// The members' spans: given, or found when first needed (a nested part
    /// a field read opens is often read once, which a scan for that one key
    /// answers without building the index).
    index: OnceLock<DocIndex>,
    /// Whether a key was looked up without the index (the next lookup builds it).
    scanned: AtomicBool,
    parts: Mutex<Vec<Option<Py<PyAny>>>>,
}

impl LazyDoc {
    /// Where the object itself is in `data`: from the `{` before its first
    /// key to the `}` after its last value (None for an empty object or a
    /// key the index rewrote).
    fn object_span(&self, index: &DocIndex) -> Option<(usize, usize)> {
        let (first, last) = (index.first()?, index.last()?);
        let Key::At(a, _) = first.key else {
            return None;
        };
        let before = &self.data[..a.checked_sub(1)?];
        let open = before.iter().rposition(|b| !b.is_ascii_whitespace())?;
        let after = &self.data[last.end..];
        let close = last.end + after.iter().position(|b| !b.is_ascii_whitespace())?;
        (self.data[open] == b'{' && self.data[close] == b'}').then_some((open, close + 1))
    }

    pub(super) fn new(data: Bytes, index: DocIndex) -> LazyDoc {
        LazyDoc::with_index(data, OnceLock::from(index))
    }

    /// A JSON object inside a body already parsed (so valid JSON), indexed
    /// when first needed.
    pub(super) fn part_of_parsed(data: Bytes) -> LazyDoc {
        LazyDoc::with_index(data, OnceLock::new())
    }

    fn with_index(data: Bytes, index: OnceLock<DocIndex>) -> LazyDoc {
        LazyDoc {
            data,
            index,
            scanned: AtomicBool::new(false),
            // Filled on the first decoded part: most documents never decode one.
            parts: Mutex::new(Vec::new()),
        }
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

    /// The members' spans, found now if not yet (an error when the bytes are
    /// not an object after all: the checking index names why).
    fn index(&self, py: Python<'_>) -> PyResult<&DocIndex> {
        if let Some(i) = self.index.get() {
            return Ok(i);
        }
        let data = &self.data;
        let idx = match off_gil(py, data.len(), || index::parsed_object_index(data)) {
            Some(i) => i,
            None => index::object_index(data).map_err(|e| to_pyerr(py, e))?,
        };
        Ok(self.index.get_or_init(|| idx))
    }

    /// The bytes and the members' spans (found now if not yet), for a table.
    pub(super) fn parts(&self, py: Python<'_>) -> PyResult<(Bytes, DocIndex)> {
        Ok((self.data.clone(), self.index(py)?.clone()))
    }

    /// A copy over the same bytes (for a `LazyDoc` of its own).
    pub(super) fn copy(&self) -> LazyDoc {
        LazyDoc::with_index(self.data.clone(), self.index.clone())
    }

    fn part<'py>(&self, py: Python<'py>, i: usize) -> PyResult<Bound<'py, PyAny>> {
        if let Some(Some(v)) = self.parts.lock().unwrap().get(i) {
            return Ok(v.bind(py).clone());
        }
        let index = self.index(py)?;
        let e = &index[i];
        let v = json(py, &self.data[e.start..e.end])?;
        let mut parts = self.parts.lock().unwrap();
        if parts.is_empty() {
            parts.resize_with(index.len(), || None);
        }
        parts[i] = Some(v.clone().unbind());
        Ok(v)
    }

    fn find(&self, py: Python<'_>, key: &str) -> PyResult<Option<usize>> {
        // The last of duplicate keys wins, as with json.loads.
        Ok(self
            .index(py)?
            .iter()
            .rposition(|e| e.key_is(&self.data, key)))
    }

    /// The bytes and the span of the value of a top-level key; None when
    /// absent, or when the bytes turn out not to be an object (the Python
    /// reader then reads `_json`, whose index names the error).
    pub(super) fn span(&self, py: Python<'_>, key: &str) -> Option<(&Bytes, usize, usize)> {
        let data = &self.data;
        if self.index.get().is_none() && !self.scanned.swap(true, Ordering::Relaxed) {
            let (start, end) = off_gil(py, data.len(), || index::parsed_member(data, key))??;
            return Some((data, start, end));
        }
        let e = &self.index(py).ok()?[self.find(py, key).ok()??];
        Some((data, e.start, e.end))
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
    fn decoded(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        let index = self.index(py)?;
        // `parts` is empty until a part is decoded (the zip lists none then).
        let parts = self.parts.lock().unwrap();
        Ok(index
            .iter()
            .zip(parts.iter())
            .filter(|(_, p)| p.is_some())
            .map(|(e, _)| e.key(&self.data).to_string())
            .collect())
    }

    /// The value of a top-level key, or `default`.
    #[pyo3(signature = (key, default=None))]
    fn get<'py>(
        &self,
        py: Python<'py>,
        key: &str,
        default: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        match self.find(py, key)? {
            Some(i) => self.part(py, i),
            None => Ok(default.unwrap_or_else(|| py.None().into_bound(py))),
        }
    }

    fn keys(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        let mut seen = std::collections::HashSet::new();
        Ok(self
            .index(py)?
            .iter()
            .map(|e| e.key(&self.data))
            .filter(|k| seen.insert(*k))
            .map(String::from)
            .collect())
    }

    fn __contains__(&self, py: Python<'_>, key: &str) -> PyResult<bool> {
        Ok(self.find(py, key)?.is_some())
    }

    /// The object's JSON text as it was sent (its bytes, however they were
    /// laid out), else rebuilt from its members' bytes (no decoding; a hit's
    /// document spans only its own members of the page).
    fn json<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let index = self.index(py)?;
        if let Some((open, close)) = self.object_span(index) {
            return Ok(PyBytes::new(py, &self.data[open..close]));
        }
        let len: usize = index.iter().map(|e| e.end - e.start + 8).sum();
        let mut out = Vec::with_capacity(len + 2);
        out.push(b'{');
        for (i, e) in index.iter().enumerate() {
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
        Ok(PyBytes::new(py, &out))
    }

    /// The whole object as a dict (parts already read are reused).
    fn full<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (i, e) in self.index(py)?.iter().enumerate() {
            let k = e.key(&self.data);
            if self.find(py, k)? == Some(i) {
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

/// The native part of every model (`models.Model` derives from it): the
/// JSON object it wraps, the values read so far and where it is in its
/// answer, kept in the instance itself (a field read reaches them without
/// an attribute lookup).
#[pyclass(module = "urlscan_rs._native", subclass, frozen)]
pub struct ModelBase {
    /// The object's bytes and members when it came from an answer: field
    /// reads use them directly, so a model costs no Python object but itself
    /// until Python code asks for `_json`.
    doc: Option<LazyDoc>,
    /// False once `_json` was replaced by another object: reads then go to it.
    native: AtomicBool,
    /// `_json` as Python code sees it: a dict (a model made from one, or
    /// once read whole), or a `LazyDoc` over `doc`'s bytes, made when first
    /// asked for.
    json: Mutex<Option<Py<PyAny>>>,
    /// The values the Python readers read, by attribute name (`_cache`),
    /// made when first asked for.
    cache: PyOnceLock<Py<PyDict>>,
    /// The values read natively, by the address of their `FieldReader`: a
    /// few per model, found by a scan, kept inline (no dict or allocation
    /// per model for the first few).
    read: Mutex<Reads>,
    /// Where the object is in its answer, named by the model's errors.
    path: Path,
}

/// (address of a `FieldReader`, the value it read).
type Reads = SmallVec<[(usize, Py<PyAny>); 4]>;

/// A JSON path in an answer ("" for the whole answer), kept as its parts:
/// the text is made only when asked for (an error, a pickle), not for each
/// of the many models a walk or a field read makes.
pub(super) enum Path {
    Root,
    Text(Py<PyString>),
    /// Element `i` of the list under a top-level key: `results[3]`.
    Item(Py<PyString>, usize),
    /// A member of element `i` of that list: `results[3].page` (the member
    /// a field read of a hit opens, without an allocation).
    ItemMember(Py<PyString>, usize, Py<PyString>),
    /// A member of the object at the inner path: `results[3].page.x`.
    Member(Box<Path>, Py<PyString>),
}

impl Path {
    pub(super) fn text<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyString>> {
        Ok(match self {
            Path::Root => pyo3::intern!(py, "").clone(),
            Path::Text(s) => s.bind(py).clone(),
            Path::Item(key, i) => PyString::new(py, &format!("{}[{i}]", key.bind(py).to_str()?)),
            Path::ItemMember(key, i, wire) => PyString::new(
                py,
                &format!(
                    "{}[{i}].{}",
                    key.bind(py).to_str()?,
                    wire.bind(py).to_str()?
                ),
            ),
            // Never over the root: `member` makes that a `Text`.
            Path::Member(inner, wire) => {
                let inner = inner.text(py)?;
                PyString::new(
                    py,
                    &format!("{}.{}", inner.to_str()?, wire.bind(py).to_str()?),
                )
            }
        })
    }

    /// The path of the member `wire` of the object at this path.
    pub(super) fn member(&self, py: Python<'_>, wire: &Bound<'_, PyString>) -> Path {
        let wire = wire.clone().unbind();
        match self {
            Path::Root => Path::Text(wire),
            Path::Item(key, i) => Path::ItemMember(key.clone_ref(py), *i, wire),
            _ => Path::Member(Box::new(self.clone_ref(py)), wire),
        }
    }

    fn clone_ref(&self, py: Python<'_>) -> Path {
        match self {
            Path::Root => Path::Root,
            Path::Text(s) => Path::Text(s.clone_ref(py)),
            Path::Item(key, i) => Path::Item(key.clone_ref(py), *i),
            Path::ItemMember(key, i, wire) => {
                Path::ItemMember(key.clone_ref(py), *i, wire.clone_ref(py))
            }
            Path::Member(inner, wire) => {
                Path::Member(Box::new(inner.clone_ref(py)), wire.clone_ref(py))
            }
        }
    }

    fn of(path: &Bound<'_, PyString>) -> Path {
        if path.to_str().is_ok_and(str::is_empty) {
            Path::Root
        } else {
            Path::Text(path.clone().unbind())
        }
    }
}

thread_local! {
    /// The fields of the instance `new_model` is making: handed to `#[new]`,
    /// which the type's `tp_new` runs (a Python subclass has no other way to
    /// be allocated with this class's layout).
    static NEXT: std::cell::Cell<Option<ModelBase>> = const { std::cell::Cell::new(None) };
}

impl ModelBase {
    /// `_json`: the dict, or a `LazyDoc` over the object's bytes (made once).
    pub(super) fn json<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        if let Some(j) = &*self.json.lock().unwrap() {
            return Ok(j.bind(py).clone());
        }
        let made = match &self.doc {
            Some(d) => Bound::new(py, d.copy())?.into_any(),
            None => PyDict::new(py).into_any(),
        };
        // Made outside the lock (allocating may run Python code); another
        // thread may have made one meanwhile, and the first one stays.
        let mut slot = self.json.lock().unwrap();
        Ok(slot.get_or_insert_with(|| made.unbind()).bind(py).clone())
    }

    /// The object's bytes and members, when it came from an answer (and
    /// was not replaced by another object since).
    pub(super) fn doc(&self) -> Option<&LazyDoc> {
        self.doc
            .as_ref()
            .filter(|_| self.native.load(Ordering::Relaxed))
    }

    /// The `_cache` dict, when the Python side has made it.
    pub(super) fn cache<'py>(&self, py: Python<'py>) -> Option<&Bound<'py, PyDict>> {
        self.cache.get(py).map(|d| d.bind(py))
    }

    /// The value the reader `key` read natively.
    pub(super) fn cached<'py>(&self, py: Python<'py>, key: usize) -> Option<Bound<'py, PyAny>> {
        let read = self.read.lock().unwrap();
        read.iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.bind(py).clone())
    }

    pub(super) fn keep(&self, key: usize, value: &Bound<'_, PyAny>) {
        self.read
            .lock()
            .unwrap()
            .push((key, value.clone().unbind()));
    }

    fn new(doc: Option<LazyDoc>, json: Option<Py<PyAny>>, path: Path) -> ModelBase {
        ModelBase {
            doc,
            native: AtomicBool::new(true),
            json: Mutex::new(json),
            cache: PyOnceLock::new(),
            read: Mutex::new(SmallVec::new()),
            path,
        }
    }

    pub(super) fn path(&self) -> &Path {
        &self.path
    }
}

#[pymethods]
impl ModelBase {
    /// Every model starts over an empty object; `Model.__init__` sets the
    /// one given (`new_model` hands its own fields over instead).
    #[new]
    #[pyo3(signature = (*_args, **_kwargs))]
    fn py_new(
        py: Python<'_>,
        _args: &Bound<'_, PyTuple>,
        _kwargs: Option<&Bound<'_, PyDict>>,
    ) -> ModelBase {
        NEXT.take().unwrap_or_else(|| {
            ModelBase::new(None, Some(PyDict::new(py).into_any().unbind()), Path::Root)
        })
    }

    /// The JSON object: a `LazyDoc` (still bytes) or a dict.
    #[getter(_json)]
    fn get_json<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.json(py)
    }

    /// The field values read so far, by attribute name.
    #[getter(_cache)]
    fn get_cache<'py>(&self, py: Python<'py>) -> Bound<'py, PyDict> {
        self.cache
            .get_or_init(py, || PyDict::new(py).unbind())
            .bind(py)
            .clone()
    }

    #[getter(_path)]
    fn get_path<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyString>> {
        self.path.text(py)
    }

    /// Replace the JSON object: by the same object read whole (`same`), or
    /// by another one (at construction), whose fields are then read from it
    /// alone, not from the bytes the model was made over. The model stays
    /// frozen to its users.
    #[pyo3(signature = (json, same=false))]
    fn _set_json(&self, json: Bound<'_, PyAny>, same: bool) {
        if !same {
            self.native.store(false, Ordering::Relaxed);
        }
        *self.json.lock().unwrap() = Some(json.unbind());
    }
}

/// What a model wraps: the bytes of an object (read natively, `_json` made
/// on demand) or a Python object Python code handed over (a dict, or a
/// `LazyDoc`, whose bytes are then read natively too).
pub(super) enum Wrapped<'py> {
    Doc(LazyDoc),
    Object(Bound<'py, PyAny>),
}

/// A model instance of class `cls` over `json`, made without running
/// Python code; `path` is where the object is in the answer, named by the
/// model's errors.
pub(super) fn new_model<'py>(
    cls: &Bound<'py, PyType>,
    json: Wrapped<'py>,
    path: Path,
) -> PyResult<Bound<'py, PyAny>> {
    let py = cls.py();
    let base = match json {
        Wrapped::Doc(doc) => ModelBase::new(Some(doc), None, path),
        Wrapped::Object(o) => {
            let doc = o.cast::<LazyDoc>().ok().map(|d| d.get().copy());
            ModelBase::new(doc, Some(o.unbind()), path)
        }
    };
    NEXT.set(Some(base));
    let no_args = PyTuple::empty(py);
    // SAFETY: `cls` is a live type; its tp_new (this class's, a model class
    // defines no __new__) takes the fields from NEXT. Calling it rather than
    // the type skips the argument checks and `__init__`.
    let obj = unsafe {
        let new = pyo3::ffi::PyType_GetSlot(cls.as_type_ptr(), pyo3::ffi::Py_tp_new);
        if new.is_null() {
            NEXT.take();
            return Err(pyo3::exceptions::PyTypeError::new_err("not a model class"));
        }
        let new: pyo3::ffi::newfunc = std::mem::transmute(new);
        Bound::from_owned_ptr_or_err(
            py,
            new(cls.as_type_ptr(), no_args.as_ptr(), std::ptr::null_mut()),
        )
    };
    // Not taken when tp_new failed before reaching `#[new]`.
    NEXT.take();
    let obj = obj?;
    if !obj.is_instance_of::<ModelBase>() {
        return Err(pyo3::exceptions::PyTypeError::new_err("not a model class"));
    }
    // A model cannot be part of a reference cycle: it is frozen, and holds
    // only its document, its path and the values read from it (never a model
    // above it); `raw` and `to_dict()` hand out copies, so no caller can put
    // a model into its document. Left to the cycle collector, the models of
    // an export are most of what each collection walks.
    // SAFETY: `obj` is a live object of a GC type.
    unsafe { pyo3::ffi::PyObject_GC_UnTrack(obj.as_ptr().cast()) };
    Ok(obj)
}

/// A model of class `cls` over `json` (a `LazyDoc` or a dict) at `path` (for
/// the Python side: `Model._at` and unpickling).
#[pyfunction]
pub fn make_model<'py>(
    cls: &Bound<'py, PyType>,
    json: Bound<'py, PyAny>,
    path: &Bound<'py, PyString>,
) -> PyResult<Bound<'py, PyAny>> {
    new_model(cls, Wrapped::Object(json), Path::of(path))
}

/// A model over a body not indexed yet (indexed here, off the GIL).
pub fn body_model<'py>(py: Python<'py>, class: &str, body: Bytes) -> PyResult<Bound<'py, PyAny>> {
    let doc = LazyDoc::from_body(py, body)?;
    new_model(&model_class(py, class)?, Wrapped::Doc(doc), Path::Root)
}

/// A model over a whole indexed body (no copy, no second pass).
pub fn lazy_model<'py>(
    py: Python<'py>,
    class: &str,
    body: Bytes,
    index: DocIndex,
) -> PyResult<Bound<'py, PyAny>> {
    let doc = LazyDoc::new(body, index);
    new_model(&model_class(py, class)?, Wrapped::Doc(doc), Path::Root)
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
    let results = pyo3::intern!(py, "results");
    let out = PyList::empty(py);
    for (i, idx) in hits.iter().enumerate() {
        let d = LazyDoc::new(body.clone(), idx.to_vec());
        let path = Path::Item(results.clone().unbind(), i);
        out.append(new_model(&cls, Wrapped::Doc(d), path)?)?;
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
    let name = PyString::new(py, key);
    let out = PyList::empty(py);
    for (i, (start, end)) in spans.into_iter().enumerate() {
        let item = items.slice(start..end);
        if item.first() != Some(&b'{') {
            let at = format!("{key}[{i}]");
            return Err(to_pyerr(py, wrong_json(&at, "an object", &item)));
        }
        // The array was parsed whole: each element's structure is enough.
        let doc = LazyDoc::parsed(py, item)?;
        let path = Path::Item(name.clone().unbind(), i);
        out.append(new_model(&cls, Wrapped::Doc(doc), path)?)?;
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
            let doc = LazyDoc::parsed(py, body)?;
            new_model(&model_class(py, class)?, Wrapped::Doc(doc), Path::Root)
        }
        (Some(class), Some(b'[')) => model_list(py, class, key, body),
        (Some(_), Some(b'n')) if &body[..] == b"null" => Ok(py.None().into_bound(py)),
        _ => json(py, &body),
    }
}

/// The string `key` of the JSON object `body`, an answer part of
/// `Client::call_raw` that promises it (a live scan's `uuid`): an empty
/// body, another value or a missing, null or non-string member is a
/// `DecodeError`, never None.
pub fn field_of(py: Python<'_>, body: Bytes, key: &str) -> PyResult<Bytes> {
    if first_byte(&body) != Some(b'{') {
        return Err(to_pyerr(py, wrong_json(key, "an object holding it", &body)));
    }
    let doc = LazyDoc::parsed(py, body)?;
    match doc.span(py, key) {
        Some((data, start, end)) if data.get(start) == Some(&b'"') => Ok(data.slice(start..end)),
        Some((data, start, end)) => Err(to_pyerr(
            py,
            wrong_json(key, "a string", &data.slice(start..end)),
        )),
        None => Err(to_pyerr(
            py,
            urlscan_core::Error::Decode(format!("the answer has no {key:?}")),
        )),
    }
}
