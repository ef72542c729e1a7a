//! `NativeClient`: one method per endpoint, serving both the sync and the async client.
use std::future::Future;
use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex};

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};

use super::convert::{error_value, fields_dict, model_class, to_pyerr};
use super::lazy::model;
use super::options::{
    int_of, item, opts_map, scan_keywords, Overrides, ScanArgs, Settings, WaitArgs,
};
use super::outcome::Conv;
use super::run::run;
use urlscan_core::api::{Progress, SearchKind, SearchParams};
use urlscan_core::models::{Doc, SearchPageHead};
use urlscan_core::paginate::SearchCursor;
use urlscan_core::{self as core, Client};

#[pyclass(module = "urlscan_rs._native", frozen)]
pub struct NativeClient {
    client: Client,
    is_async: bool,
    /// The process that built the client: its connections belong to that
    /// process's runtime, which a forked child does not have.
    pid: u32,
}

/// A document as its model: lazy over the body when the core indexed it.
fn doc_model<'py, T>(py: Python<'py>, class: &str, d: Doc<T>) -> PyResult<Bound<'py, PyAny>> {
    match d.index {
        Some(index) => super::lazy::lazy_model(py, class, d.body, index),
        None => model(py, class, d.body),
    }
}

/// `True` prints a counter on stderr; a callable gets (done, total).
pub(super) fn progress_fn(p: Option<Bound<'_, PyAny>>) -> Option<Progress> {
    let p = p.filter(|p| !p.is_none())?;
    if let Ok(flag) = p.extract::<bool>() {
        if !flag {
            return None;
        }
        if std::io::stderr().is_terminal() {
            return Some(Arc::new(|done, total| {
                let mut err = std::io::stderr();
                let _ = write!(err, "\r{done}/{total} done");
                if done == total {
                    let _ = writeln!(err);
                }
            }));
        }
        // Not a terminal (a log file, CI): whole lines, at each tenth and at the end.
        return Some(Arc::new(|done, total| {
            let step = (total / 10).max(1);
            if done == total || done % step == 0 {
                let _ = writeln!(std::io::stderr(), "{done}/{total} done");
            }
        }));
    }
    let cb = p.unbind();
    Some(Arc::new(move |done, total| {
        super::bridge::enter_python(|py| {
            if let Err(e) = cb.call1(py, (done, total)) {
                e.write_unraisable(py, None);
            }
        });
    }))
}

impl NativeClient {
    /// The core client, refused across fork() (it would hang on the parent's
    /// connections); a client made in the child works.
    pub(crate) fn client(&self, py: Python<'_>) -> PyResult<Client> {
        if self.pid == std::process::id() {
            return Ok(self.client.clone());
        }
        Err(to_pyerr(
            py,
            core::Error::Transport(
                "this client was created in the parent process before fork(); create a new Client in the child process".into(),
            ),
        ))
    }
    pub(crate) fn is_async_mode(&self) -> bool {
        self.is_async
    }

    /// Run `call` on the core client (refused after fork(), see `client`):
    /// blocking or as an awaitable, as this client was made.
    pub(crate) fn run<T, F, Fut>(
        &self,
        py: Python<'_>,
        call: F,
        conv: Conv<T>,
    ) -> PyResult<Py<PyAny>>
    where
        F: FnOnce(Client) -> Fut,
        Fut: Future<Output = core::Result<T>> + Send + 'static,
        T: Send + 'static,
    {
        let fut = call(self.client(py)?);
        run(py, self.is_async, fut, conv)
    }

    /// `run` for a call answering one document, made into its model `class`.
    fn run_doc<T, F, Fut>(
        &self,
        py: Python<'_>,
        class: &'static str,
        call: F,
    ) -> PyResult<Py<PyAny>>
    where
        F: FnOnce(Client) -> Fut,
        Fut: Future<Output = core::Result<Doc<T>>> + Send + 'static,
        T: Send + 'static,
    {
        self.run(py, call, Box::new(move |py, d| doc_model(py, class, d)))
    }
}

