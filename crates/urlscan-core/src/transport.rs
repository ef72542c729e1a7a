//! Sending requests: headers, retries with backoff, rate-limit bookkeeping and
//! the mapping of non-2xx answers to typed errors.
use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use rand::Rng;
use reqwest::header::{HeaderMap, HeaderValue};
use reqwest::Method;
use serde_json::Value;
use tokio::sync::{watch, Notify, Semaphore};

use crate::config::Config;
use crate::error::{ApiError, ApiErrorKind, Error, RateLimitInfo, Result};
use crate::observe::{Observer, WaitReason};

/// The clock of one server (an origin), as far as rate-limit windows go: its
/// epoch is bumped when that server's clock jumps (an emulator in this
/// process moved its clock), so the windows the transports of that origin
/// remember are over and the new ones are probed; the windows of other
/// servers stay. Real clocks never jump, so this costs nothing.
#[derive(Default)]
struct ServerClock {
    epoch: AtomicU64,
    moved: Notify,
}

/// The clocks by origin (one per server this process talks to).
static CLOCKS: std::sync::LazyLock<Mutex<HashMap<String, Arc<ServerClock>>>> =
    std::sync::LazyLock::new(Mutex::default);

fn clock_of(base_url: &str) -> Arc<ServerClock> {
    let origin = url::Url::parse(base_url)
        .map(|u| u.origin().ascii_serialization())
        .unwrap_or_else(|_| base_url.to_string());
    Arc::clone(CLOCKS.lock().unwrap().entry(origin).or_default())
}

/// The header the API key travels in (and only there).
const API_KEY_HEADER: &str = "API-Key";

/// At most this many waits for a window spent by others, per request.
const MAX_LIMITED_WAITS: u32 = 100;
/// A window spent by others is waited out without spending a retry only
/// when its reset is at least this far away (see `send_with_retries`).
const MIN_PACED_WAIT: Duration = Duration::from_millis(500);

