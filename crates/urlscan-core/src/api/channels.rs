//! Notification channels.

use super::endpoints::{Endpoint, Resource};
use crate::fields::{
    f, id, req, Field, Kind, FREQUENCIES, TEAM_PERMISSIONS_FIELD, WEEK_DAYS_FIELD,
};
use urlscan_rules::{self as rules, CHANNEL_TYPES};

pub const FIELDS: &[Field] = &[
    req("type", "type", Kind::Enum(CHANNEL_TYPES)),
    req("name", "name", Kind::Text),
    f("webhook_url", "webhookURL", Kind::WebUrl),
    f("frequency", "frequency", Kind::Enum(FREQUENCIES)),
    f("email_addresses", "emailAddresses", Kind::Emails),
    f("utc_time", "utcTime", Kind::HhMm),
    f("is_active", "isActive", Kind::Bool),
    f("is_default", "isDefault", Kind::Bool),
    f("ignore_time", "ignoreTime", Kind::Bool),
    WEEK_DAYS_FIELD,
    TEAM_PERMISSIONS_FIELD,
    f("description", "description", Kind::Str),
];

pub const CHANNELS: Resource = Resource {
    collection: "/api/v1/user/channels/",
    item: "/api/v1/user/channels/{0}",
    id: &[id("channel_id")],
    model: "Channel",
    wrapper: "channel",
    fields: FIELDS,
};

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
