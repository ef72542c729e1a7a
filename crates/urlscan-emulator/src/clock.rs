//! Moving the emulator clock: the state keeps the time, and what runs on
//! the clock (premium incidents and live scans, notifications) is brought
//! up to it from here, above both.
use super::events::{self, Runner};
use super::premium_model;
use super::state::AppState;

/// The latest emulator time, 9999-12-31T23:59:59.999Z: later ones do not fit
/// the four-digit years of the service's timestamps (and far later ones
/// overflow the clock).
pub const MAX_TIME_MS: i64 = 253_402_300_799_999;

/// How many seconds the clock may still move forward.
pub fn headroom(st: &AppState) -> f64 {
    (MAX_TIME_MS - st.now_ms()).max(0) as f64 / 1000.0
}

/// Move the emulator clock forward by `secs` (at most up to `MAX_TIME_MS`),
/// then run what came due (webhook attempts only with the runner of a
/// running emulator).
pub fn advance(st: &AppState, secs: f64, runner: Option<&Runner>) {
    let room = headroom(st);
    // Not `min`: a NaN must stay NaN (no move), not become the headroom.
    st.move_clock(if secs > room { room } else { secs });
    let now = st.now_ms();
    premium_model::tick(st, now);
    events::tick(st, now, runner);
}
