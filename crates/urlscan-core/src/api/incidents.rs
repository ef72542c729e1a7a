//! Incidents: observables tracked and scanned repeatedly (premium).
use reqwest::Method;

use super::endpoints::{Endpoint, Resource, Returns};
use crate::fields::{f, id, null_ok, req, Field, Kind};
use urlscan_rules::{INCIDENT_VISIBILITIES, SCAN_INTERVAL_MODES};

pub use urlscan_rules::WATCHED_ATTRIBUTES as WATCHABLE;
// The specification gives these no bounds: seconds and counts are not
// negative, and the service decides the rest.
const SECONDS: Kind = Kind::Int(0, i64::MAX);
const INTERVAL: Kind = SECONDS;
const COUNT: Kind = SECONDS;

#[rustfmt::skip]
pub const FIELDS: &[Field] = &[
    req("observable", "observable", Kind::Observable),
    req("visibility", "visibility", Kind::Enum(INCIDENT_VISIBILITIES)),
    req("channels", "channels", Kind::IdList),
    f("scan_interval", "scanInterval", INTERVAL),
    f("scan_interval_mode", "scanIntervalMode", Kind::Enum(SCAN_INTERVAL_MODES)),
    f("watched_attributes", "watchedAttributes", Kind::EnumList(WATCHABLE)),
    f("user_agents", "userAgents", Kind::StrList),
    f("user_agents_per_interval", "userAgentsPerInterval", COUNT),
    f("countries", "countries", Kind::Countries),
    f("countries_per_interval", "countriesPerInterval", COUNT),
    f("stop_delay_suspended", "stopDelaySuspended", SECONDS),
    f("stop_delay_inactive", "stopDelayInactive", SECONDS),
    f("stop_delay_malicious", "stopDelayMalicious", SECONDS),
    f("scan_interval_after_suspended", "scanIntervalAfterSuspended", INTERVAL),
    f("scan_interval_after_malicious", "scanIntervalAfterMalicious", INTERVAL),
    f("incident_profile", "incidentProfile", Kind::Str),
    f("expire_after", "expireAfter", SECONDS),
    // null clears it (the specification types it "string or null").
    null_ok("extra_path", "extraPath", Kind::ExtraPath),
];

pub const INCIDENTS: Resource = Resource::new("Incident", "incident", &[id("incident_id")], FIELDS)
    .at("/api/v1/user/incidents", "/api/v1/user/incidents/{0}");

pub const ENDPOINTS: &[Endpoint] = &[
    INCIDENTS
        .create(
            "incidents.create",
            "Create an incident for an observable\n\nNeeds the readwrite scope.",
        )
        .positional(&["observable"]),
    INCIDENTS.get("incidents.get", "One incident"),
    INCIDENTS.update(
        "incidents.update",
        "Change an incident's runtime options; options left out keep their value",
    ),
    INCIDENTS
        .on_item(
            "incidents.close",
            Method::PUT,
            "/api/v1/user/incidents/{0}/close",
        )
        .by_hand(),
    INCIDENTS
        .on_item(
            "incidents.restart",
            Method::PUT,
            "/api/v1/user/incidents/{0}/restart",
        )
        .by_hand(),
    // The service answers copy and fork under the plural key.
    INCIDENTS
        .on_item(
            "incidents.copy",
            Method::POST,
            "/api/v1/user/incidents/{0}/copy",
        )
        .doc("Copy an incident without its history; returns the new one")
        .answer(&["incidents", "incident"]),
    INCIDENTS
        .on_item(
            "incidents.fork",
            Method::POST,
            "/api/v1/user/incidents/{0}/fork",
        )
        .doc("Copy an incident with its history (states); returns the new one")
        .answer(&["incidents", "incident"]),
    Endpoint::listing(
        "incidents.watchable_attributes",
        "/api/v1/user/watchableAttributes",
        &["attributes"],
    )
    .returns(Returns::Json("str"))
    .doc("The attributes ``watched_attributes`` may name"),
    Endpoint::listing(
        "incidents.states",
        "/api/v1/user/incidentstates/{0}/",
        &["incidentstates"],
    )
    .ids(INCIDENTS.id)
    .returns(Returns::Model("IncidentState"))
    .doc("The observations of an incident, one state each"),
];

impl crate::client::Client {
    /// Close or restart (PUT .../close|restart), then read the incident back,
    /// since the service answers these with a message only.
    pub async fn incident_action(&self, action: &str, id: &str) -> crate::Result<bytes::Bytes> {
        let name = match action {
            "close" => "incidents.close",
            "restart" => "incidents.restart",
            other => {
                return Err(crate::Error::Validation(format!(
                    "incident action must be close or restart, got {other:?}"
                )))
            }
        };
        let ids = [id.to_string()];
        let empty = serde_json::Map::new();
        self.call_raw(name, &ids, &empty).await?;
        self.call_raw("incidents.get", &ids, &empty).await
    }
}
