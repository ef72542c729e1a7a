//! Brands tracked for phishing detection (premium).
use reqwest::Method;

use super::endpoints::{Endpoint, Returns};

pub const ENDPOINTS: &[Endpoint] = &[
    Endpoint::new(
        "brands.available",
        Method::GET,
        "/api/v1/pro/availableBrands",
    )
    .returns(Returns::Model("Brand"))
    .doc("The brands tracked for brand and phishing detection")
    .answer(&["kits"])
    .list(),
    Endpoint::new("brands.detected", Method::GET, "/api/v1/pro/brands")
        .returns(Returns::Model("BrandSummary"))
        .doc(
            "Brands with detected phishing pages: the total and the \
            latest hits of each\n\nSlower than :meth:`available`.",
        )
        .answer(&["responses"])
        .list(),
];
