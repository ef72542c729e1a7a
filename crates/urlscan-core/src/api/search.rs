//! Search, structure search (similar) and the phish feed: one page at a time.
//! `core::paginate` walks the pages.
use reqwest::Method;

use super::actions;
use super::endpoints::{Endpoint, Returns};
use crate::client::Client;
use crate::error::{Error, Result};
use crate::fields::Field;
use crate::models::{Doc, SearchPageHead};
use crate::validate;
use serde_json::Value;

/// What a search takes: the query options sent with every page, then the
/// walk's own (not sent). `SearchParams::from_options` reads them; the Python
/// signatures and the command line's flags are made from them. A new query
/// option is a field here, listed in its row's `params` (and served by the
/// emulator): the pages send it, the resume fingerprint names it.
#[rustfmt::skip]
mod opts {
    use crate::fields::{f, Field, Kind};
    use urlscan_rules as rules;
    pub const Q: Field = f("q", "q", Kind::Str).doc("The query (Elasticsearch query string syntax, e.g. ``page.domain:example.com AND date:>now-7d``); empty matches everything");
    pub const SIZE: Field = f("size", "size", Kind::Int(1, rules::SEARCH_SIZE_MAX)).doc("Hits per page (per request). Not given: the first page asks for 100 hits, later ones for twice what the walk has handed out (with a ``limit``, for what it still needs), up to 10,000; the service clamps a page to the largest the key is allowed (100 for free keys), and every hit still comes once. A large export thus takes a few requests (and search quota units) where pages of 100 take hundreds");
    pub const SEARCH_AFTER: Field = f("search_after", "search_after", Kind::SearchAfter).doc("Resume after this cursor (a previous walk's ``search_after``: the last hit's ``sort`` values joined by a comma)");
    pub const DATASOURCE: Field = f("datasource", "datasource", Kind::AnyCase(rules::SEARCH_DATASOURCES)).doc("The data source searched (scans when not given)");
    pub const COLLAPSE: Field = f("collapse", "collapse", Kind::Text).doc("A field to collapse hits on (one hit per value)");
    pub const LIMIT: Field = f("limit", "limit", Kind::Int(1, i64::MAX)).doc("Hits handed out at most (every hit when not given)");
    pub const PARALLEL: Field = f("parallel", "parallel", Kind::Shards(crate::api::search::MAX_SHARDS)).doc("Shards of a large scan export walked at once, or \"auto\" (8, only when pages are slow to come back); not given: one walk");
}

/// The first page of a walk whose page size was not given: the free tier's
/// largest. Later pages grow (`paginate`), up to `SEARCH_SIZE_MAX`, which the
/// service clamps to the largest page the key is allowed.
pub const FIRST_PAGE: u64 = 100;

/// The most shards a sharded export runs at once.
pub const MAX_SHARDS: i64 = 16;

use crate::cache::Keep;

/// The search method's documentation (the Python method's docstring is made
/// from it and the fields').
const SEARCH_DOC: &str = "Hits of ``q``, newest first, fetched lazily page by page

The next page is requested while the current one is read, and past the
third page up to three pages of up to 4 MB are read ahead (never past
the walk's end or ``limit``; larger pages, such as 10,000 hits, one at a
time): a long walk left early may have asked for up to three pages it
never handed out. By default the query is sent as given, one
page after another. With ``parallel=N`` a large export (several pages
still to come) is walked as N shards of the scans at once
(``(q) AND task.uuid:(0* OR 1*)``, ...) and merged, so the order is
exactly that of a single walk; ``parallel=\"auto\"`` shards in 8 only
when pages are slow to come back (25 ms or more). Never more shards
run than the searches the service lets the key run at once (its
``X-Rate-Limit-Concurrency-Limit``, when it sends one). Sharding
rewrites the query and multiplies the searches in flight on your key:
the service's answers to such queries are verified only against the
emulator.

A walk always ends: a page whose cursor comes back or goes against the
order of the pages before, more hits than an exact ``total``
announced, or a page whose ``results`` is missing while hits are
announced raises :class:`DecodeError`.";