#[pymethods]
impl NativeClient {
    #[new]
    #[pyo3(signature = (settings, *, is_async=false, event_hooks=None, cache=None, record_hook=None))]
    fn new(
        py: Python<'_>,
        settings: Settings,
        is_async: bool,
        event_hooks: Option<Bound<'_, PyAny>>,
        cache: Option<PyRef<'_, super::cache::NativeCache>>,
        record_hook: Option<Py<PyAny>>,
    ) -> PyResult<NativeClient> {
        let hooks = match &event_hooks {
            Some(h) if !h.is_none() => super::hooks::PyHooks::from_py(h)?,
            _ => None,
        };
        let observer = hooks.map(|h| std::sync::Arc::new(h) as _);
        let cache = cache.map(|c| c.inner.clone());
        let scrub = record_hook
            .filter(|h| !h.is_none(py))
            .map(|hook| std::sync::Arc::new(super::record::PyScrub { hook }) as _);
        let client = settings
            .client(observer, cache, scrub)
            .map_err(|e| to_pyerr(py, e))?;
        Ok(NativeClient {
            client,
            is_async,
            pid: std::process::id(),
        })
    }

    /// The keywords a forwarded `**scan_options` may hold.
    #[classattr]
    #[allow(non_snake_case)]
    fn SCAN_OPTIONS() -> Vec<&'static str> {
        scan_keywords()
    }

    #[getter]
    fn base_url(&self) -> String {
        self.client.config().base_url.clone()
    }

    #[getter]
    fn is_async(&self) -> bool {
        self.is_async
    }

    /// Runs a future that panics: tests use it to prove that a panic reaches
    /// Python as a `UrlscanError`, never as `PanicException` or a hang.
    fn _panic_probe(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let fut = async {
            if std::process::id() > 0 {
                panic!("probe");
            }
            Ok(())
        };
        run(
            py,
            self.is_async,
            fut,
            Box::new(|py, ()| Ok(py.None().into_bound(py))),
        )
    }

    /// A client of the same kind sharing this one's connection pool, pacing
    /// and rate-limit state, hooks, cache and recorder, with `overrides`
    /// (`OVERRIDES`) of its per-call settings.
    fn with_options(&self, py: Python<'_>, overrides: Overrides) -> PyResult<NativeClient> {
        let base = self.client(py)?;
        let cfg = overrides.config(py, base.config())?;
        let client = base.with_options(cfg).map_err(|e| to_pyerr(py, e))?;
        Ok(NativeClient {
            client,
            is_async: self.is_async,
            pid: self.pid,
        })
    }

    /// Everything needed to rebuild this client (pickling); includes the key.
    fn _config(&self) -> Settings {
        Settings::of(self.client.config())
    }

    /// End the calls in flight (they raise `TransportError`) and refuse new ones.
    fn close(&self) {
        self.client.close();
    }

    #[getter]
    fn closed(&self) -> bool {
        self.client.is_closed()
    }

    #[getter]
    fn has_api_key(&self) -> bool {
        self.client.config().api_key.is_some()
    }

    #[getter]
    fn timeout(&self) -> f64 {
        self.client.config().timeout.as_secs_f64()
    }

    /// The latest rate-limit values per action.
    fn rate_limits<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let out = PyList::empty(py);
        for rl in self.client.rate_limits() {
            out.append(fields_dict!(py, rl;
                action, scope, window, limit, remaining, reset, reset_after, concurrency_limit
            ))?;
        }
        Ok(out)
    }

    fn scan(&self, py: Python<'_>, url: String, options: Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let opts = options.extract::<ScanArgs>()?.0;
        self.run_doc(py, "Submission", move |c| async move {
            c.scan(&url, &opts).await
        })
    }

    fn result(&self, py: Python<'_>, uuid: String) -> PyResult<Py<PyAny>> {
        self.run_doc(
            py,
            "ScanResult",
            move |c| async move { c.result(&uuid).await },
        )
    }

    fn wait_for_result(&self, py: Python<'_>, uuid: String, wait: WaitArgs) -> PyResult<Py<PyAny>> {
        self.run_doc(py, "ScanResult", move |c| async move {
            c.wait_for_result(&uuid, wait.0).await
        })
    }

    fn scan_and_wait(
        &self,
        py: Python<'_>,
        url: String,
        options: Bound<'_, PyAny>,
        wait: WaitArgs,
    ) -> PyResult<Py<PyAny>> {
        let opts = options.extract::<ScanArgs>()?.0;
        self.run_doc(py, "ScanResult", move |c| async move {
            c.scan_and_wait(&url, &opts, wait.0).await
        })
    }

    /// `wait` None stops at the submissions.
    #[pyo3(signature = (urls, options, wait, *, concurrency, progress=None))]
    fn bulk_scan(
        &self,
        py: Python<'_>,
        urls: Bound<'_, PyAny>,
        options: Bound<'_, PyAny>,
        wait: Option<WaitArgs>,
        concurrency: Option<Bound<'_, PyAny>>,
        progress: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let urls = str_list(&urls, "urls")?;
        let opts = options.extract::<ScanArgs>()?.0;
        let w = wait.map(|w| w.0);
        let concurrency = batch_concurrency(py, concurrency)?;
        let progress = progress_fn(progress);
        let conv: Conv<Vec<core::api::ScanOutcome>> = Box::new(|py, outcomes| {
            let cls = model_class(py, "ScanOutcome")?;
            let out = PyList::empty(py);
            for o in outcomes {
                // What is missing goes to Python as None.
                let sub = o
                    .submission
                    .map(|d| model(py, "Submission", d.body))
                    .transpose()?;
                let res = o
                    .result
                    .map(|d| doc_model(py, "ScanResult", d))
                    .transpose()?;
                let err = o.error.map(|e| error_value(py, e)).transpose()?;
                out.append(cls.call1((o.url, sub, res, err))?)?;
            }
            Ok(out.into_any())
        });
        self.run(
            py,
            move |c| async move { c.bulk_scan(urls, &opts, w, concurrency, progress).await },
            conv,
        )
    }

    /// A finished scan of `url` younger than `max_age` seconds, else a new one.
    #[pyo3(signature = (url, options, max_age, wait, check_malicious=false))]
    fn lookup_or_scan(
        &self,
        py: Python<'_>,
        url: String,
        options: Bound<'_, PyAny>,
        max_age: f64,
        wait: WaitArgs,
        check_malicious: bool,
    ) -> PyResult<Py<PyAny>> {
        let opts = options.extract::<ScanArgs>()?.0;
        self.run(
            py,
            move |c| async move {
                c.lookup_or_scan(&url, &opts, max_age, wait.0, check_malicious)
                    .await
            },
            Box::new(lookup_model),
        )
    }

    #[pyo3(signature = (urls, options, max_age, wait, check_malicious=false, *, concurrency, progress=None))]
    #[allow(clippy::too_many_arguments)]
    fn lookup_or_scan_many(
        &self,
        py: Python<'_>,
        urls: Bound<'_, PyAny>,
        options: Bound<'_, PyAny>,
        max_age: f64,
        wait: WaitArgs,
        check_malicious: bool,
        concurrency: Option<Bound<'_, PyAny>>,
        progress: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let urls = str_list(&urls, "urls")?;
        let opts = options.extract::<ScanArgs>()?.0;
        let concurrency = batch_concurrency(py, concurrency)?;
        let progress = progress_fn(progress);
        let conv: Conv<Vec<core::api::Lookup>> = Box::new(|py, items| {
            let out = PyList::empty(py);
            for item in items {
                out.append(lookup_model(py, item)?)?;
            }
            Ok(out.into_any())
        });
        self.run(
            py,
            move |c| async move {
                c.lookup_or_scan_many(
                    urls,
                    &opts,
                    max_age,
                    wait.0,
                    check_malicious,
                    concurrency,
                    progress,
                )
                .await
            },
            conv,
        )
    }

    #[pyo3(signature = (uuids, *, concurrency, progress=None))]
    fn results(
        &self,
        py: Python<'_>,
        uuids: Bound<'_, PyAny>,
        concurrency: Option<Bound<'_, PyAny>>,
        progress: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let uuids = str_list(&uuids, "uuids")?;
        let concurrency = batch_concurrency(py, concurrency)?;
        let progress = progress_fn(progress);
        let conv: Conv<Vec<core::Result<Doc<core::models::ResultHead>>>> = Box::new(|py, items| {
            let out = PyList::empty(py);
            for item in items {
                out.append(match item {
                    Ok(d) => doc_model(py, "ScanResult", d)?,
                    Err(e) => error_value(py, e)?,
                })?;
            }
            Ok(out.into_any())
        });
        self.run(
            py,
            move |c| async move { c.results(uuids, concurrency, progress).await },
            conv,
        )
    }

    fn screenshot(&self, py: Python<'_>, uuid: String) -> PyResult<Py<PyAny>> {
        self.run(
            py,
            move |c| async move { c.screenshot(&uuid).await },
            Box::new(|py, b: bytes::Bytes| {
                model_class(py, "Screenshot")?.call1((PyBytes::new(py, &b),))
            }),
        )
    }

    fn dom(&self, py: Python<'_>, uuid: String) -> PyResult<Py<PyAny>> {
        self.run(
            py,
            move |c| async move { c.dom(&uuid).await },
            Box::new(|py, s: String| Ok(PyString::new(py, &s).into_any())),
        )
    }

    fn response(&self, py: Python<'_>, sha256: String) -> PyResult<Py<PyAny>> {
        self.run(
            py,
            move |c| async move { c.response(&sha256).await },
            Box::new(|py, s: String| Ok(PyString::new(py, &s).into_any())),
        )
    }

    /// A lazy cursor over the pages of a search row (search, similar or
    /// phishfeed); `options` holds its keywords, checked by the row's fields.
    fn search_cursor(
        &self,
        py: Python<'_>,
        kind: &str,
        options: Bound<'_, PyDict>,
    ) -> PyResult<NativeCursor> {
        // An id of the wrong type is a TypeError, as for every method's ids.
        item::<String>(&options, "uuid")?;
        let opts = opts_map(Some(&options))?;
        if !core::api::search::ENDPOINTS.iter().any(|e| e.name == kind) {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "unknown search kind {kind:?}"
            )));
        }
        let params = SearchParams::from_options(kind, &opts).map_err(|e| to_pyerr(py, e))?;
        let mut cursor =
            SearchCursor::new(self.client(py)?, params).map_err(|e| to_pyerr(py, e))?;
        // The walk's pages nest under the span current now (its own), whenever they are read.
        cursor.parent = super::telemetry::caller(py)?;
        let p = cursor.params();
        let class = match p.kind {
            SearchKind::Search => hit_class(p.query.get("datasource").and_then(|d| d.as_str())),
            _ => "SearchHit",
        };
        Ok(NativeCursor {
            class,
            mirror: Arc::new(Mutex::new(SearchCursorMirror {
                search_after: cursor.search_after.clone(),
                ..SearchCursorMirror::default()
            })),
            cursor: Arc::new(tokio::sync::Mutex::new(cursor)),
            is_async: self.is_async,
        })
    }
}

