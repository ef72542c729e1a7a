//! `PagedWalk`: the native part of the iterators over a cursor's pages
//! (`_namespaces._PagedIterator` derives from it). The items of the pages
//! read so far wait here, and `for` takes them one by one through the
//! type's own `__next__`, without a Python call per item; the Python side
//! reads pages (`_fill`) only when none is left.
use std::collections::VecDeque;
use std::sync::Mutex;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

#[derive(Default)]
struct State {
    items: VecDeque<Py<PyAny>>,
    /// At most this many items are handed out (None: no limit).
    limit: Option<u64>,
    handed_out: u64,
    /// The last item handed out (a search resumes after it).
    last: Option<Py<PyAny>>,
}

impl State {
    fn exhausted(&self) -> bool {
        self.limit.is_some_and(|l| self.handed_out >= l)
    }
}

#[pyclass(module = "urlscan_rs._native", subclass, frozen)]
pub struct PagedWalk {
    state: Mutex<State>,
}

impl PagedWalk {
    /// The next item waiting, counted as handed out; None when none waits
    /// or the limit is reached.
    fn take(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        let old_last;
        let item = {
            let mut s = self.state.lock().unwrap();
            if s.exhausted() {
                return None;
            }
            let item = s.items.pop_front()?;
            s.handed_out += 1;
            old_last = s.last.replace(item.clone_ref(py));
            item
        };
        // Dropped outside the lock: freeing an item may free what it holds.
        drop(old_last);
        Some(item)
    }
}

#[pymethods]
impl PagedWalk {
    #[new]
    #[pyo3(signature = (*_args, **_kwargs))]
    fn py_new(_args: &Bound<'_, PyTuple>, _kwargs: Option<&Bound<'_, PyDict>>) -> PagedWalk {
        PagedWalk {
            state: Mutex::new(State::default()),
        }
    }

    fn __next__(slf: &Bound<'_, Self>) -> PyResult<Option<Py<PyAny>>> {
        let (py, me) = (slf.py(), slf.get());
        if let Some(item) = me.take(py) {
            return Ok(Some(item));
        }
        if me._exhausted() {
            // The walk is over at its limit: the subclass ends what follows it (its span).
            slf.call_method0(pyo3::intern!(py, "_ended"))?;
            return Ok(None);
        }
        // Nothing waits: the subclass reads pages until one has items.
        let filled = slf.call_method0(pyo3::intern!(py, "_fill"))?;
        if !filled.is_truthy()? {
            return Ok(None);
        }
        Ok(me.take(py))
    }

    /// The next item waiting, counted as handed out (IndexError when none).
    fn _take(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.take(py)
            .ok_or_else(|| pyo3::exceptions::PyIndexError::new_err("no item waiting"))
    }

    /// Queue the items of a page read.
    fn _extend(&self, items: &Bound<'_, PyAny>) -> PyResult<()> {
        let items = items
            .try_iter()?
            .map(|i| i.map(Bound::unbind))
            .collect::<PyResult<Vec<_>>>()?;
        self.state.lock().unwrap().items.extend(items);
        Ok(())
    }

    /// The items waiting (up to the limit), taken out and counted as handed
    /// out: a table reads them before the pages still to come.
    fn _drain(&self, py: Python<'_>) -> Vec<Py<PyAny>> {
        let mut s = self.state.lock().unwrap();
        let room = s
            .limit
            .map_or(usize::MAX, |l| l.saturating_sub(s.handed_out) as usize);
        let n = s.items.len().min(room);
        let out: Vec<Py<PyAny>> = s.items.drain(..n).collect();
        s.handed_out += n as u64;
        if let Some(last) = out.last() {
            s.last = Some(last.clone_ref(py));
        }
        out
    }

    /// Rows a table may still take (None: no limit).
    #[getter]
    fn _remaining(&self) -> Option<u64> {
        let s = self.state.lock().unwrap();
        s.limit.map(|l| l.saturating_sub(s.handed_out))
    }

    /// The items waiting, in order (they stay queued).
    fn _waiting(&self, py: Python<'_>) -> Vec<Py<PyAny>> {
        let s = self.state.lock().unwrap();
        s.items.iter().map(|i| i.clone_ref(py)).collect()
    }

    /// How many items wait.
    #[getter]
    fn _buffered(&self) -> usize {
        self.state.lock().unwrap().items.len()
    }

    /// Whether the limit is reached.
    fn _exhausted(&self) -> bool {
        self.state.lock().unwrap().exhausted()
    }

    fn _set_limit(&self, limit: Option<u64>) {
        self.state.lock().unwrap().limit = limit;
    }

    /// Items handed out so far.
    #[getter]
    fn _handed_out(&self) -> u64 {
        self.state.lock().unwrap().handed_out
    }

    #[getter]
    fn _last(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        let s = self.state.lock().unwrap();
        s.last.as_ref().map(|l| l.clone_ref(py))
    }
}