/// The clock of the server at `base_url` jumped forward: the transports
/// talking to it forget the windows seen so far.
pub fn server_clock_moved(base_url: &str) {
    let clock = clock_of(base_url);
    clock.epoch.fetch_add(1, Ordering::SeqCst);
    clock.moved.notify_waiters();
}

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
    fn idempotent(&self) -> bool {
        self.method != Method::POST
    }
    fn display_path(&self) -> String {
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

/// Rate-limit state per action, shared by every request of one client.
///
/// Pacing: a request takes a slot only while the server's `remaining` (from
/// the newest answer of the current window) exceeds the requests already in
/// flight, so concurrent requests never overshoot the window; once it is
/// spent, requests wait for the reset. After a reset (or before any answer)
/// the count is unknown, and one request at a time probes it.
#[derive(Debug, Default)]
struct LimitState {
    /// The newest headers, as shown to the user.
    info: Option<RateLimitInfo>,
    /// Which window `remaining` belongs to: (reset timestamp, window name).
    window: Option<(String, String)>,
    remaining: Option<u64>,
    reset_at: Option<Instant>,
    /// Requests of this action sent (or about to be) and not yet answered.
    in_flight: u64,
    /// An answer came without headers: this action is not paced.
    unpaced: bool,
    /// The server clock's epoch when `remaining` and `reset_at` were learnt.
    epoch: u64,
}

pub struct Transport {
    pub(crate) cfg: Config,
    http: reqwest::Client,
    http_no_redirect: reqwest::Client,
    /// Downloads from another host: no redirect, and no bound on the whole
    /// request: a body that keeps arriving is never cut; a stall of
    /// `timeout` (no byte read) is what fails.
    pub(crate) http_download: Arc<std::sync::OnceLock<reqwest::Client>>,
    limits: Arc<Mutex<HashMap<String, LimitState>>>,
    /// The action the service named (`X-Rate-Limit-Action`) for an endpoint
    /// whose row declares none: its later requests are paced under it.
    learned: Arc<Mutex<HashMap<&'static str, String>>>,
    /// Whether a request without a key said so (`say_anonymous`).
    said_anonymous: Arc<std::sync::atomic::AtomicBool>,
    /// Wakes requests waiting for a slot whenever one is given back.
    slot_freed: Arc<Notify>,
    /// Set by `close()`: every call in flight ends with `Error::Closed`.
    pub(crate) closed: Arc<watch::Sender<bool>>,
    /// The server's clock (see `ServerClock`).
    clock: Arc<ServerClock>,
    /// Bounds requests in flight for batch jobs; waits between polls hold no permit.
    pub(crate) gate: Option<Arc<Semaphore>>,
}

/// A request's place in its action's window; given back on drop.
struct Slot<'a> {
    t: &'a Transport,
    action: String,
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        if let Some(st) = self.t.limits.lock().unwrap().get_mut(&self.action) {
            st.in_flight = st.in_flight.saturating_sub(1);
        }
        self.t.slot_freed.notify_waiters();
    }
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
fn build_http(
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

    fn with_gate_of(&self, gate: Option<Arc<Semaphore>>) -> Transport {
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

    /// The rate limits seen so far, per action.
    pub fn rate_limits(&self) -> Vec<RateLimitInfo> {
        let mut v: Vec<_> = self
            .limits
            .lock()
            .unwrap()
            .values()
            .filter_map(|s| s.info.clone())
            .collect();
        v.sort_by(|a, b| a.action.cmp(&b.action));
        v
    }

    /// The first request without a key says, once per client, that it runs
    /// anonymously and under which limits.
    fn say_anonymous(&self) {
        if !self.said_anonymous.swap(true, Ordering::Relaxed) {
            log::info!(
                "no API key: requests run anonymously, under the service's per-IP limits \
                 (search: 500 a day); give a key (URLSCAN_API_KEY or api_key=) for your account's"
            );
        }
    }

    /// The concurrency limit the service announced for `action`, if any.
    pub fn concurrency_limit(&self, action: &str) -> Option<u64> {
        let map = self.limits.lock().unwrap();
        map.get(action)?.info.as_ref()?.concurrency_limit
    }

    /// Send with retries; a non-2xx answer becomes `Error::Api`.
    pub async fn send(&self, req: &Req) -> Result<Resp> {
        let resp = self.send_raw(req).await?;
        self.success(req, resp)
    }

    /// `send`, with `check` run on a 200's body before it is used or kept: a body it refuses is
    /// its error (never kept), and one a cache serves that it refuses is dropped and fetched
    /// again. `check` runs on the body returned last.
    pub async fn send_checked(&self, req: &Req, check: &mut Check<'_>) -> Result<Resp> {
        let resp = self.send_raw_checked(req, Some(check)).await?;
        self.success(req, resp)
    }

    /// A 2xx (or a redirect wanted as the answer), else the error the status stands for.
    fn success(&self, req: &Req, resp: Resp) -> Result<Resp> {
        match resp.status {
            200..=299 => Ok(resp),
            // Wanted as the answer (data-dump links).
            300..=399 if !req.follow_redirects => Ok(resp),
            // A redirect still standing was not followed: it leaves the base
            // URL's origin, where the API key must not go.
            300..=399 => {
                let mut e = api_error(req, &resp);
                if let Error::Api(a) = &mut e {
                    let to = header_str(&resp.headers, "location").unwrap_or("?");
                    a.message = format!(
                        "redirected to {to}, outside {}; not followed, so the API key is not sent there",
                        self.cfg.base_url
                    );
                }
                Err(e)
            }
            _ => Err(api_error(req, &resp)),
        }
    }

    /// Send with retries and return whatever status came last.
    pub async fn send_raw(&self, req: &Req) -> Result<Resp> {
        self.send_raw_checked(req, None).await
    }

    async fn send_raw_checked(&self, req: &Req, mut check: Option<&mut Check<'_>>) -> Result<Resp> {
        match &self.cfg.api_key {
            None if !anonymous_ok(&req.path) => return Err(no_key_error(req)),
            None => self.say_anonymous(),
            // The service would answer 400 on every endpoint: said before anything is sent.
            Some(k) if !urlscan_rules::api_key_format(k.expose()) => {
                return Err(bad_key_error(req))
            }
            Some(_) => {}
        }
        // An endpoint the service paced before is paced under that action from now on.
        let paced;
        let req = match req.template.filter(|_| req.action.is_none()) {
            Some(t) => match self.learned.lock().unwrap().get(t) {
                Some(a) => {
                    paced = req.clone().action(a.clone());
                    &paced
                }
                None => req,
            },
            None => req,
        };
        let cache = self.cfg.cache.clone();
        let kept = match (&cache, req.cache) {
            (Some(c), Some(keep)) if req.method == Method::GET && c.keeps(keep) => {
                let scope = crate::cache::scope(
                    &self.cfg.base_url,
                    self.cfg.api_key.as_ref().map(|k| k.expose()),
                );
                Some((
                    c.clone(),
                    keep,
                    crate::cache::key(&scope, &req.path, &req.query),
                ))
            }
            _ => None,
        };
        // What a 200 must be: the call's own check, else the row's (before a cache keeps or
        // serves it); a row without one is read by its caller.
        let keeping = kept.is_some();
        let mut accepted = |body: &Bytes| -> Result<()> {
            match (check.as_mut(), req.accept) {
                (Some(c), _) => c(body),
                (None, Some(a)) if keeping => a.check(&req.path, body),
                _ => Ok(()),
            }
        };
        let out = match kept {
            Some((c, keep, key)) => {
                let hit = blocking({
                    let (c, key, action) = (c.clone(), key.clone(), req.action.clone());
                    move || c.get(&key, action.as_deref())
                })
                .await;
                let served = match hit.map(cached_resp) {
                    Some(resp) => match accepted(&resp.body) {
                        Ok(()) => Some(resp),
                        Err(e) => {
                            let (c, key) = (c.clone(), key.clone());
                            blocking(move || c.drop_damaged(&key, &e.to_string())).await;
                            None
                        }
                    },
                    None => None,
                };
                match served {
                    Some(resp) => Ok(resp),
                    None => {
                        let out = self.fetch(req).await;
                        match out {
                            Ok(resp) if resp.status == 200 => {
                                // Refused: the call's error, and nothing is kept.
                                accepted(&resp.body)?;
                                let (body, scan) = (
                                    resp.body.clone(),
                                    crate::cache::scan_of(&req.path).map(String::from),
                                );
                                let ct =
                                    header_str(&resp.headers, "content-type").map(String::from);
                                blocking(move || {
                                    c.put(&key, scan.as_deref(), keep, &body, ct.as_deref())
                                })
                                .await;
                                Ok(resp)
                            }
                            out => out,
                        }
                    }
                }
            }
            None => match self.fetch(req).await {
                Ok(resp) if resp.status == 200 => accepted(&resp.body).map(|()| resp),
                out => out,
            },
        };
        if let (Some(c), Ok(resp)) = (&cache, &out) {
            // A deleted scan, or one whose visibility changed, is not served again.
            let changed = matches!(req.method, Method::PUT | Method::DELETE)
                && req.path.ends_with("/visibility/")
                && (200..300).contains(&resp.status);
            if resp.status == 410 || changed {
                if let Some(scan) = crate::cache::scan_of(&req.path).map(String::from) {
                    let c = c.clone();
                    blocking(move || c.evict_scan(&scan)).await;
                }
            }
        }
        if let Ok(resp) = &out {
            let _ = RAW_RESPONSE.try_with(|cell| {
                let url = format!("{}{}", self.cfg.base_url.trim_end_matches('/'), req.path);
                *cell.lock().unwrap() = Some((req.method.to_string(), url, resp.clone()));
            });
        }
        out
    }

    /// The service's answer (after retries), written to the recording folder
    /// first when there is one (`crate::record`): a recording that cannot be
    /// written fails the call.
    async fn fetch(&self, req: &Req) -> Result<Resp> {
        let resp = self.guarded(self.send_with_retries(req)).await?;
        if let Some(rec) = self.cfg.recorder.clone() {
            // Off the I/O threads: the body is parsed, the hook called, files written.
            let (sent, got) = (req.clone(), resp.clone());
            let key = self.cfg.api_key.as_ref().map(|k| k.expose());
            let secrets = crate::record::secrets_of(key, &self.cfg.base_url);
            blocking(move || {
                let entry = crate::record::Entry::of(crate::record::Exchange {
                    method: sent.method.as_str(),
                    path: &sent.path,
                    query: &sent.query,
                    json: sent.body.as_ref(),
                    status: got.status,
                    headers: &got.headers,
                    body: &got.body,
                });
                rec.record(entry, &secrets)
            })
            .await?;
        }
        Ok(resp)
    }

    async fn send_with_retries(&self, req: &Req) -> Result<Resp> {
        let mut attempt: u32 = 0;
        // A 429 of the service's limiter announcing a window not waited out
        // before (other processes or hosts spent the shared key's window):
        // waiting it out is pacing, bounded by the deadline, not a retry of
        // a failure. Any other 429 (no reset, a reset of zero or in the past,
        // a window already waited out) spends a retry.
        let mut limited: u32 = 0;
        let mut waited: Vec<Option<String>> = Vec::new();
        // Set at the first attempt: the retries end by then. A wait for a
        // slot before it is bounded by `retry_deadline` on its own.
        let mut deadline: Option<Option<Instant>> = None;
        loop {
            let asked = Instant::now();
            let slot = self.acquire_slot(req, deadline.flatten()).await?;
            let held = asked.elapsed();
            if held >= TOLD_WAIT {
                self.tell_wait(req, WaitReason::RateLimit, held, None, attempt + limited);
            }
            let end = *deadline
                .get_or_insert_with(|| self.cfg.retry_deadline.map(|d| Instant::now() + d));
            let outcome = self.send_once(req, attempt + limited).await;
            drop(slot);
            let (retry_in, window) = match &outcome {
                Ok(r) if r.status == 429 && !self.cfg.fail_fast => {
                    let (delay, window) = limited_delay(&r.headers, attempt);
                    (Some(delay), window)
                }
                Ok(r) => (self.retry_delay_for_status(req, r, attempt), None),
                Err(e) => (retry_delay_for_error(req, e, attempt), None),
            };
            let past_deadline = |d: Duration| end.is_some_and(|end| Instant::now() + d > end);
            // Each window (named by its `Reset` time) is waited out once,
            // and only one at least `MIN_PACED_WAIT` away: a server
            // announcing ever new windows a moment away is failing, not
            // pacing (at most two such waits a second, within the deadline).
            let paced = self.cfg.max_retries > 0
                && limited < MAX_LIMITED_WAITS
                && window.as_ref().is_some_and(|w| !waited.contains(w))
                && retry_in.is_some_and(|d| d >= MIN_PACED_WAIT);
            let may_retry = paced || attempt < self.cfg.max_retries;
            match retry_in {
                Some(delay) if may_retry && past_deadline(delay) => {
                    log::info!(
                        "not retrying {} {} in {:.1}s: the retry deadline of {:.0}s would pass",
                        req.method,
                        req.path,
                        delay.as_secs_f64(),
                        self.cfg.retry_deadline.unwrap_or_default().as_secs_f64()
                    );
                    return counted(outcome, attempt);
                }
                Some(delay) if paced => {
                    log_wait(
                        delay,
                        format_args!(
                            "{} {}: the rate-limit window is spent (the key is shared); sending again in {:.1}s",
                            req.method,
                            req.path,
                            delay.as_secs_f64()
                        ),
                    );
                    // An in-process emulator moving its clock ends the window too.
                    let asleep = Instant::now();
                    tokio::select! {
                        _ = tokio::time::sleep(delay) => {}
                        _ = self.clock.moved.notified() => {}
                    }
                    limited += 1;
                    self.tell_wait(
                        req,
                        WaitReason::RateLimit,
                        asleep.elapsed(),
                        Some("HTTP 429"),
                        attempt + limited,
                    );
                    waited.extend(window);
                }
                Some(delay) if may_retry => {
                    let why = match &outcome {
                        Ok(r) => format!("HTTP {}", r.status),
                        Err(e) => e.to_string(),
                    };
                    log_wait(
                        delay,
                        format_args!(
                            "retrying {} {} in {:.1}s after {} (retry {} of {})",
                            req.method,
                            req.path,
                            delay.as_secs_f64(),
                            why,
                            attempt + 1,
                            self.cfg.max_retries
                        ),
                    );
                    let asleep = Instant::now();
                    tokio::time::sleep(delay).await;
                    attempt += 1;
                    self.tell_wait(
                        req,
                        WaitReason::Retry,
                        asleep.elapsed(),
                        Some(&why),
                        attempt + limited,
                    );
                }
                _ => return counted(outcome, attempt),
            }
        }
    }

    /// Tell the observers of a wait before `attempt` (none: nothing built).
    fn tell_wait(
        &self,
        req: &Req,
        reason: WaitReason,
        waited: Duration,
        why: Option<&str>,
        attempt: u32,
    ) {
        let held = self.observers();
        if held.iter().all(Option::is_none) {
            return;
        }
        let e = crate::observe::Waited {
            method: req.method.as_str(),
            template: req.template,
            action: req.action.as_deref(),
            reason,
            waited,
            why,
            attempt,
        };
        for o in held.iter().flatten() {
            o.waited(&e);
        }
    }

    /// Who is told of this client's requests: its own observer and the process's.
    fn observers(&self) -> [Option<Arc<dyn Observer>>; 2] {
        [self.cfg.observer.clone(), crate::observe::global()]
    }

    async fn send_once(&self, req: &Req, attempt: u32) -> Result<Resp> {
        let _permit = match &self.gate {
            Some(g) => Some(g.acquire().await.map_err(|_| Error::Closed)?),
            None => None,
        };
        let url = format!("{}{}", self.cfg.base_url, req.path);
        let http = if req.follow_redirects {
            &self.http
        } else {
            &self.http_no_redirect
        };
        // This client's timeout, not the pool's: clients of `with_options` share the pool.
        let mut rb = http
            .request(req.method.clone(), &url)
            .timeout(self.cfg.timeout);
        if !req.query.is_empty() {
            rb = rb.query(&req.query);
        }
        if let Some(key) = &self.cfg.api_key {
            let mut v = HeaderValue::from_str(key.expose()).map_err(|_| {
                Error::Validation(
                    "the API key holds characters that cannot go in an HTTP header".into(),
                )
            })?;
            v.set_sensitive(true);
            rb = rb.header(API_KEY_HEADER, v);
        }
        if let Some(body) = &req.body {
            let bytes = serde_json::to_vec(body).map_err(|e| Error::Validation(e.to_string()))?;
            rb = rb
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(bytes);
        }
        let mut request = rb.build().map_err(map_reqwest_error)?;
        // What the observers are shown (nothing is copied without one).
        let held = self.observers();
        let observers: Vec<&dyn Observer> = held.iter().flatten().map(|o| &**o).collect();
        let shown = (!observers.is_empty()).then(|| {
            let mut headers = request.headers().clone();
            headers.remove(API_KEY_HEADER);
            let u = request.url();
            let server = (
                u.host_str().unwrap_or_default().to_string(),
                u.port_or_known_default().unwrap_or_default(),
            );
            (u.to_string(), headers, server)
        });
        let sent = shown
            .as_ref()
            .map(|(url, headers, (host, port))| crate::observe::Sent {
                method: req.method.as_str(),
                url,
                host,
                port: *port,
                headers,
                attempt,
                action: req.action.as_deref(),
                template: req.template,
            });
        let mut add = HeaderMap::new();
        let tokens = match &sent {
            Some(s) => observers.iter().map(|o| o.sent(s, &mut add)).collect(),
            None => Vec::new(),
        };
        request.headers_mut().extend(add);
        // Timed from here: what the observers did before is not the request's.
        let started = Instant::now();
        let mut told = Told {
            observers: &observers,
            sent: sent.as_ref(),
            tokens,
            started,
        };
        let (status, headers, body) = match async {
            let resp = http.execute(request).await.map_err(map_reqwest_error)?;
            let status = resp.status().as_u16();
            let headers = resp.headers().clone();
            let body = read_capped(resp, self.cfg.max_body_bytes, req.kept).await?;
            Ok::<_, Error>((status, headers, body))
        }
        .await
        {
            Ok(answer) => answer,
            Err(e) => {
                told.failed(failure_kind(&e), &e.to_string());
                return Err(e);
            }
        };
        told.answered(status, &headers);
        log::debug!(
            "{} {} -> {} ({} bytes, {:.1} ms)",
            req.method,
            req.display_path(),
            status,
            body.len(),
            started.elapsed().as_secs_f64() * 1000.0
        );
        self.record_limit(req, parse_rate_limit(&headers), status);
        Ok(Resp {
            status,
            headers,
            body,
        })
    }

    /// Take in the headers of an answer (any status; only 200s count on the server).
    fn record_limit(&self, req: &Req, info: Option<RateLimitInfo>, status: u16) {
        if let (None, Some(template), Some(named)) = (
            &req.action,
            req.template,
            info.as_ref().and_then(|i| i.action.as_ref()),
        ) {
            self.learned.lock().unwrap().insert(template, named.clone());
        }
        let Some(action) = info
            .as_ref()
            .and_then(|i| i.action.clone())
            .or_else(|| req.action.clone())
        else {
            return;
        };
        let mut map = self.limits.lock().unwrap();
        let st = map.entry(action).or_default();
        let Some(info) = info else {
            // A real answer without headers (not a proxy's 5xx) means the
            // service does not limit this action here.
            if st.remaining.is_none() && status < 500 {
                st.unpaced = true;
            }
            return;
        };
        st.unpaced = false;
        let remaining = if status == 429 {
            Some(0)
        } else {
            info.remaining
        };
        let reset_at =
            reset_in(info.reset_after, info.reset.as_deref()).map(|d| Instant::now() + d);
        let window = info
            .reset
            .clone()
            .map(|r| (r, info.window.clone().unwrap_or_default()));
        // Answers can arrive out of order: within one window the smallest
        // `remaining` is the newest; an answer from an older window is stale.
        let same = window.is_some() && window == st.window;
        let newer = match (&window, &st.window) {
            (Some((r, _)), Some((old, _))) => r > old,
            (_, None) => true,
            (None, Some(_)) => reset_at.is_some(),
        };
        if same {
            st.remaining = match (st.remaining, remaining) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => b.or(a),
            };
            st.reset_at = match (st.reset_at, reset_at) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => b.or(a),
            };
        } else if newer {
            st.window = window;
            st.remaining = remaining;
            st.reset_at = reset_at;
        } else {
            return;
        }
        if st.remaining == Some(0) && st.reset_at.is_none() {
            // Spent, with no reset to wait for: the count is unknown, and one
            // request at a time finds out (its 429s spend retries).
            st.remaining = None;
        }
        st.epoch = self.clock.epoch.load(Ordering::SeqCst);
        let mut shown = info;
        shown.remaining = st.remaining;
        st.info = Some(shown);
    }

    /// Wait for a slot in the action's window (pacing); see [`LimitState`].
    /// A wait for a spent window's reset that would end more than
    /// `retry_deadline` from now, or after `deadline` (the retries' end),
    /// raises at once instead.
    async fn acquire_slot(&self, req: &Req, deadline: Option<Instant>) -> Result<Option<Slot<'_>>> {
        let Some(action) = &req.action else {
            return Ok(None);
        };
        loop {
            let freed = self.slot_freed.notified();
            tokio::pin!(freed);
            freed.as_mut().enable();
            let moved = self.clock.moved.notified();
            tokio::pin!(moved);
            moved.as_mut().enable();
            let reset_at = {
                let mut map = self.limits.lock().unwrap();
                let st = map.entry(action.clone()).or_default();
                let now = Instant::now();
                let epoch = self.clock.epoch.load(Ordering::SeqCst);
                if st.epoch != epoch || st.reset_at.is_some_and(|r| r <= now) {
                    // The window is over; the new one's count is unknown.
                    st.remaining = None;
                    st.reset_at = None;
                    st.epoch = epoch;
                }
                let free = match st.remaining {
                    None => st.unpaced || st.in_flight == 0,
                    Some(r) => r > st.in_flight,
                };
                if free {
                    st.in_flight += 1;
                    return Ok(Some(Slot {
                        t: self,
                        action: action.clone(),
                    }));
                }
                let spent = st.remaining == Some(0);
                let reset_at = st.reset_at.filter(|_| spent);
                if let Some(reset_at) = reset_at {
                    let bound = [deadline, self.cfg.retry_deadline.map(|d| now + d)]
                        .into_iter()
                        .flatten()
                        .min();
                    let too_late = bound.is_some_and(|b| reset_at > b);
                    if self.cfg.fail_fast || too_late {
                        let why = if too_late {
                            "waiting for its reset would pass the retry deadline"
                        } else {
                            "fail_fast is set"
                        };
                        return Err(spent_error(
                            req,
                            action,
                            st.info.clone(),
                            reset_at - now,
                            why,
                        ));
                    }
                    log_wait(
                        reset_at - now,
                        format_args!(
                            "rate limit for {action:?} spent; waiting {:.1}s for the window to reset",
                            (reset_at - now).as_secs_f64()
                        ),
                    );
                }
                reset_at
            };
            // A retry waiting for its place (the window is taken by requests
            // in flight) gives up at its deadline.
            if deadline.is_some_and(|d| d <= Instant::now()) {
                return Err(Error::Timeout(format!(
                    "{} {}: the retry deadline passed while waiting for a place in the {action:?} rate-limit window",
                    req.method,
                    req.display_path()
                )));
            }
            // Until the reset, or until an answer changes the picture.
            let until = reset_at.unwrap_or_else(|| Instant::now() + Duration::from_secs(1));
            let until = deadline.map_or(until, |d| until.min(d));
            tokio::select! {
                _ = &mut freed => {}
                _ = &mut moved => {}
                _ = tokio::time::sleep_until(until.into()) => {}
            }
        }
    }

    fn retry_delay_for_status(&self, req: &Req, r: &Resp, attempt: u32) -> Option<Duration> {
        match r.status {
            // When the service says when to come back, that is when.
            502..=504 if req.idempotent() => {
                Some(retry_after(&r.headers).unwrap_or_else(|| backoff(attempt)))
            }
            // A 503 that says when to come back did not process the request.
            503 => retry_after(&r.headers),
            _ => None,
        }
    }
}

