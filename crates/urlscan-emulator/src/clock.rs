//! Moving the emulator clock: the state keeps the time, and what runs on
//! the clock (premium incidents and live scans, notifications) is brought
//! up to it from here, above both.
use super::events::Runner;
use super::state::AppState;

/// Move the emulator clock forward by `secs`, then run what came due
/// (webhook attempts only with the runner of a running emulator).
pub fn advance(st: &AppState, secs: f64, runner: Option<&Runner>) {
    st.move_clock(secs);
    let now = st.now_ms();
    super::premium::tick(st, now);
    super::events::tick(st, now, runner);
}
