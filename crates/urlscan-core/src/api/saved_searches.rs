//! Saved searches (premium).

use super::endpoints::{Endpoint, Resource, Returns};
use crate::fields::{f, id, req, Field, Kind};

pub use urlscan_rules::{SEARCH_PERMISSIONS as PERMISSIONS, TLP};

#[rustfmt::skip]
pub const FIELDS: &[Field] = &[
    req("datasource", "datasource", Kind::Enum(urlscan_rules::SAVED_SEARCH_DATASOURCES)).doc("Data source"),
    req("name", "name", Kind::Text).doc("Name"),
    req("query", "query", Kind::Query).doc("Search query"),
    f("description", "description", Kind::Str).doc("Short description"),
    f("long_description", "longDescription", Kind::Str).doc("Long description"),
    f("permissions", "permissions", Kind::EnumList(PERMISSIONS)).doc("Permission"),
    f("tlp", "tlp", Kind::Enum(TLP)).doc("Traffic light protocol"),
    f("user_tags", "userTags", Kind::UserTags).doc("Tag for matching items, prefixed by its scope (pro., public., private., team.)"),
];

pub const SEARCHES: Resource = Resource::new(
    "SavedSearch",
    "search",
    &[id("search_id").doc("Saved search id")],
    FIELDS,
)
.at("/api/v1/user/searches/", "/api/v1/user/searches/{0}/");

#[rustfmt::skip]
pub const ENDPOINTS: &[Endpoint] = &[
    SEARCHES.list("saved_searches.list", &["searches"], "Your saved searches"),
    SEARCHES.create("saved_searches.create", "Create a saved search"),
    SEARCHES.update("saved_searches.update", "Change a saved search; fields left out keep their value"),
    SEARCHES.delete("saved_searches.delete", "Delete a saved search"),
    Endpoint::listing(
        "saved_searches.results",
        "/api/v1/user/searches/{0}/results/",
        &["results"],
    )
    .ids(SEARCHES.id)
    .returns(Returns::Model("SearchHit"))
    .doc(
        "The saved query's hits, newest first\n\n``size`` of them \
            (the service's default when None), after the \
            cursor\n``search_after`` (the last hit's ``sort`` values \
            joined by a comma).",
    )
    .params(RESULTS_PARAMS),
];

/// The search endpoint's paging parameters.
pub const RESULTS_PARAMS: &[Field] = &[
    f("size", "size", Kind::Int(1, urlscan_rules::SEARCH_SIZE_MAX)).doc("Hits to fetch"),
    f("search_after", "search_after", Kind::SearchAfter)
        .doc("Cursor: the sort values of the last hit, comma separated"),
];
