//! Any endpoint by its path: the way to reach one this crate does not know yet,
//! with the same key handling, retries and rate-limit pacing as every other call.
use bytes::Bytes;
use reqwest::Method;
use serde_json::Value;

use super::call;
use crate::error::{Error, Result};
use crate::transport::Req;
use crate::Client;

/// The answer to a raw request: its status, content type and body.
#[derive(Debug, Clone)]
pub struct RawAnswer {
    pub status: u16,
    pub content_type: Option<String>,
    pub body: Bytes,
}

impl RawAnswer {
    /// A JSON body (by content type, or by shape when none is given).
    pub fn is_json(&self) -> bool {
        match &self.content_type {
            Some(ct) => ct.split(';').next().is_some_and(|m| {
                let m = m.trim().to_ascii_lowercase();
                m == "application/json" || m.ends_with("+json")
            }),
            None => matches!(
                self.body.iter().find(|b| !b.is_ascii_whitespace()),
                Some(b'{' | b'[')
            ),
        }
    }
}

fn method(m: &str) -> Result<Method> {
    match m.to_ascii_uppercase().as_str() {
        "GET" => Ok(Method::GET),
        "POST" => Ok(Method::POST),
        "PUT" => Ok(Method::PUT),
        "PATCH" => Ok(Method::PATCH),
        "DELETE" => Ok(Method::DELETE),
        other => Err(Error::Validation(format!(
            "method must be GET, POST, PUT, PATCH or DELETE, got {other:?}"
        ))),
    }
}

/// A path below the base URL: absolute, no scheme or host, no query (that is
/// `params`), nothing that could leave the API (`..`) or split the request.
fn path(p: &str) -> Result<String> {
    let bad = |why: &str| Err(Error::Validation(format!("path {p:?} {why}")));
    if !p.starts_with('/') {
        return bad("must start with / (a path below the base URL, e.g. /api/v1/quotas)");
    }
    if p.starts_with("//") || p.contains("://") {
        return bad("must not name a host: the API key goes only to the base URL");
    }
    if p.contains(['?', '#']) {
        return bad("must not hold a query or fragment: pass params= instead");
    }
    if p.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return bad("must not hold spaces or control characters");
    }
    let lower = p.to_ascii_lowercase();
    if p.contains('\\') || lower.contains("%5c") || lower.contains("%2f") {
        // Servers and proxies that read \ as /, or decode before they
        // split, would see segments (and dot segments) the check below cannot.
        return bad("must not hold a backslash or an encoded / or \\");
    }
    // A segment is a dot segment whatever its dots are spelt as: %2e is
    // decoded back to "." by the server.
    let dots = |seg: &str| seg.to_ascii_lowercase().replace("%2e", ".");
    if p.split('/')
        .any(|seg| matches!(dots(seg).as_str(), "." | ".."))
    {
        return bad("must not hold . or .. segments (percent-encoded ones included)");
    }
    Ok(p.to_string())
}

/// The action a request to `path` (below the base URL, no query) with this
/// body is paced as: that of the table row whose method and path pattern match.
fn action_of(method: &Method, path: &str, body: Option<&Value>) -> Option<String> {
    let segs: Vec<&str> = path.trim_matches('/').split('/').collect();
    call::all()
        .find(|ep| ep.method == *method && pattern_matches(ep.path, &segs))
        .and_then(|ep| ep.action_for(body))
}

/// Whether a row's path (`{0}` standing for any one segment) is `segs`.
fn pattern_matches(pattern: &str, segs: &[&str]) -> bool {
    let parts: Vec<&str> = pattern.trim_matches('/').split('/').collect();
    parts.len() == segs.len()
        && parts
            .iter()
            .zip(segs)
            .all(|(p, s)| (p.starts_with('{') && p.ends_with('}') && !s.is_empty()) || p == s)
}

impl Client {
    /// Send one request to `path` below the base URL; a non-2xx answer is an
    /// error like any other call's.
    pub async fn request(
        &self,
        method_name: &str,
        path_text: &str,
        params: Vec<(String, String)>,
        body: Option<Value>,
    ) -> Result<RawAnswer> {
        let m = method(method_name)?;
        let p = path(path_text)?;
        if body.is_some() && m == Method::GET {
            return Err(Error::Validation("a GET request takes no json body".into()));
        }
        let mut req = Req::new(m.clone(), p.clone());
        // Paced as the same call made through its method would be.
        if let Some(a) = action_of(&m, &p, body.as_ref()) {
            req = req.action(a);
        }
        for (k, v) in params {
            req = req.query(k, v);
        }
        if let Some(b) = body {
            req = req.json(b);
        }
        let resp = self.t.send(&req).await?;
        let content_type = resp
            .headers
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        Ok(RawAnswer {
            status: resp.status,
            content_type,
            body: resp.body,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_stay_below_the_base_url() {
        assert!(path("/api/v1/quotas").is_ok());
        for p in [
            "api/v1/quotas",
            "//evil.example/x",
            "/x?y=1",
            "/a/../b",
            "/a/%2e%2e/b",
            "/a/%2E./b",
            "/a/.%2e",
            "/a/%2e/b",
            "/a/..\\b",
            "/a\\b",
            "/a/..%2fb",
            "/a/%5C..",
            "/a b",
            "/x\r\nHost: y",
            "https://evil.example/",
        ] {
            assert!(path(p).is_err(), "{p}");
        }
    }

    #[test]
    fn methods_and_actions() {
        assert_eq!(method("get").unwrap(), Method::GET);
        assert!(method("TRACE").is_err());
        let action = action_of;
        let body = serde_json::json!({"url": "https://x", "visibility": "Unlisted"});
        assert_eq!(
            action(&Method::POST, "/api/v1/scan/", Some(&body)).as_deref(),
            Some("unlisted")
        );
        let paced = [
            (Method::GET, "/api/v1/search/", Some("search")),
            (Method::GET, "/api/v1/result/abc/", Some("retrieve")),
            (Method::PUT, "/api/v1/result/abc/visibility/", None),
            (
                Method::POST,
                "/api/v1/livescan/de01/task/",
                Some("livescan"),
            ),
            (
                Method::POST,
                "/api/v1/livescan/de01/scan/",
                Some("livescan"),
            ),
            // Not live scans, though their paths and names start alike.
            (Method::GET, "/api/v1/livescan/scanners/", None),
            (Method::GET, "/api/v1/livescan/de01/dom/abc", None),
            (Method::GET, "/api/v1/quotas", None),
        ];
        for (m, p, want) in paced {
            assert_eq!(action(&m, p, None).as_deref(), want, "{m} {p}");
        }
    }

    #[test]
    fn json_by_content_type_or_shape() {
        let a = |ct: Option<&str>, body: &'static [u8]| RawAnswer {
            status: 200,
            content_type: ct.map(str::to_string),
            body: Bytes::from_static(body),
        };
        assert!(a(Some("application/json; charset=utf-8"), b"{}").is_json());
        assert!(a(Some("application/problem+json"), b"{}").is_json());
        assert!(!a(Some("image/png"), b"\x89PNG").is_json());
        assert!(a(None, b" [1]").is_json());
        assert!(!a(None, b"<html>").is_json());
    }
}
