//! Retries: which failures and answers are retried, after how long, and
//! the waits after a 429.
use std::time::{Duration, Instant};

use rand::Rng;
use reqwest::header::HeaderMap;

use super::base::{Req, Resp, Transport};
use super::limits::{header_f64, header_str, reset_in, MAX_LIMITED_WAITS, MIN_PACED_WAIT};
use super::told::{log_wait, TOLD_WAIT};
use crate::error::{Error, Result};
use crate::observe::WaitReason;

impl Transport {
    pub(super) async fn send_with_retries(&self, req: &Req) -> Result<Resp> {
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
    pub(super) fn tell_wait(
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

    pub(super) fn retry_delay_for_status(
        &self,
        req: &Req,
        r: &Resp,
        attempt: u32,
    ) -> Option<Duration> {
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

/// `Retry-After` in seconds, at most an hour.
pub(super) fn retry_after(h: &HeaderMap) -> Option<Duration> {
    header_f64(h, "retry-after").map(|s| Duration::from_secs_f64(s.clamp(0.0, 3600.0)))
}

/// The wait after a 429, and the window it announced when its reset is
/// still ahead (then it may be a window others spent; see
/// `send_with_retries`): its `Reset` time, or `None` for a window named by
/// `Reset-After` alone. Without a reset ahead: `Retry-After`, else the backoff.
pub(super) fn limited_delay(h: &HeaderMap, attempt: u32) -> (Duration, Option<Option<String>>) {
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

/// A failure that outlived retries says how many were made.
pub(super) fn counted(outcome: Result<Resp>, retries: u32) -> Result<Resp> {
    let note = |m: String| match retries {
        0 => m,
        1 => format!("{m} (after 1 retry)"),
        n => format!("{m} (after {n} retries)"),
    };
    match outcome {
        Err(Error::Timeout(m)) => Err(Error::Timeout(note(m))),
        Err(Error::Transport(m)) => Err(Error::Transport(note(m))),
        Err(Error::Connect(m)) => Err(Error::Connect(note(m))),
        other => other,
    }
}

pub(super) fn retry_delay_for_error(req: &Req, e: &Error, attempt: u32) -> Option<Duration> {
    match e {
        // A POST is re-sent only when it surely never reached the server.
        Error::Connect(_) => Some(backoff(attempt)),
        Error::Transport(_) if req.idempotent() => Some(backoff(attempt)),
        Error::Timeout(_) if req.idempotent() => Some(backoff(attempt)),
        _ => None,
    }
}

/// Exponential backoff with equal jitter (from half the cap to the cap), capped.
pub(super) fn backoff(attempt: u32) -> Duration {
    let cap = (0.25 * 2f64.powi(attempt.min(8) as i32)).min(20.0);
    let secs = rand::rng().random_range(cap / 2.0..=cap);
    Duration::from_secs_f64(secs)
}
