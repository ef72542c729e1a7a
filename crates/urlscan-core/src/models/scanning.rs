use serde::Deserialize;
use serde_json::Value;

/// The answer to POST /api/v1/scan. (A missing `Option` field reads as None:
/// serde does so without `#[serde(default)]`.)
#[derive(Debug, Clone, Deserialize)]
pub struct Submission {
    pub uuid: String,
    pub visibility: Option<String>,
    pub url: Option<String>,
    pub message: Option<String>,
    pub country: Option<String>,
    pub options: Option<Value>,
}

/// What the core reads of a result document: it must be an object; the rest
/// stays in the body for the caller.
#[derive(Debug, Clone, Deserialize)]
pub struct ResultHead {
    pub task: Option<TaskHead>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct TaskHead {
    pub uuid: Option<String>,
    pub url: Option<String>,
    pub time: Option<String>,
}
