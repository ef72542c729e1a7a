//! What a scan's content is made from.

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
}
