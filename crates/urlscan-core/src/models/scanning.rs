use serde::Deserialize;
use serde_json::Value;

/// The answer to POST /api/v1/scan.
#[derive(Debug, Clone, Deserialize)]
pub struct Submission {
    pub uuid: String,
    #[serde(default)]
    pub visibility: Option<String>,
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub message: Option<String>,
    #[serde(default)]
    pub country: Option<String>,
    #[serde(default)]
    pub options: Option<Value>,
}

/// What the core reads of a result document: it must be an object; the rest
/// stays in the body for the caller.
#[derive(Debug, Clone, Deserialize)]
pub struct ResultHead {
    #[serde(default)]
    pub task: Option<TaskHead>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct TaskHead {
    #[serde(default)]
    pub uuid: Option<String>,
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub time: Option<String>,
}
