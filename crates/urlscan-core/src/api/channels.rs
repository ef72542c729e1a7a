//! Notification channels.
use reqwest::Method;

use super::endpoints::{Endpoint, Returns};
use crate::fields::{f, id, req, Field, Kind, FREQUENCIES, TEAM_PERMISSIONS, WEEK_DAYS};
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
    f("week_days", "weekDays", Kind::EnumList(WEEK_DAYS)),
    f(
        "permissions",
        "permissions",
        Kind::EnumList(TEAM_PERMISSIONS),
    ),
    f("description", "description", Kind::Str),
];

// The answer schema is unwrapped, sample payloads are wrapped: both are read.
pub const ENDPOINTS: &[Endpoint] = &[
    Endpoint::new("channels.list", Method::GET, "/api/v1/user/channels/")
        .returns(Returns::Model("Channel"))
        .doc("Your notification channels")
        .answer(&["channels"])
        .list(),
    Endpoint::new("channels.create", Method::POST, "/api/v1/user/channels/")
        .returns(Returns::Model("Channel"))
        .doc(
            "Create a notification channel\n\nA webhook needs \
            ``webhook_url``, an e-mail channel ``email_addresses``.",
        )
        .body("channel", FIELDS, true)
        .check(rules::channel_targets)
        .answer(&["channel"]),
    Endpoint::new("channels.get", Method::GET, "/api/v1/user/channels/{0}")
        .ids(&[id("channel_id")])
        .returns(Returns::Model("Channel"))
        .doc("One notification channel")
        .answer(&["channel"]),
    Endpoint::new("channels.update", Method::PUT, "/api/v1/user/channels/{0}")
        .ids(&[id("channel_id")])
        .returns(Returns::Model("Channel"))
        .doc(
            "Change a notification channel; fields left out keep their \
            value",
        )
        .body("channel", FIELDS, false)
        .answer(&["channel"]),
];
