//! The premium endpoints of the emulator: live scanning, saved searches,
//! subscriptions, channels, incidents, hostnames, brands, files and data dumps.
//!
//! Items the user creates (saved searches, subscriptions, channels,
//! incidents) belong to their owner. Team members may read an item whose
//! `permissions` hold `team:read` or `team:write` and change it only with
//! `team:write`; a saved search with `public:read` is readable by every key.
//! Anyone else gets 404, as if the item did not exist.
//!
//! These are the HTTP handlers; the logic the notifications and data
//! sources share with them is in `premium_model`, the data in
//! `state::premium_records`.
// Checks return the finished error answer; boxing every one buys nothing here.
#![allow(clippy::result_large_err)]
use std::sync::Arc;

use axum::routing::MethodRouter;
use axum::Router;

use super::state::AppState;

mod brands;
mod channels;
mod common;
mod datadumps;
mod entry;
mod files;
mod hostnames;
mod incidents;
mod livescan;
mod malicious;
mod need;
mod resource;
#[cfg(test)]
mod rules_agree;
mod searches;
mod subscriptions;
#[cfg(test)]
mod tests;

pub use super::state::premium_records::PremiumState;

/// Routes of the premium endpoints, merged into the emulator's router.
pub fn router() -> Router<Arc<AppState>> {
    let fixed = [
        livescan::routes(),
        incidents::routes(),
        hostnames::routes(),
        brands::routes(),
        malicious::routes(),
        files::routes(),
        datadumps::routes(),
    ];
    let mut routes: Vec<(String, MethodRouter<Arc<AppState>>)> = fixed
        .into_iter()
        .flatten()
        .map(|(path, mr)| (path.to_string(), mr))
        .collect();
    routes.extend(searches::routes());
    routes.extend(subscriptions::routes());
    routes.extend(channels::routes());
    let mut r = Router::new();
    // Like the rest of the emulator: with and without a trailing slash.
    for (path, mr) in routes {
        if path.contains("{*") {
            r = r.route(&path, mr);
        } else {
            r = r.route(&path, mr.clone()).route(&format!("{path}/"), mr);
        }
    }
    r
}
