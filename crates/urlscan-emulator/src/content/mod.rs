//! Realistic, deterministic content for emulated scans.
//!
//! Everything here is a pure function of a [`ScanSpec`]: the same spec always
//! yields byte-identical result documents, search hits, DOM snapshots,
//! response bodies and screenshots. Three seeds are used so that the output
//! behaves like the real service when searched across many scans:
//!
//! * site-level facts (hosting network, IP address, server, CMS, third-party
//!   services, page text) come from the host name, so every scan of a site
//!   shows the same infrastructure and the same resource hashes;
//! * scan-level details (timings, request ids, cookie values, console noise,
//!   IPv6 use, a default scanner country) come from SHA-256 of uuid + url;
//! * phishing verdicts come from the URL itself (brand names glued to
//!   phishing words on a domain the brand does not own), so a submitted
//!   `paypal-secure-login.xyz` is flagged just like a seeded one.

mod apply;
mod assets;
mod browser;
mod corpus;
mod facts;
#[cfg(test)]
mod golden;
mod helpers;
mod html;
mod model;
mod outcome;
pub mod planted;
mod requests;
mod result;
mod screenshot;
mod shared;
mod sites;
mod spec;
#[cfg(test)]
mod tests;
mod tls;
mod urls;
mod verdicts;
pub(super) mod words;

use serde_json::{json, Value};

pub use corpus::corpus;
pub use facts::{scenario_spec, Facts, OUTCOMES};
use helpers::h64;
use model::Model;
pub use spec::{Planted, ScanSpec};

/// The full result document, as `GET /api/v1/result/{uuid}/` returns it.
///
/// `base_url` (like `http://127.0.0.1:8000`, no trailing slash) prefixes
/// `task.reportURL`, `task.screenshotURL` and `task.domURL`.
pub fn result_json(spec: &ScanSpec, base_url: &str) -> Value {
    if let Some(p) = &spec.planted {
        return planted::result(p, spec, base_url);
    }
    let mut doc = Model::build(spec).result(base_url);
    let (size, title) = result_size(base_url);
    if let Some(chars) = title {
        // A hostile page: a title of `chars` characters (words of the page's own title).
        let words = doc["page"]["title"]
            .as_str()
            .filter(|t| !t.is_empty())
            .unwrap_or("title")
            .to_string();
        // Characters, not bytes: titles hold non-ASCII ones ("–").
        let long: String = words
            .chars()
            .chain(std::iter::once(' '))
            .cycle()
            .take(chars)
            .collect();
        doc["page"]["title"] = Value::String(long);
    }
    if let Some((lo, hi)) = size {
        pad_result(&mut doc, &spec.uuid, lo, hi);
    }
    doc
}

/// The result document of `spec` with `facts` applied wherever the service
/// shows them (`facts.rs`), as the generator renders it: what
/// `urlscan_rs.testing.result` returns. No facts give [`result_json`]'s
/// document (without an emulator's size settings).
pub fn built_result(spec: &ScanSpec, facts: &Facts, base_url: &str) -> Result<Value, String> {
    facts::check_against(spec, facts)?;
    let tagged;
    let spec = match &facts.tags {
        Some(tags) => {
            tagged = ScanSpec {
                tags: tags.clone(),
                ..spec.clone()
            };
            &tagged
        }
        None => spec,
    };
    Ok(Model::build_with(spec, facts).result(base_url))
}

/// The DOM snapshot of the page [`built_result`] describes (its `<title>`
/// is the facts' title).
pub fn built_dom(spec: &ScanSpec, facts: &Facts) -> String {
    Model::build_with(spec, facts).dom
}

/// How big each emulator's result documents are (keyed by its base URL):
/// `(min, max)` bytes of the document as served, and the characters of a
/// page title.
type Sizes = (Option<(usize, usize)>, Option<usize>);
static RESULT_SIZES: std::sync::RwLock<Vec<(String, Sizes)>> = std::sync::RwLock::new(Vec::new());

/// Make the result documents served under `base_url` weigh between `min`
/// and `max` bytes (deterministically per scan), or restore the natural size
/// with `None`.
pub fn set_result_size(base_url: &str, range: Option<(usize, usize)>) {
    set_sizes(base_url, |s| s.0 = range);
}

/// Give every page served under `base_url` a title of `chars` characters
/// (a hostile page), or its own title with `None`.
pub fn set_title_size(base_url: &str, chars: Option<usize>) {
    set_sizes(base_url, |s| s.1 = chars);
}

fn set_sizes(base_url: &str, change: impl FnOnce(&mut Sizes)) {
    let mut sizes = RESULT_SIZES.write().unwrap_or_else(|e| e.into_inner());
    let mut entry = sizes
        .iter()
        .position(|(b, _)| b == base_url)
        .map_or((None, None), |i| sizes.remove(i).1);
    change(&mut entry);
    if entry != (None, None) {
        sizes.push((base_url.to_string(), entry));
    }
}

