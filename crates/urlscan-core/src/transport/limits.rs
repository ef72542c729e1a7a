//! The service's rate-limit windows as the answers announce them: each
//! action's state, a request's slot in its window, and the clock of each
//! server (an emulator in this process may move it).
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use reqwest::header::HeaderMap;
use tokio::sync::Notify;

use crate::error::RateLimitInfo;

/// The clock of one server (an origin), as far as rate-limit windows go: its
/// epoch is bumped when that server's clock jumps (an emulator in this
/// process moved its clock), so the windows the transports of that origin
/// remember are over and the new ones are probed; the windows of other
/// servers stay. Real clocks never jump, so this costs nothing.
#[derive(Default)]
pub(super) struct ServerClock {
    pub(super) epoch: AtomicU64,
    pub(super) moved: Notify,
}

/// The clocks by origin (one per server this process talks to).
pub(super) static CLOCKS: std::sync::LazyLock<Mutex<HashMap<String, Arc<ServerClock>>>> =
    std::sync::LazyLock::new(Mutex::default);

pub(super) fn clock_of(base_url: &str) -> Arc<ServerClock> {
    let origin = url::Url::parse(base_url)
        .map(|u| u.origin().ascii_serialization())
        .unwrap_or_else(|_| base_url.to_string());
    Arc::clone(CLOCKS.lock().unwrap().entry(origin).or_default())
}

/// At most this many waits for a window spent by others, per request.
pub(super) const MAX_LIMITED_WAITS: u32 = 100;
/// A window spent by others is waited out without spending a retry only
/// when its reset is at least this far away (see `send_with_retries`).
pub(super) const MIN_PACED_WAIT: Duration = Duration::from_millis(500);

/// The clock of the server at `base_url` jumped forward: the transports
/// talking to it forget the windows seen so far.
pub fn server_clock_moved(base_url: &str) {
    let clock = clock_of(base_url);
    clock.epoch.fetch_add(1, Ordering::SeqCst);
    clock.moved.notify_waiters();
}

/// Rate-limit state per action, shared by every request of one client.
///
/// Pacing: a request takes a slot only while the server's `remaining` (from
/// the newest answer of the current window) exceeds the requests already in
/// flight, so concurrent requests never overshoot the window; once it is
/// spent, requests wait for the reset. After a reset (or before any answer)
/// the count is unknown, and one request at a time probes it.
#[derive(Debug, Default)]
pub(super) struct LimitState {
    /// The newest headers, as shown to the user.
    pub(super) info: Option<RateLimitInfo>,
    /// Which window `remaining` belongs to: (reset timestamp, window name).
    pub(super) window: Option<(String, String)>,
    pub(super) remaining: Option<u64>,
    pub(super) reset_at: Option<Instant>,
    /// Requests of this action sent (or about to be) and not yet answered.
    pub(super) in_flight: u64,
    /// An answer came without headers: this action is not paced.
    pub(super) unpaced: bool,
    /// The server clock's epoch when `remaining` and `reset_at` were learnt.
    pub(super) epoch: u64,
}

/// A request's place in its action's window; given back on drop.
pub(super) struct Slot<'a> {
    pub(super) limits: &'a Mutex<HashMap<String, LimitState>>,
    pub(super) freed: &'a Notify,
    pub(super) action: String,
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        if let Some(st) = self.limits.lock().unwrap().get_mut(&self.action) {
            st.in_flight = st.in_flight.saturating_sub(1);
        }
        self.freed.notify_waiters();
    }
}

/// The longest window the service has (a day): no announced reset is
/// believed further away than this.
pub(super) const LONGEST_WINDOW: f64 = 86_400.0;

/// How long until the window an answer announces resets: `Reset-After`, else
/// `Reset` (an absolute UTC time) less this machine's clock.
pub(super) fn reset_in(reset_after: Option<f64>, reset: Option<&str>) -> Option<Duration> {
    let secs = reset_after.or_else(|| {
        let at = chrono::DateTime::parse_from_rfc3339(reset?).ok()?;
        let ms = (at.with_timezone(&chrono::Utc) - chrono::Utc::now()).num_milliseconds();
        Some(ms as f64 / 1000.0)
    })?;
    Some(Duration::from_secs_f64(secs.clamp(0.0, LONGEST_WINDOW)))
}

pub(super) fn header_str<'a>(h: &'a HeaderMap, name: &str) -> Option<&'a str> {
    h.get(name).and_then(|v| v.to_str().ok()).map(str::trim)
}

pub(super) fn header_f64(h: &HeaderMap, name: &str) -> Option<f64> {
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
