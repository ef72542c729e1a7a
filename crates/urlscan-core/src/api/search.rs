//! Search, structure search (similar) and the phish feed: one page at a time.
//! `core::paginate` walks the pages.
use reqwest::Method;

use super::actions;
use super::endpoints::{Endpoint, Returns};
use crate::client::Client;
use crate::error::{Error, Result};
use crate::models::{Doc, SearchPageHead};
use crate::validate;
use serde_json::Value;

/// What a search takes: the query options sent with every page, then the
/// walk's own (not sent). `SearchParams::from_options` reads them; the Python
/// signatures are checked against them.
mod opts {
    use crate::fields::{f, Field, Kind};
    use urlscan_rules as rules;
    pub const Q: Field = f("q", "q", Kind::Str)
        .doc("The query (Elasticsearch query string syntax); empty matches everything");
    pub const SIZE: Field = f("size", "size", Kind::Int(1, rules::SEARCH_SIZE_MAX))
        .doc("Hits per page (per request); not given: as large as the key allows");
    pub const SEARCH_AFTER: Field = f("search_after", "search_after", Kind::SearchAfter)
        .doc("Resume after this cursor (the last hit's sort values joined by a comma)");
    pub const DATASOURCE: Field = f(
        "datasource",
        "datasource",
        Kind::AnyCase(rules::SEARCH_DATASOURCES),
    )
    .doc("The data source searched (scans when not given)");
    pub const COLLAPSE: Field = f("collapse", "collapse", Kind::Text)
        .doc("A field to collapse hits on (one hit per value)");
    pub const LIMIT: Field = f("limit", "limit", Kind::Int(1, i64::MAX))
        .doc("Hits handed out at most (all when not given)");
    pub const PARALLEL: Field = f(
        "parallel",
        "parallel",
        Kind::Shards(crate::api::search::MAX_SHARDS),
    )
    .doc("Shards of a large scan export walked at once, or \"auto\" (one walk when not given)");
}

/// The first page of a walk whose page size was not given: the free tier's
/// largest. Later pages grow (`paginate`), up to `SEARCH_SIZE_MAX`, which the
/// service clamps to the largest page the key is allowed.
pub const FIRST_PAGE: u64 = 100;

/// The most shards a sharded export runs at once.
pub const MAX_SHARDS: i64 = 16;

use crate::cache::Keep;

