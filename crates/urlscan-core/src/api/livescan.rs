//! Live scanning: scanners chosen by location, temporary results (premium).
use bytes::Bytes;
use reqwest::Method;

use super::actions;
use super::endpoints::{Endpoint, Returns, Shape};
use crate::client::Client;
use crate::error::{Error, Result};
use crate::fields::{f, id, req, Field, Kind};
use crate::validate;

pub use urlscan_rules::{
    LIVESCAN_DISABLE_FEATURES as DISABLE_FEATURES, LIVESCAN_ENABLE_FEATURES as ENABLE_FEATURES,
    LIVESCAN_RESOURCE_TYPES as RESOURCE_TYPES,
};
const MS: Kind = Kind::Int(0, urlscan_rules::LIVESCAN_MS_MAX);

/// The task body: `{"task": {...}, "scanner": {...}}`.
#[rustfmt::skip]
pub const TASK_FIELDS: &[Field] = &[
    req("url", "task.url", Kind::ScanUrl).doc("URL to scan"),
    f("visibility", "task.visibility", Kind::Enum(validate::VISIBILITIES)).doc("Visibility"),
    f("page_timeout", "scanner.pageTimeout", MS).doc("Page load timeout"),
    f("capture_delay", "scanner.captureDelay", MS).doc("Delay before capturing"),
    f("extra_headers", "scanner.extraHeaders", Kind::Headers).doc("HTTP header 'Name: value'"),
    f("enable_features", "scanner.enableFeatures", Kind::EnumList(ENABLE_FEATURES)).doc("Feature to enable"),
    f("disable_features", "scanner.disableFeatures", Kind::EnumList(DISABLE_FEATURES)).doc("Feature to disable"),
];

/// Sent under the `task` wrapper, even when empty.
pub const STORE_FIELDS: &[Field] = &[f(
    "visibility",
    "visibility",
    Kind::Enum(validate::VISIBILITIES),
)
.doc("Visibility")];

pub const ENDPOINTS: &[Endpoint] = &[
    Endpoint::listing(
        "livescan.scanners",
        "/api/v1/livescan/scanners/",
        &["scanners"],
    )
    .returns(Returns::Model("LiveScanner"))
    .doc("The live scanning nodes, with their country, city and status"),
    Endpoint::new("livescan.task", Method::POST, "/api/v1/livescan/{0}/task/")
        .ids(&[SCANNER])
        .positional(&["url"])
        .returns(Returns::Field("uuid", Shape::Text))
        .paced(actions::LIVESCAN)
        .doc(
            "Task a scan and return its uuid at once\n\nPoll the result \
            with ``resource(scanner_id, \"result\", uuid)``.",
        )
        .body("", TASK_FIELDS, true),
    Endpoint::new("livescan.scan", Method::POST, "/api/v1/livescan/{0}/scan/")
        .ids(&[SCANNER])
        .positional(&["url"])
        .returns(Returns::Field("uuid", Shape::Text))
        .paced(actions::LIVESCAN)
        .doc(
            "Scan and return the uuid once the scan has finished\n\nThe \
            request blocks until the scanner is done.",
        )
        .body("", TASK_FIELDS, true),
    Endpoint::new("livescan.store", Method::PUT, "/api/v1/livescan/{0}/{1}/")
        .ids(&[SCANNER, SCAN_ID])
        .returns(Returns::Json(Shape::Object))
        .doc("Store the temporary scan as a permanent snapshot")
        .body("task", STORE_FIELDS, false),
    Endpoint::new(
        "livescan.purge",
        Method::DELETE,
        "/api/v1/livescan/{0}/{1}/",
    )
    .ids(&[SCANNER, SCAN_ID])
    .returns(Returns::Json(Shape::Object))
    .doc("Drop the temporary scan at once"),
    Endpoint::new(
        "livescan.resource",
        Method::GET,
        "/api/v1/livescan/{0}/{1}/{2}",
    )
    .ids(&[
        SCANNER,
        req("resource_type", "resource_type", Kind::Enum(RESOURCE_TYPES)).doc("What to fetch"),
        id("resource_id").doc("Scan uuid, or SHA-256 hash for response and download"),
    ])
    .returns(Returns::Json(Shape::Bytes))
    .by_hand()
    .doc("A live scan's result, screenshot, DOM, response or download, as served"),
];

const SCANNER: Field = id("scanner_id").doc("Live scanner id (see `livescan scanners`)");
const SCAN_ID: Field = id("scan_id").doc("Live scan uuid");

impl Client {
    /// GET /api/v1/livescan/{scannerId}/{resourceType}/{resourceId}: the bytes as served.
    pub async fn livescan_resource(
        &self,
        scanner_id: &str,
        resource_type: &str,
        resource_id: &str,
    ) -> Result<Bytes> {
        let scanner = validate::object_id("scanner_id", scanner_id)?;
        if !RESOURCE_TYPES.contains(&resource_type) {
            return Err(Error::Validation(format!(
                "resource_type must be one of {}, got {:?}",
                RESOURCE_TYPES.join(", "),
                validate::shown(resource_type, 40)
            )));
        }
        // Responses and downloads are addressed by SHA-256, the rest by scan id.
        let id = if matches!(resource_type, "response" | "download") {
            validate::sha256(resource_id)?
        } else {
            validate::uuid("resource_id", resource_id)?
        };
        let row = super::endpoints::row(ENDPOINTS, "livescan.resource");
        let req = row.request(&[&scanner, resource_type, &id]);
        let body = self.t.send(&req).await?.body;
        // Responses and downloads are their hash's content; the rest never empty.
        let hash = matches!(resource_type, "response" | "download").then_some(id.as_str());
        let body = super::scanning::promised(
            body,
            &format!("the live scan's {resource_type} {id}"),
            hash,
        )?;
        if resource_type == "result" {
            // The result of this scan, not another's nor an error envelope.
            crate::accept::scan_result(&id, body.clone())?;
        }
        Ok(body)
    }
}