fn result_size(base_url: &str) -> Sizes {
    let sizes = RESULT_SIZES.read().unwrap_or_else(|e| e.into_inner());
    if sizes.is_empty() {
        return (None, None);
    }
    sizes
        .iter()
        .find(|(b, _)| b == base_url)
        .map_or((None, None), |(_, s)| *s)
}

/// Grow a result document to a size drawn per scan from `lo..=hi` bytes, the
/// way big real pages are big: more `data.requests` entries, copies of the
/// page's own requests under fresh request ids, each round of copies on hosts
/// of its own (`r<round>.<host>`, each with an address of 198.18.0.0/15),
/// listed in `lists.urls`, `lists.domains` and `lists.ips` as the service
/// lists what a page loaded (a real 5.2 MB result: 525 requests, 102
/// domains). A document already larger than the target is left as it is;
/// the result never exceeds `hi` because of the padding.
fn pad_result(doc: &mut Value, uuid: &str, lo: usize, hi: usize) {
    let (lo, hi) = (lo.min(hi), hi.max(lo));
    let target = lo + (h64(&["result-size", uuid]) % (hi - lo + 1) as u64) as usize;
    // Sizes are of the document as served (`json_form`): an element of
    // `data.requests` or of a `lists` list sits three levels deep (six
    // spaces on each of its lines) after ",\n". A few bytes are kept spare
    // for the lists that were empty.
    let hi = hi.saturating_sub(64);
    let at_depth_3 = |v: &Value| {
        let text = crate::json_form::render(v);
        let lines = text.iter().filter(|b| **b == b'\n').count() + 1;
        text.len() + 6 * lines + 2
    };
    let mut size = crate::json_form::render(doc).len();
    let Some(Value::Array(reqs)) = doc.pointer_mut("/data/requests") else {
        return;
    };
    if reqs.is_empty() || size >= target {
        return;
    }
    let base: Vec<(Value, usize)> = reqs.iter().map(|r| (r.clone(), at_depth_3(r))).collect();
    let (mut urls, mut hosts, mut ips) = (Vec::new(), Vec::new(), Vec::new());
    let mut k = 0usize;
    while size < target {
        let (entry, len) = &base[k % base.len()];
        let mut e = entry.clone();
        let round = k / base.len() + 1;
        let suffix = format!(".{round}");
        let mut len = *len;
        for p in ["/request/requestId", "/response/requestId", "/requestId"] {
            if let Some(Value::String(id)) = e.pointer_mut(p) {
                id.push_str(&suffix);
                len += suffix.len();
            }
        }
        // The copy's own host: the URL's host behind `r<round>.`.
        let mut listed = 0;
        let url = e
            .pointer("/request/request/url")
            .and_then(Value::as_str)
            .and_then(|u| url::Url::parse(u).ok());
        if let Some(mut u) = url.filter(|u| u.host_str().is_some()) {
            let host = format!("r{round}.{}", u.host_str().unwrap_or_default());
            if u.set_host(Some(&host)).is_ok() {
                let moved = u.to_string();
                for p in ["/request/request/url", "/response/response/url"] {
                    if let Some(Value::String(s)) = e.pointer_mut(p) {
                        len += moved.len().saturating_sub(s.len());
                        *s = moved.clone();
                    }
                }
                listed += moved.len() + 10;
                urls.push(moved);
                if k % base.len() == 0 || !hosts.contains(&host) {
                    let n = hosts.len();
                    let ip = format!("198.{}.{}.{}", 18 + (n >> 16) % 2, (n >> 8) & 255, n & 255);
                    listed += host.len() + ip.len() + 20;
                    hosts.push(host);
                    ips.push(ip);
                }
            }
        }
        if size + len + listed > hi {
            break;
        }
        reqs.push(e);
        size += len + listed;
        k += 1;
    }
    for (key, extra) in [("urls", urls), ("domains", hosts), ("ips", ips)] {
        if let Some(Value::Array(list)) = doc.pointer_mut(&format!("/lists/{key}")) {
            list.extend(extra.into_iter().map(Value::String));
        }
    }
}

/// The search-hit form of the same scan, consistent with [`result_json`].
pub fn search_hit(spec: &ScanSpec, base_url: &str) -> Value {
    if let Some(p) = &spec.planted {
        return planted::hit(p, spec, base_url);
    }
    let (mut hit, _) = hit_and_index(spec);
    let uuid = &spec.uuid;
    hit["result"] = json!(format!("{base_url}/api/v1/result/{uuid}/"));
    hit["screenshot"] = json!(format!("{base_url}/screenshots/{uuid}.png"));
    hit
}