/// Paths the service answers without an API key (on a small per-address
/// budget); every other call needs one.
pub const ANONYMOUS_PATHS: &[&str] = &["/api/v1/search", "/screenshots/", "/user/quotas"];

/// Runs a call to the cache (SQLite, which may wait for another process's
/// write) off the I/O threads.
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    match tokio::task::spawn_blocking(f).await {
        Ok(v) => v,
        Err(e) => std::panic::resume_unwind(e.into_panic()),
    }
}

/// The answer a cache hit stands for: a 200 with the body and type kept.
fn cached_resp(hit: crate::cache::Stored) -> Resp {
    let mut headers = HeaderMap::new();
    if let Some(v) = hit
        .content_type
        .and_then(|t| reqwest::header::HeaderValue::from_str(&t).ok())
    {
        headers.insert(reqwest::header::CONTENT_TYPE, v);
    }
    headers.insert(
        "x-urlscan-rs-cache",
        reqwest::header::HeaderValue::from_static("hit"),
    );
    Resp {
        status: 200,
        headers,
        body: hit.body,
    }
}

pub fn anonymous_ok(path: &str) -> bool {
    ANONYMOUS_PATHS.iter().any(|p| path.starts_with(p))
}

/// `AuthenticationError` for a key that is not in the service's format (a
/// UUID): the service answers 400 "Invalid API key format" on every endpoint,
/// so nothing is sent. The key itself is never shown.
fn bad_key_error(req: &Req) -> Error {
    unsent(
        req,
        ApiErrorKind::Authentication,
        400,
        "Invalid API key format: the API key is not a UUID such as 0f9e8d7c-6b5a-4c3d-9e2f-1a0b9c8d7e6f, \
         which the service refuses on every endpoint; check URLSCAN_API_KEY or api_key= (not sent)"
            .to_string(),
        None,
    )
}

