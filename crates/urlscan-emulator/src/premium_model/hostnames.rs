//! The hostnames data source: one document per hostname the caller's
//! searchable scans saw.
use std::collections::{BTreeMap, HashSet};

use serde_json::{json, Value};

use super::super::document::Doc;
use super::super::state::{lookup, AppState, Caller, Entry};
use super::{hex_sha256, iso};

/// A hostname as the hostnames datasource indexes it.
struct HostAgg {
    first: i64,
    last: i64,
    apex: Option<String>,
    sources: Vec<&'static str>,
}

/// The hostnames a scan saw, once each: the listed domains and the page's own host.
pub(crate) fn host_names(e: &Entry) -> Vec<String> {
    let mut names: Vec<String> = e
        .doc
        .get("domain")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|d| d.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    if let Some(p) = str_at(&e.doc, "page.domain") {
        names.push(p);
    }
    let mut uniq = HashSet::new();
    names.retain(|n| uniq.insert(n.clone()));
    names
}

/// Documents of the hostnames data source: one per hostname seen in the
/// caller's searchable scans, with fields `hostname`, `domain` and
/// `apexDomain` (the registrable domain), `date` (last seen), `first_seen`,
/// `last_seen`, `sources` and `_id` (24 hex characters of the hostname's
/// SHA-256); they sort by last seen.
pub(crate) fn documents(st: &AppState, c: &Caller, now: i64) -> Vec<Doc> {
    let mut hosts: BTreeMap<String, HostAgg> = BTreeMap::new();
    {
        let store = st.store();
        for e in store.by_time.values() {
            if !e.finished(now) || !e.searchable_by(c) {
                continue;
            }
            let page_host = str_at(&e.doc, "page.domain");
            for n in host_names(e) {
                let page = page_host.as_deref() == Some(n.as_str());
                let a = hosts.entry(n).or_insert(HostAgg {
                    first: e.spec.time_ms,
                    last: e.spec.time_ms,
                    apex: None,
                    sources: vec!["pdns"],
                });
                a.first = a.first.min(e.spec.time_ms);
                a.last = a.last.max(e.spec.time_ms);
                let src = if page { "scan" } else { "scan-link" };
                if !a.sources.contains(&src) {
                    a.sources.push(src);
                }
                if page && a.apex.is_none() {
                    a.apex = str_at(&e.doc, "page.apexDomain");
                }
            }
        }
    }
    hosts
        .into_iter()
        .map(|(h, a)| {
            let apex = a.apex.clone().unwrap_or_else(|| approx_apex(&h));
            document(&h, &apex, a.first, a.last, a.sources)
        })
        .collect()
}

/// The data-source document of one hostname: first and last seen (epoch ms)
/// and the sources it was seen by; `_id` is 24 hex characters of its SHA-256.
pub(crate) fn document(
    host: &str,
    apex: &str,
    first: i64,
    last: i64,
    mut sources: Vec<&str>,
) -> Doc {
    sources.sort();
    let id = hostname_id(host);
    let doc = json!({
        "hostname": host,
        "domain": apex,
        "apexDomain": apex,
        "date": iso(last),
        "first_seen": iso(first),
        "last_seen": iso(last),
        "sources": sources,
        "_id": id,
    });
    Doc { ms: last, id, doc }
}

/// A hostname's `_id` (and a domain hit's, for the same name): 24 hex
/// characters of the SHA-256 of the name.
pub(crate) fn hostname_id(host: &str) -> String {
    hex_sha256(host.as_bytes())[..24].to_string()
}

/// Registrable domain, for hosts no scanned page reported one for.
pub(crate) fn approx_apex(host: &str) -> String {
    if host.parse::<std::net::IpAddr>().is_ok() {
        return host.to_string();
    }
    const SECOND_LEVEL: &[&str] = &[
        "co.uk",
        "org.uk",
        "ac.uk",
        "gov.uk",
        "com.au",
        "net.au",
        "org.au",
        "co.jp",
        "ne.jp",
        "or.jp",
        "com.br",
        "co.nz",
        "co.in",
        "com.cn",
        "com.tr",
        "co.za",
        "com.mx",
        "github.io",
        "web.app",
        "pages.dev",
        "netlify.app",
        "vercel.app",
        "herokuapp.com",
        "appspot.com",
        "blogspot.com",
        "azurewebsites.net",
        "cloudfront.net",
    ];
    let labels: Vec<&str> = host.split('.').collect();
    let n = labels.len();
    if n <= 2 {
        return host.to_string();
    }
    let last2 = labels[n - 2..].join(".");
    let keep = if SECOND_LEVEL.contains(&last2.as_str()) {
        3
    } else {
        2
    };
    labels[n - keep..].join(".")
}

pub(crate) fn str_at(doc: &Value, path: &str) -> Option<String> {
    lookup(doc, path).and_then(Value::as_str).map(String::from)
}
