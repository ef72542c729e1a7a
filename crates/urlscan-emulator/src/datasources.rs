//! The search data sources besides scans (`GET /api/v1/search?datasource=`):
//! hostnames, incidents, notifications, certificates and domains.
//!
//! Each source derives the documents the caller may see; [`select`] filters
//! them with the query language of scans, sorts them newest first by
//! `[epoch ms, _id]` (each hit's `sort`), resumes after a `search_after`
//! cursor and counts the matches like scan searches (capped at 10,000, then
//! `has_more`).
use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

use serde_json::{json, Value};

use super::content::{self, ScanSpec};
pub use super::document::Doc;
use super::premium_model::{hostnames, incidents};
use super::query::Query;
use super::ratelimit::iso_ms;
use super::state::{lookup, AppState, Caller, Page, TOTAL_CAP};

/// What a data source's documents are made from: the caller's state at `now`.
type Generator = fn(&AppState, &Caller, i64) -> Vec<Doc>;

/// One generator per data source of the rules' table besides scans (which
/// the scan store serves); a test holds the two to each other.
const GENERATORS: &[(&str, Generator)] = &[
    ("hostnames", hostnames::documents),
    ("incidents", |st, c, _| incidents::incident_documents(st, c)),
    ("notifications", |st, c, _| notifications(st, c)),
    ("certificates", certificates),
    ("domains", domains),
];

/// The documents of `datasource` visible to the caller at `now` (none for a
/// name without a generator: the search handler refuses those first).
pub fn documents(st: &AppState, c: &Caller, datasource: &str, now: i64) -> Vec<Doc> {
    GENERATORS
        .iter()
        .find(|(name, _)| *name == datasource)
        .map_or_else(Vec::new, |(_, make)| make(st, c, now))
}

/// The matches of `query` among `docs`, newest first: up to `size` hits after
/// the cursor `after` (`(ms, id)` of the last hit of the previous page),
/// with the total over all matches.
pub fn select(
    docs: Vec<Doc>,
    query: &Query,
    now: i64,
    size: usize,
    after: Option<&(i64, String)>,
) -> (Vec<Value>, u64, bool) {
    let mut found: Vec<Doc> = docs
        .into_iter()
        .filter(|d| query.matches(&d.doc, now))
        .collect();
    found.sort_by(|a, b| (b.ms, &b.id).cmp(&(a.ms, &a.id)));
    let total = found.len() as u64;
    let start = match after {
        None => 0,
        Some((t, id)) => found.partition_point(|d| (d.ms, d.id.as_str()) >= (*t, id.as_str())),
    };
    let hits = found
        .into_iter()
        .skip(start)
        .take(size)
        .map(Doc::hit)
        .collect();
    (hits, total.min(TOTAL_CAP), total > TOTAL_CAP)
}

/// A search page over a data source other than scans.
pub fn page(
    st: &AppState,
    c: &Caller,
    datasource: &str,
    query: &Query,
    size: usize,
    after: Option<&(i64, String)>,
) -> Page {
    let now = st.now_ms();
    let (hits, total, has_more) =
        select(documents(st, c, datasource, now), query, now, size, after);
    Page {
        hits: hits.iter().map(Value::to_string).collect(),
        total,
        has_more,
    }
}

/// May the caller see an item of this owner and team?
fn mine(c: &Caller, owner: &str, team: &Option<String>) -> bool {
    c.key()
        .is_some_and(|k| k.user == owner || (team.is_some() && *team == k.team))
}

// ---------------------------------------------------------------- notifications

/// Every notification created for the caller or the caller's team: the
/// payload plus `date` (its `createdAt`); sorted by creation.
fn notifications(st: &AppState, c: &Caller) -> Vec<Doc> {
    let ev = st.events();
    ev.notifications
        .iter()
        .filter(|n| mine(c, &n.owner, &n.team))
        .map(|n| {
            let mut doc = n.payload.clone();
            let id = doc
                .get("id")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            let date = doc
                .get("createdAt")
                .cloned()
                .filter(Value::is_string)
                .unwrap_or_else(|| json!(iso_ms(n.created_ms)));
            doc["date"] = date;
            doc["_id"] = json!(id);
            Doc {
                ms: n.created_ms,
                id,
                doc,
            }
        })
        .collect()
}

