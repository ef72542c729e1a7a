//! `Core`: one method per endpoint, serving both the sync and the async client.
use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex};

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};
use serde_json::Value;

use super::convert::{error_value, model_class, model_list, to_pyerr};
use super::lazy::model;
use super::outcome::Conv;
use super::run::run;
use urlscan_core::api::{Progress, ScanOptions, SearchKind, SearchParams, WaitOptions};
use urlscan_core::models::{Doc, SearchPageHead};
use urlscan_core::paginate::SearchCursor;
use urlscan_core::{self as core, Client, Config};

#[pyclass(module = "urlscan_rs._native", frozen)]
pub struct Core {
    client: Client,
    is_async: bool,
    /// The process that built the client: its connections belong to that
    /// process's runtime, which a forked child does not have.
    pid: u32,
}

fn conv_model<T: Send + 'static>(class: &'static str) -> Conv<Doc<T>> {
    Box::new(move |py, d: Doc<T>| doc_model(py, class, d))
}

/// A document as its model: lazy over the body when the core indexed it.
fn doc_model<'py, T>(py: Python<'py>, class: &str, d: Doc<T>) -> PyResult<Bound<'py, PyAny>> {
    match d.index {
        Some(index) => super::lazy::lazy_model(py, class, d.body, index),
        None => model(py, class, &d.body),
    }
}

fn scan_options(
    visibility: Option<String>,
    tags: Option<Vec<String>>,
    country: Option<String>,
    referer: Option<String>,
    custom_agent: Option<String>,
    override_safety: Option<&Bound<'_, PyAny>>,
) -> PyResult<ScanOptions> {
    let override_safety = match override_safety {
        None => None,
        Some(o) if o.is_none() => None,
        // The specification types it as a boolean: anything else is refused
        // rather than sent as its str().
        Some(o) if o.is_instance_of::<pyo3::types::PyBool>() => Some(Value::Bool(o.extract()?)),
        Some(o) => {
            return Err(to_pyerr(
                o.py(),
                core::Error::Validation(format!(
                    "override_safety must be True, False or None, got {}",
                    o.get_type().name()?
                )),
            ))
        }
    };
    Ok(ScanOptions {
        visibility,
        tags,
        country,
        referer,
        custom_agent,
        override_safety,
    })
}

