//! Saved searches (premium).
use reqwest::Method;

use super::endpoints::Endpoint;
use crate::core::fields::{f, req, Field, Kind};

pub const TLP: &[&str] = &["red", "amber+strict", "amber", "green", "clear"];
pub const PERMISSIONS: &[&str] = &["public:read", "team:read", "team:write"];

pub const FIELDS: &[Field] = &[
    req(
        "datasource",
        "datasource",
        Kind::Enum(&["hostnames", "scans"]),
    ),
    req("name", "name", Kind::Str),
    req("query", "query", Kind::Str),
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
    .list(),
];