/// A `Lookup` model of what `lookup_or_scan` found or made.
fn lookup_model(py: Python<'_>, l: core::api::Lookup) -> PyResult<Bound<'_, PyAny>> {
    // What is missing goes to Python as None.
    let result = l
        .result
        .map(|d| doc_model(py, "ScanResult", d))
        .transpose()?;
    let error = l.error.map(|e| error_value(py, e)).transpose()?;
    let malicious = l
        .malicious
        .map(|m| model(py, "MaliciousObservable", m.to_string().into_bytes().into()))
        .transpose()?;
    model_class(py, "Lookup")?.call1((l.url, result, l.reused, l.uuid, error, malicious))
}

/// `None`: as many as the rate limits allow (pacing holds back what the
/// quota cannot take), with at most `MAX_CONCURRENCY` connections.
fn batch_concurrency(py: Python<'_>, n: Option<Bound<'_, PyAny>>) -> PyResult<usize> {
    match n.filter(|n| !n.is_none()) {
        None => Ok(core::api::batch::MAX_CONCURRENCY),
        Some(n) => positive(py, "concurrency", int_of(&n, "concurrency")?),
    }
}

fn positive(py: Python<'_>, what: &str, n: i64) -> PyResult<usize> {
    core::validate::positive(what, n)
        .map(|v| v as usize)
        .map_err(|e| to_pyerr(py, e))
}

/// Any iterable of strings (a bare string is refused: it would be split into characters).
fn str_list(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<String>> {
    if obj.is_instance_of::<PyString>() {
        return Err(to_pyerr(
            obj.py(),
            core::Error::Validation(format!(
                "{what} must be a list of strings, not a single string"
            )),
        ));
    }
    let mut out = Vec::new();
    for item in obj.try_iter()? {
        let item = item?;
        match item.extract::<String>() {
            Ok(s) => out.push(s),
            Err(_) => {
                return Err(to_pyerr(
                    obj.py(),
                    core::Error::Validation(format!(
                        "{what} must hold strings, got {}",
                        item.get_type().name()?
                    )),
                ))
            }
        }
    }
    Ok(out)
}

/// Cursor values readable without waiting for a page in flight.
#[derive(Default, Clone)]
pub(super) struct SearchCursorMirror {
    total: Option<u64>,
    has_more: Option<bool>,
    search_after: Option<String>,
    fetched: u64,
    pages: u64,
    done: bool,
}

impl SearchCursorMirror {
    /// What the Python side shows of the cursor, after a page read.
    pub(super) fn of(c: &SearchCursor) -> SearchCursorMirror {
        SearchCursorMirror {
            total: c.total,
            has_more: c.has_more,
            search_after: c.search_after.clone(),
            fetched: c.fetched,
            pages: c.pages,
            done: c.is_done(),
        }
    }
}

/// The model of a hit of each search data source.
/// The model class of a data source's hits (the table's first row, scans,
/// when none is given).
fn hit_class(datasource: Option<&str>) -> &'static str {
    datasource
        .and_then(urlscan_tables::sources::data_source)
        .unwrap_or(&urlscan_tables::sources::DATA_SOURCES[0])
        .model
}

#[pyclass(module = "urlscan_rs._native", frozen)]
pub struct NativeCursor {
    /// The model class of the hits.
    class: &'static str,
    pub(super) cursor: Arc<tokio::sync::Mutex<SearchCursor>>,
    pub(super) mirror: Arc<Mutex<SearchCursorMirror>>,
    is_async: bool,
}

fn hits<'py>(
    py: Python<'py>,
    class: &str,
    page: Option<Doc<SearchPageHead>>,
) -> PyResult<Bound<'py, PyAny>> {
    match page {
        None => Ok(py.None().into_bound(py)),
        Some(d) => super::lazy::lazy_hits(py, class, d).map(Bound::into_any),
    }
}

