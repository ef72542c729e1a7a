//! The malicious lookup (`GET /api/v1/malicious/{type}/{value}`, urlscan Pro),
//! computed from the scans the caller can search: how many finished scans
//! with a malicious verdict showed the observable, and the first and last
//! time one did. `ip` is the page server's IP, `hostname` the page's host
//! exactly, `domain` the page's apex domain (so every subdomain), `url` the
//! page's URL without its scheme, query and fragment (the service
//! canonicalises URLs so). An observable no malicious scan showed gets a
//! count of 0 and no times (EVIDENCE.md says why).
use std::sync::Arc;

use axum::extract::Path;
use axum::response::Response;
use axum::routing::{get, MethodRouter};
use serde_json::{json, Value};

use super::super::answer::{ok_json, validation};
use super::super::premium_model::hostnames::str_at;
use super::super::state::AppState;
use super::common::iso;
use super::entry::Entry;
use super::need;

pub(super) fn routes() -> Vec<(&'static str, MethodRouter<Arc<AppState>>)> {
    vec![("/api/v1/malicious/{kind}/{value}", get(malicious))]
}

/// A URL as the lookup compares it: host (lower case) and path, no scheme,
/// query or fragment, nor a trailing slash.
pub(crate) fn url_key(url: &str) -> String {
    let t = url.trim();
    let full = if t.contains("://") {
        t.to_string()
    } else {
        format!("http://{t}")
    };
    match url::Url::parse(&full) {
        Ok(u) => {
            let host = u.host_str().unwrap_or_default().to_ascii_lowercase();
            let port = u.port().map(|p| format!(":{p}")).unwrap_or_default();
            format!("{host}{port}{}", u.path().trim_end_matches('/'))
        }
        Err(_) => t.split(['?', '#']).next().unwrap_or(t).to_string(),
    }
}

/// What the scan's document says for this kind of observable.
fn key_of(doc: &Value, kind: &str) -> Option<String> {
    match kind {
        "ip" => str_at(doc, "page.ip"),
        "hostname" => str_at(doc, "page.domain").map(|h| h.to_ascii_lowercase()),
        "domain" => str_at(doc, "page.apexDomain").map(|h| h.to_ascii_lowercase()),
        _ => str_at(doc, "page.url").map(|u| url_key(&u)),
    }
}

async fn malicious(
    Path((kind, value)): Path<(String, String)>,
    req: Entry<need::Premium>,
) -> Response {
    let kind = kind.to_ascii_lowercase();
    if !urlscan_rules::MALICIOUS_TYPES.contains(&kind.as_str()) {
        return validation(&format!(
            "\"type\" must be one of [{}]",
            urlscan_rules::MALICIOUS_TYPES.join(", ")
        ));
    }
    if let Err(why) = urlscan_rules::observable(&value) {
        return validation(&format!("\"value\" {why}"));
    }
    let wanted = match kind.as_str() {
        "url" => url_key(&value),
        "ip" => value.trim().to_string(),
        _ => value.trim().trim_end_matches('.').to_ascii_lowercase(),
    };
    let (mut count, mut first, mut last) = (0u64, None::<i64>, None::<i64>);
    req.each_malicious_scan(|e| {
        if key_of(&e.doc, &kind).as_deref() == Some(wanted.as_str()) {
            count += 1;
            let t = e.spec.time_ms;
            first = Some(first.map_or(t, |f| f.min(t)));
            last = Some(last.map_or(t, |l| l.max(t)));
        }
    });
    ok_json(json!({
        "observable": wanted,
        "type": kind,
        "count": count,
        "firstSeen": first.map(iso),
        "lastSeen": last.map(iso),
    }))
}

#[cfg(test)]
mod tests {
    use super::url_key;

    #[test]
    fn urls_are_compared_without_scheme_and_query() {
        for u in [
            "https://Evil.example/login?x=1#top",
            "http://evil.example/login/",
            "evil.example/login",
        ] {
            assert_eq!(url_key(u), "evil.example/login", "{u}");
        }
        assert_eq!(url_key("https://evil.example"), "evil.example");
        assert_ne!(
            url_key("https://evil.example:8443/a"),
            url_key("https://evil.example/a")
        );
    }
}
