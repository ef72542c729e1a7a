//! Bringing what runs on the emulator clock (incidents, live-scan and
//! data-dump link expiry) up to it, and the entry of every premium handler,
//! which does so first.
use axum::http::HeaderMap;
use axum::response::Response;

use super::super::answer::{caller, Need};
use super::super::state::{AppState, Caller};
use super::incident_model as incidents;

/// Temporary live-scan results are purged this long after the scan.
pub(super) const LIVESCAN_RETENTION_MS: i64 = 60 * 60 * 1000;

/// Bring time-driven state (incidents, live-scan purges) up to the emulator
/// clock; called before premium requests are answered and after `advance`.
pub fn tick(st: &AppState, now_ms: i64) {
    let made = {
        let mut p = st.premium.lock().unwrap();
        p.livescans
            .retain(|_, s| s.spec.time_ms + LIVESCAN_RETENTION_MS > now_ms);
        incidents::tick(&mut p, now_ms);
        p.dump_tokens.retain(|_, (_, exp)| *exp > now_ms);
        incidents::drain(&mut p)
    };
    incidents::record(st, made);
}

/// Put the scans incidents made (when created, changed or restarted) into
/// the scan store, and queue the changes they saw. Call it without holding
/// the premium lock.
pub(crate) fn flush(st: &AppState) {
    let made = incidents::drain(&mut st.premium.lock().unwrap());
    incidents::record(st, made);
}

/// The current emulator time, after bringing time-driven state up to it.
pub(super) fn now(st: &AppState) -> i64 {
    let now = st.now_ms();
    tick(st, now);
    now
}

/// The caller, if it may do what `need` says, and the emulator time, after
/// bringing time-driven state up to it.
pub(super) fn enter(
    st: &AppState,
    headers: &HeaderMap,
    need: Need,
) -> Result<(Caller, i64), Response> {
    let c = caller(st, headers, need)?;
    Ok((c, now(st)))
}
