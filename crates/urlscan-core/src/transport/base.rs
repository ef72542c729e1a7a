//! The transport itself: a request as described before it is sent, an answer,
//! and a client's shared state (connection pools, pacing, clock, gate).
use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use reqwest::header::HeaderMap;
use reqwest::Method;
use serde_json::Value;
use tokio::sync::{watch, Notify, Semaphore};

use super::limits::{clock_of, LimitState, ServerClock};
use super::wire::map_reqwest_error;
use crate::config::Config;
use crate::error::{Error, Result};

/// The header the API key travels in (and only there).
pub(super) const API_KEY_HEADER: &str = "API-Key";

/// One request, described before it is sent (so it can be re-sent on retry).
#[derive(Debug, Clone)]
pub struct Req {
    pub method: Method,
    /// Path below the base URL, already validated/percent-encoded.
    pub path: String,
    pub query: Vec<(Cow<'static, str>, String)>,
    pub body: Option<Value>,
    /// The rate-limit action this request counts against, where known.
    pub action: Option<String>,
    /// Off for answers whose redirect is the result (data-dump links).
    pub follow_redirects: bool,
    /// The caller keeps this body with many others (a batch): see `populate`.
    pub kept: bool,
    /// The endpoint's path with its ids as `{0}`, `{1}` (the row's), where known.
    pub template: Option<&'static str>,
    /// What a result cache may keep of the answer (the row's `cached`).
    pub cache: Option<crate::cache::Keep>,
    /// What a 200 must be before a cache keeps or serves it (the row's `accept`).
    pub accept: Option<crate::accept::Accept>,
}

/// A call's own check of a 200's body (`Transport::send_checked`).
pub type Check<'a> = dyn FnMut(&Bytes) -> Result<()> + Send + 'a;

impl Req {
    pub fn get(path: impl Into<String>) -> Req {
        Req {
            method: Method::GET,
            path: path.into(),
            query: Vec::new(),
            body: None,
            action: None,
            follow_redirects: true,
            kept: false,
            template: None,
            cache: None,
            accept: None,
        }
    }
    pub fn new(method: Method, path: impl Into<String>) -> Req {
        Req {
            method,
            ..Req::get(path)
        }
    }
    pub fn query(mut self, k: impl Into<Cow<'static, str>>, v: impl ToString) -> Req {
        self.query.push((k.into(), v.to_string()));
        self
    }
    pub fn query_opt(self, k: &'static str, v: Option<impl ToString>) -> Req {
        match v {
            Some(v) => self.query(k, v),
            None => self,
        }
    }
    pub fn json(mut self, body: Value) -> Req {
        self.body = Some(body);
        self
    }
    pub fn action(mut self, a: impl Into<String>) -> Req {
        self.action = Some(a.into());
        self
    }
    pub(super) fn idempotent(&self) -> bool {
        self.method != Method::POST
    }
    pub(super) fn display_path(&self) -> String {
        if self.query.is_empty() {
            return self.path.clone();
        }
        let q = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(self.query.iter().map(|(k, v)| (k.as_ref(), v.as_str())))
            .finish();
        format!("{}?{}", self.path, q)
    }
}

#[derive(Debug, Clone)]
pub struct Resp {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: Bytes,
}

/// Where a call made under `RAW_RESPONSE.scope(...)` finds the last answer its
/// requests got (the Python `with_raw_response`): method, URL and the answer.
pub type RawCell = Arc<Mutex<Option<(String, String, Resp)>>>;

tokio::task_local! {
    pub static RAW_RESPONSE: RawCell;
}

pub struct Transport {
    pub(crate) cfg: Config,
    pub(super) http: reqwest::Client,
    pub(super) http_no_redirect: reqwest::Client,
    /// Downloads from another host: no redirect, and no bound on the whole
    /// request: a body that keeps arriving is never cut; a stall of
    /// `timeout` (no byte read) is what fails.
    pub(crate) http_download: Arc<std::sync::OnceLock<reqwest::Client>>,
    pub(super) limits: Arc<Mutex<HashMap<String, LimitState>>>,
    /// The action the service named (`X-Rate-Limit-Action`) for an endpoint
    /// whose row declares none: its later requests are paced under it.
    pub(super) learned: Arc<Mutex<HashMap<&'static str, String>>>,
    /// Whether a request without a key said so (`say_anonymous`).
    pub(super) said_anonymous: Arc<std::sync::atomic::AtomicBool>,
    /// Wakes requests waiting for a slot whenever one is given back.
    pub(super) slot_freed: Arc<Notify>,
    /// Set by `close()`: every call in flight ends with `Error::Closed`.
    pub(crate) closed: Arc<watch::Sender<bool>>,
    /// The server's clock (see `ServerClock`).
    pub(super) clock: Arc<ServerClock>,
    /// Bounds requests in flight for batch jobs; waits between polls hold no permit.
    pub(crate) gate: Option<Arc<Semaphore>>,
}

impl std::fmt::Debug for Transport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Transport")
            .field("base_url", &self.cfg.base_url)
            .finish_non_exhaustive()
    }
}

/// The HTTP client of a configuration: `whole` bounds each request by
/// `timeout` from start to end; otherwise only a stall (no byte read for
/// `timeout`) fails it.
pub(super) fn build_http(
    cfg: &Config,
    policy: reqwest::redirect::Policy,
    whole: bool,
) -> Result<reqwest::Client> {
    let b = reqwest::Client::builder();
    let b = if whole {
        b.timeout(cfg.timeout)
    } else {
        b.read_timeout(cfg.timeout)
    };
    let mut b = b
        .connect_timeout(cfg.timeout.min(Duration::from_secs(10)))
        .user_agent(cfg.user_agent.clone())
        .redirect(policy)
        .pool_idle_timeout(Duration::from_secs(60))
        .tls_danger_accept_invalid_certs(!cfg.verify);
    if let Some(p) = &cfg.proxy {
        // The message never shows the proxy URL: it may hold a password.
        let proxy = reqwest::Proxy::all(p)
            .map_err(|_| Error::Validation("proxy is not a URL the HTTP stack accepts".into()))?;
        b = b.proxy(proxy);
    }
    b.build()
        .map_err(|e| Error::Transport(format!("cannot build the HTTP client: {e}")))
}

