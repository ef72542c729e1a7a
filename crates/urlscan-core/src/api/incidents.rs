//! Incidents: observables tracked and scanned repeatedly (premium).
use reqwest::Method;

use super::endpoints::{Endpoint, Resource, Returns, Shape};
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
    req("observable", "observable", Kind::Observable).doc("Hostname, domain, IP or URL"),
    req("visibility", "visibility", Kind::Enum(INCIDENT_VISIBILITIES)).doc("Visibility"),
    req("channels", "channels", Kind::IdList).doc("Channel id to notify"),
    f("scan_interval", "scanInterval", INTERVAL).doc("Seconds between scans"),
    f("scan_interval_mode", "scanIntervalMode", Kind::Enum(SCAN_INTERVAL_MODES)).doc("Manual or automatic interval changes"),
    f("watched_attributes", "watchedAttributes", Kind::EnumList(WATCHABLE)).doc("Attribute to watch"),
    f("user_agents", "userAgents", Kind::StrList).doc("User agent to scan with"),
    f("user_agents_per_interval", "userAgentsPerInterval", COUNT).doc("User agents used per interval"),
    f("countries", "countries", Kind::Countries).doc("Country to scan from (ISO 3166-1 code)"),
    f("countries_per_interval", "countriesPerInterval", COUNT).doc("Countries used per interval"),
    f("stop_delay_suspended", "stopDelaySuspended", SECONDS).doc("Close this long after the observable was suspended"),
    f("stop_delay_inactive", "stopDelayInactive", SECONDS).doc("Close this long after the observable became inactive"),
    f("stop_delay_malicious", "stopDelayMalicious", SECONDS).doc("Close this long after the observable became malicious"),
    f("scan_interval_after_suspended", "scanIntervalAfterSuspended", INTERVAL).doc("Scan interval once suspended"),
    f("scan_interval_after_malicious", "scanIntervalAfterMalicious", INTERVAL).doc("Scan interval once malicious"),
    f("incident_profile", "incidentProfile", Kind::Str).doc("Incident profile id"),
    f("expire_after", "expireAfter", SECONDS).doc("Seconds until the incident closes by itself"),
    // null clears it (the specification types it "string or null").
    null_ok("extra_path", "extraPath", Kind::ExtraPath).doc("Path appended to a hostname observable, starting with /"),
];

pub const INCIDENTS: Resource = Resource::new(
    "Incident",
    "incident",
    &[id("incident_id").doc("Incident id")],
    FIELDS,
)
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
        .by_hand()
        .doc("Close an incident: it stops scanning"),
    INCIDENTS
        .on_item(
            "incidents.restart",
            Method::PUT,
            "/api/v1/user/incidents/{0}/restart",
        )
        .by_hand()
        .doc("Restart a closed incident"),
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
    .returns(Returns::Json(Shape::Text))
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
