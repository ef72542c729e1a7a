//! Search, structure search (similar) and the phish feed: one page at a time.
//! `core::paginate` walks the pages.
use reqwest::Method;

use super::actions;
use super::endpoints::{Endpoint, Returns};
use crate::client::Client;
use crate::error::{Error, Result};
use crate::models::{Doc, SearchPageHead};
use crate::validate;

/// The pages walked (`core::paginate`); their query is built from
/// `SearchParams`, checked once before the first page.
#[rustfmt::skip]
pub const ENDPOINTS: &[Endpoint] = &[
    Endpoint::new("search", Method::GET, "/api/v1/search/")
        .paced(actions::SEARCH)
        .returns(Returns::Model("SearchHit"))
        .list()
        .by_hand()
        .doc("Search scans, or another data source"),
    Endpoint::new("similar", Method::GET, "/api/v1/pro/result/{0}/similar/")
        .ids(&[crate::fields::req("uuid", "uuid", crate::fields::Kind::Uuid).doc("Scan uuid")])
        .paced(actions::SEARCH)
        .returns(Returns::Model("SearchHit"))
        .list()
        .by_hand()
        .doc("Scans structurally similar to one scan"),
    Endpoint::new("phishfeed", Method::GET, "/api/v1/pro/phishfeed")
        .paced(actions::SEARCH)
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
    /// Page size asked for (the service clamps it to the account's maximum).
    pub size: u64,
    /// Stop after this many hits in all.
    pub limit: Option<u64>,
    pub search_after: Option<String>,
    pub datasource: Option<String>,
    pub collapse: Option<String>,
    /// Requests in flight for a large export (1: one page after another;
    /// 0: automatic, sharding only when the service is slow to answer).
    pub parallel: usize,
}

impl SearchParams {
    pub fn new(kind: SearchKind) -> SearchParams {
        SearchParams {
            kind,
            q: None,
            size: 100,
            limit: None,
            search_after: None,
            datasource: None,
            collapse: None,
            parallel: AUTO_PARALLEL,
        }
    }

    /// Check every rule once, before the first request.
    pub fn validated(mut self) -> Result<SearchParams> {
        if let SearchKind::Similar(id) = &self.kind {
            self.kind = SearchKind::Similar(validate::uuid("uuid", id)?);
        }
        if self.size == 0 {
            return Err(Error::Validation(
                "size must be a positive integer, got 0".into(),
            ));
        }
        if self.size > urlscan_rules::SEARCH_SIZE_MAX as u64 {
            return Err(Error::Validation(format!(
                "size must be at most {} (the service's largest page), got {}",
                urlscan_rules::SEARCH_SIZE_MAX,
                self.size
            )));
        }
        if self.parallel > 16 {
            return Err(Error::Validation(format!(
                "parallel must be between 1 and 16, got {}",
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
        let resp = self.t.send(&req).await?;
        crate::models::index::search_page(resp.body)
    }
}
