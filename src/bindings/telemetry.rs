//! The core's side of `urlscan_rs.otel`: a process-wide observer that
//! records every attempt, answer, failure and wait, and the caller's trace
//! context, taken when a call starts and carried with its work
//! (`observe::Parent`), so that its requests nest under its span even when
//! they are sent from the I/O thread or a task the core fanned out.
//!
//! The records wait in a queue and are handed to the Python telemetry object
//! (`urlscan_rs.otel._Telemetry.emit`, which makes the spans and metrics with
//! their own timestamps) on the calling thread as each call ends: the end of a
//! call (`_telemetry_call`, from its wrapper in `urlscan_rs.otel`, sync or
//! async) is queued after its requests and everything queued is handed over
//! at once, so that a call's spans are exported by the time it returns. Pages
//! a walk reads go in batches (`flush_due`, as a sync page fetch returns) and
//! all by the time the walk ends; `urlscan_rs.otel`'s flusher hands over twice
//! a second what waited long enough while no call ended (a long bulk scan).
//! The I/O thread never waits for the GIL, which Python code on the main
//! thread holds most of the time. Only `propagate` (a `traceparent` to send)
//! needs the span before the request goes, and takes the GIL then.
//!
//! A call made under `suppress_instrumentation()` (or
//! `suppress_http_instrumentation()`) runs under a `Suppressed` parent: none
//! of its requests is recorded.
//!
//! URLs and failure messages are recorded redacted (`urlscan_core::redact`):
//! a looked-up URL's password or token never reaches a span.
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use pyo3::prelude::*;
use pyo3::types::{IntoPyDict, PyDict, PyList, PyTuple};

use urlscan_core::observe::{
    self, Answered, Failed, HeaderMap, HeaderName, HeaderValue, Observer, Parent, Sent, Token,
    Waited,
};
use urlscan_core::redact;

use super::bridge::enter_python;

/// The Python telemetry object and its `caller` (the caller's trace
/// context, None when its instrumentation is suppressed).
#[derive(Debug)]
struct Telemetry {
    obj: Py<PyAny>,
    current: Py<PyAny>,
    propagate: bool,
    /// Record the headers sent and answered (the telemetry's hooks read them).
    headers: bool,
}

/// A trace context of the caller's (an OpenTelemetry `Context`).
struct Context(Py<PyAny>);

/// The parent of a call made where instrumentation is suppressed.
struct Suppressed;

fn is_suppressed(p: &Option<Parent>) -> bool {
    p.as_ref().is_some_and(|p| p.is::<Suppressed>())
}

static INSTALLED: RwLock<Option<Arc<Telemetry>>> = RwLock::new(None);

/// Records not yet handed to Python. Bounded: a process whose threads never
/// come back to Python (nothing flushes) drops the newest and counts them.
static QUEUE: Mutex<Queue> = Mutex::new(Queue {
    records: Vec::new(),
    oldest: None,
    waits: false,
});
const MAX_QUEUED: usize = 100_000;
/// A walk's pages are handed over in batches (a call's records at its end):
/// the OpenTelemetry SDK's code runs slower cold, once per page, than warm,
/// over a batch (`bench/run.py --only otel`). A wait is handed over at once,
/// while the call's span (the event's) is still open.
const BATCH: usize = 32;
const MAX_DELAY: Duration = Duration::from_millis(500);

struct Queue {
    records: Vec<Record>,
    /// When the oldest record came.
    oldest: Option<std::time::Instant>,
    /// A wait is queued.
    waits: bool,
}
static DROPPED: AtomicU64 = AtomicU64::new(0);