/// A document to match search queries against: the search hit's fields
/// (with site-relative `result`/`screenshot` links) plus flat index fields
/// (`domain`, `ip`, `hash`, `asn`, `asnname`, `country`, `server`,
/// `filename`, `date`, `hostname`) and `verdicts {malicious, score}`.
pub fn index_doc(spec: &ScanSpec) -> Value {
    if let Some(p) = &spec.planted {
        return planted::index(p, spec);
    }
    hit_and_index(spec).1
}

/// Hit (site-relative links) and index document of a scan.
fn hit_and_index(spec: &ScanSpec) -> (Value, Value) {
    let m = shared::without_dom(|| Model::build(spec));
    let hit = m.hit("");
    let index = m.index(hit.clone());
    (hit, index)
}

/// What the store keeps of a scan: its [`index_doc`] and its [`search_hit`]
/// as JSON text, from one build of the scan (the emulator's start builds a
/// hundred thousand).
pub fn indexed(spec: &ScanSpec, base_url: &str) -> (Value, String) {
    if spec.planted.is_some() {
        return (index_doc(spec), search_hit(spec, base_url).to_string());
    }
    let m = shared::without_dom(|| Model::build(spec));
    let lists = m.host_lists();
    let mut hit = m.hit_with("", &lists);
    // The hit as served links to this emulator; the index keeps the
    // site-relative links: each is put in its place, then put back.
    let uuid = &spec.uuid;
    let result = hit["result"].take();
    let screenshot = hit["screenshot"].take();
    hit["result"] = json!(format!("{base_url}/api/v1/result/{uuid}/"));
    hit["screenshot"] = json!(format!("{base_url}/screenshots/{uuid}.png"));
    // What `Display` writes, without its formatter in between.
    let mut served = Vec::with_capacity(4096);
    if serde_json::to_writer(&mut served, &hit).is_err() {
        served.clear(); // a Value always serialises: not reached
    }
    served.shrink_to_fit(); // kept for every scan
    let served = String::from_utf8(served).unwrap_or_default();
    hit["result"] = result;
    hit["screenshot"] = screenshot;
    (m.index_with(hit, lists), served)
}

/// Run `f`, which indexes many scans on this thread (the corpus at the
/// emulator's start), with the bodies of the resources the scans share
/// generated once each: sites repeat across a corpus, and their stylesheets,
/// scripts and images were most of a scan's cost. Every output stays byte
/// for byte what it is outside (the test `indexing_a_corpus_changes_no_byte`).
pub fn indexing_corpus<R>(f: impl FnOnce() -> R) -> R {
    shared::keeping(f)
}

/// A real, decodable PNG screenshot (320x200) of the page; a planted scan's
/// own when it was given one.
pub fn screenshot_png(spec: &ScanSpec) -> Vec<u8> {
    if let Some(png) = spec.planted.as_ref().and_then(|p| p.screenshot.clone()) {
        return png;
    }
    Model::build(spec).screenshot()
}

/// The rendered HTML DOM snapshot of the page; a planted scan's own when it
/// was given one.
pub fn dom(spec: &ScanSpec) -> String {
    if let Some(dom) = spec.planted.as_ref().and_then(|p| p.dom.clone()) {
        return dom;
    }
    Model::build(spec).dom
}

/// The SHA-256 of an empty body.
pub const EMPTY_SHA256: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/// Every response body whose SHA-256 the result lists, as
/// `(sha256 lowercase hex, body)`, one entry per distinct hash.
pub fn response_bodies(spec: &ScanSpec) -> Vec<(String, String)> {
    if spec.planted.is_some() {
        // A planted document comes without the bodies of its responses.
        return vec![];
    }
    let m = Model::build(spec);
    let mut out: Vec<(String, String)> = Vec::new();
    for q in m.reqs {
        if !out.iter().any(|(h, _)| *h == q.hash) {
            out.push((q.hash, q.body.to_string()));
        }
    }
    out
}

/// The TLS certificates the scan saw, as `lists.certificates` of the result
/// holds them (`subjectName`, `issuer`, `validFrom`, `validTo` in epoch
/// seconds), each with `hostnames`: the names it was served for.
pub fn certificates(spec: &ScanSpec) -> Vec<Value> {
    if let Some(p) = &spec.planted {
        return planted::certificates(p);
    }
    let m = Model::build(spec);
    let mut certs = m.lists().certs;
    for q in m.reqs.iter().filter(|q| q.url.starts_with("https")) {
        let h = &m.hosts[q.host];
        if let Some(c) = certs
            .iter_mut()
            .find(|c| c["subjectName"] == json!(h.tls.subject))
        {
            let names = c
                .as_object_mut()
                .and_then(|o| o.entry("hostnames").or_insert(json!([])).as_array_mut());
            if let Some(names) = names {
                if !names.iter().any(|n| n.as_str() == Some(h.name.as_str())) {
                    names.push(json!(h.name));
                }
            }
        }
    }
    certs
}
