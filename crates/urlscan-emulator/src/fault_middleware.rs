//! The HTTP layer that applies the fault plan (see `faults`) to the
//! requests it matches, in front of the handlers.
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use serde_json::Value;

use super::answer::err;
use super::faults::{FaultKind, FaultSpec};
use super::ratelimit::Snapshot;
use super::state::AppState;

/// Apply the first matching fault of the plan, or pass the request on.
pub async fn middleware(State(st): State<Arc<AppState>>, req: Request, next: Next) -> Response {
    let fault = st
        .faults
        .lock()
        .unwrap()
        .next(req.method().as_str(), req.uri().path());
    match fault {
        None => next.run(req).await,
        Some(f) => {
            log::info!(
                "injecting a {:?} fault into {} {}",
                f.kind.name(),
                req.method(),
                req.uri().path()
            );
            apply(&st, &f, req, next).await
        }
    }
}

async fn apply(st: &AppState, f: &FaultSpec, req: Request, next: Next) -> Response {
    let status = f
        .status
        .and_then(|s| StatusCode::from_u16(s).ok())
        .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    match f.kind {
        FaultKind::Status => {
            let mut resp = err(status, reason(status), None);
            retry_after(resp.headers_mut(), f.seconds);
            resp
        }
        FaultKind::RateLimit => rate_limited(st, f.seconds.unwrap_or(1.0), req).await,
        FaultKind::Reset => reset(),
        FaultKind::Stall => {
            tokio::time::sleep(Duration::from_secs_f64(f.seconds.unwrap_or(0.0))).await;
            next.run(req).await
        }
        FaultKind::Slow => slow(next.run(req).await, f.seconds.unwrap_or(0.0)).await,
        FaultKind::Truncate => truncate(next.run(req).await).await,
        FaultKind::Malformed => {
            ([(header::CONTENT_TYPE, "application/json")], MALFORMED_JSON).into_response()
        }
        FaultKind::HtmlError => {
            let mut resp = html_answer(status);
            retry_after(resp.headers_mut(), f.seconds);
            resp
        }
        FaultKind::Redirect => {
            let mut resp = html_answer(status);
            if let Some(v) = f
                .location
                .as_deref()
                .and_then(|l| HeaderValue::from_str(l).ok())
            {
                resp.headers_mut().insert(header::LOCATION, v);
            }
            resp
        }
    }
}

/// A body cut short inside the JSON, as a broken proxy or server might send.
const MALFORMED_JSON: &str = "{\"results\": [";

fn reason(s: StatusCode) -> &'static str {
    s.canonical_reason().unwrap_or("Error")
}

/// A proxy's HTML page with that status.
fn html_answer(status: StatusCode) -> Response {
    let html = [(header::CONTENT_TYPE, "text/html")];
    (status, html, html_page(status)).into_response()
}

/// A proxy's error page (nginx style).
fn html_page(s: StatusCode) -> String {
    let title = format!("{} {}", s.as_u16(), reason(s));
    format!(
        "<html>\r\n<head><title>{title}</title></head>\r\n<body>\r\n<center><h1>{title}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"
    )
}

/// Seconds as a header value: whole numbers without a fraction.
fn fmt_secs(s: f64) -> String {
    if s.fract() == 0.0 {
        format!("{}", s as u64)
    } else {
        format!("{s}")
    }
}

fn retry_after(h: &mut HeaderMap, seconds: Option<f64>) {
    if let Some(v) = seconds.and_then(|s| HeaderValue::from_str(&fmt_secs(s)).ok()) {
        h.insert(header::RETRY_AFTER, v);
    }
}

/// The rate-limit action of a request, as the emulator's limiter counts it:
/// a submission counts against its visibility.
fn action_of(method: &Method, path: &str, body: &[u8]) -> String {
    if method == Method::POST && path.starts_with("/api/v1/scan") {
        let v: Option<Value> = serde_json::from_slice(body).ok();
        return match v.as_ref().and_then(|v| v.get("visibility")?.as_str()) {
            Some(s @ ("unlisted" | "private")) => s.to_string(),
            _ => "public".to_string(),
        };
    }
    if path.starts_with("/api/v1/livescan/") {
        return "livescan".into();
    }
    match super::state::group_of(path) {
        "search" => "search".into(),
        _ => "retrieve".into(),
    }
}

