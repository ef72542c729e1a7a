//! Answers as errors: a non-2xx answer's typed error, the service's words
//! for a refusal, and a request refused before it is sent.

use reqwest::Method;
use serde_json::Value;

use super::base::{Req, Resp};
use super::limits::parse_rate_limit;
use crate::error::{ApiError, ApiErrorKind, Error, RateLimitInfo};

/// `AuthenticationError` for a key that is not in the service's format (a
/// UUID): the service answers 400 "Invalid API key format" on every endpoint,
/// so nothing is sent. The key itself is never shown.
pub(super) fn bad_key_error(req: &Req) -> Error {
    unsent(
        req,
        ApiErrorKind::Authentication,
        400,
        "Invalid API key format: the API key is not a UUID such as 0f9e8d7c-6b5a-4c3d-9e2f-1a0b9c8d7e6f, \
         which the service refuses on every endpoint; check URLSCAN_API_KEY or api_key= (not sent)"
            .to_string(),
        None,
    )
}

/// `AuthenticationError` for a call that needs a key when none was given
/// (nothing is sent: the service would only answer 401).
pub(super) fn no_key_error(req: &Req) -> Error {
    unsent(
        req,
        ApiErrorKind::Authentication,
        401,
        format!(
            "no API key was given and {} {} needs one: set URLSCAN_API_KEY or pass api_key= (on the command line: --api-key) (not sent)",
            req.method, req.path
        ),
        None,
    )
}

/// The error of a request refused on this side, before sending.
pub(super) fn unsent(
    req: &Req,
    kind: ApiErrorKind,
    status: u16,
    message: String,
    rate_limit: Option<RateLimitInfo>,
) -> Error {
    Error::Api(Box::new(ApiError {
        kind,
        status,
        message,
        description: None,
        code: None,
        errors: None,
        body: String::new(),
        method: req.method.to_string(),
        path: req.display_path(),
        rate_limit,
    }))
}

/// A 400 of a scan submission is a refusal to scan (DNS error, blocked or
/// prevented domain, ...) only when its message or description says so;
/// any other 400 (validation, a malformed key) is not.
pub fn says_scan_refused(message: &str, description: Option<&str>) -> bool {
    const MARKS: &[&str] = &[
        "dns error",
        "could not resolve",
        "scan prevented",
        "prevented",
        "blacklist",
        "blocklist",
        "blocked",
        "don't be silly",
        "refused to scan",
        "not allowed to scan",
    ];
    let text = format!("{message} {}", description.unwrap_or("")).to_ascii_lowercase();
    MARKS.iter().any(|m| text.contains(m))
}

/// The service's answer to a key that is not UUID-shaped (on every endpoint).
pub fn says_invalid_key(message: &str) -> bool {
    message.to_ascii_lowercase().contains("invalid api key")
}

/// Turn a non-2xx response into the typed error, reading the service's envelope
/// (`message`, `description`, `status`, `code`, `errors`) where there is one.
pub fn api_error(req: &Req, r: &Resp) -> Error {
    let text = String::from_utf8_lossy(&r.body).into_owned();
    let json: Option<Value> = serde_json::from_slice(&r.body).ok();
    let field = |k: &str| -> Option<String> {
        json.as_ref()?
            .get(k)
            .and_then(|v| v.as_str())
            .map(String::from)
    };
    let first_error = |k: &str| -> Option<String> {
        json.as_ref()?
            .get("errors")?
            .get(0)?
            .get(k)?
            .as_str()
            .map(String::from)
    };
    let message = field("message")
        .or_else(|| field("warning"))
        .or_else(|| first_error("title"))
        .unwrap_or_else(|| {
            let snippet: String = text.trim().chars().take(200).collect();
            if snippet.is_empty() || snippet.starts_with('<') {
                http_reason(r.status).to_string()
            } else {
                snippet
            }
        });
    let description = field("description")
        .or_else(|| first_error("detail"))
        .or_else(|| first_error("description"));
    let code = field("code");
    let kind = match r.status {
        400 if says_invalid_key(&message) => ApiErrorKind::Authentication,
        400 if req.method == Method::POST
            && req.path.starts_with("/api/v1/scan")
            && code.as_deref() != Some("validationerror")
            && says_scan_refused(&message, description.as_deref()) =>
        {
            ApiErrorKind::ScanRefused
        }
        400 => ApiErrorKind::BadRequest,
        401 => ApiErrorKind::Authentication,
        403 => ApiErrorKind::PermissionDenied,
        404 if message.to_ascii_lowercase().contains("not finished") => ApiErrorKind::ScanPending,
        404 => ApiErrorKind::NotFound,
        410 => ApiErrorKind::Gone,
        429 => ApiErrorKind::RateLimited,
        500..=599 => ApiErrorKind::Server,
        _ => ApiErrorKind::Other,
    };
    Error::Api(Box::new(ApiError {
        kind,
        status: r.status,
        message,
        description,
        code,
        errors: json.as_ref().and_then(|j| j.get("errors").cloned()),
        body: text,
        method: req.method.to_string(),
        path: req.display_path(),
        rate_limit: parse_rate_limit(&r.headers),
    }))
}

pub(super) fn http_reason(status: u16) -> &'static str {
    reqwest::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("HTTP error")
}
