//! Pacing a client's requests under the windows `limits` keeps: taking a
//! slot, waiting for a reset, and taking in each answer's headers.
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::answer::unsent;
use super::base::{Req, Transport};
use super::limits::{reset_in, Slot};
use super::told::log_wait;
use crate::error::{ApiErrorKind, Error, RateLimitInfo, Result};

impl Transport {
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
    pub(super) fn say_anonymous(&self) {
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

    /// Take in the headers of an answer (any status; only 200s count on the server).
    pub(super) fn record_limit(&self, req: &Req, info: Option<RateLimitInfo>, status: u16) {
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
    pub(super) async fn acquire_slot(
        &self,
        req: &Req,
        deadline: Option<Instant>,
    ) -> Result<Option<Slot<'_>>> {
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
                        limits: &self.limits,
                        freed: &self.slot_freed,
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
}

/// `RateLimitError` for a request not sent because its window is spent.
pub(super) fn spent_error(
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