// ---------------------------------------------------------------- certificates

/// One distinct certificate while aggregating.
struct Cert {
    subject: String,
    issuer: String,
    from_s: i64,
    to_s: i64,
    hostnames: Vec<String>,
    first: i64,
    last: i64,
}

/// A certificate's `_id`: 24 hex characters of the SHA-256 of
/// `subjectName|issuer|validFrom` (validFrom as ISO 8601 with milliseconds).
pub fn certificate_id(subject: &str, issuer: &str, valid_from: &str) -> String {
    use sha2::Digest;
    let d = sha2::Sha256::digest(format!("{subject}|{issuer}|{valid_from}").as_bytes());
    hex::encode(d)[..24].to_string()
}

/// Certificates by scan (content is a pure function of the scan's spec, so
/// they are derived once); bounded, emptied when full.
static CERTS: Mutex<Option<HashMap<String, Vec<Value>>>> = Mutex::new(None);
const CERT_CACHE_ENTRIES: usize = 200_000;

/// The certificates of each scan, in order. Deriving them is the expensive
/// part: the scans not seen before are spread over the cores.
fn scan_certificates(specs: &[ScanSpec]) -> Vec<Vec<Value>> {
    let keys: Vec<String> = specs.iter().map(|s| format!("{s:?}")).collect();
    let mut out: Vec<Option<Vec<Value>>> = {
        let cache = CERTS.lock().unwrap();
        keys.iter()
            .map(|k| cache.as_ref().and_then(|m| m.get(k).cloned()))
            .collect()
    };
    let missing: Vec<usize> = (0..specs.len()).filter(|&i| out[i].is_none()).collect();
    if !missing.is_empty() {
        let made =
            super::state::parallel_map(&missing, 16, |&i| (i, content::certificates(&specs[i])));
        let mut cache = CERTS.lock().unwrap();
        let m = cache.get_or_insert_with(HashMap::new);
        if m.len() + made.len() > CERT_CACHE_ENTRIES {
            m.clear();
        }
        for (i, certs) in made {
            m.insert(keys[i].clone(), certs.clone());
            out[i] = Some(certs);
        }
    }
    out.into_iter().map(Option::unwrap_or_default).collect()
}

/// One document per distinct certificate seen in the caller's searchable
/// scans (the result documents' `lists.certificates`): `domain` and
/// `subjectName` (the subject name), `issuer`, `validFrom`, `validTo`,
/// `hostnames` (names it was served for), `firstSeen`, `lastSeen` and `date`
/// (= lastSeen), all times ISO 8601; sorted by last seen.
fn certificates(st: &AppState, c: &Caller, now: i64) -> Vec<Doc> {
    let specs: Vec<ScanSpec> = {
        let store = st.store();
        store
            .by_time
            .values()
            .filter(|e| e.finished(now) && e.searchable_by(c))
            .map(|e| e.spec.clone())
            .collect()
    };
    let mut certs: BTreeMap<String, Cert> = BTreeMap::new();
    for (spec, list) in specs.iter().zip(scan_certificates(&specs)) {
        for v in list {
            let s = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
            let n = |k: &str| v.get(k).and_then(Value::as_i64).unwrap_or(0);
            let (subject, issuer, from_s) = (s("subjectName"), s("issuer"), n("validFrom"));
            let id = certificate_id(&subject, &issuer, &iso_ms(from_s * 1000));
            let t = spec.time_ms;
            let cert = certs.entry(id).or_insert_with(|| Cert {
                subject,
                issuer,
                from_s,
                to_s: n("validTo"),
                hostnames: vec![],
                first: t,
                last: t,
            });
            cert.first = cert.first.min(t);
            cert.last = cert.last.max(t);
            for h in v
                .get("hostnames")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
            {
                if !cert.hostnames.iter().any(|x| x == h) {
                    cert.hostnames.push(h.to_string());
                }
            }
        }
    }
    certs
        .into_iter()
        .map(|(id, mut c)| {
            c.hostnames.sort();
            Doc {
                ms: c.last,
                doc: json!({
                    "_id": id,
                    "domain": c.subject,
                    "subjectName": c.subject,
                    "issuer": c.issuer,
                    "validFrom": iso_ms(c.from_s * 1000),
                    "validTo": iso_ms(c.to_s * 1000),
                    "hostnames": c.hostnames,
                    "firstSeen": iso_ms(c.first),
                    "lastSeen": iso_ms(c.last),
                    "date": iso_ms(c.last),
                }),
                id,
            }
        })
        .collect()
}

