//! Hostname history (premium): observations of a hostname, paged by `pageState`.
use serde::Deserialize;

use crate::core::client::Client;
use crate::core::error::{Error, Result};
use crate::core::models::{list_or_empty, AnyObject, Doc};
use crate::core::transport::Req;
use crate::core::validate;

pub const LIMIT_MIN: i64 = 10;
pub const LIMIT_MAX: i64 = 10_000;

#[derive(Debug, Clone, Deserialize)]
pub struct HostnamePageHead {
    #[serde(default, deserialize_with = "list_or_empty")]
    pub results: Vec<AnyObject>,
    #[serde(default, rename = "pageState")]
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
        && t.len() <= 253
        && t.chars()
            .all(|c| c.is_alphanumeric() || c == '.' || c == '-' || c == '_' || c == ':');
    if !ok {
        return Err(Error::Validation(format!(
            "hostname must be a host name such as www.example.com, got {h:?}"
        )));
    }
    validate::segment("hostname", &t.to_lowercase())
}

impl Client {
    /// GET /api/v1/hostname/{hostname}: one page of records.
    pub async fn hostname_page(
        &self,
        host: &str,
        batch: i64,
        page_state: Option<&str>,
    ) -> Result<Doc<HostnamePageHead>> {
        let h = hostname(host)?;
        let req = Req::get(format!("/api/v1/hostname/{h}"))
            .query("limit", limit(batch)?)
            .query_opt("pageState", page_state.filter(|s| !s.is_empty()));
        self.doc(req, "hostname history").await
    }
}
