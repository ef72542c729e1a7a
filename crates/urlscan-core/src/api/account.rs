//! Account: quotas and the current user.
use reqwest::Method;

use super::endpoints::{Endpoint, Returns};

pub const ENDPOINTS: &[Endpoint] = &[
    Endpoint::new("quotas", Method::GET, "/api/v1/quotas")
        .returns(Returns::Model("Quotas"))
        .doc("The key's quotas: limit, used and remaining per action and window"),
    Endpoint::new("user", Method::GET, "/api/v1/pro/username")
        .returns(Returns::Model("User"))
        .doc("The user (or team) the key belongs to, with its limits and products"),
];
