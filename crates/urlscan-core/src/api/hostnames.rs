//! Hostname history (premium): observations of a hostname, paged by `pageState`.
use std::collections::HashSet;

use serde::Deserialize;

use super::endpoints::{Endpoint, Returns};
use crate::client::Client;
use crate::error::{Error, Result};
use crate::fields::{f, id, Kind};
use crate::models::{list_or_empty, AnyObject, Doc};
use crate::validate;

pub use urlscan_rules::{HOSTNAME_LIMIT_MAX as LIMIT_MAX, HOSTNAME_LIMIT_MIN as LIMIT_MIN};

#[derive(Debug, Clone, Deserialize)]
pub struct HostnamePageHead {
    #[serde(default, deserialize_with = "list_or_empty")]
    pub results: Vec<AnyObject>,
    #[serde(rename = "pageState")]
    pub page_state: Option<String>,
}

pub fn limit(n: i64) -> Result<i64> {
    if (LIMIT_MIN..=LIMIT_MAX).contains(&n) {
        Ok(n)
    } else {
        Err(Error::Validation(format!(
            "limit must be between {LIMIT_MIN} and {LIMIT_MAX}, got {n}"
        )))
    }
}

pub fn hostname(h: &str) -> Result<String> {
    let t = h.trim().trim_end_matches('.');
    let ok = !t.is_empty()
        && t.len() <= urlscan_rules::HOSTNAME_MAX_LEN
        && t.chars()
            .all(|c| c.is_alphanumeric() || c == '.' || c == '-' || c == '_' || c == ':');
    if !ok {
        return Err(Error::Validation(format!(
            "hostname must be a host name such as www.example.com, got {:?}",
            validate::shown(h, 80)
        )));
    }
    validate::segment("hostname", &t.to_lowercase())
}

/// The `pageState` to continue from after a page of `n` records; `seen`
/// holds every pageState the walk sent so far. `None` ends the walk (no
/// pageState, or an empty page). A pageState the walk has already sent would
/// only repeat pages (the server's states may go round in a circle):
/// `DecodeError`, so the walk always ends.
pub fn next_page_state(
    seen: &mut HashSet<String>,
    got: Option<&str>,
    n: usize,
) -> Result<Option<String>> {
    let got = got.filter(|p| !p.is_empty());
    if n == 0 {
        return Ok(None);
    }
    match got {
        Some(p) if !seen.insert(p.to_owned()) => Err(Error::Decode(format!(
            "hostname history cannot go on: the server answered with pageState={:?}, which this walk had already sent (it does not advance)",
            validate::shown(p, 80)
        ))),
        other => Ok(other.map(String::from)),
    }
}

#[rustfmt::skip]
pub const ENDPOINTS: &[Endpoint] = &[
    Endpoint::new("hostnames.history", reqwest::Method::GET, "/api/v1/hostname/{0}")
        .ids(&[id("hostname").doc("Hostname whose history to walk")])
        .params(&[
            f("limit", "limit", Kind::Int(LIMIT_MIN, LIMIT_MAX)).doc("Records per page"),
            f("page_state", "pageState", Kind::Str).doc("Where to go on: the page state of the last page"),
        ])
        .returns(Returns::Model("HostnameRecord"))
        .list()
        .by_hand()
        .doc("What scans saw of a hostname over time, newest first, page by page"),
];

impl Client {
    /// GET /api/v1/hostname/{hostname}: one page of records.
    pub async fn hostname_page(
        &self,
        host: &str,
        batch: i64,
        page_state: Option<&str>,
    ) -> Result<Doc<HostnamePageHead>> {
        let h = hostname(host)?;
        let req = super::endpoints::row(ENDPOINTS, "hostnames.history")
            .request(&[&h])
            .query("limit", limit(batch)?)
            .query_opt("pageState", page_state.filter(|s| !s.is_empty()));
        self.doc(req, "hostname history").await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_state_must_advance() {
        let mut seen = HashSet::new();
        let mut next = |got, n| next_page_state(&mut seen, got, n);
        assert_eq!(next(Some("a"), 5).unwrap().as_deref(), Some("a"));
        assert_eq!(next(Some("b"), 5).unwrap().as_deref(), Some("b"));
        assert_eq!(next(None, 5).unwrap(), None);
        assert_eq!(next(Some(""), 5).unwrap(), None);
        assert_eq!(next(Some("a"), 0).unwrap(), None);
        // Back to a state sent before (a, b, a, ...): the walk ends.
        assert!(matches!(next(Some("a"), 5), Err(Error::Decode(_))));
        assert!(matches!(next(Some("b"), 5), Err(Error::Decode(_))));
    }
}
