//! The premium namespaces: table endpoints through one generic method, and
//! the few endpoints with their own logic.
use std::sync::{Arc, Mutex};

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};
use serde_json::Value;

use super::client::NativeClient;
use super::convert::{json, to_pyerr};
use super::lazy::{field_of, model, model_list, wrap};
use super::options::{int_of, opts_map, to_json};
use super::outcome::Conv;
use super::run::run;
use urlscan_core::api::hostnames::HostnamePageHead;
use urlscan_core::models::Doc;
use urlscan_core::{self as core, Client};

/// Query parameters: scalars as text (booleans as `true`/`false`), a list
/// repeats its key, None leaves the key out.
fn query_pairs(d: &Bound<'_, PyDict>) -> PyResult<Vec<(String, String)>> {
    fn text(k: &str, v: &Bound<'_, PyAny>) -> PyResult<String> {
        Ok(match to_json(v, &format!("params[{k:?}]"))? {
            Value::String(s) => s,
            Value::Bool(b) => b.to_string(),
            Value::Number(n) => n.to_string(),
            _ => {
                return Err(to_pyerr(
                    v.py(),
                    core::Error::Validation(format!(
                    "params[{k:?}] must be str, int, float, bool, None or a list of them, got {}",
                    v.get_type().name()?
                )),
                ))
            }
        })
    }
    let mut out = Vec::new();
    for (k, v) in d.iter() {
        let k: String = k.extract().map_err(|_| {
            to_pyerr(
                d.py(),
                core::Error::Validation("params keys must be str".into()),
            )
        })?;
        if v.is_none() {
            continue;
        }
        if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
            for x in v.try_iter()? {
                out.push((k.clone(), text(&k, &x?)?));
            }
        } else {
            out.push((k.clone(), text(&k, &v)?));
        }
    }
    Ok(out)
}

#[pymethods]
impl NativeClient {
    /// A table endpoint (see core::api::endpoints): `ids` fill the path,
    /// `options` build the body; the answer is wrapped in `model`, after
    /// taking `field` from it when given, or dropped with `discard`.
    #[pyo3(signature = (name, ids, options=None, *, model=None, field=None, discard=false))]
    #[allow(clippy::too_many_arguments)]
    fn call(
        &self,
        py: Python<'_>,
        name: String,
        ids: Vec<String>,
        options: Option<Bound<'_, PyDict>>,
        model: Option<String>,
        field: Option<String>,
        discard: bool,
    ) -> PyResult<Py<PyAny>> {
        let opts = opts_map(options.as_ref())?;
        // List elements are named by the answer's key in errors.
        let key = core::api::call::find(&name)
            .ok()
            .and_then(|e| e.answer.first())
            .copied()
            .unwrap_or("");
        let conv: Conv<bytes::Bytes> = Box::new(move |py, v| {
            if discard {
                return Ok(py.None().into_bound(py));
            }
            let v = match &field {
                Some(f) => field_of(py, v, f)?,
                None => v,
            };
            wrap(py, v, model.as_deref(), key)
        });
        self.run(
            py,
            move |c| async move { c.call_raw(&name, &ids, &opts).await },
            conv,
        )
    }

    /// incidents.close / incidents.restart: the action, then the incident read back.
    fn incident_action(
        &self,
        py: Python<'_>,
        action: String,
        incident_id: String,
    ) -> PyResult<Py<PyAny>> {
        self.run(
            py,
            move |c| async move { c.incident_action(&action, &incident_id).await },
            Box::new(|py, v| wrap(py, v, Some("Incident"), "incident")),
        )
    }

    /// A live scanner's resource: a ScanResult for "result", str for "dom", bytes otherwise.
    fn livescan_resource(
        &self,
        py: Python<'_>,
        scanner_id: String,
        resource_type: String,
        resource_id: String,
    ) -> PyResult<Py<PyAny>> {
        let kind = resource_type.clone();
        let conv: Conv<bytes::Bytes> = Box::new(move |py, b| match kind.as_str() {
            "result" => model(py, "ScanResult", b),
            "dom" => Ok(PyString::new(py, &String::from_utf8_lossy(&b)).into_any()),
            _ => Ok(PyBytes::new(py, &b).into_any()),
        });
        self.run(
            py,
            move |c| async move {
                c.livescan_resource(&scanner_id, &resource_type, &resource_id)
                    .await
            },
            conv,
        )
    }

    /// A downloaded file: unpacked and checked against its SHA-256, or the
    /// password-protected ZIP as served.
    #[pyo3(signature = (sha256, *, password=None, unpacked=true))]
    fn download(
        &self,
        py: Python<'_>,
        sha256: String,
        password: Option<String>,
        unpacked: bool,
    ) -> PyResult<Py<PyAny>> {
        self.run(
            py,
            move |c| async move {
                let password = password.as_deref();
                match unpacked {
                    true => c.download(&sha256, password).await,
                    false => c.download_zip(&sha256, password).await,
                }
            },
            Box::new(|py, b: bytes::Bytes| Ok(PyBytes::new(py, &b).into_any())),
        )
    }