// ---------------------------------------------------------------- domains

/// One scanned domain while aggregating; `last` is the newest scan's
/// `(time, uuid)`, `page` that scan's page fields.
struct Scanned {
    apex: Option<String>,
    first: i64,
    last: (i64, String),
    scans: u64,
    page: Value,
}

/// One document per domain that the caller's searchable scans loaded as
/// their page (`page.domain`): `domain`, `apexDomain` (its registered
/// domain), `firstSeen` and `lastSeen` (the first and the newest of those
/// scans), `scanCount`, the newest scan's `lastScanId` and its page `ip`,
/// `asn`, `asnname` and `country`, and `date` (= lastSeen), times ISO 8601;
/// sorted by last seen. The service's documents show no domain hit: this
/// shape is the emulator's own.
fn domains(st: &AppState, c: &Caller, now: i64) -> Vec<Doc> {
    let text = |doc: &Value, path: &str| {
        lookup(doc, path)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let mut seen: BTreeMap<String, Scanned> = BTreeMap::new();
    {
        let store = st.store();
        for e in store.by_time.values() {
            if !e.finished(now) || !e.searchable_by(c) {
                continue;
            }
            let Some(domain) = text(&e.doc, "page.domain") else {
                continue;
            };
            let domain = domain.to_ascii_lowercase();
            let (t, uuid) = (e.spec.time_ms, &e.spec.uuid);
            let page = || lookup(&e.doc, "page").cloned().unwrap_or(Value::Null);
            let apex = || text(&e.doc, "page.apexDomain");
            match seen.get_mut(&domain) {
                // `by_time` is newest first: the first scan of a domain is its newest.
                None => {
                    seen.insert(
                        domain,
                        Scanned {
                            apex: apex(),
                            first: t,
                            last: (t, uuid.clone()),
                            scans: 1,
                            page: page(),
                        },
                    );
                }
                Some(d) => {
                    d.scans += 1;
                    d.first = d.first.min(t);
                    if (t, uuid) > (d.last.0, &d.last.1) {
                        d.last = (t, uuid.clone());
                        d.page = page();
                        d.apex = apex().or(d.apex.take());
                    } else if d.apex.is_none() {
                        d.apex = apex();
                    }
                }
            }
        }
    }
    seen.into_iter()
        .map(|(domain, d)| {
            let id = hostnames::hostname_id(&domain);
            let apex = d.apex.unwrap_or_else(|| hostnames::approx_apex(&domain));
            let field = |k: &str| text(&d.page, k).map_or(Value::Null, Value::String);
            Doc {
                ms: d.last.0,
                doc: json!({
                    "_id": id,
                    "domain": domain,
                    "apexDomain": apex,
                    "firstSeen": iso_ms(d.first),
                    "lastSeen": iso_ms(d.last.0),
                    "date": iso_ms(d.last.0),
                    "scanCount": d.scans,
                    "lastScanId": d.last.1,
                    "ip": field("ip"),
                    "asn": field("asn"),
                    "asnname": field("asnname"),
                    "country": field("country"),
                }),
                id,
            }
        })
        .collect()
}

#[cfg(test)]
mod generator_tests {
    /// Every data source of the rules' list has a generator here (scans
    /// excepted: the scan store serves them), and no generator is left over.
    #[test]
    fn one_generator_per_data_source() {
        let rows: Vec<&str> = urlscan_rules::SEARCH_DATASOURCES
            .iter()
            .copied()
            .filter(|n| *n != "scans")
            .collect();
        let generators: Vec<&str> = super::GENERATORS.iter().map(|(n, _)| *n).collect();
        assert_eq!(rows, generators);
    }
}