/// `AuthenticationError` for a call that needs a key when none was given
/// (nothing is sent: the service would only answer 401).
fn no_key_error(req: &Req) -> Error {
    unsent(
        req,
        ApiErrorKind::Authentication,
        401,
        format!(
            "no API key was given and {} {} needs one: set URLSCAN_API_KEY or pass api_key= (on the command line: --api-key) (not sent)",
            req.method, req.path
        ),
        None,
    )
}

/// The error of a request refused on this side, before sending.
fn unsent(
    req: &Req,
    kind: ApiErrorKind,
    status: u16,
    message: String,
    rate_limit: Option<RateLimitInfo>,
) -> Error {
    Error::Api(Box::new(ApiError {
        kind,
        status,
        message,
        description: None,
        code: None,
        errors: None,
        body: String::new(),
        method: req.method.to_string(),
        path: req.display_path(),
        rate_limit,
    }))
}

/// A 400 of a scan submission is a refusal to scan (DNS error, blocked or
/// prevented domain, ...) only when its message or description says so;
/// any other 400 (validation, a malformed key) is not.
pub fn says_scan_refused(message: &str, description: Option<&str>) -> bool {
    const MARKS: &[&str] = &[
        "dns error",
        "could not resolve",
        "scan prevented",
        "prevented",
        "blacklist",
        "blocklist",
        "blocked",
        "don't be silly",
        "refused to scan",
        "not allowed to scan",
    ];
    let text = format!("{message} {}", description.unwrap_or("")).to_ascii_lowercase();
    MARKS.iter().any(|m| text.contains(m))
}

