//! Brands tracked for phishing detection (premium).

use super::endpoints::{Endpoint, Returns};

pub const ENDPOINTS: &[Endpoint] = &[
    Endpoint::listing("brands.available", "/api/v1/pro/availableBrands", &["kits"])
        .returns(Returns::Model("Brand"))
        .doc("The brands tracked for brand and phishing detection"),
    Endpoint::listing("brands.detected", "/api/v1/pro/brands", &["responses"])
        .returns(Returns::Model("BrandSummary"))
        .doc(
            "Brands with detected phishing pages: the total and the \
            latest hits of each\n\nSlower than :meth:`available`.",
        ),
];