fn installed() -> Option<Arc<Telemetry>> {
    // `observe::global` is one atomic load while nothing is installed.
    observe::global()?;
    INSTALLED.read().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Install `obj` (None: remove it, after handing it what is queued): every
/// client of the process tells it.
#[pyfunction]
#[pyo3(signature = (obj, *, propagate=false, headers=false))]
fn _set_telemetry(
    py: Python<'_>,
    obj: Option<Py<PyAny>>,
    propagate: bool,
    headers: bool,
) -> PyResult<()> {
    flush(py);
    let t = match obj {
        None => None,
        Some(obj) => {
            let current = match obj.bind(py).getattr("caller") {
                Ok(f) => f.unbind(),
                Err(_) => py
                    .import("opentelemetry.context")?
                    .getattr("get_current")?
                    .unbind(),
            };
            Some(Arc::new(Telemetry {
                obj,
                current,
                propagate,
                headers,
            }))
        }
    };
    *INSTALLED.write().unwrap_or_else(|e| e.into_inner()) = t.clone();
    observe::set_global(t.map(|t| t as Arc<dyn Observer>));
    Ok(())
}

/// Queue the end of a call, after its requests, and hand everything queued
/// over now: the call's spans are made by the time it returns.
#[pyfunction]
fn _telemetry_call(py: Python<'_>, call: Py<PyAny>) {
    queue(Record::Call(call));
    flush(py);
}

/// Hand what is queued to the telemetry object now (a walk's end, exit), or
/// only if it is due (`due`: an async call's end; see `flush_due`).
#[pyfunction]
#[pyo3(signature = (*, due=false))]
fn _flush_telemetry(py: Python<'_>, due: bool) {
    if due {
        flush_due(py);
    } else {
        flush(py);
    }
}

/// The caller's current trace context, while telemetry is installed
/// (`Suppressed` where the caller suppressed instrumentation).
pub fn caller(py: Python<'_>) -> PyResult<Option<Parent>> {
    let Some(t) = installed() else {
        return Ok(None);
    };
    let ctx = t.current.call0(py)?;
    if ctx.is_none(py) {
        return Ok(Some(Arc::new(Suppressed)));
    }
    Ok(Some(Arc::new(Context(ctx))))
}

/// `fut` run under the caller's trace context (as it is without telemetry).
pub fn scoped<F: Future>(py: Python<'_>, fut: F) -> PyResult<impl Future<Output = F::Output>> {
    Ok(observe::within(caller(py)?, fut))
}

/// Nanoseconds since the epoch `ago` before now (OpenTelemetry's timestamps).
fn epoch_ns(ago: Duration) -> u64 {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    now.saturating_sub(ago).as_nanos() as u64
}

/// Header names and values, as a hook sees them.
type Pairs = Vec<(String, String)>;
/// The headers sent, and those answered (None: no answer).
type Headers = (Pairs, Option<Pairs>);

fn pairs_of(h: &HeaderMap) -> Pairs {
    super::hooks::shown(h)
        .map(|(k, v)| (k.to_string(), v.into_owned()))
        .collect()
}

/// One request or wait, as the Python side takes it.
enum Record {
    Request {
        parent: Option<Parent>,
        /// The span started before sending (`propagate`), to be ended.
        span: Option<Py<PyAny>>,
        method: String,
        url: String,
        server: (String, u16),
        route: Option<&'static str>,
        action: Option<String>,
        attempt: u32,
        start_ns: u64,
        end_ns: u64,
        /// The status, or the failure's kind and message.
        outcome: Result<u16, (String, String)>,
        remaining: Option<i64>,
        limit_action: Option<String>,
        /// The headers sent and answered, for the telemetry's hooks (when it has any).
        headers: Option<Headers>,
    },
    Wait {
        parent: Option<Parent>,
        reason: &'static str,
        seconds: f64,
        why: Option<String>,
        method: String,
        route: Option<&'static str>,
        action: Option<String>,
        attempt: u32,
        start_ns: u64,
    },
    /// A call that ended, whose span is made after the fact (`urlscan_rs.otel`'s
    /// `_Call`): after its requests', which were recorded before it.
    Call(Py<PyAny>),
}

fn parent_of(py: Python<'_>, p: &Option<Parent>) -> Py<PyAny> {
    p.as_ref()
        .and_then(|p| p.downcast_ref::<Context>().map(|c| c.0.clone_ref(py)))
        .unwrap_or_else(|| py.None())
}

impl Record {
    fn to_py<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        match self {
            Record::Request {
                parent,
                span,
                method,
                url,
                server,
                route,
                action,
                attempt,
                start_ns,
                end_ns,
                outcome,
                remaining,
                limit_action,
                headers,
            } => {
                let (status, error, message) = match outcome {
                    Ok(s) => (Some(*s), None, None),
                    Err((k, m)) => (None, Some(k.as_str()), Some(m.as_str())),
                };
                let record = (
                    "request",
                    parent_of(py, parent),
                    span.as_ref().map(|s| s.clone_ref(py)),
                    (method, url, route, action, attempt, &server.0, server.1),
                    (start_ns, end_ns),
                    (status, error, message),
                    (remaining, limit_action),
                );
                // The headers go last, and only when recorded (a telemetry with hooks).
                match headers {
                    None => record.into_pyobject(py),
                    Some(h) => {
                        let (a, b, c, d, e, f, g) = record;
                        (a, b, c, d, e, f, g, h).into_pyobject(py)
                    }
                }
            }
            Record::Wait {
                parent,
                reason,
                seconds,
                why,
                method,
                route,
                action,
                attempt,
                start_ns,
            } => (
                "wait",
                parent_of(py, parent),
                (reason, seconds, why),
                (method, route, action, attempt),
                start_ns,
            )
                .into_pyobject(py),
            Record::Call(call) => ("call", call.clone_ref(py)).into_pyobject(py),
        }
    }
}