/// The service's answer to a key that is not UUID-shaped (on every endpoint).
pub fn says_invalid_key(message: &str) -> bool {
    message.to_ascii_lowercase().contains("invalid api key")
}

/// `RateLimitError` for a request not sent because its window is spent.
fn spent_error(
    req: &Req,
    action: &str,
    info: Option<RateLimitInfo>,
    wait: Duration,
    why: &str,
) -> Error {
    unsent(
        req,
        ApiErrorKind::RateLimited,
        429,
        format!(
            "rate limit for action {action:?} is spent for another {:.1}s and {why} (not sent)",
            wait.as_secs_f64()
        ),
        info,
    )
}

/// The longest window the service has (a day): no announced reset is
/// believed further away than this.
const LONGEST_WINDOW: f64 = 86_400.0;

/// How long until the window an answer announces resets: `Reset-After`, else
/// `Reset` (an absolute UTC time) less this machine's clock.
fn reset_in(reset_after: Option<f64>, reset: Option<&str>) -> Option<Duration> {
    let secs = reset_after.or_else(|| {
        let at = chrono::DateTime::parse_from_rfc3339(reset?).ok()?;
        let ms = (at.with_timezone(&chrono::Utc) - chrono::Utc::now()).num_milliseconds();
        Some(ms as f64 / 1000.0)
    })?;
    Some(Duration::from_secs_f64(secs.clamp(0.0, LONGEST_WINDOW)))
}