/// `True` prints a counter on stderr; a callable gets (done, total).
fn progress_fn(p: Option<Bound<'_, PyAny>>) -> Option<Progress> {
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

fn wait_options(timeout: f64, initial_wait: f64, interval: f64) -> WaitOptions {
    WaitOptions {
        timeout,
        initial_wait,
        interval,
    }
}

impl Core {
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
}

#[pymethods]
impl Core {
    #[new]
    #[pyo3(signature = (api_key=None, *, base_url=None, timeout=30.0, max_retries=3, user_agent=None, proxy=None, verify=true, fail_fast=false, retry_deadline=Some(600.0), max_body_bytes=268_435_456, is_async=false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        api_key: Option<String>,
        base_url: Option<String>,
        timeout: f64,
        max_retries: i64,
        user_agent: Option<String>,
        proxy: Option<String>,
        verify: bool,
        fail_fast: bool,
        retry_deadline: Option<f64>,
        max_body_bytes: i64,
        is_async: bool,
    ) -> PyResult<Core> {
        let build = || -> core::Result<Client> {
            let mut cfg = Config::new(api_key, base_url)?
                .with_timeout(timeout)?
                .with_retry_deadline(retry_deadline)?
                .with_max_body_bytes(max_body_bytes)?;
            if !(0..=100).contains(&max_retries) {
                return Err(core::Error::Validation(format!(
                    "max_retries must be between 0 and 100, got {max_retries}"
                )));
            }
            cfg.max_retries = max_retries as u32;
            let mut cfg = cfg.with_user_agent(user_agent)?;
            cfg.proxy = proxy;
            cfg.verify = verify;
            cfg.fail_fast = fail_fast;
            // reqwest's client must be built inside the runtime it will run on.
            let rt = core::runtime::runtime()?;
            let _guard = rt.enter();
            Client::new(cfg)
        };
        let client = build().map_err(|e| to_pyerr(py, e))?;
        Ok(Core {
            client,
            is_async,
            pid: std::process::id(),
        })
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

    /// Everything needed to rebuild this client (pickling); includes the key.
    fn _config<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let cfg = self.client.config();
        let d = PyDict::new(py);
        d.set_item(
            "api_key",
            cfg.api_key.as_ref().map(|k| k.expose().to_string()),
        )?;
        d.set_item("base_url", cfg.base_url.as_str())?;
        d.set_item("timeout", cfg.timeout.as_secs_f64())?;
        d.set_item("max_retries", cfg.max_retries)?;
        d.set_item("user_agent", cfg.user_agent.as_str())?;
        d.set_item("proxy", cfg.proxy.as_deref())?;
        d.set_item("verify", cfg.verify)?;
        d.set_item("fail_fast", cfg.fail_fast)?;
        d.set_item(
            "retry_deadline",
            cfg.retry_deadline.map(|d| d.as_secs_f64()),
        )?;
        d.set_item("max_body_bytes", cfg.max_body_bytes)?;
        Ok(d)
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
            let d = PyDict::new(py);
            d.set_item("action", rl.action)?;
            d.set_item("scope", rl.scope)?;
            d.set_item("window", rl.window)?;
            d.set_item("limit", rl.limit)?;
            d.set_item("remaining", rl.remaining)?;
            d.set_item("reset", rl.reset)?;
            d.set_item("reset_after", rl.reset_after)?;
            out.append(d)?;
        }
        Ok(out)
    }

    fn quotas(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let c = self.client(py)?;
        run(
            py,
            self.is_async,
            async move { c.quotas().await },
            conv_model("Quotas"),
        )
    }

    fn user(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let c = self.client(py)?;
        run(
            py,
            self.is_async,
            async move { c.user().await },
            conv_model("User"),
        )
    }

    #[pyo3(signature = (url, *, visibility=None, tags=None, country=None, referer=None, custom_agent=None, override_safety=None))]
    #[allow(clippy::too_many_arguments)]
    fn scan(
        &self,
        py: Python<'_>,
        url: String,
        visibility: Option<String>,
        tags: Option<Vec<String>>,
        country: Option<String>,
        referer: Option<String>,
        custom_agent: Option<String>,
        override_safety: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let opts = scan_options(
            visibility,
            tags,
            country,
            referer,
            custom_agent,
            override_safety.as_ref(),
        )?;
        let c = self.client(py)?;
        run(
            py,
            self.is_async,
            async move { c.scan(&url, &opts).await },
            conv_model("Submission"),
        )
    }

    fn result(&self, py: Python<'_>, uuid: String) -> PyResult<Py<PyAny>> {
        let c = self.client(py)?;
        run(
            py,
            self.is_async,
            async move { c.result(&uuid).await },
            conv_model("ScanResult"),
        )
    }

    #[pyo3(signature = (uuid, *, timeout=120.0, initial_wait=10.0, interval=2.0))]
    fn wait_for_result(
        &self,
        py: Python<'_>,
        uuid: String,
        timeout: f64,
        initial_wait: f64,
        interval: f64,
    ) -> PyResult<Py<PyAny>> {
        let c = self.client(py)?;
        let w = wait_options(timeout, initial_wait, interval);
        run(
            py,
            self.is_async,
            async move { c.wait_for_result(&uuid, w).await },
            conv_model("ScanResult"),
        )
    }

    #[pyo3(signature = (url, *, timeout=120.0, initial_wait=10.0, interval=2.0, visibility=None, tags=None, country=None, referer=None, custom_agent=None, override_safety=None))]
    #[allow(clippy::too_many_arguments)]
    fn scan_and_wait(
        &self,
        py: Python<'_>,
        url: String,
        timeout: f64,
        initial_wait: f64,
        interval: f64,
        visibility: Option<String>,
        tags: Option<Vec<String>>,
        country: Option<String>,
        referer: Option<String>,
        custom_agent: Option<String>,
        override_safety: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let opts = scan_options(
            visibility,
            tags,
            country,
            referer,
            custom_agent,
            override_safety.as_ref(),
        )?;
        let w = wait_options(timeout, initial_wait, interval);
        let c = self.client(py)?;
        run(
            py,
            self.is_async,
            async move { c.scan_and_wait(&url, &opts, w).await },
            conv_model("ScanResult"),
        )
    }

    #[pyo3(signature = (urls, *, wait=true, concurrency=8, progress=None, timeout=120.0, initial_wait=10.0, interval=2.0, visibility=None, tags=None, country=None, referer=None, custom_agent=None, override_safety=None))]
    #[allow(clippy::too_many_arguments)]
    fn bulk_scan(
        &self,
        py: Python<'_>,
        urls: Bound<'_, PyAny>,
        wait: bool,
        concurrency: Option<i64>,
        progress: Option<Bound<'_, PyAny>>,
        timeout: f64,
        initial_wait: f64,
        interval: f64,
        visibility: Option<String>,
        tags: Option<Vec<String>>,
        country: Option<String>,
        referer: Option<String>,
        custom_agent: Option<String>,
        override_safety: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let urls = str_list(&urls, "urls")?;
        let opts = scan_options(
            visibility,
            tags,
            country,
            referer,
            custom_agent,
            override_safety.as_ref(),
        )?;
        let w = wait.then(|| wait_options(timeout, initial_wait, interval));
        let concurrency = batch_concurrency(py, concurrency)?;
        let progress = progress_fn(progress);
        let c = self.client(py)?;
        let conv: Conv<Vec<core::api::ScanOutcome>> = Box::new(|py, outcomes| {
            let cls = model_class(py, "ScanOutcome")?;
            let out = PyList::empty(py);
            for o in outcomes {
                let sub = match o.submission {
                    Some(d) => model(py, "Submission", &d.body)?,
                    None => py.None().into_bound(py),
                };
                let res = match o.result {
                    Some(d) => doc_model(py, "ScanResult", d)?,
                    None => py.None().into_bound(py),
                };
                let err = match o.error {
                    Some(e) => error_value(py, e)?,
                    None => py.None().into_bound(py),
                };
                out.append(cls.call1((o.url, sub, res, err))?)?;
            }
            Ok(out.into_any())
        });
        run(
            py,
            self.is_async,
            async move { c.bulk_scan(urls, &opts, w, concurrency, progress).await },
            conv,
        )
    }

    #[pyo3(signature = (uuids, *, concurrency=8, progress=None))]
    fn results(
        &self,
        py: Python<'_>,
        uuids: Bound<'_, PyAny>,
        concurrency: Option<i64>,
        progress: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let uuids = str_list(&uuids, "uuids")?;
        let concurrency = batch_concurrency(py, concurrency)?;
        let progress = progress_fn(progress);
        let c = self.client(py)?;
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
        run(
            py,
            self.is_async,
            async move { c.results(uuids, concurrency, progress).await },
            conv,
        )
    }

    fn screenshot(&self, py: Python<'_>, uuid: String) -> PyResult<Py<PyAny>> {
        let c = self.client(py)?;
        run(
            py,
            self.is_async,
            async move { c.screenshot(&uuid).await },
            Box::new(|py, b| model_class(py, "Screenshot")?.call1((PyBytes::new(py, &b),))),
        )
    }

    fn dom(&self, py: Python<'_>, uuid: String) -> PyResult<Py<PyAny>> {
        let c = self.client(py)?;
        run(
            py,
            self.is_async,
            async move { c.dom(&uuid).await },
            Box::new(|py, s| Ok(PyString::new(py, &s).into_any())),
        )
    }

    fn response(&self, py: Python<'_>, sha256: String) -> PyResult<Py<PyAny>> {
        let c = self.client(py)?;
        run(
            py,
            self.is_async,
            async move { c.response(&sha256).await },
            Box::new(|py, s| Ok(PyString::new(py, &s).into_any())),
        )
    }

    fn set_visibility(
        &self,
        py: Python<'_>,
        uuid: String,
        visibility: String,
    ) -> PyResult<Py<PyAny>> {
        let c = self.client(py)?;
        run(
            py,
            self.is_async,
            async move { c.set_visibility(&uuid, &visibility).await },
            conv_model("VisibilityChange"),
        )
    }

    fn reset_visibility(&self, py: Python<'_>, uuid: String) -> PyResult<Py<PyAny>> {
        let c = self.client(py)?;
        run(
            py,
            self.is_async,
            async move { c.reset_visibility(&uuid).await },
            conv_model("VisibilityChange"),
        )
    }

    fn available_countries(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let c = self.client(py)?;
        run(
            py,
            self.is_async,
            async move { c.available_countries().await },
            Box::new(|py, v| Ok(PyList::new(py, v)?.into_any())),
        )
    }

    fn user_agents(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let c = self.client(py)?;
        run(
            py,
            self.is_async,
            async move { c.user_agents().await },
            Box::new(|py, d| model_list(py, "UserAgentGroup", "userAgents", &d.body)),
        )
    }

    /// A lazy cursor over search, similar or phishfeed pages.
    #[pyo3(signature = (kind, *, q=None, size=100, limit=None, search_after=None, datasource=None, collapse=None, uuid=None, parallel=None))]
    #[allow(clippy::too_many_arguments)]
    fn search_cursor(
        &self,
        py: Python<'_>,
        kind: &str,
        q: Option<String>,
        size: i64,
        limit: Option<i64>,
        search_after: Option<String>,
        datasource: Option<String>,
        collapse: Option<String>,
        uuid: Option<String>,
        parallel: Option<i64>,
    ) -> PyResult<NativeCursor> {
        let kind = match (kind, uuid) {
            ("search", _) => SearchKind::Search,
            ("phishfeed", _) => SearchKind::Phishfeed,
            ("similar", Some(u)) => SearchKind::Similar(u),
            _ => {
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "unknown search kind {kind:?}"
                )))
            }
        };
        let size = positive(py, "size", size)? as u64;
        let limit = limit
            .map(|l| positive(py, "limit", l))
            .transpose()?
            .map(|l| l as u64);
        let params = SearchParams {
            kind,
            q,
            size,
            limit,
            search_after,
            datasource,
            collapse,
            parallel: match parallel {
                None => core::api::search::AUTO_PARALLEL,
                Some(n) => positive(py, "parallel", n)?,
            },
        };
        let cursor = SearchCursor::new(self.client(py)?, params).map_err(|e| to_pyerr(py, e))?;
        let p = cursor.params();
        let class = match p.kind {
            SearchKind::Search => hit_class(p.datasource.as_deref()),
            _ => "SearchHit",
        };
        Ok(NativeCursor {
            class,
            mirror: Arc::new(Mutex::new(Mirror {
                search_after: cursor.search_after.clone(),
                ..Mirror::default()
            })),
            cursor: Arc::new(tokio::sync::Mutex::new(cursor)),
            is_async: self.is_async,
        })
    }
}