fn queue(r: Record) {
    let full = {
        let mut q = QUEUE.lock().unwrap_or_else(|e| e.into_inner());
        let full = q.records.len() >= MAX_QUEUED;
        if !full {
            q.waits |= matches!(r, Record::Wait { .. });
            q.oldest.get_or_insert_with(std::time::Instant::now);
            q.records.push(r);
        }
        full
    };
    // Logged without the queue's lock: the logger takes the GIL, whose holder may be flushing.
    if full && DROPPED.fetch_add(1, Ordering::Relaxed) == 0 {
        log::warn!("telemetry: {MAX_QUEUED} records wait for a thread to come back to Python; newer ones are dropped");
    }
}

/// Hand the queued records over if a batch is full, one waited for long
/// enough, or a wait is among them; or wait for a flush under way (with the
/// GIL held: a call returning).
pub fn flush_due(py: Python<'_>) {
    let due = {
        let q = QUEUE.lock().unwrap_or_else(|e| e.into_inner());
        q.records.len() >= BATCH || q.waits || q.oldest.is_some_and(|t| t.elapsed() >= MAX_DELAY)
    };
    // Another thread emitting may hold this call's records: its end is waited for too.
    if due || *EMITTING.lock().unwrap_or_else(|e| e.into_inner()) {
        flush(py);
    }
}

/// One flush at a time: `emit` may let the GIL go (the SDK exporting), and a
/// call's flush must not return (and its span end) while another thread
/// still holds records of that call (a wait's event would miss the span).
static EMITTING: Mutex<bool> = Mutex::new(false);
static EMITTED: std::sync::Condvar = std::sync::Condvar::new();

