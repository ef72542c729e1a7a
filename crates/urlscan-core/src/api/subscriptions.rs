//! Subscriptions to saved searches (premium).
use reqwest::Method;

use super::endpoints::{Endpoint, Returns};
use crate::fields::{f, id, req, Field, Kind, FREQUENCIES, TEAM_PERMISSIONS, WEEK_DAYS};
use urlscan_rules::SAVED_SEARCH_DATASOURCES;

use urlscan_rules::INCIDENT_VISIBILITIES;
pub use urlscan_rules::{INCIDENT_CREATION_MODES as CREATION_MODES, WATCH_KEYS};

pub const FIELDS: &[Field] = &[
    req("search_ids", "searchIds", Kind::StrList),
    req("frequency", "frequency", Kind::Enum(FREQUENCIES)),
    req("email_addresses", "emailAddresses", Kind::Emails),
    req("name", "name", Kind::Text),
    req("is_active", "isActive", Kind::Bool),
    req("ignore_time", "ignoreTime", Kind::Bool),
    f("description", "description", Kind::Str),
    f("week_days", "weekDays", Kind::EnumList(WEEK_DAYS)),
    f(
        "permissions",
        "permissions",
        Kind::EnumList(TEAM_PERMISSIONS),
    ),
    f("channel_ids", "channelIds", Kind::StrList),
    f("incident_channel_ids", "incidentChannelIds", Kind::StrList),
    f("incident_profile_id", "incidentProfileId", Kind::Str),
    f(
        "incident_visibility",
        "incidentVisibility",
        Kind::Enum(INCIDENT_VISIBILITIES),
    ),
    f(
        "incident_creation_mode",
        "incidentCreationMode",
        Kind::Enum(CREATION_MODES),
    ),
    f(
        "incident_watch_keys",
        "incidentWatchKeys",
        Kind::EnumOrList(WATCH_KEYS),
    ),
];

pub const ENDPOINTS: &[Endpoint] = &[
    Endpoint::new(
        "subscriptions.list",
        Method::GET,
        "/api/v1/user/subscriptions/",
    )
    .returns(Returns::Model("Subscription"))
    .doc("Your subscriptions")
    .answer(&["subscriptions"])
    .list(),
    Endpoint::new(
        "subscriptions.create",
        Method::POST,
        "/api/v1/user/subscriptions/",
    )
    .returns(Returns::Model("Subscription"))
    .doc("Create a subscription")
    .body("subscription", FIELDS, true)
    .answer(&["subscription"]),
    Endpoint::new(
        "subscriptions.update",
        Method::PUT,
        "/api/v1/user/subscriptions/{0}/",
    )
    .ids(&[id("subscription_id")])
    .returns(Returns::Model("Subscription"))
    .doc(
        "Change a subscription's settings; fields left out keep \
            their value",
    )
    .body("subscription", FIELDS, false)
    .answer(&["subscription"]),
    Endpoint::new(
        "subscriptions.delete",
        Method::DELETE,
        "/api/v1/user/subscriptions/{0}/",
    )
    .ids(&[id("subscription_id")])
    .returns(Returns::Nothing)
    .doc("Delete a subscription"),
    Endpoint::new(
        "subscriptions.results",
        Method::GET,
        "/api/v1/user/subscriptions/{0}/results/{1}/",
    )
    .ids(&[
        id("subscription_id"),
        req(
            "datasource",
            "datasource",
            Kind::Enum(SAVED_SEARCH_DATASOURCES),
        ),
    ])
    .returns(Returns::Model("SearchHit"))
    .doc(
        "The items a subscription matched in a data source, \
            \"scans\" or \"hostnames\"",
    )
    .answer(&["results"])
    .list(),
];
