//! The answers every endpoint shares: the service's error envelopes, plain
//! JSON, the query parameters, and who the caller is (with the 401/403
//! answers when the key does not allow what the endpoint needs), and the
//! rate-limit answers.
// Checks return the finished error answer; boxing every one buys nothing here.
#![allow(clippy::result_large_err)]
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

use super::access::Caller;
pub(crate) use super::access::Need;
use super::state::AppState;

// ---------------------------------------------------------------- answers

/// A JSON answer in the service's form (see `json_form`).
pub(crate) fn json_answer(status: StatusCode, v: &Value) -> Response {
    json_bytes(status, super::json_form::render(v))
}

/// Answer JSON already in the service's form.
pub(crate) fn json_bytes(status: StatusCode, body: Vec<u8>) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, super::json_form::CONTENT_TYPE)],
        body,
    )
        .into_response()
}

/// The service's error envelope.
pub(crate) fn err(status: StatusCode, message: &str, description: Option<&str>) -> Response {
    let s = status.as_u16();
    let mut item = json!({"title": message, "detail": description.unwrap_or(message), "status": s});
    let mut body = json!({"message": message, "status": s});
    if let Some(d) = description {
        body["description"] = json!(d);
    } else {
        item["detail"] = json!(message);
    }
    body["errors"] = json!([item]);
    json_answer(status, &body)
}

/// The validation variant of the envelope (no top-level status).
pub(crate) fn validation(message: &str) -> Response {
    let m = format!("ValidationError: {message}");
    let body = json!({
        "code": "validationerror", "type": "body", "message": m,
        "errors": [{"code": "validationerror", "title": "Field Validation Error", "description": m, "status": 400}],
    });
    json_answer(StatusCode::BAD_REQUEST, &body)
}

pub(crate) fn ok_json(v: Value) -> Response {
    json_answer(StatusCode::OK, &v)
}

pub(crate) fn not_found_scan() -> Response {
    err(
        StatusCode::NOT_FOUND,
        "No such scan submission",
        Some("We could not find this scan submission. Check the UUID."),
    )
}

pub(crate) fn gone() -> Response {
    err(
        StatusCode::GONE,
        "Scan was deleted",
        Some("This scan has been deleted and is no longer available."),
    )
}

pub(crate) fn pending() -> Response {
    err(
        StatusCode::NOT_FOUND,
        "Scan is not finished yet",
        Some("The scan is still running. Poll again in a few seconds."),
    )
}

// ---------------------------------------------------------------- requests

/// Query parameters as sent; the last value of a repeated name wins.
pub(crate) struct Params(Vec<(String, String)>);

impl Params {
    pub(crate) fn parse(raw: Option<String>) -> Params {
        Params(
            url::form_urlencoded::parse(raw.unwrap_or_default().as_bytes())
                .into_owned()
                .collect(),
        )
    }
    pub(crate) fn get(&self, k: &str) -> Option<String> {
        self.0
            .iter()
            .rev()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.clone())
    }
    pub(crate) fn all(&self) -> &[(String, String)] {
        &self.0
    }
}

// ---------------------------------------------------------------- auth

pub(crate) fn caller(st: &AppState, headers: &HeaderMap, need: Need) -> Result<Caller, Response> {
    let key = headers
        .get("api-key")
        .and_then(|v| v.to_str().ok())
        .map(str::trim);
    let c = match key {
        None | Some("") => Caller::Anonymous,
        // Its format was checked for every endpoint (`key_format`).
        Some(k) => match st.key_info(&k.to_ascii_lowercase()) {
            Some(i) => Caller::Key(i.clone()),
            None => {
                return Err(err(
                    StatusCode::UNAUTHORIZED,
                    "API key supplied but not found in database!",
                    None,
                ))
            }
        },
    };
    match (&c, need) {
        (_, Need::Anyone) => Ok(c),
        (Caller::Anonymous, Need::KeyLoggedIn) => Err(json_answer(
            StatusCode::FORBIDDEN,
            &json!({"warning": "You're not logged in!"}),
        )),
        (Caller::Anonymous, _) => Err(err(
            StatusCode::UNAUTHORIZED,
            "No API key supplied. Please supply a valid API key in the \"api-key\" HTTP header.",
            None,
        )),
        (Caller::Key(k), Need::Premium | Need::PremiumWrite) if !k.premium => Err(err(
            StatusCode::FORBIDDEN,
            "This endpoint requires a premium account",
            Some(
                "Your current plan does not include this feature. Upgrade to a Pro plan to use it.",
            ),
        )),
        (Caller::Key(k), Need::PremiumWrite | Need::Write) if !k.readwrite => Err(err(
            StatusCode::FORBIDDEN,
            "This API key does not have the required security scope: readwrite",
            Some("Create an API key with the readwrite scope to use this endpoint."),
        )),
        _ => Ok(c),
    }
}