/// The pages walked (`core::paginate`); `SearchParams::from_options` checks
/// the options once, before the first page.
#[rustfmt::skip]
pub const ENDPOINTS: &[Endpoint] = &[
    walked("search", "/api/v1/search/")
        .positional(&["q"])
        .params(&[opts::Q.default(r#""""#), opts::SIZE, opts::SEARCH_AFTER, opts::DATASOURCE, opts::COLLAPSE])
        .walk(&[opts::LIMIT, opts::PARALLEL])
        .doc(SEARCH_DOC),
    walked("similar", "/api/v1/pro/result/{0}/similar/")
        .ids(&[crate::fields::req("uuid", "uuid", crate::fields::Kind::Uuid).doc("Scan uuid")])
        .params(&[opts::Q, opts::SIZE, opts::SEARCH_AFTER])
        .walk(&[opts::LIMIT])
        .doc("Scans structurally similar to a scan, newest first, fetched lazily page by page\n\nPremium. Each page is read as :meth:`search` reads them."),
    walked("phishfeed", "/api/v1/pro/phishfeed")
        .positional(&["q"])
        .params(&[opts::Q, opts::SIZE])
        .walk(&[opts::LIMIT])
        .doc("Pages detected as phishing, newest first, fetched lazily page by page\n\nPremium; deprecated by the service in favour of :meth:`search`."),
];

/// What the three walked rows share: search pacing, pages kept for the
/// cache's time to live, and hits (`paginate` walks them, not the generic
/// method).
const fn walked(name: &'static str, path: &'static str) -> Endpoint {
    Endpoint::new(name, Method::GET, path)
        .paced(actions::SEARCH)
        .cached(Keep::ForTtl)
        .accepts(crate::accept::Accept::SearchPage)
        .returns(Returns::Model("SearchHit"))
        .list()
        .by_hand()
}

fn row(name: &str) -> &'static Endpoint {
    super::endpoints::row(ENDPOINTS, name)
}

/// How many walks of one export run at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Parallel {
    /// One page after another (with read-ahead): the default, as sharding
    /// rewrites the query.
    One,
    /// Shard only when a page is slow to come back (the walk in
    /// `core::paginate` decides); on a fast link one walk costs less CPU.
    Auto,
    /// This many shards of the query (at most `MAX_SHARDS`).
    Shards(usize),
}

#[derive(Debug, Clone, PartialEq)]
pub enum SearchKind {
    /// GET /api/v1/search
    Search,
    /// GET /api/v1/pro/result/{uuid}/similar/
    Similar(String),
    /// GET /api/v1/pro/phishfeed (deprecated by the service)
    Phishfeed,
}

impl SearchKind {
    /// Its row in `ENDPOINTS`.
    pub fn row(&self) -> &'static Endpoint {
        row(match self {
            SearchKind::Search => "search",
            SearchKind::Similar(_) => "similar",
            SearchKind::Phishfeed => "phishfeed",
        })
    }
}

/// A walk: the row's query options, checked, sent with every page, and the
/// walk's own state. The page size and cursor change from page to page, so
/// they are kept apart from the rest of what is sent.
#[derive(Debug, Clone)]
pub struct SearchParams {
    pub kind: SearchKind,
    /// The row's options as checked by its fields (wire name to value), but
    /// for `size` and `search_after`: sent as they are with every page.
    pub query: serde_json::Map<String, Value>,
    /// Page size asked for (the service clamps it to the account's maximum);
    /// None: `FIRST_PAGE`, then as large as the walk needs and the key allows.
    pub size: Option<u64>,
    /// Stop after this many hits in all.
    pub limit: Option<u64>,
    pub search_after: Option<String>,
    pub parallel: Parallel,
    /// Never answered from a result cache's kept search pages.
    pub fresh: bool,
}

impl SearchParams {
    /// A walk of `kind` with nothing given: every hit, pages as large as
    /// needed, one walk.
    pub fn new(kind: SearchKind) -> SearchParams {
        SearchParams {
            kind,
            query: serde_json::Map::new(),
            size: None,
            limit: None,
            search_after: None,
            fresh: false,
            parallel: Parallel::One,
        }
    }