/// `Retry-After` in seconds, at most an hour.
fn retry_after(h: &HeaderMap) -> Option<Duration> {
    header_f64(h, "retry-after").map(|s| Duration::from_secs_f64(s.clamp(0.0, 3600.0)))
}

/// The wait after a 429, and the window it announced when its reset is
/// still ahead (then it may be a window others spent; see
/// `send_with_retries`): its `Reset` time, or `None` for a window named by
/// `Reset-After` alone. Without a reset ahead: `Retry-After`, else the backoff.
fn limited_delay(h: &HeaderMap, attempt: u32) -> (Duration, Option<Option<String>>) {
    let reset = header_str(h, "x-rate-limit-reset");
    match reset_in(header_f64(h, "x-rate-limit-reset-after"), reset).filter(|d| !d.is_zero()) {
        Some(d) => (d, Some(reset.map(String::from))),
        None => (
            retry_after(h)
                .filter(|d| !d.is_zero())
                .unwrap_or_else(|| backoff(attempt)),
            None,
        ),
    }
}

/// Waits this long or longer are worth telling a user about (they look like a hang).
const NOTABLE_WAIT: Duration = Duration::from_secs(5);

/// Waits for a slot shorter than this are not told to observers: requests
/// sent together wait a few milliseconds for the first answer of a window
/// whose count is unknown, which is not worth an event each.
const TOLD_WAIT: Duration = Duration::from_millis(10);

/// One attempt as its observers were told of it: a failure, or the attempt
/// dropped before its end (the call cancelled), is told once.
struct Told<'a> {
    observers: &'a [&'a dyn Observer],
    sent: Option<&'a crate::observe::Sent<'a>>,
    tokens: Vec<Option<crate::observe::Token>>,
    started: Instant,
}

impl Told<'_> {
    fn answered(&mut self, status: u16, headers: &HeaderMap) {
        let Some(sent) = self.sent.take() else {
            return;
        };
        let tokens = std::mem::take(&mut self.tokens);
        for (o, token) in self.observers.iter().zip(tokens) {
            let e = crate::observe::Answered {
                sent,
                status,
                headers,
                elapsed: self.started.elapsed(),
            };
            o.answered(&e, token);
        }
    }

    fn failed(&mut self, kind: &str, message: &str) {
        let Some(sent) = self.sent.take() else {
            return;
        };
        let tokens = std::mem::take(&mut self.tokens);
        for (o, token) in self.observers.iter().zip(tokens) {
            let e = crate::observe::Failed {
                sent,
                kind,
                message,
                elapsed: self.started.elapsed(),
            };
            o.failed(&e, token);
        }
    }
}