/// Every endpoint, those that work without a key included, refuses a key
/// that is not UUID-shaped before anything else (the service's gateway does:
/// a malformed key is worse than none).
pub(crate) async fn key_format(
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let malformed = req
        .headers()
        .get("api-key")
        .map(|v| v.to_str().map(str::trim).unwrap_or("?"))
        .is_some_and(|k| !k.is_empty() && !urlscan_rules::api_key_format(k));
    if malformed {
        return err(
            StatusCode::BAD_REQUEST,
            "Invalid API key format",
            Some("The API key must be a UUID."),
        );
    }
    next.run(req).await
}

/// With `compact_json`, JSON answers on one line (see `json_form::compact`).
pub(crate) async fn compact_layout(
    axum::extract::State(st): axum::extract::State<std::sync::Arc<AppState>>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let resp = next.run(req).await;
    let json = resp
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if !st.cfg.compact_json || !json {
        return resp;
    }
    let (mut parts, body) = resp.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, usize::MAX).await else {
        return err(StatusCode::INTERNAL_SERVER_ERROR, "body", None);
    };
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(
        parts,
        axum::body::Body::from(super::json_form::compact(&bytes)),
    )
}

/// A 429's message, in the words the service uses: tools read the wait from
/// it (`Reset in (\d+) seconds`, or its second number), beside the headers.
pub(crate) fn limit_message(action: &str, limit: u64, window: &str, reset_after_s: u64) -> String {
    format!(
        "Rate limit for action '{action}' exceeded (limit: {limit} requests per {window}). Reset in {reset_after_s} seconds."
    )
}

/// The `Ok` value, or return the `Err` answer from the handler.
macro_rules! or_return {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(resp) => return resp,
        }
    };
}
pub(crate) use or_return;

// ---------------------------------------------------------------- rate limits

/// Headers of the action's tightest window; a request that did not end in
/// 200 gives back the place `check_limit` counted (only 200s count).
pub(crate) fn with_limit_headers(
    st: &AppState,
    c: &Caller,
    action: &str,
    mut resp: Response,
) -> Response {
    let now = st.now_ms();
    let mut rl = st.limiter.lock().unwrap();
    if resp.status() != StatusCode::OK {
        rl.refund(&c.subject(), action, now);
    }
    if let Some(snap) = rl.snapshot(&c.subject(), action, c.anonymous(), now) {
        for (k, v) in snap.headers() {
            if let Ok(v) = HeaderValue::from_str(&v) {
                resp.headers_mut().insert(k, v);
            }
        }
    }
    resp
}

/// Count the request against the action's windows, or answer 429 when one
/// is spent. Must be paired with `with_limit_headers`.
pub(crate) fn check_limit(st: &AppState, c: &Caller, action: &str) -> Result<(), Response> {
    let now = st.now_ms();
    let spent = st
        .limiter
        .lock()
        .unwrap()
        .reserve(&c.subject(), action, c.anonymous(), now);
    match spent {
        Err(s) => {
            st.throttled
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let msg = limit_message(&s.action, s.limit, &s.window, s.reset_after_s.max(0) as u64);
            let mut resp = err(StatusCode::TOO_MANY_REQUESTS, &msg, Some("You have exceeded your quota for this action. Wait for the window to reset or upgrade your plan."));
            for (k, v) in s.headers() {
                if let Ok(v) = HeaderValue::from_str(&v) {
                    resp.headers_mut().insert(k, v);
                }
            }
            if let Ok(v) = HeaderValue::from_str(&s.reset_after_s.to_string()) {
                resp.headers_mut().insert(header::RETRY_AFTER, v);
            }
            Err(resp)
        }
        Ok(()) => Ok(()),
    }
}