impl Transport {
    pub fn new(cfg: Config) -> Result<Transport> {
        let origin = url::Url::parse(&cfg.base_url)
            .map_err(|e| Error::Validation(e.to_string()))?
            .origin();
        // Follow redirects only within the base URL's origin, so the API key
        // header never travels to another host.
        let policy = reqwest::redirect::Policy::custom(move |attempt| {
            if attempt.previous().len() >= 10 {
                attempt.error("too many redirects")
            } else if attempt.url().origin() == origin {
                attempt.follow()
            } else {
                attempt.stop()
            }
        });
        let http = build_http(&cfg, policy, true)?;
        let http_no_redirect = build_http(&cfg, reqwest::redirect::Policy::none(), true)?;
        let clock = clock_of(&cfg.base_url);
        Ok(Transport {
            clock,
            cfg,
            http,
            http_no_redirect,
            http_download: Arc::new(std::sync::OnceLock::new()),
            limits: Arc::new(Mutex::new(HashMap::new())),
            learned: Arc::new(Mutex::new(HashMap::new())),
            said_anonymous: Arc::default(),
            slot_freed: Arc::new(Notify::new()),
            closed: Arc::new(watch::channel(false).0),
            gate: None,
        })
    }

    /// The same pool and rate-limit state, with requests in flight bounded by `gate`.
    pub fn with_gate(&self, gate: Arc<Semaphore>) -> Transport {
        self.with_gate_of(Some(gate))
    }

    pub(super) fn with_gate_of(&self, gate: Option<Arc<Semaphore>>) -> Transport {
        Transport {
            cfg: self.cfg.clone(),
            http: self.http.clone(),
            http_no_redirect: self.http_no_redirect.clone(),
            http_download: Arc::clone(&self.http_download),
            limits: Arc::clone(&self.limits),
            learned: Arc::clone(&self.learned),
            said_anonymous: Arc::clone(&self.said_anonymous),
            slot_freed: Arc::clone(&self.slot_freed),
            closed: Arc::clone(&self.closed),
            clock: Arc::clone(&self.clock),
            gate,
        }
    }

    /// The same pool, pacing and rate-limit state (and gate), with `cfg`'s
    /// per-call settings: timeout, retries, retry deadline, fail-fast and
    /// size bounds (`Client::with_options`). What builds a pool (address,
    /// key, proxy, TLS, user agent) is the pool's own and stays. Downloads
    /// from other hosts get a client of their own when the timeout differs,
    /// as theirs is a stall bound set when it is built.
    pub fn with_config(&self, cfg: Config) -> Transport {
        let download = if cfg.timeout == self.cfg.timeout {
            Arc::clone(&self.http_download)
        } else {
            Arc::new(std::sync::OnceLock::new())
        };
        Transport {
            cfg,
            http_download: download,
            gate: self.gate.clone(),
            ..self.with_gate_of(None)
        }
    }

    /// A GET of an absolute address on another host (a data-dump file's
    /// temporary link): no API key, no redirect followed, from byte `from`
    /// on (a `Range` request) when not 0. The answer's body is the caller's
    /// to stream; it fails only when no byte arrives for `timeout`, however
    /// long the whole transfer takes.
    pub async fn get_elsewhere(&self, url: &str, from: u64) -> Result<reqwest::Response> {
        if *self.closed.borrow() {
            return Err(Error::Closed);
        }
        let http = match self.http_download.get() {
            Some(h) => h,
            None => {
                let built = build_http(&self.cfg, reqwest::redirect::Policy::none(), false)?;
                self.http_download.get_or_init(|| built)
            }
        };
        let mut rb = http.get(url);
        if from > 0 {
            rb = rb.header(reqwest::header::RANGE, format!("bytes={from}-"));
        }
        rb.send().await.map_err(map_reqwest_error)
    }

    /// End every call in flight (they fail with `Error::Closed`) and refuse new ones.
    pub fn close(&self) {
        self.closed.send_replace(true);
    }

    pub fn is_closed(&self) -> bool {
        *self.closed.borrow()
    }

    /// Run `fut` unless or until the client is closed.
    pub async fn guarded<T>(&self, fut: impl std::future::Future<Output = Result<T>>) -> Result<T> {
        let mut rx = self.closed.subscribe();
        if *rx.borrow_and_update() {
            return Err(Error::Closed);
        }
        tokio::select! {
            out = fut => out,
            _ = rx.wait_for(|closed| *closed) => Err(Error::Closed),
        }
    }

    /// A pause that ends early, with `Error::Closed`, when the client is closed.
    pub async fn sleep_until(&self, at: tokio::time::Instant) -> Result<()> {
        self.guarded(async {
            tokio::time::sleep_until(at).await;
            Ok(())
        })
        .await
    }
}

/// Paths the service answers without an API key (on a small per-address
/// budget); every other call needs one.
pub const ANONYMOUS_PATHS: &[&str] = &["/api/v1/search", "/screenshots/", "/user/quotas"];

pub fn anonymous_ok(path: &str) -> bool {
    ANONYMOUS_PATHS.iter().any(|p| path.starts_with(p))
}