impl NativeCursor {
    /// Another walk with this one's hit class and mode.
    pub(super) fn with(&self, cursor: SearchCursor) -> NativeCursor {
        NativeCursor {
            class: self.class,
            cursor: Arc::new(tokio::sync::Mutex::new(cursor)),
            mirror: Arc::new(Mutex::new(SearchCursorMirror::default())),
            is_async: self.is_async,
        }
    }
}

#[pymethods]
impl NativeCursor {
    /// The next page as a list of hits (`SearchHit`, or the data source's
    /// hit class), or None at the end.
    fn next_page(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let cursor = Arc::clone(&self.cursor);
        let mirror = Arc::clone(&self.mirror);
        let fut = async move {
            let mut c = cursor.lock().await;
            let page = c.next_page().await?;
            *mirror.lock().unwrap() = SearchCursorMirror::of(&c);
            Ok(page)
        };
        let class = self.class;
        run(
            py,
            self.is_async,
            fut,
            Box::new(move |py, page| hits(py, class, page)),
        )
    }

    /// The number of matching hits (a size=0 request); a floor when has_more.
    fn count(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let cursor = Arc::clone(&self.cursor);
        let mirror = Arc::clone(&self.mirror);
        let fut = async move {
            let mut c = cursor.lock().await;
            let (total, has_more) = c.count().await?;
            let mut m = mirror.lock().unwrap();
            m.total = c.total;
            m.has_more = c.has_more;
            Ok((total, has_more))
        };
        run(
            py,
            self.is_async,
            fut,
            Box::new(|py, (t, _): (u64, bool)| Ok(t.into_pyobject(py)?.into_any())),
        )
    }

    #[getter]
    fn total(&self) -> Option<u64> {
        self.mirror.lock().unwrap().total
    }
    #[getter]
    fn has_more(&self) -> Option<bool> {
        self.mirror.lock().unwrap().has_more
    }
    #[getter]
    fn search_after(&self) -> Option<String> {
        self.mirror.lock().unwrap().search_after.clone()
    }
    #[getter]
    fn fetched(&self) -> u64 {
        self.mirror.lock().unwrap().fetched
    }
    /// Pages read so far.
    #[getter]
    fn pages(&self) -> u64 {
        self.mirror.lock().unwrap().pages
    }
    #[getter]
    fn done(&self) -> bool {
        self.mirror.lock().unwrap().done
    }
    #[getter]
    fn is_async(&self) -> bool {
        self.is_async
    }
}
