//! Notification channels.

use super::endpoints::{Endpoint, Resource};
use crate::fields::notify::*;
use crate::fields::{f, id, req, Field, Kind};
use urlscan_rules::{self as rules, CHANNEL_TYPES};

#[rustfmt::skip]
pub const FIELDS: &[Field] = &[
    req("type", "type", Kind::Enum(CHANNEL_TYPES)).doc("Channel type"),
    req("name", "name", Kind::Text).doc("Name"),
    f("webhook_url", "webhookURL", Kind::WebUrl).doc("Address receiving notifications"),
    FREQUENCY,
    EMAILS,
    f("utc_time", "utcTime", Kind::HhMm).doc("HH:MM (UTC) at which daily e-mails are sent"),
    IS_ACTIVE,
    f("is_default", "isDefault", Kind::Bool).doc("Whether it is the default channel"),
    IGNORE_TIME,
    WEEK_DAYS,
    PERMISSIONS,
    DESCRIPTION,
];

pub const CHANNELS: Resource = Resource::new(
    "Channel",
    "channel",
    &[id("channel_id").doc("Channel id")],
    FIELDS,
)
.at("/api/v1/user/channels/", "/api/v1/user/channels/{0}");

// The answer schema is unwrapped, sample payloads are wrapped: both are read.
pub const ENDPOINTS: &[Endpoint] = &[
    CHANNELS.list("channels.list", &["channels"], "Your notification channels"),
    CHANNELS
        .create(
            "channels.create",
            "Create a notification channel\n\nA webhook needs \
            ``webhook_url``, an e-mail channel ``email_addresses``.",
        )
        .check(rules::channel_targets),
    CHANNELS.get("channels.get", "One notification channel"),
    CHANNELS.update(
        "channels.update",
        "Change a notification channel; fields left out keep their value",
    ),
];
