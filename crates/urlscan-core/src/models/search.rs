use serde::Deserialize;
use serde_json::Value;

use super::doc::PageIndex;
use super::json::{lenient_u64, list_or_empty};

/// What pagination needs of a search page.
#[derive(Debug, Clone, Deserialize)]
pub struct SearchPageHead {
    #[serde(default, deserialize_with = "list_or_empty")]
    pub results: Vec<SearchHitHead>,
    #[serde(default, deserialize_with = "lenient_u64")]
    pub total: Option<u64>,
    pub has_more: Option<bool>,
    #[serde(default, deserialize_with = "lenient_u64")]
    pub took: Option<u64>,
    /// Where each hit's top-level values are in the body (set by
    /// `index::search_page`; empty when the head was decoded otherwise),
    /// and the members of each hit's objects (`page`, `task`) when the page
    /// was read by the checking scan.
    #[serde(skip)]
    pub hits: PageIndex,
}

#[derive(Debug, Clone, Deserialize)]
pub struct SearchHitHead {
    #[serde(rename = "_id")]
    pub id: Option<String>,
    #[serde(default, deserialize_with = "list_or_empty")]
    pub sort: Vec<Value>,
}

impl SearchHitHead {
    /// The cursor for the next page: the sort values joined by commas.
    /// `None` when the sort values are missing or not all numbers and strings.
    pub fn cursor(&self) -> Option<String> {
        if self.sort.is_empty()
            || !self
                .sort
                .iter()
                .all(|v| v.is_number() || (v.is_string() && !v.as_str().unwrap_or("").is_empty()))
        {
            return None;
        }
        Some(
            self.sort
                .iter()
                .map(|v| match v {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
                .collect::<Vec<_>>()
                .join(","),
        )
    }
}
