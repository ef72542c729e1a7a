//! Notification channels: `/api/v1/user/channels/`. Not premium in the
//! specification: any key may use them (writing needs the readwrite scope).
//!
//! The schema describes the answer as an unwrapped channel while the
//! service's own fixtures wrap it; the emulator answers wrapped
//! (`{"channel": {...}}`, `{"channels": [...]}`).
use std::sync::Arc;

use axum::response::Response;
use axum::routing::MethodRouter;
use serde_json::{Map, Value};

use super::super::answer::validation;
use super::super::state::premium_records::{Item, PremiumState};
use super::super::state::AppState;
use super::common::notify::*;
use super::common::{FieldType, RequestField};
use super::need;
use super::resource::{self, Resource};

pub(super) fn routes() -> Vec<(String, MethodRouter<Arc<AppState>>)> {
    resource::routes::<Channels>()
}

fn web_url(label: &str, v: &Value) -> Option<String> {
    let ok = v
        .as_str()
        .is_some_and(|s| urlscan_rules::web_url(s).is_ok());
    (!ok).then(|| {
        format!("\"{label}\" must be a valid uri with a scheme matching the http|https pattern")
    })
}

/// "HH:MM", 24-hour.
fn utc_time(label: &str, v: &Value) -> Option<String> {
    let ok = v.as_str().is_some_and(urlscan_rules::hh_mm);
    (!ok).then(|| format!("\"{label}\" must be a 24-hour time in the form HH:MM"))
}

pub(super) const FIELDS: &[RequestField] = &[
    RequestField::required("type", FieldType::OneOf(urlscan_rules::CHANNEL_TYPES)),
    RequestField::required("name", FieldType::Text),
    RequestField::optional("webhookURL", FieldType::Custom(web_url)),
    FREQUENCY,
    EMAILS,
    RequestField::optional("utcTime", FieldType::Custom(utc_time)),
    IS_ACTIVE,
    RequestField::optional("isDefault", FieldType::Bool),
    IGNORE_TIME,
    WEEK_DAYS,
    PERMISSIONS,
    DESCRIPTION,
];

struct Channels;

impl Resource for Channels {
    const PATH: &'static str = "/api/v1/user/channels";
    const READABLE: bool = true;
    const REMOVABLE: bool = false;
    const ONE: &'static str = "channel";
    type Read = need::Key;
    type Write = need::Write;
    const FIELDS: &'static [RequestField] = FIELDS;
    const DEFAULTS: &'static [(&'static str, bool)] = &[
        ("isActive", true),
        ("isDefault", false),
        ("ignoreTime", false),
    ];

    fn items(p: &mut PremiumState) -> &mut Vec<Item> {
        &mut p.channels
    }

    fn check_stored(body: &Map<String, Value>) -> Result<(), Response> {
        targets(body)
    }
}

/// Where the channel delivers (a webhook URL, or e-mail addresses).
pub(super) fn targets(fields: &Map<String, Value>) -> Result<(), Response> {
    urlscan_rules::channel_targets(fields).map_err(|why| validation(&format!("\"channel\": {why}")))
}
