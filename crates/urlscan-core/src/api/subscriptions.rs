//! Subscriptions to saved searches (premium).

use super::endpoints::{Endpoint, Resource, Returns};
use crate::fields::notify::*;
use crate::fields::{f, id, req, Field, Kind};
use urlscan_rules::SAVED_SEARCH_DATASOURCES;

use urlscan_rules::INCIDENT_VISIBILITIES;
pub use urlscan_rules::{INCIDENT_CREATION_MODES as CREATION_MODES, WATCH_KEYS};

#[rustfmt::skip]
pub const FIELDS: &[Field] = &[
    req("search_ids", "searchIds", Kind::IdList).doc("Saved search id"),
    FREQUENCY.required(),
    EMAILS.required(),
    req("name", "name", Kind::Text).doc("Name"),
    IS_ACTIVE.required(),
    IGNORE_TIME.required(),
    DESCRIPTION,
    WEEK_DAYS,
    PERMISSIONS,
    f("channel_ids", "channelIds", Kind::IdList).doc("Channel id"),
    f("incident_channel_ids", "incidentChannelIds", Kind::IdList).doc("Channel id for incidents"),
    f("incident_profile_id", "incidentProfileId", Kind::Str).doc("Incident profile id"),
    f("incident_visibility", "incidentVisibility", Kind::Enum(INCIDENT_VISIBILITIES)).doc("Visibility of the incidents created"),
    f("incident_creation_mode", "incidentCreationMode", Kind::Enum(CREATION_MODES)).doc("When incidents are created"),
    f("incident_watch_keys", "incidentWatchKeys", Kind::EnumOrList(WATCH_KEYS)).doc("What an incident watches"),
];

#[rustfmt::skip]
pub const SUBSCRIPTIONS: Resource = Resource::new("Subscription", "subscription", &[id("subscription_id").doc("Subscription id")], FIELDS)
    .at("/api/v1/user/subscriptions/", "/api/v1/user/subscriptions/{0}/");

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
        id("subscription_id").doc("Subscription id"),
        req(
            "datasource",
            "datasource",
            Kind::Enum(SAVED_SEARCH_DATASOURCES),
        )
        .doc("Data source"),
    ])
    .returns(Returns::Model("SearchHit"))
    .doc(
        "The items a subscription matched in a data source, \
            \"scans\" or \"hostnames\"",
    ),
];