impl Drop for Told<'_> {
    fn drop(&mut self) {
        self.failed("cancelled", "the call was dropped before the answer came");
    }
}

/// A failed attempt's kind, in a word (an observer's `error.type`).
fn failure_kind(e: &Error) -> &'static str {
    match e {
        Error::Timeout(_) => "timeout",
        Error::Transport(m) if m.starts_with("connect:") => "connect",
        Error::Transport(_) => "transport",
        Error::Decode(_) => "decode",
        Error::Validation(_) => "validation",
        Error::Closed => "closed",
        _ => "other",
    }
}

fn log_wait(delay: Duration, msg: std::fmt::Arguments<'_>) {
    if delay > NOTABLE_WAIT {
        log::warn!("{msg}");
    } else {
        log::info!("{msg}");
    }
}

/// A failure that outlived retries says how many were made.
fn counted(outcome: Result<Resp>, retries: u32) -> Result<Resp> {
    let note = |m: String| match retries {
        0 => m,
        1 => format!("{m} (after 1 retry)"),
        n => format!("{m} (after {n} retries)"),
    };
    match outcome {
        Err(Error::Timeout(m)) => Err(Error::Timeout(note(m))),
        Err(Error::Transport(m)) => Err(Error::Transport(note(m))),
        other => other,
    }
}

fn retry_delay_for_error(req: &Req, e: &Error, attempt: u32) -> Option<Duration> {
    match e {
        // A POST is re-sent only when it surely never reached the server.
        Error::Transport(msg) if req.idempotent() || msg.starts_with("connect") => {
            Some(backoff(attempt))
        }
        Error::Timeout(_) if req.idempotent() => Some(backoff(attempt)),
        _ => None,
    }
}

/// Exponential backoff with full jitter, capped.
fn backoff(attempt: u32) -> Duration {
    let cap = (0.25 * 2f64.powi(attempt.min(8) as i32)).min(20.0);
    let secs = rand::rng().random_range(cap / 2.0..=cap);
    Duration::from_secs_f64(secs)
}

fn map_reqwest_error(e: reqwest::Error) -> Error {
    // reqwest's Display holds the URL but never headers, so the key cannot leak.
    if e.is_builder() {
        // Nothing was sent, and sending again cannot help: the request
        // cannot be made (e.g. a path past the longest URI the HTTP stack
        // takes). Said without the URL, which may be megabytes long.
        let why = error_chain(&e.without_url());
        return Error::Validation(format!(
            "the request cannot be made: {} (not sent)",
            urlscan_rules::shown(&why, 200)
        ));
    }
    let msg = error_chain(&e);
    if e.is_timeout() {
        Error::Timeout(msg)
    } else if e.is_connect() {
        Error::Transport(format!("connect: {msg}"))
    } else {
        Error::Transport(msg)
    }
}

/// Why a body stopped arriving, without the address (a temporary link may
/// carry a signature): a stall says how long nothing came.
pub fn describe_body_error(e: reqwest::Error) -> String {
    if e.is_timeout() {
        "no byte arrived for the client's timeout (a stall)".to_string()
    } else {
        error_chain(&e.without_url())
    }
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cur = c.source();
    }
    s
}

async fn read_capped(mut resp: reqwest::Response, cap: usize, kept: bool) -> Result<Bytes> {
    let announced = resp.content_length().unwrap_or(0);
    if announced > cap as u64 {
        return Err(Error::Decode(format!(
            "response body of {announced} bytes exceeds the limit of {cap} bytes"
        )));
    }
    // Sized once from the length announced (a hint: a wrong one only means
    // regrowth): growing by doubling copies a large body several times and
    // maps fresh pages for each copy.
    let mut buf = bytes::BytesMut::with_capacity(announced as usize);
    if kept {
        populate(&mut buf);
    }
    while let Some(chunk) = resp.chunk().await.map_err(map_reqwest_error)? {
        if buf.len() + chunk.len() > cap {
            return Err(Error::Decode(format!(
                "response body exceeds the limit of {cap} bytes"
            )));
        }
        buf.extend_from_slice(&chunk);
    }
    Ok(buf.freeze())
}

