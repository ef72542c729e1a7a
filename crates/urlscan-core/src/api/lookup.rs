//! Search before you scan: the service asks integrations to look for a
//! recent scan of a URL before submitting it again. `lookup_or_scan` reuses a
//! finished scan of the same URL within `max_age`, else submits and waits.
use std::sync::Arc;

use serde_json::Value;

use super::batch::{in_order, Progress};
use super::scanning::{ScanOptions, WaitOptions};
use super::search::{SearchKind, SearchParams};
use crate::client::Client;
use crate::error::{ApiErrorKind, Error, Result};
use crate::models::{Doc, ResultHead};
use crate::runtime::Task;
use crate::validate;

/// Hits of the search looked at: the newest scans of the URL in the window.
const CANDIDATES: u64 = 10;
/// Longest `max_age`: the service keeps no scan longer than years.
const MAX_AGE_LIMIT: f64 = 10.0 * 366.0 * 86400.0;

/// What `lookup_or_scan` found or made.
#[derive(Debug, Clone)]
pub struct Lookup {
    pub url: String,
    pub result: Option<Doc<ResultHead>>,
    /// True: an earlier finished scan was reused; false: a new one was made.
    pub reused: Option<bool>,
    pub uuid: Option<String>,
    pub error: Option<Error>,
    /// The malicious lookup's answer (urlscan Pro), when it was asked first.
    pub malicious: Option<Value>,
}

/// The search for scans of `url` (as given and as the service writes it)
/// younger than `max_age` seconds, in the largest whole unit of ES date math.
pub fn lookup_query(forms: &[&str], max_age: u64) -> String {
    let phrase = |u: &str| {
        format!(
            "task.url:\"{}\"",
            u.replace('\\', "\\\\").replace('"', "\\\"")
        )
    };
    let urls: Vec<String> = forms.iter().map(|u| phrase(u)).collect();
    let urls = if urls.len() == 1 {
        urls[0].clone()
    } else {
        format!("({})", urls.join(" OR "))
    };
    let age = [(86400, 'd'), (3600, 'h'), (60, 'm')]
        .iter()
        .find(|(unit, _)| max_age % unit == 0)
        .map(|(unit, c)| format!("{}{c}", max_age / unit))
        .unwrap_or_else(|| format!("{max_age}s"));
    format!("{urls} AND date:>now-{age}")
}

/// The same URL once both are normalised as the lookup searches for them
/// ([`normal_url`]); unparsable ones compared as given.
fn same_url(a: &str, b: &str) -> bool {
    normal_url(a) == normal_url(b)
}

/// The uuid of a hit that may be reused: a scan of `url`, of the visibility
/// asked (any, when none was), whose page answered (its `page.status` is
/// there and not 0: a page that did not load is scanned again).
fn reusable(hit: &Value, url: &str, visibility: Option<&str>) -> Option<String> {
    let task = hit.get("task")?;
    // A malformed uuid is one hit passed over, not the end of the lookup.
    let uuid = validate::uuid("uuid", task.get("uuid")?.as_str()?).ok()?;
    if !same_url(task.get("url")?.as_str()?, url) {
        return None;
    }
    if let Some(asked) = visibility {
        if !task
            .get("visibility")?
            .as_str()?
            .eq_ignore_ascii_case(asked)
        {
            return None;
        }
    }
    let status = match hit.get("page")?.get("status")? {
        Value::String(s) => s.trim().parse::<u32>().ok()?,
        Value::Number(n) => u32::try_from(n.as_u64()?).ok()?,
        _ => return None,
    };
    (status != 0).then_some(uuid)
}

/// One URL however it is spelt (scheme and host case, default port, empty path, no scheme):
/// the form a lookup searches for and compares with, and a batch looks a URL up once by.
pub fn normal_url(url: &str) -> String {
    let url = as_scanned(url.trim());
    url::Url::parse(&url).map(|u| u.to_string()).unwrap_or(url)
}

/// The URL as the service scans it: one without a scheme as http.
fn as_scanned(url: &str) -> String {
    if url.contains("://") {
        url.to_string()
    } else {
        format!("http://{url}")
    }
}

/// An error of one candidate's result (gone, pending, forbidden, not what it should be), after
/// which the next candidate is tried; any other ends the lookup.
fn candidate_only(e: &Error) -> bool {
    match e {
        Error::Decode(_) => true,
        Error::Api(a) => matches!(
            a.kind,
            ApiErrorKind::NotFound
                | ApiErrorKind::Gone
                | ApiErrorKind::ScanPending
                | ApiErrorKind::PermissionDenied
        ),
        _ => false,
    }
}