/// `None`: as many as the rate limits allow (pacing holds back what the
/// quota cannot take), with at most `MAX_CONCURRENCY` connections.
fn batch_concurrency(py: Python<'_>, n: Option<i64>) -> PyResult<usize> {
    match n {
        None => Ok(core::api::batch::MAX_CONCURRENCY),
        Some(n) => positive(py, "concurrency", n),
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
struct Mirror {
    total: Option<u64>,
    has_more: Option<bool>,
    search_after: Option<String>,
    fetched: u64,
    done: bool,
}

/// The model of a hit of each search data source.
fn hit_class(datasource: Option<&str>) -> &'static str {
    match datasource {
        Some("hostnames") => "HostnameHit",
        Some("incidents") => "IncidentHit",
        Some("notifications") => "NotificationHit",
        Some("certificates") => "CertificateHit",
        _ => "SearchHit",
    }
}

#[pyclass(module = "urlscan_rs._native", frozen)]
pub struct NativeCursor {
    /// The model class of the hits.
    class: &'static str,
    cursor: Arc<tokio::sync::Mutex<SearchCursor>>,
    mirror: Arc<Mutex<Mirror>>,
    is_async: bool,
}

fn hits<'py>(
    py: Python<'py>,
    class: &str,
    page: Option<Doc<SearchPageHead>>,
) -> PyResult<Bound<'py, PyAny>> {
    match page {
        None => Ok(py.None().into_bound(py)),
        Some(d) => super::lazy::lazy_hits(py, class, &d).map(Bound::into_any),
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
            *mirror.lock().unwrap() = Mirror {
                total: c.total,
                has_more: c.has_more,
                search_after: c.search_after.clone(),
                fetched: c.fetched,
                done: c.is_done(),
            };
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
    #[getter]
    fn done(&self) -> bool {
        self.mirror.lock().unwrap().done
    }
    #[getter]
    fn is_async(&self) -> bool {
        self.is_async
    }
}
