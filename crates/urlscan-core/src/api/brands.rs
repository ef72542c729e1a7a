//! Brands tracked for phishing detection (premium).
use reqwest::Method;

use super::endpoints::Endpoint;

pub const ENDPOINTS: &[Endpoint] = &[
    Endpoint::new(
        "brands.available",
        Method::GET,
        "/api/v1/pro/availableBrands",
    )
    .answer(&["kits"])
    .list(),
    Endpoint::new("brands.detected", Method::GET, "/api/v1/pro/brands")
        .answer(&["responses"])
        .list(),
];
