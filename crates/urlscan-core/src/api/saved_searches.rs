//! Saved searches (premium).
use reqwest::Method;

use super::endpoints::Endpoint;
use crate::fields::{f, req, Field, Kind};

pub use urlscan_rules::{SEARCH_PERMISSIONS as PERMISSIONS, TLP};

pub const FIELDS: &[Field] = &[
    req(
        "datasource",
        "datasource",
        Kind::Enum(urlscan_rules::SAVED_SEARCH_DATASOURCES),
    ),
    req("name", "name", Kind::Text),
    req("query", "query", Kind::Query),
    f("description", "description", Kind::Str),
    f("long_description", "longDescription", Kind::Str),
    f("permissions", "permissions", Kind::EnumList(PERMISSIONS)),
    f("tlp", "tlp", Kind::Enum(TLP)),
    f("user_tags", "userTags", Kind::UserTags),
];

pub const ENDPOINTS: &[Endpoint] = &[
    Endpoint::new("saved_searches.list", Method::GET, "/api/v1/user/searches/")
        .answer(&["searches"])
        .list(),
    Endpoint::new(
        "saved_searches.create",
        Method::POST,
        "/api/v1/user/searches/",
    )
    .body("search", FIELDS, true)
    .answer(&["search"]),
    Endpoint::new(
        "saved_searches.update",
        Method::PUT,
        "/api/v1/user/searches/{0}/",
    )
    .body("search", FIELDS, false)
    .answer(&["search"]),
    Endpoint::new(
        "saved_searches.delete",
        Method::DELETE,
        "/api/v1/user/searches/{0}/",
    ),
    Endpoint::new(
        "saved_searches.results",
        Method::GET,
        "/api/v1/user/searches/{0}/results/",
    )
    .answer(&["results"])
    .list()
    .params(RESULTS_PARAMS),
];

/// The search endpoint's paging parameters.
pub const RESULTS_PARAMS: &[Field] = &[
    f("size", "size", Kind::Int(1, 10_000)),
    f("search_after", "search_after", Kind::SearchAfter),
];
