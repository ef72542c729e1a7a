//! The malicious lookup (urlscan Pro): how many malicious scans showed an
//! observable, and when first and last. A cheap check before a scan.
use reqwest::Method;
use urlscan_rules as rules;

use super::endpoints::{Endpoint, Returns};
use crate::fields::{req, Kind};

pub const ENDPOINTS: &[Endpoint] = &[Endpoint::new(
    "malicious",
    Method::GET,
    "/api/v1/malicious/{0}/{1}",
)
.ids(&[
    req("type", "type", Kind::Enum(rules::MALICIOUS_TYPES))
        .doc("ip (the page server's), hostname (exact), domain (apex, with its subdomains) or url"),
    req("value", "value", Kind::Observable)
        .doc("The observable; a URL is looked up without its scheme and query"),
])
.returns(Returns::Model("MaliciousObservable"))
.doc(
    "How many malicious scans showed an observable, and when first and last (urlscan Pro)\n\n\
     A cheap check before a scan: ``count`` is 0 for an observable no malicious scan showed.",
)];