/// The pages walked (`core::paginate`); `SearchParams::from_options` checks
/// the options once, before the first page.
#[rustfmt::skip]
pub const ENDPOINTS: &[Endpoint] = &[
    Endpoint::new("search", Method::GET, "/api/v1/search/")
        .positional(&["q"])
        .params(&[opts::Q.default(r#""""#), opts::SIZE, opts::SEARCH_AFTER, opts::DATASOURCE, opts::COLLAPSE])
        .walk(&[opts::LIMIT, opts::PARALLEL])
        .paced(actions::SEARCH)
        .cached(Keep::ForTtl)
        .accepts(crate::accept::Accept::SearchPage)
        .returns(Returns::Model("SearchHit"))
        .list()
        .by_hand()
        .doc("Search scans, or another data source"),
    Endpoint::new("similar", Method::GET, "/api/v1/pro/result/{0}/similar/")
        .ids(&[crate::fields::req("uuid", "uuid", crate::fields::Kind::Uuid).doc("Scan uuid")])
        .params(&[opts::Q, opts::SIZE, opts::SEARCH_AFTER])
        .walk(&[opts::LIMIT])
        .paced(actions::SEARCH)
        .cached(Keep::ForTtl)
        .accepts(crate::accept::Accept::SearchPage)
        .returns(Returns::Model("SearchHit"))
        .list()
        .by_hand()
        .doc("Scans structurally similar to one scan"),
    Endpoint::new("phishfeed", Method::GET, "/api/v1/pro/phishfeed")
        .positional(&["q"])
        .params(&[opts::Q, opts::SIZE])
        .walk(&[opts::LIMIT])
        .paced(actions::SEARCH)
        .cached(Keep::ForTtl)
        .accepts(crate::accept::Accept::SearchPage)
        .returns(Returns::Model("SearchHit"))
        .list()
        .by_hand()
        .doc("The phishing feed (deprecated by the service)"),
];

fn row(name: &str) -> &'static Endpoint {
    super::endpoints::row(ENDPOINTS, name)
}

/// `parallel` 0: shard only when a page is slow to come back (the walk in
/// `core::paginate` decides); on a fast link one walk with prefetch costs less CPU.
pub const AUTO_PARALLEL: usize = 0;

pub use urlscan_rules::SEARCH_DATASOURCES as DATASOURCES;

#[derive(Debug, Clone, PartialEq)]
pub enum SearchKind {
    /// GET /api/v1/search
    Search,
    /// GET /api/v1/pro/result/{uuid}/similar/
    Similar(String),
    /// GET /api/v1/pro/phishfeed (deprecated by the service)
    Phishfeed,
}

#[derive(Debug, Clone)]
pub struct SearchParams {
    pub kind: SearchKind,
    pub q: Option<String>,
    /// Page size asked for (the service clamps it to the account's maximum);
    /// None: `FIRST_PAGE`, then as large as the walk needs and the key allows.
    pub size: Option<u64>,
    /// Stop after this many hits in all.
    pub limit: Option<u64>,
    pub search_after: Option<String>,
    pub datasource: Option<String>,
    pub collapse: Option<String>,
    /// Requests in flight for a large export (1: one page after another;
    /// 0: automatic, sharding only when the service is slow to answer).
    pub parallel: usize,
    /// Never answered from a result cache's kept search pages.
    pub fresh: bool,
}

impl SearchParams {
    pub fn new(kind: SearchKind) -> SearchParams {
        SearchParams {
            kind,
            q: None,
            size: None,
            limit: None,
            search_after: None,
            datasource: None,
            collapse: None,
            fresh: false,
            parallel: AUTO_PARALLEL,
        }
    }

    /// The walk `row` (search, similar or phishfeed) names, from a caller's
    /// options: checked by the row's fields (an unknown one is refused), then
    /// `validated`. A missing or null option is not given (`SearchParams::new`
    /// holds what that means); `parallel` not given is one walk (sharding
    /// rewrites the query: only when asked for).
    pub fn from_options(
        row: &str,
        options: &serde_json::Map<String, Value>,
    ) -> Result<SearchParams> {
        let e = self::row(row);
        let given: serde_json::Map<String, Value> = options
            .iter()
            .filter(|(k, v)| !v.is_null() && !(e.ids.iter().any(|f| f.name == k.as_str())))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let fields: Vec<_> = e.params.iter().chain(e.walk).copied().collect();
        // None stands for "not given", which an option with a default cannot be.
        for f in fields
            .iter()
            .filter(|f| options.get(f.name).is_some_and(Value::is_null))
        {
            if let Some(d) = f.default {
                return Err(Error::Validation(format!(
                    "{}: {} takes no None (its default is {d})",
                    e.name, f.name
                )));
            }
        }
        let m = crate::fields::build(e.name, &fields, &given, false)?;
        let text = |k: &str| m.get(k).and_then(Value::as_str).map(String::from);
        let kind = match e.name {
            "similar" => SearchKind::Similar(
                options
                    .get("uuid")
                    .and_then(Value::as_str)
                    .ok_or_else(|| {
                        Error::Validation(
                            "similar: uuid must be the uuid of the scan to compare with, got None"
                                .into(),
                        )
                    })?
                    .to_string(),
            ),
            "phishfeed" => SearchKind::Phishfeed,
            _ => SearchKind::Search,
        };
        let mut p = SearchParams::new(kind);
        (p.q, p.search_after) = (text("q"), text("search_after"));
        (p.datasource, p.collapse) = (text("datasource"), text("collapse"));
        p.limit = m.get("limit").and_then(Value::as_u64);
        p.size = m.get("size").and_then(Value::as_u64);
        p.parallel = match m.get("parallel") {
            None => 1,
            Some(v) => v.as_u64().map_or(AUTO_PARALLEL, |n| n as usize),
        };
        p.validated()
    }

    /// Check every rule once, before the first request.
    pub fn validated(mut self) -> Result<SearchParams> {
        if let SearchKind::Similar(id) = &self.kind {
            self.kind = SearchKind::Similar(validate::uuid("uuid", id)?);
        }
        if self.size == Some(0) {
            return Err(Error::Validation(
                "size must be a positive integer, got 0".into(),
            ));
        }
        if let Some(n) = self
            .size
            .filter(|n| *n > urlscan_rules::SEARCH_SIZE_MAX as u64)
        {
            return Err(Error::Validation(format!(
                "size must be at most {} (the service's largest page), got {n}",
                urlscan_rules::SEARCH_SIZE_MAX
            )));
        }
        if self.parallel > MAX_SHARDS as usize {
            return Err(Error::Validation(format!(
                "parallel must be between 1 and {MAX_SHARDS}, got {}",
                self.parallel
            )));
        }
        if self.limit == Some(0) {
            return Err(Error::Validation(
                "limit must be a positive integer, got 0".into(),
            ));
        }
        if let Some(q) = &self.q {
            validate::query(q)?;
        }
        if let Some(ds) = &self.datasource {
            let l = ds.trim().to_ascii_lowercase();
            if !DATASOURCES.contains(&l.as_str()) {
                return Err(Error::Validation(format!(
                    "datasource must be one of {}, got {:?}",
                    DATASOURCES.join(", "),
                    validate::shown(ds, 40)
                )));
            }
            self.datasource = Some(l);
        }
        if let Some(sa) = &self.search_after {
            // Scan hits sort by (time, uuid); the other data sources by (time, their own id).
            let scans = self.kind != SearchKind::Search
                || self.datasource.as_deref().is_none_or(|d| d == "scans");
            self.search_after = Some(if scans {
                validate::search_after(sa)?
            } else {
                validate::search_after_any(sa)?
            });
        }
        Ok(self)
    }
}

impl Client {
    /// One page of hits. `size` 0 asks for the total only.
    pub async fn search_page(
        &self,
        p: &SearchParams,
        size: u64,
        search_after: Option<&str>,
    ) -> Result<Doc<SearchPageHead>> {
        let req = match &p.kind {
            SearchKind::Search => row("search").request(&[]),
            SearchKind::Similar(id) => row("similar").request(&[id]),
            SearchKind::Phishfeed => row("phishfeed").request(&[]),
        };
        let q = p.q.as_deref().filter(|q| !q.trim().is_empty());
        let req = req
            .query_opt("q", q)
            .query("size", size)
            .query_opt("search_after", search_after)
            .query_opt("datasource", p.datasource.as_deref())
            .query_opt("collapse", p.collapse.as_deref());
        let req = if p.fresh {
            crate::transport::Req { cache: None, ..req }
        } else {
            req
        };
        let resp = self.t.send(&req).await?;
        crate::models::index::search_page(resp.body)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const UUID: &str = "2e973dc1-8e9c-4fb5-9b6b-e5d0c1a25e3c";

    fn of(row: &str, v: Value) -> Result<SearchParams> {
        SearchParams::from_options(row, v.as_object().expect("an object"))
    }

    #[test]
    fn options_are_checked_by_the_rows_fields() {
        let p = of(
            "search",
            json!({"q": "a", "size": 50, "limit": 7, "datasource": " Hostnames ",
                   "collapse": "page.domain", "parallel": "auto", "search_after": "1700000000000,x.example"}),
        )
        .unwrap();
        assert_eq!(
            (p.q.as_deref(), p.size, p.limit),
            (Some("a"), Some(50), Some(7))
        );
        assert_eq!(p.datasource.as_deref(), Some("hostnames"));
        assert_eq!(
            (p.parallel, p.collapse.as_deref()),
            (AUTO_PARALLEL, Some("page.domain"))
        );
        // Nothing given: pages as large as needed, one walk (sharding only when asked for).
        let d = of("search", json!({"size": null, "limit": null})).unwrap();
        assert_eq!((d.size, d.limit, d.parallel, d.q), (None, None, 1, None));
        for bad in [
            json!({"size": 0}),
            json!({"size": urlscan_rules::SEARCH_SIZE_MAX + 1}),
            json!({"size": "10"}),
            json!({"q": null}),
            json!({"limit": 0}),
            json!({"parallel": MAX_SHARDS + 1}),
            json!({"parallel": "many"}),
            json!({"parallel": true}),
            json!({"datasource": "nope"}),
            json!({"collapse": ""}),
            json!({"nope": 1}),
            // A scan's cursor ends with its uuid.
            json!({"search_after": "1700000000000,x.example"}),
        ] {
            assert!(
                matches!(of("search", bad.clone()), Err(Error::Validation(_))),
                "{bad}"
            );
        }
        // Each row takes its own options only.
        assert!(of("similar", json!({"uuid": UUID, "datasource": "scans"})).is_err());
        assert!(of("similar", json!({"q": "a"})).is_err());
        assert!(of("similar", json!({"uuid": "not-a-uuid"})).is_err());
        assert!(of(
            "phishfeed",
            json!({"search_after": format!("1700000000000,{UUID}")})
        )
        .is_err());
    }

    #[test]
    fn every_option_a_search_row_declares_is_read() {
        // A field added to a row must be read by `from_options` (and given a sample here).
        let sample = |name: &str| match name {
            "q" => json!("a"),
            "size" => json!(7),
            "search_after" => json!(format!("1700000000000,{UUID}")),
            "datasource" => json!("scans"),
            "collapse" => json!("page.domain"),
            "limit" => json!(3),
            "parallel" => json!(4),
            other => panic!("no sample for the search option {other:?}: read it in from_options"),
        };
        for e in ENDPOINTS {
            let ids = match e.name {
                "similar" => json!({"uuid": UUID}),
                _ => json!({}),
            };
            let plain = format!("{:?}", of(e.name, ids.clone()).unwrap());
            for f in e.params.iter().chain(e.walk) {
                let mut given = ids.clone();
                given[f.name] = sample(f.name);
                let p = of(e.name, given).unwrap();
                assert_ne!(
                    format!("{p:?}"),
                    plain,
                    "{}: {} is not read",
                    e.name,
                    f.name
                );
            }
        }
    }
}
