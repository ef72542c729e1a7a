//! The premium endpoints of the emulator: live scanning, saved searches,
//! subscriptions, channels, incidents, hostnames, brands, files and data dumps.
use std::sync::Arc;

use axum::Router;

use super::state::AppState;

/// State of the premium features (guarded by `AppState::premium`).
#[derive(Debug, Default)]
pub struct PremiumState {}

/// Routes of the premium endpoints, merged into the emulator's router.
pub fn router() -> Router<Arc<AppState>> {
    Router::new()
}

/// Bring time-driven state (incidents, live-scan purges) up to the emulator
/// clock; called before premium requests are answered and after `advance`.
pub fn tick(_st: &AppState, _now_ms: i64) {}