impl Client {
    /// Reuse the newest finished scan of `url` younger than `max_age`
    /// seconds (0: never reuse), else submit it and wait for the result.
    /// With `check_malicious`, the malicious lookup is asked first, and a URL
    /// malicious scans already showed is neither searched nor scanned.
    pub async fn lookup_or_scan(
        &self,
        url: &str,
        opts: &ScanOptions,
        max_age: f64,
        w: WaitOptions,
        check_malicious: bool,
    ) -> Result<Lookup> {
        if !(0.0..=MAX_AGE_LIMIT).contains(&max_age) {
            return Err(Error::Validation(format!(
                "max_age must be between 0 and {MAX_AGE_LIMIT} seconds (ten years), got {max_age}"
            )));
        }
        let w = w.validated()?;
        // Checked as a submission would be, before anything is sent.
        let body = opts.body(url)?;
        let sent = body["url"].as_str().unwrap_or(url).to_string();
        let malicious = match check_malicious {
            true => Some(self.malicious_count(&sent).await?),
            false => None,
        };
        let known = malicious.as_ref().and_then(|m| m.get("count")?.as_u64()) > Some(0);
        if known {
            return Ok(Lookup {
                url: url.to_string(),
                result: None,
                reused: None,
                uuid: None,
                error: None,
                malicious,
            });
        }
        let secs = max_age.ceil() as u64;
        if secs > 0 {
            if let Some((uuid, doc)) = self.reuse(&sent, opts.visibility(), secs).await? {
                return Ok(Lookup {
                    url: url.to_string(),
                    result: Some(doc),
                    reused: Some(true),
                    uuid: Some(uuid),
                    error: None,
                    malicious,
                });
            }
        }
        let doc = self.scan_and_wait(&sent, opts, w).await?;
        Ok(Lookup {
            url: url.to_string(),
            uuid: doc.head.task.as_ref().and_then(|t| t.uuid.clone()),
            result: Some(doc),
            reused: Some(false),
            error: None,
            malicious,
        })
    }

    /// The malicious lookup's answer for a URL as it would be scanned: an
    /// object whose `count` is a number, else a `DecodeError`.
    async fn malicious_count(&self, url: &str) -> Result<Value> {
        let ids = ["url".to_string(), as_scanned(url)];
        let body = self
            .call_raw("malicious", &ids, &Default::default())
            .await?;
        let answer: Value = serde_json::from_slice(&body)
            .map_err(|e| Error::Decode(format!("malicious lookup of {url}: {e}")))?;
        match answer.get("count") {
            Some(Value::Number(_)) | None | Some(Value::Null) => Ok(answer),
            Some(other) => Err(Error::Decode(format!(
                "malicious lookup of {url}: count must be a number, got {other}"
            ))),
        }
    }