    /// Any endpoint by its path: the decoded JSON (bytes when the answer is
    /// not JSON, None when it is empty).
    #[pyo3(signature = (method, path, *, params=None, json=None))]
    fn request(
        &self,
        py: Python<'_>,
        method: String,
        path: String,
        params: Option<Bound<'_, PyDict>>,
        json: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let params = match params {
            Some(d) => query_pairs(&d)?,
            None => Vec::new(),
        };
        let body = match json {
            Some(j) if !j.is_none() => Some(to_json(&j, "json")?),
            _ => None,
        };
        self.run(
            py,
            move |c| async move { c.request(&method, &path, params, body).await },
            Box::new(|py, a: core::api::request::RawAnswer| {
                if a.body.iter().all(u8::is_ascii_whitespace) {
                    Ok(py.None().into_bound(py))
                } else if a.is_json() {
                    super::convert::json(py, &a.body)
                } else {
                    Ok(PyBytes::new(py, &a.body).into_any())
                }
            }),
        )
    }

    fn datadump_list(
        &self,
        py: Python<'_>,
        time_window: String,
        file_type: String,
        date: String,
    ) -> PyResult<Py<PyAny>> {
        self.run(
            py,
            move |c| async move { c.datadump_list(&time_window, &file_type, &date).await },
            Box::new(|py, v| wrap(py, v, Some("DataDumpFile"), "files")),
        )
    }

    fn datadump_link(&self, py: Python<'_>, path: String) -> PyResult<Py<PyAny>> {
        self.run(
            py,
            move |c| async move { c.datadump_link(&path).await },
            Box::new(|py, s: String| Ok(PyString::new(py, &s).into_any())),
        )
    }

    /// Download a data-dump file to `dest` (checked against `size`, else the
    /// size its listing announces; a cut connection resumed); the bytes written.
    #[pyo3(signature = (path, dest, *, size=None, progress=None))]
    fn datadump_download(
        &self,
        py: Python<'_>,
        path: String,
        dest: std::path::PathBuf,
        size: Option<u64>,
        progress: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let progress = super::client::progress_fn(progress);
        self.run(
            py,
            move |c| async move {
                // A caller holding the listing already (a sync) gives the size.
                let expected = match size {
                    Some(n) => Some(n),
                    None => c.datadump_size(&path).await?,
                };
                c.datadump_download(&path, &dest, expected, progress).await
            },
            Box::new(|py, d: core::api::datadumps::Downloaded| {
                Ok(d.bytes.into_pyobject(py)?.into_any())
            }),
        )
    }

    /// A lazy cursor over hostname history pages.
    #[pyo3(signature = (hostname, *, limit, page_state=None))]
    fn hostname_cursor(
        &self,
        py: Python<'_>,
        hostname: String,
        limit: Bound<'_, PyAny>,
        page_state: Option<String>,
    ) -> PyResult<HostnameCursor> {
        let limit = int_of(&limit, "limit")?;
        // Checked now, so a bad argument fails at the call, not at the first page.
        core::api::hostnames::hostname(&hostname).map_err(|e| to_pyerr(py, e))?;
        core::api::hostnames::limit(limit).map_err(|e| to_pyerr(py, e))?;
        Ok(HostnameCursor {
            client: self.client(py)?,
            hostname,
            limit,
            state: Arc::new(Mutex::new(HostState {
                seen: page_state.iter().cloned().collect(),
                page_state,
                done: false,
                fetched: 0,
            })),
            is_async: self.is_async_mode(),
            // The walk's pages nest under the span current now (its own).
            parent: super::telemetry::caller(py)?,
        })
    }
}

struct HostState {
    page_state: Option<String>,
    /// Every pageState sent so far (one that comes back ends the walk).
    seen: std::collections::HashSet<String>,
    done: bool,
    fetched: u64,
}

#[pyclass(module = "urlscan_rs._native", frozen)]
pub struct HostnameCursor {
    client: Client,
    hostname: String,
    limit: i64,
    state: Arc<Mutex<HostState>>,
    is_async: bool,
    parent: Option<core::observe::Parent>,
}

impl HostnameCursor {
    /// The state to resume from after the last page read.
    pub(super) fn page_state_now(&self) -> Option<String> {
        self.state.lock().unwrap().page_state.clone()
    }

