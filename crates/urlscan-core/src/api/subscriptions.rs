//! Subscriptions to saved searches (premium).

use super::endpoints::{Endpoint, Resource, Returns};
use crate::fields::{
    f, id, req, Field, Kind, FREQUENCIES, TEAM_PERMISSIONS_FIELD, WEEK_DAYS_FIELD,
};
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
    WEEK_DAYS_FIELD,
    TEAM_PERMISSIONS_FIELD,
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

pub const SUBSCRIPTIONS: Resource = Resource {
    collection: "/api/v1/user/subscriptions/",
    item: "/api/v1/user/subscriptions/{0}/",
    id: &[id("subscription_id")],
    model: "Subscription",
    wrapper: "subscription",
    fields: FIELDS,
};

pub const ENDPOINTS: &[Endpoint] = &[
    SUBSCRIPTIONS.list(
        "subscriptions.list",
        &["subscriptions"],
        "Your subscriptions",
    ),
    SUBSCRIPTIONS.create("subscriptions.create", "Create a subscription"),
    SUBSCRIPTIONS.update(
        "subscriptions.update",
        "Change a subscription's settings; fields left out keep their value",
    ),
    SUBSCRIPTIONS.delete("subscriptions.delete", "Delete a subscription"),
    Endpoint::listing(
        "subscriptions.results",
        "/api/v1/user/subscriptions/{0}/results/{1}/",
        &["results"],
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
    ),
];