    /// The newest reusable scan of `url` and its result, if any. A hit whose
    /// result is gone (404, 410: deleted since it was indexed) is passed over.
    async fn reuse(
        &self,
        url: &str,
        visibility: Option<&str>,
        max_age: u64,
    ) -> Result<Option<(String, Doc<ResultHead>)>> {
        // A URL without a scheme is scanned as http (the service's rule): searched and
        // compared as that.
        let url = &as_scanned(url);
        let normal = normal_url(url);
        let mut forms = vec![url.as_str()];
        if normal != *url {
            forms.push(&normal);
        }
        let mut q = lookup_query(&forms, max_age);
        if let Some(v) = visibility {
            // Asked of the service too, so newer scans of another visibility do not crowd
            // the candidates out.
            q = format!("{q} AND task.visibility:{}", v.to_ascii_lowercase());
        }
        let mut p = SearchParams::new(SearchKind::Search);
        p.query.insert("q".into(), q.into());
        // Always asked afresh: a search page kept by a cache would hide a scan made since.
        p.fresh = true;
        let page = self.search_page(&p, CANDIDATES, None).await?;
        let hits: Value = serde_json::from_slice(&page.body)
            .map_err(|e| Error::Decode(format!("search page: {e}")))?;
        let candidates = hits
            .get("results")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|h| reusable(h, url, visibility));
        for uuid in candidates {
            match self.result(&uuid).await {
                // The hit said this URL; the result must say so too, or it is not reused.
                Ok(doc) => match doc.head.task.as_ref().and_then(|t| t.url.as_deref()) {
                    Some(u) if same_url(u, url) => return Ok(Some((uuid, doc))),
                    other => log::info!(
                        "scan {uuid} was found for {url} but its result is of {}: passed over",
                        other.map_or("no URL".to_string(), |u| format!(
                            "{:?}",
                            validate::shown(u, 200)
                        ))
                    ),
                },
                // The key, the quota, the connection: the next candidate would fail the same way.
                Err(e) if !candidate_only(&e) => return Err(e),
                Err(e) => {
                    log::info!("scan {uuid} of {url} was found but its result cannot be read: {e}");
                }
            }
        }
        Ok(None)
    }

    /// `lookup_or_scan` for many URLs, in input order, a failure as the
    /// item's error; at most `concurrency` requests in flight. A URL given
    /// twice is looked up once (two lookups at once would both scan it).
    #[allow(clippy::too_many_arguments)]
    pub async fn lookup_or_scan_many(
        &self,
        urls: Vec<String>,
        opts: &ScanOptions,
        max_age: f64,
        w: WaitOptions,
        check_malicious: bool,
        concurrency: usize,
        progress: Option<Progress>,
    ) -> Result<Vec<Lookup>> {
        let concurrency = validate::positive("concurrency", concurrency as i64)? as usize;
        let w = w.validated()?;
        let gated = self.gated(concurrency);
        let opts = Arc::new(opts.clone());
        let job = |url: String| {
            let (c, opts, u) = (gated.clone(), Arc::clone(&opts), url.clone());
            async move {
                let job = Task::spawn(async move {
                    c.lookup_or_scan(&u, &opts, max_age, w, check_malicious)
                        .await
                });
                job.join("lookup")
                    .await
                    .and_then(|r| r)
                    .unwrap_or_else(|e| Lookup {
                        url,
                        result: None,
                        reused: None,
                        uuid: None,
                        error: Some(e),
                        malicious: None,
                    })
            }
        };
        // One URL however it is spelt is looked up (and scanned) once.
        let mut distinct: Vec<String> = Vec::new();
        let mut at = std::collections::HashMap::new();
        let slots: Vec<usize> = urls
            .iter()
            .map(|u| {
                *at.entry(normal_url(u)).or_insert_with(|| {
                    distinct.push(u.clone());
                    distinct.len() - 1
                })
            })
            .collect();
        // Every pipeline runs at once; the gate bounds the requests themselves.
        let found = in_order(distinct, None, progress, job).await;
        // Each item answers the URL as its caller gave it.
        Ok(slots
            .into_iter()
            .zip(urls)
            .map(|(i, url)| Lookup {
                url,
                ..found[i].clone()
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_url_without_a_scheme_is_an_http_one() {
        assert_eq!(as_scanned("example.com/x"), "http://example.com/x");
        assert_eq!(as_scanned("https://example.com/"), "https://example.com/");
        assert!(candidate_only(&Error::Decode("x".into())));
        assert!(!candidate_only(&Error::Transport("x".into())));
    }

    #[test]
    fn the_query_names_the_url_and_the_window() {
        assert_eq!(
            lookup_query(&["https://a.example/x?q=\"1\""], 86400),
            r#"task.url:"https://a.example/x?q=\"1\"" AND date:>now-1d"#
        );
        assert_eq!(
            lookup_query(&["https://a.example", "https://a.example/"], 5400),
            r#"(task.url:"https://a.example" OR task.url:"https://a.example/") AND date:>now-90m"#
        );
        assert!(lookup_query(&["u"], 61).ends_with("now-61s"));
        assert!(lookup_query(&["u"], 7200).ends_with("now-2h"));
    }

    const U1: &str = "0a1b2c3d-0000-4000-8000-000000000001";

    #[test]
    fn one_url_however_it_is_spelt() {
        for u in [
            "HTTP://Example.COM",
            "http://example.com:80/",
            "example.com",
            " http://example.com ",
        ] {
            assert_eq!(normal_url(u), "http://example.com/", "{u}");
        }
        assert_ne!(
            normal_url("https://example.com/"),
            normal_url("example.com")
        );
        // A malformed uuid in a hit is that hit passed over.
        let hit = json!({"task": {"uuid": "../../x", "url": "http://example.com/"}, "page": {"status": 200}});
        assert_eq!(reusable(&hit, "http://example.com/", None), None);
    }

    #[test]
    fn only_loaded_pages_of_the_url_and_visibility_are_reused() {
        let hit = |url: &str, vis: &str, status: Value| json!({"task": {"uuid": U1, "url": url, "visibility": vis}, "page": {"status": status}});
        let u = "https://A.example";
        assert_eq!(
            reusable(&hit("https://a.example/", "public", json!("200")), u, None).as_deref(),
            Some(U1)
        );
        assert_eq!(
            reusable(
                &hit("https://a.example/", "private", json!(200)),
                u,
                Some("private")
            ),
            Some(U1.into())
        );
        assert_eq!(
            reusable(
                &hit("https://a.example/", "public", json!("200")),
                u,
                Some("private")
            ),
            None
        );
        assert_eq!(
            reusable(&hit("https://a.example/b", "public", json!("200")), u, None),
            None
        );
        assert_eq!(
            reusable(&hit("https://a.example/", "public", json!("0")), u, None),
            None
        );
        assert_eq!(
            reusable(&hit("https://a.example/", "public", json!(null)), u, None),
            None
        );
        assert_eq!(
            reusable(&json!({"task": {"uuid": U1, "url": u}}), u, None),
            None
        );
        assert_eq!(reusable(&json!({"task": 3}), u, None), None);
    }
}
