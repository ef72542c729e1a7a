//! What an observer of the client is told about every request: each attempt
//! as it is sent, its answer or failure, and each wait before an attempt
//! (a spent rate-limit window, a retry's back-off). The Python `event_hooks`
//! are one such observer, telemetry (`urlscan_rs.otel`) another. The API key
//! is never in what they see, and an observer cannot change what a call
//! does, beyond headers it adds (trace context propagation).
//!
//! A call may run under a [`Parent`]: an opaque value of the caller's (its
//! trace context) that follows the call's work into every task it spawns, so
//! an observer can tell which call a request belongs to.
use std::any::Any;
use std::fmt;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

pub use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

/// One attempt of a request, about to be sent.
pub struct Sent<'a> {
    pub method: &'a str,
    /// The whole URL, query included.
    pub url: &'a str,
    /// The server's host and port (the scheme's default when the URL names none).
    pub host: &'a str,
    pub port: u16,
    /// The request's own headers, without the `API-Key` header (the HTTP
    /// client adds `User-Agent` and the transport headers when it sends).
    pub headers: &'a HeaderMap,
    /// 0 for the first attempt, then 1, 2, ... for each retry or wait.
    pub attempt: u32,
    /// The rate-limit action the request is paced as, if any.
    pub action: Option<&'a str>,
    /// The endpoint's path template (`/api/v1/result/{0}/`), when it came
    /// from a row: the route without ids.
    pub template: Option<&'static str>,
}

/// The answer to one attempt: its status and headers (its body was read).
pub struct Answered<'a> {
    pub sent: &'a Sent<'a>,
    pub status: u16,
    pub headers: &'a HeaderMap,
    /// From sending the request to the end of its body.
    pub elapsed: Duration,
}

/// An attempt that got no (whole) answer.
pub struct Failed<'a> {
    pub sent: &'a Sent<'a>,
    /// What went wrong, in a word: "timeout", "connect", "transport",
    /// "decode" (a body past `max_body_bytes`, or cut), "cancelled" (the call
    /// was dropped), ...
    pub kind: &'a str,
    pub message: &'a str,
    pub elapsed: Duration,
}

/// Why a request waited before an attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitReason {
    /// The action's rate-limit window was spent (or its slots in flight):
    /// pacing, not a failure.
    RateLimit,
    /// The back-off before a retry of a failed attempt.
    Retry,
}

impl WaitReason {
    pub fn as_str(self) -> &'static str {
        match self {
            WaitReason::RateLimit => "rate-limit",
            WaitReason::Retry => "retry",
        }
    }
}

/// A wait before an attempt, told when it is over.
pub struct Waited<'a> {
    pub method: &'a str,
    pub template: Option<&'static str>,
    pub action: Option<&'a str>,
    pub reason: WaitReason,
    /// How long it waited.
    pub waited: Duration,
    /// What the wait was for: the status or error that is retried.
    pub why: Option<&'a str>,
    /// The attempt that comes after the wait.
    pub attempt: u32,
}

/// What an observer keeps of one attempt, handed back with its answer or failure.
pub type Token = Box<dyn Any + Send>;

/// Told of every attempt, answer, failure and wait, on the client's I/O
/// thread (or the calling thread of a sync call).
pub trait Observer: Send + Sync + fmt::Debug {
    /// An attempt about to be sent. Headers put in `add` are sent with it
    /// (never shown to other observers); the token comes back with its end.
    fn sent(&self, e: &Sent<'_>, add: &mut HeaderMap) -> Option<Token>;
    fn answered(&self, e: &Answered<'_>, token: Option<Token>);
    /// The attempt failed (or was dropped: `kind` "cancelled").
    fn failed(&self, _e: &Failed<'_>, _token: Option<Token>) {}
    fn waited(&self, _e: &Waited<'_>) {}
}

/// The caller's value a call runs under (see the module's comment).
pub type Parent = Arc<dyn Any + Send + Sync>;

tokio::task_local! {
    static PARENT: Parent;
}

/// The parent of the call running now, if any.
pub fn parent() -> Option<Parent> {
    PARENT.try_with(Arc::clone).ok()
}

/// `fut` run under `parent` (as it is, without one).
pub fn within<F: Future>(parent: Option<Parent>, fut: F) -> impl Future<Output = F::Output> {
    match parent {
        Some(p) => futures::future::Either::Left(PARENT.scope(p, fut)),
        None => futures::future::Either::Right(fut),
    }
}

/// The observer every client of the process tells, besides its own
/// (telemetry). Read per request: one atomic load while there is none.
static GLOBAL: RwLock<Option<Arc<dyn Observer>>> = RwLock::new(None);
static GLOBAL_SET: AtomicBool = AtomicBool::new(false);

/// Install (or, with None, remove) the process-wide observer.
pub fn set_global(observer: Option<Arc<dyn Observer>>) {
    let mut g = GLOBAL.write().unwrap_or_else(|e| e.into_inner());
    GLOBAL_SET.store(observer.is_some(), Ordering::SeqCst);
    *g = observer;
}

/// The process-wide observer, if one is installed.
pub fn global() -> Option<Arc<dyn Observer>> {
    if !GLOBAL_SET.load(Ordering::Relaxed) {
        return None;
    }
    GLOBAL.read().unwrap_or_else(|e| e.into_inner()).clone()
}
