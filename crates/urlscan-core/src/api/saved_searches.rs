//! Saved searches (premium).
use reqwest::Method;

use super::endpoints::{Endpoint, Returns};
use crate::fields::{f, id, req, Field, Kind};

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
        .returns(Returns::Model("SavedSearch"))
        .doc("Your saved searches")
        .answer(&["searches"])
        .list(),
    Endpoint::new(
        "saved_searches.create",
        Method::POST,
        "/api/v1/user/searches/",
    )
    .returns(Returns::Model("SavedSearch"))
    .doc("Create a saved search")
    .body("search", FIELDS, true)
    .answer(&["search"]),
    Endpoint::new(
        "saved_searches.update",
        Method::PUT,
        "/api/v1/user/searches/{0}/",
    )
    .ids(&[id("search_id")])
    .returns(Returns::Model("SavedSearch"))
    .doc("Change a saved search; fields left out keep their value")
    .body("search", FIELDS, false)
    .answer(&["search"]),
    Endpoint::new(
        "saved_searches.delete",
        Method::DELETE,
        "/api/v1/user/searches/{0}/",
    )
    .ids(&[id("search_id")])
    .returns(Returns::Nothing)
    .doc("Delete a saved search"),
    Endpoint::new(
        "saved_searches.results",
        Method::GET,
        "/api/v1/user/searches/{0}/results/",
    )
    .ids(&[id("search_id")])
    .returns(Returns::Model("SearchHit"))
    .doc(
        "The saved query's hits, newest first\n\n``size`` of them \
            (the service's default when None), after the \
            cursor\n``search_after`` (the last hit's ``sort`` values \
            joined by a comma).",
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