/// A 429 as the limiter sends it, for a minute window spent for `secs` more seconds.
async fn rate_limited(st: &AppState, secs: f64, req: Request) -> Response {
    let (parts, body) = req.into_parts();
    let anonymous = parts
        .headers
        .get("api-key")
        .and_then(|v| v.to_str().ok())
        .is_none_or(|k| k.trim().is_empty());
    let body = if parts.method == Method::POST {
        axum::body::to_bytes(body, 1 << 20)
            .await
            .unwrap_or_default()
    } else {
        Bytes::new()
    };
    let action = action_of(&parts.method, parts.uri.path(), &body);
    let limit = st
        .cfg
        .rate_limits
        .get(&action)
        .and_then(|l| l.get("minute"))
        .map(|n| if anonymous { (n / 10).max(1) } else { n })
        .unwrap_or(60);
    let now = st.now_ms();
    let snap = Snapshot {
        scope: if anonymous { "ip-address" } else { "user" }.to_string(),
        action: action.clone(),
        window: "minute".into(),
        limit,
        remaining: 0,
        reset_ms: now + (secs * 1000.0).round() as i64,
        reset_after_s: secs.ceil() as i64,
    };
    let msg = super::answer::limit_message(&action, limit, "minute", secs.ceil() as u64);
    let mut resp = err(
        StatusCode::TOO_MANY_REQUESTS,
        &msg,
        Some("You have exceeded your quota for this action. Wait for the window to reset or upgrade your plan."),
    );
    let h = resp.headers_mut();
    for (k, v) in snap.headers() {
        if let Ok(v) = HeaderValue::from_str(&v) {
            h.insert(k, v);
        }
    }
    if let Ok(v) = HeaderValue::from_str(&fmt_secs(secs)) {
        h.insert("x-rate-limit-reset-after", v);
    }
    retry_after(h, Some(secs));
    resp
}

/// An answer whose body fails before anything is sent: hyper then drops the
/// connection without writing the status line, so the client sees the
/// connection close with no response at all.
fn reset() -> Response {
    let s = futures::stream::once(async {
        Err::<Bytes, _>(std::io::Error::new(
            std::io::ErrorKind::ConnectionReset,
            "injected connection reset",
        ))
    });
    Response::new(Body::from_stream(s))
}

/// The handler's answer with its body read whole and a Content-Length of it.
async fn whole_body(resp: Response) -> (axum::http::response::Parts, Bytes) {
    let (mut parts, body) = resp.into_parts();
    let bytes = axum::body::to_bytes(body, usize::MAX)
        .await
        .unwrap_or_default();
    parts
        .headers
        .insert(header::CONTENT_LENGTH, HeaderValue::from(bytes.len()));
    (parts, bytes)
}

/// The handler's status and headers with a Content-Length of the full body,
/// then half of the body, then the connection closes.
async fn truncate(resp: Response) -> Response {
    let (parts, bytes) = whole_body(resp).await;
    let half = bytes.slice(..bytes.len() / 2);
    let first = futures::stream::iter((!half.is_empty()).then_some(Ok(half)));
    // Wait a moment so hyper flushes what it has, then fail the body: hyper
    // closes the connection short of the announced length.
    let end = futures::stream::once(async {
        tokio::time::sleep(Duration::from_millis(50)).await;
        Err(std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            "injected truncation",
        ))
    });
    Response::from_parts(parts, Body::from_stream(first.chain(end)))
}

/// The handler's answer, its body sent in up to 20 pieces spread over `secs`.
async fn slow(resp: Response, secs: f64) -> Response {
    let (parts, bytes) = whole_body(resp).await;
    if bytes.is_empty() {
        tokio::time::sleep(Duration::from_secs_f64(secs)).await;
        return Response::from_parts(parts, Body::empty());
    }
    let pieces = bytes.len().min(20);
    let size = bytes.len().div_ceil(pieces);
    let chunks: Vec<Bytes> = (0..bytes.len())
        .step_by(size)
        .map(|i| bytes.slice(i..(i + size).min(bytes.len())))
        .collect();
    let pause = Duration::from_secs_f64(secs / chunks.len() as f64);
    let stream = futures::stream::iter(chunks).then(move |c| async move {
        tokio::time::sleep(pause).await;
        Ok::<_, Infallible>(c)
    });
    Response::from_parts(parts, Body::from_stream(stream))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_like_the_limiter() {
        let post = Method::POST;
        assert_eq!(
            action_of(&post, "/api/v1/scan/", br#"{"visibility":"private"}"#),
            "private"
        );
        assert_eq!(action_of(&post, "/api/v1/scan/", b"{}"), "public");
        assert_eq!(action_of(&Method::GET, "/api/v1/search/", b""), "search");
        assert_eq!(
            action_of(&Method::GET, "/api/v1/result/abc/", b""),
            "retrieve"
        );
        assert_eq!(
            action_of(&post, "/api/v1/livescan/de01/task/", b""),
            "livescan"
        );
    }
}