    /// The walk `row` (search, similar or phishfeed) names, from a caller's
    /// options: checked by the row's fields (an unknown one is refused), then
    /// by the rules no field states (`validated`). A missing or null option
    /// is not given (`SearchParams::new` holds what that means).
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
        let mut query = crate::fields::build(e.name, &fields, &given, false)?;
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
        // The walk's own: taken out of what every page sends.
        p.size = query.remove("size").as_ref().and_then(Value::as_u64);
        p.limit = query.remove("limit").as_ref().and_then(Value::as_u64);
        p.search_after = query
            .remove("search_after")
            .and_then(|v| v.as_str().map(String::from));
        p.parallel = match query.remove("parallel").map(|v| v.as_u64()) {
            None | Some(Some(1)) => Parallel::One,
            Some(Some(n)) => Parallel::Shards(n as usize),
            Some(None) => Parallel::Auto,
        };
        p.query = query;
        p.validated()
    }

    /// The query as given (sent as it is).
    pub fn given_q(&self) -> Option<&str> {
        self.query.get("q").and_then(Value::as_str)
    }

    /// The query, when one is given that is not blank, trimmed (what a
    /// shard's query wraps).
    pub fn q(&self) -> Option<&str> {
        self.given_q().map(str::trim).filter(|q| !q.is_empty())
    }

    /// Whether the hits are scans: those of similar and phishfeed, and a
    /// search's unless it names another data source (lowercased by its kind).
    pub fn of_scans(&self) -> bool {
        let named = self.query.get("datasource").and_then(Value::as_str);
        self.kind != SearchKind::Search || named.is_none_or(|d| d == "scans")
    }

    /// Whether the pages send a query of scans and nothing else: what
    /// shards can split (by uuid, which only scans have) without changing
    /// the meaning of another option, such as collapsing.
    pub fn scans_by_query_alone(&self) -> bool {
        self.of_scans() && self.query.keys().all(|k| k == "q" || k == "datasource")
    }

    /// The rules no field's kind states, checked once, before the first
    /// request: the similar scan's uuid, the query's length, and the cursor
    /// of the data source searched.
    fn validated(mut self) -> Result<SearchParams> {
        if let SearchKind::Similar(id) = &self.kind {
            self.kind = SearchKind::Similar(validate::uuid("uuid", id)?);
        }
        // The query as sent: its spaces count.
        if let Some(q) = self.given_q() {
            validate::query(q)?;
        }
        if let Some(sa) = &self.search_after {
            // Scan hits sort by (time, uuid); the other data sources by (time, their own id).
            self.search_after = Some(if self.of_scans() {
                validate::search_after(sa)?
            } else {
                validate::search_after_any(sa)?
            });
        }
        Ok(self)
    }

    /// What a page of this walk sends: the row's options in its order, with
    /// the page's size and cursor. A blank query is not sent (the service
    /// matches everything either way).
    pub fn page_query(&self, size: u64, search_after: Option<&str>) -> Vec<(&'static str, String)> {
        let value = |f: &Field| match f.wire {
            "size" => Some(size.to_string()),
            "search_after" => search_after.map(String::from),
            wire => match self.query.get(wire)? {
                Value::String(s) if s.trim().is_empty() => None,
                Value::String(s) => Some(s.clone()),
                other => Some(other.to_string()),
            },
        };
        let row = self.kind.row().params.iter();
        row.filter_map(|f| Some((f.wire, value(f)?))).collect()
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
        let mut req = match &p.kind {
            SearchKind::Similar(id) => p.kind.row().request(&[id]),
            _ => p.kind.row().request(&[]),
        };
        for (k, v) in p.page_query(size, search_after) {
            req = req.query(k, v);
        }
        if p.fresh {
            req.cache = None;
        }
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
        assert_eq!((p.q(), p.size, p.limit), (Some("a"), Some(50), Some(7)));
        // Lowercased and trimmed once, by the field's kind.
        assert!(!p.of_scans());
        assert_eq!(
            Value::Object(p.query.clone()),
            json!({"q": "a", "datasource": "hostnames", "collapse": "page.domain"})
        );
        assert_eq!(p.parallel, Parallel::Auto);
        assert_eq!(
            of("search", json!({"parallel": 1})).unwrap().parallel,
            Parallel::One
        );
        assert_eq!(
            of("search", json!({"parallel": 4})).unwrap().parallel,
            Parallel::Shards(4)
        );
        // Nothing given: pages as large as needed, one walk (sharding only when asked for).
        let d = of("search", json!({"size": null, "limit": null})).unwrap();
        assert_eq!(
            (d.size, d.limit, d.parallel, d.q()),
            (None, None, Parallel::One, None)
        );
        assert!(d.query.is_empty());
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
        // A field added to a row must be read by `from_options` (and given a sample here);
        // `pages_send_every_option_of_their_row` holds that the pages send it.
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

    #[test]
    fn pages_send_every_option_of_their_row() {
        let sample = |name: &str| match name {
            "q" => json!("a"),
            "size" | "search_after" => Value::Null,
            "datasource" => json!("hostnames"),
            "collapse" => json!("page.domain"),
            other => panic!("no sample for the search option {other:?}"),
        };
        for e in ENDPOINTS {
            let mut given = match e.name {
                "similar" => json!({"uuid": UUID}),
                _ => json!({}),
            };
            for f in e.params.iter().filter(|f| !sample(f.name).is_null()) {
                given[f.name] = sample(f.name);
            }
            let p = of(e.name, given).unwrap_or_else(|err| panic!("{}: {err}", e.name));
            let sent = p.page_query(7, Some("cursor"));
            let names: Vec<&str> = sent.iter().map(|(k, _)| *k).collect();
            let row: Vec<&str> = e.params.iter().map(|f| f.wire).collect();
            assert_eq!(
                names, row,
                "{}: a page sends the row's options, in its order",
                e.name
            );
            for (k, v) in &sent {
                let want = match *k {
                    "size" => "7".to_string(),
                    "search_after" => "cursor".to_string(),
                    k => sample(k).as_str().unwrap().to_string(),
                };
                assert_eq!(v, &want, "{}: {k}", e.name);
            }
        }
        // The query's length counts as sent, spaces included.
        let max = urlscan_rules::QUERY_MAX_LEN;
        assert!(of("search", json!({"q": "a".repeat(max)})).is_ok());
        assert!(of("search", json!({"q": format!(" {} ", "a".repeat(max))})).is_err());
        // Blank: not sent.
        let blank = of("search", json!({"q": "  "})).unwrap();
        assert_eq!(blank.page_query(5, None), vec![("size", "5".to_string())]);
    }
}