    /// The next page's request: None at the end, or once a page came back
    /// empty; a `pageState` that does not advance is an error (the walk ends).
    pub(super) fn fetch(
        &self,
    ) -> impl std::future::Future<Output = core::Result<Option<Doc<HostnamePageHead>>>> + Send + 'static
    {
        let (client, host, limit, state) = (
            self.client.clone(),
            self.hostname.clone(),
            self.limit,
            Arc::clone(&self.state),
        );
        core::observe::within(self.parent.clone(), async move {
            let page_state = {
                let s = state.lock().unwrap();
                if s.done {
                    return Ok(None);
                }
                s.page_state.clone()
            };
            let doc: Doc<HostnamePageHead> = client
                .hostname_page(&host, limit, page_state.as_deref())
                .await?;
            let mut s = state.lock().unwrap();
            s.fetched += doc.head.results.len() as u64;
            // No pageState means no more results; an empty page ends it too.
            let next = core::api::hostnames::next_page_state(
                &mut s.seen,
                doc.head.page_state.as_deref(),
                doc.head.results.len(),
            );
            s.done = !matches!(next, Ok(Some(_)));
            s.page_state = next?;
            Ok(if doc.head.results.is_empty() {
                None
            } else {
                Some(doc)
            })
        })
    }
}

#[pymethods]
impl HostnameCursor {
    /// The next batch of records, or None at the end (follows `pageState`).
    fn next_page(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let fut = self.fetch();
        let conv: Conv<Option<Doc<HostnamePageHead>>> = Box::new(|py, page| match page {
            None => Ok(py.None().into_bound(py)),
            Some(d) => model_list(py, "HostnameRecord", "results", d.body),
        });
        run(py, self.is_async, fut, conv)
    }

    /// A new walk of the same history from `page_state`.
    fn resumed(&self, page_state: Option<String>) -> HostnameCursor {
        HostnameCursor {
            client: self.client.clone(),
            hostname: self.hostname.clone(),
            limit: self.limit,
            state: Arc::new(Mutex::new(HostState {
                seen: page_state.iter().cloned().collect(),
                page_state,
                done: false,
                fetched: 0,
            })),
            is_async: self.is_async,
            parent: self.parent.clone(),
        }
    }

    /// The hostname walked.
    #[getter]
    fn hostname(&self) -> String {
        self.hostname.clone()
    }

    /// The state to resume from (after the last page read).
    #[getter]
    fn page_state(&self) -> Option<String> {
        self.state.lock().unwrap().page_state.clone()
    }
    #[getter]
    fn done(&self) -> bool {
        self.state.lock().unwrap().done
    }
    #[getter]
    fn fetched(&self) -> u64 {
        self.state.lock().unwrap().fetched
    }
    #[getter]
    fn is_async(&self) -> bool {
        self.is_async
    }
}

/// The endpoint table as plain Python values, for the generator of the
/// Python methods and stubs (`python -m urlscan_rs._generate`) and the tests.
#[pyfunction]
pub fn endpoint_table(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    use urlscan_core::api::call::all;
    use urlscan_core::api::endpoints::{Returns, Shape};
    use urlscan_core::fields::Field;
    fn field(f: &Field) -> Value {
        // The kind's name ("Enum", "Int", ...), what it takes and, for enums, its values.
        serde_json::json!({
            "name": f.name, "wire": f.wire, "kind": f.kind.name(),
            "takes": f.kind.takes().name(), "choices": f.kind.choices(),
            "required": f.required, "nullable": f.nullable, "doc": f.doc,
            "default": f.default,
        })
    }
    let fields = |fs: &[Field]| fs.iter().map(field).collect::<Vec<_>>();
    let rows: Vec<Value> = all()
        .map(|e| {
            let (wrapper, body) = e.body.unwrap_or(("", &[]));
            // The shapes as the stubs spell them.
            let py = |s: Shape| match s {
                Shape::Any => "Any",
                Shape::Object => "dict[str, Any]",
                Shape::Text => "str",
                Shape::Bytes => "bytes",
            };
            let returns = match e.returns {
                Returns::Json(t) => serde_json::json!(["json", py(t)]),
                Returns::Model(m) => serde_json::json!(["model", m]),
                Returns::Field(k, t) => serde_json::json!(["field", k, py(t)]),
                Returns::Nothing => serde_json::json!(["nothing"]),
            };
            serde_json::json!({
                "name": e.name, "method": e.method.as_str(), "path": e.path,
                "ids": fields(e.ids), "positional": e.positional,
                "body": fields(body), "wrapper": wrapper, "creating": e.creating,
                "params": fields(e.params), "walk": fields(e.walk), "list": e.list, "returns": returns,
                "doc": e.doc, "by_hand": e.by_hand, "action": e.action,
                "action_field": e.action_field,
                // What a cache may keep, and what a 200 must be to be kept (the hostile harness
                // holds every row to it).
                "cached": e.cached.map(|k| format!("{k:?}")),
                "accept": e.accept.map(|a| format!("{a:?}")),
                "own_id": e.own_id(&[String::new()]).is_some(),
            })
        })
        .collect();
    json(py, Value::Array(rows).to_string().as_bytes())
}