thread_local! {
    /// This thread is inside `emit` (what Python does there may come back to flush).
    static IN_FLUSH: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Hand the queued records to the telemetry object (with the GIL held).
pub fn flush(py: Python<'_>) {
    if IN_FLUSH.with(|f| f.get()) {
        return;
    }
    loop {
        {
            let mut emitting = EMITTING.lock().unwrap_or_else(|e| e.into_inner());
            if !*emitting {
                *emitting = true;
                break;
            }
        }
        // Another thread's flush: wait for its end without the GIL (it may need it).
        py.detach(|| {
            let g = EMITTING.lock().unwrap_or_else(|e| e.into_inner());
            drop(EMITTED.wait_while(g, |emitting| *emitting));
        });
    }
    IN_FLUSH.with(|f| f.set(true));
    emit(py);
    IN_FLUSH.with(|f| f.set(false));
    *EMITTING.lock().unwrap_or_else(|e| e.into_inner()) = false;
    EMITTED.notify_all();
}

fn emit(py: Python<'_>) {
    let records = {
        let mut q = QUEUE.lock().unwrap_or_else(|e| e.into_inner());
        if q.records.is_empty() {
            return;
        }
        q.oldest = None;
        q.waits = false;
        std::mem::take(&mut q.records)
    };
    let Some(t) = INSTALLED.read().unwrap_or_else(|e| e.into_inner()).clone() else {
        return;
    };
    let out = records
        .iter()
        .map(|r| r.to_py(py))
        .collect::<PyResult<Vec<_>>>()
        .and_then(|items| PyList::new(py, items))
        .and_then(|list| t.obj.bind(py).call_method1("emit", (list,)));
    if let Err(e) = out {
        log::warn!("telemetry raised {e}; its spans and metrics of these requests are lost");
    }
}

fn header(h: &HeaderMap, name: &str) -> Option<String> {
    h.get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

/// What an attempt's token holds: when it was sent, and its span if one was
/// started then.
struct Started {
    at: std::time::Instant,
    span: Option<Py<PyAny>>,
}

impl Telemetry {
    /// The span of an attempt started before it is sent, and the trace
    /// context to send with it (`propagate`).
    fn start(&self, e: &Sent<'_>, add: &mut HeaderMap) -> Option<Py<PyAny>> {
        enter_python(|py| {
            let kw = PyDict::new(py);
            let made = (|| -> PyResult<Bound<'_, PyAny>> {
                kw.set_item("parent", parent_of(py, &observe::parent()))?;
                kw.set_item("method", e.method)?;
                kw.set_item("url", redact::url(e.url))?;
                kw.set_item("host", e.host)?;
                kw.set_item("port", e.port)?;
                kw.set_item("route", e.template)?;
                kw.set_item("action", e.action)?;
                kw.set_item("attempt", e.attempt)?;
                if self.headers {
                    kw.set_item("headers", pairs_of(e.headers).into_py_dict(py)?)?;
                }
                self.obj.bind(py).call_method("start", (), Some(&kw))
            })();
            let out = match made {
                Ok(v) => v,
                Err(e) => {
                    log::warn!(
                        "telemetry (start) raised {e}; the request goes without its trace context"
                    );
                    return None;
                }
            };
            let (span, headers): (Py<PyAny>, Bound<'_, PyDict>) = out.extract().ok()?;
            for (k, v) in headers.iter() {
                if let (Ok(k), Ok(v)) = (k.extract::<String>(), v.extract::<String>()) {
                    if let (Ok(k), Ok(v)) = (
                        HeaderName::from_bytes(k.as_bytes()),
                        HeaderValue::from_str(&v),
                    ) {
                        add.insert(k, v);
                    }
                }
            }
            Some(span)
        })
        .flatten()
    }

    fn ended(
        &self,
        sent: &Sent<'_>,
        token: Option<Token>,
        outcome: Result<u16, (String, String)>,
        headers: Option<&HeaderMap>,
    ) {
        let parent = observe::parent();
        if is_suppressed(&parent) {
            return;
        }
        let started = token.and_then(|t| t.downcast::<Started>().ok());
        let (elapsed, span) = match started {
            Some(s) => (s.at.elapsed(), s.span),
            None => (Duration::ZERO, None),
        };
        queue(Record::Request {
            parent,
            span,
            method: sent.method.to_string(),
            url: redact::url(sent.url).into_owned(),
            server: (sent.host.to_string(), sent.port),
            route: sent.template,
            action: sent.action.map(str::to_string),
            attempt: sent.attempt,
            start_ns: epoch_ns(elapsed),
            end_ns: epoch_ns(Duration::ZERO),
            outcome,
            remaining: headers
                .and_then(|h| header(h, "x-rate-limit-remaining"))
                .and_then(|v| v.parse().ok()),
            limit_action: headers
                .and_then(|h| header(h, "x-rate-limit-action"))
                .or_else(|| sent.action.map(str::to_string)),
            headers: self
                .headers
                .then(|| (pairs_of(sent.headers), headers.map(pairs_of))),
        });
    }
}

impl Observer for Telemetry {
    fn sent(&self, e: &Sent<'_>, add: &mut HeaderMap) -> Option<Token> {
        if is_suppressed(&observe::parent()) {
            return None; // not recorded: no span, no trace context
        }
        let span = if self.propagate {
            self.start(e, add)
        } else {
            None
        };
        Some(Box::new(Started {
            at: std::time::Instant::now(),
            span,
        }))
    }

    fn answered(&self, e: &Answered<'_>, token: Option<Token>) {
        self.ended(e.sent, token, Ok(e.status), Some(e.headers));
    }

    fn failed(&self, e: &Failed<'_>, token: Option<Token>) {
        self.ended(
            e.sent,
            token,
            Err((e.kind.to_string(), redact::text(e.message).into_owned())),
            None,
        );
    }

    fn waited(&self, e: &Waited<'_>) {
        let parent = observe::parent();
        if is_suppressed(&parent) {
            return;
        }
        queue(Record::Wait {
            parent,
            reason: e.reason.as_str(),
            seconds: e.waited.as_secs_f64(),
            why: e.why.map(|w| redact::text(w).into_owned()),
            method: e.method.to_string(),
            route: e.template,
            action: e.action.map(str::to_string),
            attempt: e.attempt,
            start_ns: epoch_ns(e.waited),
        });
    }
}

/// `url` as telemetry, hooks, logs and messages show it: its userinfo and the
/// values of secret-looking query parameters redacted (`urlscan_core::redact`).
#[pyfunction]
fn redact_url(url: &str) -> String {
    redact::url(url).into_owned()
}

/// `text` with every URL in it redacted as `redact_url` does.
#[pyfunction]
fn redact_text(text: &str) -> String {
    redact::text(text).into_owned()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(redact_url, m)?)?;
    m.add_function(wrap_pyfunction!(redact_text, m)?)?;
    m.add_function(wrap_pyfunction!(_set_telemetry, m)?)?;
    m.add_function(wrap_pyfunction!(_telemetry_call, m)?)?;
    m.add_function(wrap_pyfunction!(_flush_telemetry, m)?)
}
