//! What a scan's content is made from.

use std::fmt;

use serde_json::Value;

/// Everything that determines a scan's content.
#[derive(Clone, Debug)]
pub struct ScanSpec {
    /// Lowercase UUID string.
    pub uuid: String,
    /// The submitted URL (http/https).
    pub url: String,
    /// Submission time, epoch milliseconds UTC.
    pub time_ms: i64,
    /// "public" | "unlisted" | "private".
    pub visibility: String,
    /// Two-letter lowercase scan country; `None` derives one deterministically.
    pub country: Option<String>,
    pub tags: Vec<String>,
    /// "api" | "manual" (search field `task.method`).
    pub method: String,
    /// E.g. "api" or a short hex id of the submitter.
    pub source: String,
    pub user_agent: Option<String>,
    pub referer: Option<String>,
    /// A document the scan is served as instead of generated content (a
    /// result a test planted, or one a scripted submission finishes as).
    pub planted: Option<std::sync::Arc<Planted>>,
}

impl ScanSpec {
    /// A scan submitted through the API with nothing but what names it:
    /// no tags, no user agent or referer, its country derived.
    pub(crate) fn api(uuid: String, url: String, time_ms: i64, visibility: String) -> Self {
        ScanSpec {
            uuid,
            url,
            time_ms,
            visibility,
            country: None,
            tags: vec![],
            method: "api".into(),
            source: "api".into(),
            user_agent: None,
            referer: None,
            planted: None,
        }
    }
}

/// A result document and the files served with it.
pub struct Planted {
    pub doc: Value,
    pub screenshot: Option<Vec<u8>>,
    pub dom: Option<String>,
}

impl fmt::Debug for Planted {
    // Specs are keyed by their `Debug` text (`hit_and_index`): a short one.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let uuid = self.doc.pointer("/task/uuid").and_then(Value::as_str);
        write!(f, "Planted({uuid:?})")
    }
}