/// The pages of a large body's buffer, asked of the kernel in one call
/// (MADV_POPULATE_WRITE, Linux 5.14+) rather than one page fault per 4 KB as
/// the body is written. Only for bodies kept with many others: each lands
/// in fresh memory, and a `results()` batch of 500 results of 0.1-2 MB took
/// 9% less client CPU; a single fetch reuses the memory of the one before,
/// where it cost 7% more (`bench/ab.py`). Other systems, older kernels and
/// small bodies skip it; a refusal changes nothing but the speed.
fn populate(buf: &mut bytes::BytesMut) {
    #[cfg(target_os = "linux")]
    {
        const MIN: usize = 64 * 1024;
        const PAGE: usize = 4096;
        let spare = buf.spare_capacity_mut();
        if spare.len() < MIN {
            return;
        }
        let start = spare.as_mut_ptr() as usize;
        let first = start.next_multiple_of(PAGE);
        let end = (start + spare.len()) / PAGE * PAGE;
        if end > first {
            // SAFETY: [first, end) lies inside the buffer's own allocation;
            // MADV_POPULATE_WRITE only maps its pages (as a write would),
            // without changing their contents.
            unsafe {
                libc::madvise(
                    first as *mut libc::c_void,
                    end - first,
                    libc::MADV_POPULATE_WRITE,
                );
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = buf;
}

fn header_str<'a>(h: &'a HeaderMap, name: &str) -> Option<&'a str> {
    h.get(name).and_then(|v| v.to_str().ok()).map(str::trim)
}

fn header_f64(h: &HeaderMap, name: &str) -> Option<f64> {
    header_str(h, name)
        .and_then(|s| s.parse::<f64>().ok())
        .filter(|f| f.is_finite())
}

pub fn parse_rate_limit(h: &HeaderMap) -> Option<RateLimitInfo> {
    let info = RateLimitInfo {
        scope: header_str(h, "x-rate-limit-scope").map(String::from),
        action: header_str(h, "x-rate-limit-action").map(String::from),
        window: header_str(h, "x-rate-limit-window").map(String::from),
        limit: header_str(h, "x-rate-limit-limit").and_then(|s| s.parse().ok()),
        remaining: header_str(h, "x-rate-limit-remaining").and_then(|s| s.parse().ok()),
        reset: header_str(h, "x-rate-limit-reset").map(String::from),
        reset_after: header_f64(h, "x-rate-limit-reset-after"),
        concurrency_limit: header_str(h, "x-rate-limit-concurrency-limit")
            .and_then(|s| s.parse().ok()),
    };
    (info.action.is_some() || info.limit.is_some()).then_some(info)
}

/// Turn a non-2xx response into the typed error, reading the service's envelope
/// (`message`, `description`, `status`, `code`, `errors`) where there is one.
pub fn api_error(req: &Req, r: &Resp) -> Error {
    let text = String::from_utf8_lossy(&r.body).into_owned();
    let json: Option<Value> = serde_json::from_slice(&r.body).ok();
    let field = |k: &str| -> Option<String> {
        json.as_ref()?
            .get(k)
            .and_then(|v| v.as_str())
            .map(String::from)
    };
    let first_error = |k: &str| -> Option<String> {
        json.as_ref()?
            .get("errors")?
            .get(0)?
            .get(k)?
            .as_str()
            .map(String::from)
    };
    let message = field("message")
        .or_else(|| field("warning"))
        .or_else(|| first_error("title"))
        .unwrap_or_else(|| {
            let snippet: String = text.trim().chars().take(200).collect();
            if snippet.is_empty() || snippet.starts_with('<') {
                http_reason(r.status).to_string()
            } else {
                snippet
            }
        });
    let description = field("description")
        .or_else(|| first_error("detail"))
        .or_else(|| first_error("description"));
    let code = field("code");
    let kind = match r.status {
        400 if says_invalid_key(&message) => ApiErrorKind::Authentication,
        400 if req.method == Method::POST
            && req.path.starts_with("/api/v1/scan")
            && code.as_deref() != Some("validationerror")
            && says_scan_refused(&message, description.as_deref()) =>
        {
            ApiErrorKind::ScanRefused
        }
        400 => ApiErrorKind::BadRequest,
        401 => ApiErrorKind::Authentication,
        403 => ApiErrorKind::PermissionDenied,
        404 if message.to_ascii_lowercase().contains("not finished") => ApiErrorKind::ScanPending,
        404 => ApiErrorKind::NotFound,
        410 => ApiErrorKind::Gone,
        429 => ApiErrorKind::RateLimited,
        500..=599 => ApiErrorKind::Server,
        _ => ApiErrorKind::Other,
    };
    Error::Api(Box::new(ApiError {
        kind,
        status: r.status,
        message,
        description,
        code,
        errors: json.as_ref().and_then(|j| j.get("errors").cloned()),
        body: text,
        method: req.method.to_string(),
        path: req.display_path(),
        rate_limit: parse_rate_limit(&r.headers),
    }))
}

fn http_reason(status: u16) -> &'static str {
    reqwest::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("HTTP error")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(status: u16, body: &str) -> Resp {
        Resp {
            status,
            headers: HeaderMap::new(),
            body: Bytes::from(body.to_string()),
        }
    }

    fn kind(req: &Req, status: u16, body: &str) -> ApiErrorKind {
        api_error(req, &answer(status, body))
            .api_kind()
            .cloned()
            .unwrap()
    }

    #[test]
    fn errors_follow_what_the_service_says() {
        let scan = Req::new(Method::POST, "/api/v1/scan/");
        let get = Req::get("/api/v1/quotas");
        let bad_key = r#"{"message":"Invalid API key format","status":400}"#;
        assert_eq!(kind(&scan, 400, bad_key), ApiErrorKind::Authentication);
        assert_eq!(kind(&get, 400, bad_key), ApiErrorKind::Authentication);
        assert_eq!(
            kind(&get, 401, r#"{"message":"whatever"}"#),
            ApiErrorKind::Authentication
        );
        let dns = r#"{"message":"DNS Error - Could not resolve domain","status":400}"#;
        assert_eq!(kind(&scan, 400, dns), ApiErrorKind::ScanRefused);
        let blocked =
            r#"{"message":"Scan prevented ...","description":"on our blacklist","status":400}"#;
        assert_eq!(kind(&scan, 400, blocked), ApiErrorKind::ScanRefused);
        // Any other 400 of a submission is a bad request, not a refusal.
        assert_eq!(
            kind(&scan, 400, r#"{"message":"Something else","status":400}"#),
            ApiErrorKind::BadRequest
        );
        assert_eq!(kind(&scan, 400, "oops"), ApiErrorKind::BadRequest);
        assert_eq!(kind(&get, 400, dns), ApiErrorKind::BadRequest);
    }

    #[test]
    fn which_paths_need_a_key() {
        assert!(anonymous_ok("/api/v1/search/"));
        assert!(anonymous_ok("/screenshots/x.png"));
        assert!(!anonymous_ok("/api/v1/scan/"));
        assert!(!anonymous_ok("/api/v1/result/x/"));
        assert!(!anonymous_ok("/api/v1/quotas"));
    }
}
