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

use chrono::{DateTime, Datelike, Utc};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

#[path = "content_words.rs"]
mod words;

use words::{Brand, Kind, KnownSite, Loc, Provider, ThirdParty};

/// Everything that determines a scan's content.
#[derive(Clone, Debug)]
pub struct ScanSpec {
    /// Lowercase UUID string.
    pub uuid: String,
    /// The submitted URL (http/https).
    pub url: String,
    /// Submission time, epoch milliseconds UTC.
    pub time_ms: i64,
    /// "public" | "unlisted" | "private".
    pub visibility: String,
    /// Two-letter lowercase scan country; `None` derives one deterministically.
    pub country: Option<String>,
    pub tags: Vec<String>,
    /// "api" | "manual" (search field `task.method`).
    pub method: String,
    /// E.g. "api" or a short hex id of the submitter.
    pub source: String,
    pub user_agent: Option<String>,
    pub referer: Option<String>,
}

/// The full result document, as `GET /api/v1/result/{uuid}/` returns it.
///
/// `base_url` (like `http://127.0.0.1:8000`, no trailing slash) prefixes
/// `task.reportURL`, `task.screenshotURL` and `task.domURL`.
pub fn result_json(spec: &ScanSpec, base_url: &str) -> Value {
    let mut doc = Model::build(spec).result(base_url);
    if let Some((lo, hi)) = result_size(base_url) {
        pad_result(&mut doc, &spec.uuid, lo, hi);
    }
    doc
}

/// Result sizes asked for, per emulator (keyed by its base URL): `(min, max)`
/// bytes of the serialized result document.
static RESULT_SIZES: std::sync::RwLock<Vec<(String, (usize, usize))>> =
    std::sync::RwLock::new(Vec::new());

/// Make the result documents served under `base_url` weigh between `min`
/// and `max` bytes (deterministically per scan), or restore the natural size
/// with `None`.
pub fn set_result_size(base_url: &str, range: Option<(usize, usize)>) {
    let mut sizes = RESULT_SIZES.write().unwrap_or_else(|e| e.into_inner());
    sizes.retain(|(b, _)| b != base_url);
    if let Some(r) = range {
        sizes.push((base_url.to_string(), r));
    }
}

fn result_size(base_url: &str) -> Option<(usize, usize)> {
    let sizes = RESULT_SIZES.read().unwrap_or_else(|e| e.into_inner());
    if sizes.is_empty() {
        return None;
    }
    sizes.iter().find(|(b, _)| b == base_url).map(|(_, r)| *r)
}

/// Grow a result document to a size drawn per scan from `lo..=hi` bytes, the
/// way big real pages are big: more `data.requests` entries (copies of the
/// page's own requests under fresh request ids). A document already larger
/// than the target is left as it is; the result never exceeds `hi` because of
/// the padding.
fn pad_result(doc: &mut Value, uuid: &str, lo: usize, hi: usize) {
    let (lo, hi) = (lo.min(hi), hi.max(lo));
    let target = lo + (h64(&["result-size", uuid]) % (hi - lo + 1) as u64) as usize;
    let mut size = serde_json::to_vec(&*doc).map(|v| v.len()).unwrap_or(0);
    let Some(Value::Array(reqs)) = doc.pointer_mut("/data/requests") else {
        return;
    };
    if reqs.is_empty() || size >= target {
        return;
    }
    let base: Vec<(Value, usize)> = reqs
        .iter()
        .map(|r| {
            (
                r.clone(),
                serde_json::to_vec(r).map(|v| v.len()).unwrap_or(1),
            )
        })
        .collect();
    let mut k = 0usize;
    while size < target {
        let (entry, len) = &base[k % base.len()];
        let mut e = entry.clone();
        let suffix = format!(".{}", k / base.len() + 1);
        let mut len = *len;
        for p in ["/request/requestId", "/response/requestId", "/requestId"] {
            if let Some(Value::String(id)) = e.pointer_mut(p) {
                id.push_str(&suffix);
                len += suffix.len();
            }
        }
        if size + len + 1 > hi {
            break;
        }
        reqs.push(e);
        size += len + 1;
        k += 1;
    }
}

/// The search-hit form of the same scan, consistent with [`result_json`].
pub fn search_hit(spec: &ScanSpec, base_url: &str) -> Value {
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
    hit_and_index(spec).1
}

/// Hit (site-relative links) and index document of a scan. Indexing a scan
/// usually asks for both in a row, so the last pair is kept per thread.
fn hit_and_index(spec: &ScanSpec) -> (Value, Value) {
    type Last = Option<(String, Value, Value)>;
    thread_local! {
        static LAST: std::cell::RefCell<Last> = const { std::cell::RefCell::new(None) };
    }
    let key = format!("{spec:?}");
    let cached = LAST.with(|c| {
        c.borrow()
            .as_ref()
            .filter(|e| e.0 == key)
            .map(|e| (e.1.clone(), e.2.clone()))
    });
    if let Some(pair) = cached {
        return pair;
    }
    let m = Model::build(spec);
    let hit = m.hit("");
    let index = m.index(hit.clone());
    LAST.with(|c| *c.borrow_mut() = Some((key, hit.clone(), index.clone())));
    (hit, index)
}

/// A real, decodable PNG screenshot (320x200) of the page.
pub fn screenshot_png(spec: &ScanSpec) -> Vec<u8> {
    Model::build(spec).screenshot()
}

/// The rendered HTML DOM snapshot of the page.
pub fn dom(spec: &ScanSpec) -> String {
    Model::build(spec).dom
}

/// Every response body whose SHA-256 the result lists, as
/// `(sha256 lowercase hex, body)`, one entry per distinct hash.
pub fn response_bodies(spec: &ScanSpec) -> Vec<(String, String)> {
    let m = Model::build(spec);
    let mut out: Vec<(String, String)> = Vec::new();
    for q in m.reqs {
        if !out.iter().any(|(h, _)| *h == q.hash) {
            out.push((q.hash, q.body));
        }
    }
    out
}

/// The TLS certificates the scan saw, as `lists.certificates` of the result
/// holds them (`subjectName`, `issuer`, `validFrom`, `validTo` in epoch
/// seconds), each with `hostnames`: the names it was served for.
pub fn certificates(spec: &ScanSpec) -> Vec<Value> {
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

// ---------------------------------------------------------------------------
// Seeding and small utilities
// ---------------------------------------------------------------------------

const DAY_MS: i64 = 86_400_000;
/// Registration dates of well-known and generated benign domains are fixed
/// relative to this instant (2025-01-01T00:00:00Z) so ages grow with time.
const AGE_ANCHOR_MS: i64 = 1_735_689_600_000;
const MAX_REQUESTS: usize = 15;
const MAX_OTHER_DOMAINS: usize = 5;

fn seed_of(parts: &[&str]) -> [u8; 32] {
    let mut h = Sha256::new();
    for p in parts {
        h.update(p.as_bytes());
        // Separator so ("ab","c") and ("a","bc") seed differently.
        h.update([0u8]);
    }
    h.finalize().into()
}

/// The scan-, site- and corpus-level generators: ChaCha8 seeded with SHA-256.
fn chacha_of(parts: &[&str]) -> ChaCha8Rng {
    ChaCha8Rng::from_seed(seed_of(parts))
}

/// SplitMix64, seeded with SHA-256: a tiny deterministic stream for the many
/// per-entity draws (hosts, bodies, headers), far cheaper to create than
/// ChaCha, which matters when a corpus of thousands of scans is indexed.
struct Stream(u64);

impl rand::RngCore for Stream {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }

    fn fill_bytes(&mut self, dst: &mut [u8]) {
        for chunk in dst.chunks_mut(8) {
            let v = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
    }
}

fn rng_of(parts: &[&str]) -> Stream {
    Stream(h64(parts))
}

fn h64(parts: &[&str]) -> u64 {
    let s = seed_of(parts);
    u64::from_le_bytes([s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]])
}

fn sha256_hex(data: &[u8]) -> String {
    hex::encode(Sha256::digest(data))
}

fn pick<'a, T, R: Rng>(r: &mut R, xs: &'a [T]) -> &'a T {
    &xs[r.random_range(0..xs.len())]
}

fn pick_w<'a, T, R: Rng>(r: &mut R, xs: &'a [(T, u32)]) -> &'a T {
    let total: u32 = xs.iter().map(|x| x.1).sum();
    let mut v = r.random_range(0..total.max(1));
    for (x, w) in xs {
        if v < *w {
            return x;
        }
        v -= w;
    }
    &xs[0].0
}

fn rhex<R: Rng>(r: &mut R, n: usize) -> String {
    const HEX: &[u8] = b"0123456789abcdef";
    (0..n).map(|_| HEX[r.random_range(0..16)] as char).collect()
}

fn ralnum<R: Rng>(r: &mut R, n: usize, upper: bool) -> String {
    const LOWER: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    const UPPER: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    let set = if upper { UPPER } else { LOWER };
    (0..n)
        .map(|_| set[r.random_range(0..set.len())] as char)
        .collect()
}

fn round_to(x: f64, decimals: i32) -> f64 {
    let f = 10f64.powi(decimals);
    (x * f).round() / f
}

fn dt(ms: i64) -> DateTime<Utc> {
    DateTime::<Utc>::from_timestamp_millis(ms).unwrap_or_default()
}

fn iso(ms: i64) -> String {
    dt(ms).format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

fn http_date(ms: i64) -> String {
    dt(ms).format("%a, %d %b %Y %H:%M:%S GMT").to_string()
}

fn capitalize(w: &str) -> String {
    let mut c = w.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn push_unique(v: &mut Vec<String>, s: &str) {
    if !s.is_empty() && !v.iter().any(|x| x == s) {
        v.push(s.to_string());
    }
}

fn provider(key: &str) -> &'static Provider {
    words::PROVIDERS
        .iter()
        .find(|p| p.key == key)
        .unwrap_or(&words::PROVIDERS[0])
}

fn third_party(key: &str) -> Option<&'static ThirdParty> {
    words::THIRD_PARTIES.iter().find(|t| t.key == key)
}

fn hsl(h: f64, s: f64, l: f64) -> (u8, u8, u8) {
    let c = (1.0 - (2.0 * l - 1.0).abs()) * s;
    let hp = (h % 360.0) / 60.0;
    let x = c * (1.0 - (hp % 2.0 - 1.0).abs());
    let (r1, g1, b1) = match hp as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = l - c / 2.0;
    let to = |v: f64| ((v + m) * 255.0).round().clamp(0.0, 255.0) as u8;
    (to(r1), to(g1), to(b1))
}

fn mix(a: (u8, u8, u8), b: (u8, u8, u8), t: f64) -> (u8, u8, u8) {
    let f = |x: u8, y: u8| (x as f64 + (y as f64 - x as f64) * t).round() as u8;
    (f(a.0, b.0), f(a.1, b.1), f(a.2, b.2))
}

fn css_color(c: (u8, u8, u8)) -> String {
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

// ---------------------------------------------------------------------------
// URLs and domains
// ---------------------------------------------------------------------------

#[derive(Clone, Debug)]
struct Target {
    scheme: String,
    host: String,
    port: Option<u16>,
    /// Path plus `?query` when present.
    path_query: String,
    is_ip: bool,
    v6_literal: bool,
}

impl Target {
    fn parse(raw: &str) -> Target {
        let raw = raw.trim();
        let ok = |u: &url::Url| matches!(u.scheme(), "http" | "https") && u.host().is_some();
        let parsed = url::Url::parse(raw)
            .ok()
            .filter(ok)
            .or_else(|| url::Url::parse(&format!("http://{raw}")).ok().filter(ok));
        let Some(u) = parsed else {
            return Target {
                scheme: "http".into(),
                host: "invalid.invalid".into(),
                port: None,
                path_query: "/".into(),
                is_ip: false,
                v6_literal: false,
            };
        };
        let (host, is_ip, v6) = match u.host() {
            Some(url::Host::Domain(d)) => {
                (d.trim_end_matches('.').to_ascii_lowercase(), false, false)
            }
            Some(url::Host::Ipv4(a)) => (a.to_string(), true, false),
            Some(url::Host::Ipv6(a)) => (a.to_string(), true, true),
            None => ("invalid.invalid".to_string(), false, false),
        };
        let mut path_query = u.path().to_string();
        if let Some(q) = u.query() {
            path_query.push('?');
            path_query.push_str(q);
        }
        Target {
            scheme: u.scheme().to_string(),
            host,
            port: u.port(),
            path_query,
            is_ip,
            v6_literal: v6,
        }
    }

    fn new(scheme: &str, host: &str, path_query: &str) -> Target {
        Target {
            scheme: scheme.into(),
            host: host.into(),
            port: None,
            path_query: if path_query.starts_with('/') {
                path_query.into()
            } else {
                format!("/{path_query}")
            },
            is_ip: false,
            v6_literal: false,
        }
    }

    fn origin(&self) -> String {
        let host = if self.v6_literal {
            format!("[{}]", self.host)
        } else {
            self.host.clone()
        };
        match self.port {
            Some(p) => format!("{}://{}:{}", self.scheme, host, p),
            None => format!("{}://{}", self.scheme, host),
        }
    }

    fn url(&self) -> String {
        format!("{}{}", self.origin(), self.path_query)
    }

    fn path(&self) -> &str {
        self.path_query.split('?').next().unwrap_or("/")
    }

    fn port_num(&self) -> u16 {
        self.port
            .unwrap_or(if self.scheme == "https" { 443 } else { 80 })
    }
}

fn is_ip_literal(host: &str) -> bool {
    host.parse::<std::net::IpAddr>().is_ok()
}

/// Whether `host` is `suffix` or ends with `.suffix`.
fn has_suffix(host: &str, suffix: &str) -> bool {
    host.len() > suffix.len()
        && host.ends_with(suffix)
        && host.as_bytes()[host.len() - suffix.len() - 1] == b'.'
}

/// Registrable ("apex") domain, honouring multi-label and hosting suffixes.
fn apex_of(host: &str) -> String {
    if is_ip_literal(host) {
        return host.to_string();
    }
    let labels: Vec<&str> = host.split('.').collect();
    if labels.len() <= 2 {
        return host.to_string();
    }
    let suffixes = words::HOSTING_SUFFIXES
        .iter()
        .map(|s| s.0)
        .chain(words::MULTI_SUFFIXES.iter().copied());
    let mut best = 1usize;
    for s in suffixes {
        if has_suffix(host, s) {
            best = best.max(s.split('.').count());
        }
    }
    let keep = (best + 1).min(labels.len());
    labels[labels.len() - keep..].join(".")
}

/// The public-suffix part of an apex (`co.uk`, `web.app`, `com`).
fn suffix_of(apex: &str) -> &str {
    match apex.find('.') {
        Some(i) => &apex[i + 1..],
        None => "",
    }
}

fn is_phish_remainder(s: &str) -> bool {
    let core = s.trim_end_matches(|c: char| c.is_ascii_digit());
    if core.is_empty() {
        return !s.is_empty();
    }
    // Up to three phishing words glued together ("securelogin").
    fn seg(s: &str, depth: usize) -> bool {
        if s.is_empty() {
            return true;
        }
        if depth == 0 {
            return false;
        }
        words::PHISH_WORDS
            .iter()
            .any(|w| s.starts_with(w) && seg(&s[w.len()..], depth - 1))
    }
    seg(core, 3)
}

fn token_hits_keyword(token: &str, kw: &str) -> bool {
    if token == kw {
        return true;
    }
    if let Some(rest) = token.strip_prefix(kw) {
        if is_phish_remainder(rest) {
            return true;
        }
    }
    if let Some(rest) = token.strip_suffix(kw) {
        if !rest.is_empty() && is_phish_remainder(rest) {
            return true;
        }
    }
    false
}

/// Apex domains owned by brands, well-known sites and infrastructure.
fn legit_apexes() -> &'static [String] {
    static CELL: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    CELL.get_or_init(|| {
        let mut v: Vec<String> = Vec::new();
        for b in words::BRANDS {
            for l in b.legit {
                push_unique(&mut v, l);
            }
        }
        for k in words::KNOWN_SITES {
            push_unique(&mut v, k.apex);
        }
        for t in words::THIRD_PARTIES {
            push_unique(&mut v, &apex_of(t.host));
        }
        for r in words::REDIRECTORS {
            push_unique(&mut v, r.0);
        }
        v
    })
}

fn is_legit_apex(apex: &str) -> bool {
    legit_apexes().iter().any(|a| a == apex)
}

/// The brand a URL impersonates, if any.
fn classify(host: &str, path: &str) -> Option<&'static Brand> {
    let apex = apex_of(host);
    if is_legit_apex(&apex) {
        return None;
    }
    if !is_ip_literal(host) {
        let label_part = host
            .strip_suffix(suffix_of(&apex))
            .unwrap_or(host)
            .trim_end_matches('.');
        let tokens: Vec<&str> = label_part
            .split(['.', '-', '_'])
            .filter(|t| !t.is_empty())
            .collect();
        for b in words::BRANDS {
            if tokens
                .iter()
                .any(|t| b.keywords.iter().any(|k| token_hits_keyword(t, k)))
            {
                return Some(b);
            }
        }
    }
    let lower = path.to_ascii_lowercase();
    let ptoks: Vec<&str> = lower
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|t| !t.is_empty())
        .collect();
    const STRONG: &[&str] = &[
        "login",
        "signin",
        "verify",
        "account",
        "secure",
        "update",
        "auth",
        "billing",
        "wallet",
        "confirm",
        "unlock",
        "recovery",
        "validation",
        "session",
        "payment",
        "invoice",
    ];
    let strong = ptoks.iter().any(|t| STRONG.contains(t))
        || lower.ends_with(".php")
        || lower.ends_with(".html")
        || lower.ends_with(".htm");
    if strong {
        for b in words::BRANDS {
            if ptoks
                .iter()
                .any(|t| b.keywords.iter().any(|k| token_hits_keyword(t, k)))
            {
                return Some(b);
            }
        }
    }
    None
}

/// Splits a concatenated label into dictionary words ("bluecanyon" ->
/// ["blue", "canyon"]); `None` when it cannot.
fn segment_label(label: &str) -> Option<Vec<String>> {
    fn go(s: &str, depth: usize) -> Option<Vec<String>> {
        if s.is_empty() {
            return Some(Vec::new());
        }
        if depth == 0 {
            return None;
        }
        let dicts: [&[&str]; 4] = [
            words::ADJECTIVES,
            words::NOUNS,
            words::SURNAMES,
            words::BUSINESS_SUFFIXES,
        ];
        let mut cands: Vec<&str> = dicts
            .iter()
            .flat_map(|d| d.iter().copied())
            .filter(|w| s.starts_with(w))
            .collect();
        cands.extend(
            ["the", "get", "my", "s"]
                .iter()
                .filter(|w| s.starts_with(**w)),
        );
        cands.sort_by_key(|w| std::cmp::Reverse(w.len()));
        for w in cands {
            if let Some(mut rest) = go(&s[w.len()..], depth - 1) {
                rest.insert(0, w.to_string());
                return Some(rest);
            }
        }
        None
    }
    go(label, 4)
}

fn display_name(apex: &str) -> String {
    let label = apex.split('.').next().unwrap_or(apex);
    if label.starts_with("xn--") {
        // Punycode labels read best as they are.
        return label.to_string();
    }
    let parts: Vec<String> = if label.contains('-') {
        label
            .split('-')
            .filter(|s| !s.is_empty())
            .map(|s| s.to_string())
            .collect()
    } else {
        segment_label(label).unwrap_or_else(|| vec![label.to_string()])
    };
    let mut out: Vec<String> = Vec::new();
    for p in parts {
        if p == "s" {
            // Possessive: "linda" + "s" + "kitchen" -> "Linda's Kitchen".
            if let Some(last) = out.last_mut() {
                last.push_str("'s");
                continue;
            }
        }
        out.push(capitalize(&p));
    }
    out.join(" ")
}

fn path_title(path: &str) -> Option<String> {
    let seg = path.split('/').rev().find(|s| !s.is_empty())?;
    let stem = seg.split('.').next().unwrap_or(seg);
    let stem = stem.replace("%20", " ");
    let words_: Vec<String> = stem
        .split(['-', '_', ' ', '+'])
        .filter(|w| !w.is_empty() && !w.chars().all(|c| c.is_ascii_digit()))
        .map(capitalize)
        .collect();
    if words_.is_empty() || stem == "index" {
        return None;
    }
    let t = words_.join(" ");
    Some(t.chars().take(60).collect())
}

// ---------------------------------------------------------------------------
// Sites and hosts
// ---------------------------------------------------------------------------

#[derive(Clone, Copy)]
enum SiteKind {
    Known(&'static KnownSite),
    Phish(&'static Brand),
    Generic,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Style {
    WordPress,
    Static,
    Vite,
    NextJs,
    Shopify,
    Kit,
    Known,
}

struct Site {
    kind: SiteKind,
    style: Style,
    apex: String,
    name: String,
    lang: &'static str,
    provider: &'static Provider,
    server: String,
    https: bool,
    www_canonical: bool,
    third: Vec<&'static ThirdParty>,
    color: (u8, u8, u8),
    accent: (u8, u8, u8),
    rank: Option<i64>,
    reg_ms: i64,
    ga_id: String,
    font: &'static str,
    hsts: bool,
    php: Option<String>,
    wp_version: String,
    theme: &'static str,
    plugin: &'static str,
    kit_dir: &'static str,
    /// Seed scope for per-site third-party ids; phishing kits share theirs.
    scope: String,
    issuer: Option<&'static str>,
}

const PHISH_PROVIDERS: &[(&str, u32)] = &[
    ("cloudflare", 30),
    ("namecheap", 18),
    ("hostinger", 14),
    ("digitalocean", 10),
    ("ovh", 5),
    ("contabo", 5),
    ("vultr", 5),
    ("alibaba", 4),
    ("tencent", 3),
    ("linode", 3),
    ("hetzner", 3),
];

/// Networks bare-IP sites are usually found on.
const IP_PROVIDERS: &[(&str, u32)] = &[
    ("digitalocean", 25),
    ("hetzner", 20),
    ("ovh", 15),
    ("vultr", 10),
    ("contabo", 10),
    ("linode", 10),
    ("aws-us", 10),
];

const GENERIC_PROVIDERS: &[(&str, u32)] = &[
    ("cloudflare", 30),
    ("aws-us", 12),
    ("aws-eu", 5),
    ("cloudfront", 5),
    ("gcp", 6),
    ("digitalocean", 8),
    ("godaddy", 7),
    ("namecheap", 5),
    ("hostinger", 5),
    ("akamai", 3),
    ("fastly", 3),
    ("automattic", 3),
    ("ovh", 3),
    ("hetzner", 3),
    ("linode", 2),
    ("vultr", 2),
    ("microsoft", 3),
];

fn providers_for_tld(apex: &str) -> &'static [(&'static str, u32)] {
    const DE: &[(&str, u32)] = &[
        ("hetzner", 25),
        ("ionos", 20),
        ("cloudflare", 25),
        ("contabo", 10),
        ("aws-eu", 10),
        ("ovh", 5),
    ];
    const FR: &[(&str, u32)] = &[
        ("ovh", 50),
        ("cloudflare", 30),
        ("aws-eu", 10),
        ("ionos", 10),
    ];
    const NL: &[(&str, u32)] = &[
        ("leaseweb", 30),
        ("cloudflare", 30),
        ("digitalocean", 20),
        ("aws-eu", 20),
    ];
    const JP: &[(&str, u32)] = &[("sakura", 50), ("aws-us", 20), ("cloudflare", 30)];
    let tld = apex.rsplit('.').next().unwrap_or("");
    match tld {
        "de" | "ch" | "at" | "pl" => DE,
        "fr" | "es" | "it" => FR,
        "nl" => NL,
        "jp" => JP,
        _ => GENERIC_PROVIDERS,
    }
}

impl Site {
    fn new(apex: &str, brand: Option<&'static Brand>, time_ms: i64) -> Site {
        let mut r = chacha_of(&["site", apex]);
        let known = words::KNOWN_SITES.iter().find(|k| k.apex == apex);
        let hosting = words::HOSTING_SUFFIXES
            .iter()
            .find(|s| has_suffix(apex, s.0));
        let is_ip = is_ip_literal(apex);
        let kind = match (brand, known) {
            (Some(b), _) => SiteKind::Phish(b),
            (None, Some(k)) => SiteKind::Known(k),
            _ => SiteKind::Generic,
        };
        let lang = match kind {
            SiteKind::Generic => words::TLDS
                .iter()
                .filter(|t| has_suffix(apex, t.0))
                .max_by_key(|t| t.0.len())
                .map(|t| t.2)
                .unwrap_or("en"),
            _ => "en",
        };
        let prov_key: &str = match kind {
            SiteKind::Known(k) => k.provider,
            SiteKind::Phish(_) => hosting
                .map(|h| h.1)
                .unwrap_or_else(|| *pick_w(&mut r, PHISH_PROVIDERS)),
            SiteKind::Generic if is_ip => pick_w::<&str, _>(&mut r, IP_PROVIDERS),
            SiteKind::Generic => hosting
                .map(|h| h.1)
                .unwrap_or_else(|| *pick_w(&mut r, providers_for_tld(apex))),
        };
        let prov = provider(prov_key);
        let style = match kind {
            SiteKind::Known(_) => Style::Known,
            SiteKind::Phish(_) => Style::Kit,
            SiteKind::Generic if hosting.is_some() || is_ip => {
                *pick(&mut r, &[Style::Static, Style::Vite, Style::NextJs])
            }
            SiteKind::Generic => *pick_w(
                &mut r,
                &[
                    (Style::WordPress, 35),
                    (Style::Static, 20),
                    (Style::Vite, 10),
                    (Style::NextJs, 15),
                    (Style::Shopify, 8),
                ],
            ),
        };
        let server = match (kind, hosting) {
            (SiteKind::Known(k), _) => k.server.to_string(),
            (_, Some(h)) => h.2.to_string(),
            _ if prov.key == "cloudflare" => "cloudflare".to_string(),
            _ if style == Style::Shopify => "cloudflare".to_string(),
            _ => pick(&mut r, prov.servers).to_string(),
        };
        let https = match kind {
            SiteKind::Known(_) => true,
            SiteKind::Phish(_) => hosting.is_some() || r.random_bool(0.85),
            SiteKind::Generic => hosting.is_some() || r.random_bool(0.92),
        };
        let www_canonical = match kind {
            SiteKind::Known(k) => k.host.starts_with("www."),
            SiteKind::Phish(_) => false,
            SiteKind::Generic => hosting.is_none() && !is_ip && r.random_bool(0.5),
        };
        let color = match kind {
            SiteKind::Known(k) => k.color,
            SiteKind::Phish(b) => b.color,
            SiteKind::Generic => hsl(r.random_range(0.0..360.0), 0.55, r.random_range(0.3..0.5)),
        };
        // A brand's own secondary domains look like the brand.
        let owner = words::BRANDS.iter().find(|b| b.legit.contains(&apex));
        let color = owner.map(|b| b.color).unwrap_or(color);
        let accent = mix(color, (255, 255, 255), 0.82);
        let rank = match kind {
            SiteKind::Known(k) => Some(k.rank),
            SiteKind::Phish(_) => None,
            SiteKind::Generic => {
                let u: f64 = r.random();
                (u < 0.35 && !is_ip).then(|| 1_000 + (r.random::<f64>().powi(3) * 999_000.0) as i64)
            }
        };
        let reg_ms = match kind {
            SiteKind::Known(k) => AGE_ANCHOR_MS - k.age_days * DAY_MS,
            SiteKind::Phish(_) => {
                time_ms - r.random_range(1..45) * DAY_MS - r.random_range(0..DAY_MS)
            }
            SiteKind::Generic => AGE_ANCHOR_MS - r.random_range(60..9_000) * DAY_MS,
        };
        let ga_id = format!("G-{}", ralnum(&mut r, 10, true));
        let font = *pick(&mut r, words::FONTS);
        let hsts = match kind {
            SiteKind::Known(_) => true,
            _ => https && r.random_bool(0.4),
        };
        let php = (matches!(style, Style::WordPress | Style::Kit) && r.random_bool(0.5))
            .then(|| format!("PHP/8.{}.{}", r.random_range(1..4), r.random_range(0..29)));
        let wp_version = format!("6.{}.{}", r.random_range(3..8), r.random_range(0..4));
        let theme = *pick(&mut r, words::WP_THEMES);
        let plugin = *pick(&mut r, words::WP_PLUGINS);
        let kit_dir = *pick(
            &mut r,
            &["assets", "files", "app", "auth", "secure", "login"],
        );
        let kit_variant = r.random_range(1..4);
        let scope = match kind {
            SiteKind::Phish(b) => format!("kit:{}:{}", b.key, kit_variant),
            _ => apex.to_string(),
        };
        let name = match kind {
            SiteKind::Known(k) => k.name.to_string(),
            SiteKind::Phish(b) => b.name.to_string(),
            SiteKind::Generic if is_ip => apex.to_string(),
            SiteKind::Generic => owner
                .map(|b| b.name.to_string())
                .unwrap_or_else(|| display_name(apex)),
        };
        let third = choose_third(&mut r, kind, style);
        Site {
            kind,
            style,
            apex: apex.to_string(),
            name,
            lang,
            provider: prov,
            server,
            https,
            www_canonical,
            third,
            color,
            accent,
            rank,
            reg_ms,
            ga_id,
            font,
            hsts,
            php,
            wp_version,
            theme,
            plugin,
            kit_dir,
            scope,
            issuer: None,
        }
    }

    fn is_phish(&self) -> bool {
        matches!(self.kind, SiteKind::Phish(_))
    }
}

fn choose_third(r: &mut ChaCha8Rng, kind: SiteKind, style: Style) -> Vec<&'static ThirdParty> {
    let mut keys: Vec<&'static str> = Vec::new();
    let add_generic = |r: &mut ChaCha8Rng, keys: &mut Vec<&'static str>, n: usize| {
        let mut pool: Vec<(&'static str, u32)> = words::GENERIC_THIRD_PARTIES
            .iter()
            .filter(|(k, _)| !keys.contains(k))
            .copied()
            .collect();
        for _ in 0..n {
            if pool.is_empty() {
                break;
            }
            let k = *pick_w(r, &pool);
            pool.retain(|(x, _)| *x != k);
            keys.push(k);
        }
    };
    match (kind, style) {
        (SiteKind::Known(k), _) => keys.extend(k.third.iter().copied()),
        (SiteKind::Phish(b), _) => {
            if let Some(a) = b.assets {
                if r.random_bool(0.8) {
                    keys.push(a);
                }
            }
            if r.random_bool(0.5) {
                keys.push(*pick(r, &["jquery-cdn", "cdnjs", "google-ajax"]));
            }
            if r.random_bool(0.35) {
                keys.push("ipapi");
            }
            if r.random_bool(0.25) {
                keys.push("telegram");
            }
            if keys.is_empty() {
                keys.push("jquery-cdn");
            }
        }
        (_, Style::WordPress) => {
            if r.random_bool(0.7) {
                keys.push("wp-emoji");
            }
            let n = r.random_range(1..4);
            add_generic(r, &mut keys, n);
        }
        (_, Style::Shopify) => {
            keys.push("shopify");
            for k in ["fb-pixel", "gtm", "hotjar"] {
                if r.random_bool(0.4) {
                    keys.push(k);
                }
            }
        }
        _ => {
            let n = r.random_range(1..5);
            add_generic(r, &mut keys, n);
        }
    }
    if keys.contains(&"gtm") && !keys.contains(&"ga") && r.random_bool(0.6) {
        keys.push("ga");
    }
    let mut out: Vec<&'static ThirdParty> = Vec::new();
    for k in keys {
        if let Some(t) = third_party(k) {
            if !out.iter().any(|x| x.key == t.key) {
                out.push(t);
            }
        }
    }
    out
}

struct Tls {
    issuer: String,
    subject: String,
    san: Vec<String>,
    from_s: i64,
    to_s: i64,
    valid_days: i64,
    age_days: i64,
    version: &'static str,
    kx: &'static str,
    group: &'static str,
    cipher: &'static str,
}

struct Host {
    name: String,
    apex: String,
    prov: &'static Provider,
    ip: String,
    v6: bool,
    loc: &'static Loc,
    ptr: String,
    route: String,
    server: String,
    protocol: &'static str,
    tls: Tls,
    rank: Option<i64>,
}

fn fill_v6<R: Rng>(tpl: &str, r: &mut R) -> String {
    let mut out = String::new();
    let mut rest = tpl;
    while let Some(i) = rest.find('{') {
        out.push_str(&rest[..i]);
        let end = rest[i..].find('}').map(|e| i + e).unwrap_or(rest.len() - 1);
        match &rest[i + 1..end] {
            "1" => out.push_str(&format!("{:x}", r.random_range(0..16u32))),
            "2" => out.push_str(&format!("{:02x}", r.random_range(0..256u32))),
            _ => out.push_str(&format!("{:x}", r.random_range(1..0x10000u32))),
        }
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    out
}

fn fill_ptr<R: Rng>(tpl: &str, ip: &str, v6: bool, r: &mut R) -> String {
    if tpl.is_empty() || (v6 && tpl.contains("{a}")) {
        return String::new();
    }
    let o: Vec<&str> = ip.split('.').collect();
    let oct = |i: usize| o.get(i).copied().unwrap_or("0");
    let mut out = tpl
        .replace("{a}", oct(0))
        .replace("{b}", oct(1))
        .replace("{c}", oct(2))
        .replace("{d}", oct(3));
    while out.contains("{n}") {
        out = out.replacen("{n}", &r.random_range(1..30).to_string(), 1);
    }
    out.replace("{N}", &r.random_range(100_000..999_999).to_string())
}

fn cert_validity_days(issuer: &str) -> i64 {
    let short = issuer.len() <= 3
        || issuer.starts_with("GTS")
        || issuer.starts_with("WE")
        || issuer.starts_with("WR");
    if short {
        90
    } else if issuer.starts_with("Amazon") {
        395
    } else if issuer.starts_with("Microsoft") {
        180
    } else if issuer.starts_with("Apple") {
        200
    } else {
        365
    }
}

fn make_tls(name: &str, apex: &str, issuer: &str, tls12_share: f64, time_ms: i64) -> Tls {
    let mut r = rng_of(&["tls", name]);
    let validity = cert_validity_days(issuer);
    // Certificates are renewed well before expiry; the phase is per host so
    // consecutive scans of a host see the same certificate ageing.
    let cycle = if validity == 90 { 60 } else { validity - 30 };
    let offset = r.random_range(0..cycle);
    let day = time_ms.div_euclid(DAY_MS);
    let age = (day + offset).rem_euclid(cycle);
    let sec_of_day = r.random_range(0..86_400);
    let now_s = time_ms.div_euclid(1000);
    let mut from_s = (day - age) * 86_400 + sec_of_day - 3_600;
    if from_s > now_s {
        from_s -= 86_400;
    }
    let to_s = from_s + validity * 86_400 - 1;
    let wildcard = validity != 90 && name != apex && r.random_bool(0.5);
    let subject = if wildcard {
        format!("*.{apex}")
    } else {
        name.to_string()
    };
    let mut san = vec![subject.clone()];
    if name != apex {
        push_unique(&mut san, apex);
    } else {
        push_unique(&mut san, &format!("www.{apex}"));
    }
    let tls12 = r.random_bool(tls12_share);
    let (version, kx, cipher) = if tls12 {
        (
            "TLS 1.2",
            "ECDHE_RSA",
            *pick(&mut r, &["AES_128_GCM", "AES_256_GCM"]),
        )
    } else {
        (
            "TLS 1.3",
            "",
            *pick(
                &mut r,
                &[
                    "AES_128_GCM",
                    "AES_128_GCM",
                    "AES_256_GCM",
                    "CHACHA20_POLY1305",
                ],
            ),
        )
    };
    Tls {
        issuer: issuer.to_string(),
        subject,
        san,
        from_s,
        to_s,
        valid_days: (to_s - from_s) / 86_400,
        age_days: (now_s - from_s).max(0) / 86_400,
        version,
        kx,
        group: "X25519",
        cipher,
    }
}

struct HostOpts<'a> {
    name: &'a str,
    prov: &'static Provider,
    server: &'a str,
    issuer: Option<&'a str>,
    use_v6: bool,
    time_ms: i64,
}

impl Host {
    fn new(o: HostOpts) -> Host {
        let name = o.name;
        let apex = apex_of(name);
        let prov = o.prov;
        // Separate streams per field keep values stable whichever branch
        // (IPv4 or IPv6) a scan takes.
        let mut r4 = rng_of(&["ip4", name]);
        let &(a, b, c, d, len) = pick(&mut r4, prov.v4);
        let base = u32::from_be_bytes([a, b, c, d]);
        let size = 1u64 << (32 - len as u32);
        let mut ipn = base.wrapping_add(r4.random_range(1..size.max(3) - 1) as u32);
        if ipn & 0xff == 0 || ipn & 0xff == 255 {
            ipn ^= 1;
        }
        let v4 = std::net::Ipv4Addr::from(ipn).to_string();
        let v4_route = format!("{a}.{b}.{c}.{d}/{len}");
        let mut r6 = rng_of(&["ip6", name]);
        let (ip, v6, route) = if is_ip_literal(name) {
            let v6 = name.contains(':');
            let route = if v6 {
                format!("{name}/128")
            } else {
                format!("{}.0/24", name.rsplitn(2, '.').last().unwrap_or(name))
            };
            (name.to_string(), v6, route)
        } else {
            match prov.v6 {
                Some((tpl, route)) if o.use_v6 => (fill_v6(tpl, &mut r6), true, route.to_string()),
                _ => (v4, false, v4_route),
            }
        };
        let mut r = rng_of(&["host", name]);
        let loc = *pick(&mut r, prov.locs);
        let ptr = fill_ptr(prov.ptr, &ip, v6, &mut r);
        let protocol = if r.random_bool(0.7) {
            prov.protocols[0]
        } else {
            *pick(&mut r, prov.protocols)
        };
        let issuer = o
            .issuer
            .map(|s| s.to_string())
            .unwrap_or_else(|| pick(&mut r, prov.issuers).to_string());
        let tls12_share = match prov.key {
            "godaddy" | "sakura" | "alibaba" | "tencent" | "ionos" => 0.5,
            _ => 0.1,
        };
        let tls = make_tls(name, &apex, &issuer, tls12_share, o.time_ms);
        let rank = words::KNOWN_SITES
            .iter()
            .find(|k| k.apex == apex)
            .map(|k| k.rank)
            .or_else(|| {
                words::THIRD_PARTIES
                    .iter()
                    .any(|t| t.host == name)
                    .then(|| 5 + (h64(&["rank", name]) % 3_000) as i64)
            });
        Host {
            name: name.to_string(),
            apex,
            prov,
            ip,
            v6,
            loc,
            ptr,
            route,
            server: o.server.to_string(),
            protocol,
            tls,
            rank,
        }
    }

    fn asn_json(&self) -> Value {
        json!({
            "ip": self.ip,
            "asn": self.prov.asn.to_string(),
            "country": self.prov.reg_country,
            "registrar": registrar(self.prov.reg_country),
            "description": self.prov.asnname,
            "route": self.route,
            "name": self.prov.org,
        })
    }

    fn geoip_json(&self) -> Value {
        let l = self.loc;
        json!({
            "country": l.country,
            "region": l.region,
            "timezone": l.timezone,
            "city": l.city,
            "ll": [l.lat, l.lon],
            "metro": l.metro,
            "country_name": l.country_name,
        })
    }
}

fn registrar(cc: &str) -> &'static str {
    match cc {
        "US" | "CA" => "arin",
        "SG" | "CN" | "JP" | "HK" | "AU" | "IN" => "apnic",
        _ => "ripencc",
    }
}

// ---------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------

struct Req {
    url: String,
    host: usize,
    kind: Kind,
    method: &'static str,
    status: u16,
    mime: &'static str,
    body: String,
    hash: String,
    /// Encoded (on-the-wire) body bytes and response header bytes.
    enc_body: u64,
    hdr_len: u64,
    compressed: bool,
    init_type: &'static str,
    init_url: Option<String>,
    init_line: Option<i64>,
    /// Index of the request whose script issued this one.
    injected_by: Option<usize>,
    tracker: bool,
    body_seed: String,
    label: String,
    tp: Option<&'static ThirdParty>,
    start: f64,
    ttfb: f64,
    end: f64,
    conn: Option<(f64, f64, f64, f64)>,
    id: String,
    priority: &'static str,
}

impl Req {
    fn new(url: String, host: usize, kind: Kind) -> Req {
        let (method, status, mime) = match kind {
            Kind::Document => ("GET", 200, "text/html"),
            Kind::Stylesheet => ("GET", 200, "text/css"),
            Kind::Script => ("GET", 200, "application/javascript"),
            Kind::Image => ("GET", 200, "image/svg+xml"),
            Kind::Xhr => ("GET", 200, "application/json"),
            Kind::Fetch => ("POST", 200, "application/json"),
            Kind::Ping if url.contains("generate_204") => ("GET", 204, "text/plain"),
            Kind::Ping => ("POST", 204, "text/plain"),
        };
        let priority = match kind {
            Kind::Document => "VeryHigh",
            Kind::Stylesheet => "VeryHigh",
            Kind::Script => "High",
            Kind::Image | Kind::Ping => "Low",
            Kind::Xhr | Kind::Fetch => "High",
        };
        Req {
            body_seed: url.clone(),
            url,
            host,
            kind,
            method,
            status,
            mime,
            body: String::new(),
            hash: String::new(),
            enc_body: 0,
            hdr_len: 0,
            compressed: false,
            init_type: "parser",
            init_url: None,
            init_line: None,
            injected_by: None,
            tracker: false,
            label: String::new(),
            tp: None,
            start: 0.0,
            ttfb: 0.0,
            end: 0.0,
            conn: None,
            id: String::new(),
            priority,
        }
    }
}

fn cdp_type(k: Kind) -> &'static str {
    match k {
        Kind::Document => "Document",
        Kind::Stylesheet => "Stylesheet",
        Kind::Script => "Script",
        Kind::Image => "Image",
        Kind::Xhr => "XHR",
        Kind::Fetch => "Fetch",
        Kind::Ping => "Ping",
    }
}

fn status_text(code: u16, protocol: &str) -> &'static str {
    if protocol != "http/1.1" {
        return "";
    }
    match code {
        200 => "OK",
        204 => "No Content",
        301 => "Moved Permanently",
        302 => "Found",
        404 => "Not Found",
        _ => "",
    }
}

// ---------------------------------------------------------------------------
// The scan model
// ---------------------------------------------------------------------------

struct Redirect {
    from: String,
    to: String,
    status: u16,
    host: usize,
}

struct Model<'a> {
    spec: &'a ScanSpec,
    submitted: Target,
    page: Target,
    page_url: String,
    page_host: usize,
    hosts: Vec<Host>,
    reqs: Vec<Req>,
    redirect: Option<Redirect>,
    site: Site,
    brand: Option<&'static Brand>,
    title: String,
    status: u16,
    links: Vec<(String, String)>,
    dom: String,
    cookies: Vec<Value>,
    console: Vec<Value>,
    globals: Vec<(String, &'static str)>,
    apps: Vec<(&'static str, String)>,
    scanner_country: String,
    submitter_country: String,
    ua: String,
    accept_language: String,
    nav0: i64,
    /// Submission time clamped to a sane range, for internal arithmetic.
    t_ms: i64,
    mono: f64,
    loader_id: String,
    frame_id: String,
    dcl: f64,
    load: f64,
    score: i64,
    community_votes: i64,
}

fn default_user_agent(time_ms: i64) -> String {
    // Chrome 100 shipped on 2022-03-29; a new major appears roughly monthly.
    let days = time_ms.saturating_sub(1_648_512_000_000).div_euclid(DAY_MS);
    let v = (100 + days.div_euclid(31)).clamp(70, 400);
    format!(
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/{v}.0.0.0 Safari/537.36"
    )
}

fn chrome_major(ua: &str) -> Option<&str> {
    let i = ua.find("Chrome/")? + 7;
    let rest = &ua[i..];
    Some(rest.split('.').next().unwrap_or(rest))
}

/// Where the submitted URL ends up, and with which redirect status.
fn resolve(sub: &Target) -> (Target, Option<u16>) {
    let host = sub.host.as_str();
    if let Some((_, dest)) = words::REDIRECTORS.iter().find(|(h, _)| *h == host) {
        let k = if dest.is_empty() {
            let n = words::KNOWN_SITES.len() as u64;
            &words::KNOWN_SITES[(h64(&["short", &sub.url()]) % n) as usize]
        } else {
            words::KNOWN_SITES
                .iter()
                .find(|k| k.apex == *dest)
                .unwrap_or(&words::KNOWN_SITES[0])
        };
        let path = if dest.is_empty() {
            let mut r = rng_of(&["short-path", &sub.url()]);
            let n = r.random_range(2..5);
            let slug: Vec<&str> = (0..n).map(|_| *pick(&mut r, words::SLUG_WORDS)).collect();
            format!("/{}", slug.join("-"))
        } else {
            sub.path_query.clone()
        };
        return (Target::new("https", k.host, &path), Some(301));
    }
    if sub.is_ip || sub.port.is_some() {
        return (sub.clone(), None);
    }
    if classify(&sub.host, sub.path()).is_some() {
        return (sub.clone(), None);
    }
    let apex = apex_of(host);
    let site = Site::new(&apex, None, 0);
    let mut t = sub.clone();
    if let SiteKind::Known(k) = site.kind {
        if host == k.apex && k.host != k.apex {
            t.host = k.host.to_string();
        }
        t.scheme = "https".into();
    } else {
        if site.https && t.scheme == "http" {
            t.scheme = "https".into();
        }
        if site.www_canonical && host == apex {
            t.host = format!("www.{apex}");
        }
    }
    if t.url() == sub.url() {
        return (t, None);
    }
    let status = if matches!(h64(&["redir", &apex]) % 4, 0) {
        302
    } else {
        301
    };
    (t, Some(status))
}

fn redirector_provider(host: &str) -> (&'static Provider, &'static str) {
    match host {
        "twitter.com" | "www.twitter.com" | "t.co" => (provider("twitter"), "envoy"),
        "fb.com" => (provider("facebook"), "proxygen-bolt"),
        "youtu.be" => (provider("google"), "ESF"),
        "bit.ly" => (provider("gcp"), "nginx"),
        _ => (provider("cloudflare"), "cloudflare"),
    }
}

impl<'a> Model<'a> {
    fn build(spec: &'a ScanSpec) -> Model<'a> {
        let submitted = Target::parse(&spec.url);
        // Internal arithmetic uses a sane instant (1970..2100) so odd inputs cannot overflow.
        let t_ms = spec.time_ms.clamp(0, 4_102_444_800_000);
        let mut sr = chacha_of(&["scan", &spec.uuid, &spec.url]);
        let (page, redirect_status) = resolve(&submitted);
        let brand = classify(&page.host, page.path())
            .or_else(|| classify(&submitted.host, submitted.path()));
        let page_apex = apex_of(&page.host);
        let mut site = Site::new(&page_apex, brand, t_ms);
        if brand.is_some() && classify(&page.host, "/").is_none() {
            // A kit uploaded to someone else's site: the site keeps its own
            // hosting, age and rank; only the page content is the kit's.
            let kit = site;
            site = Site::new(&page_apex, None, t_ms);
            site.kind = kit.kind;
            site.style = kit.style;
            site.name = kit.name;
            site.color = kit.color;
            site.accent = kit.accent;
            site.third = kit.third;
            site.scope = kit.scope;
            site.kit_dir = kit.kit_dir;
            site.php = kit.php;
            site.www_canonical = false;
        }
        if page.is_ip {
            site.issuer = Some("R11");
        }
        let page_url = page.url();

        let scanner_country = match &spec.country {
            Some(c) if c.len() == 2 => c.to_ascii_uppercase(),
            _ => pick_w(&mut sr, words::SCAN_COUNTRIES).to_ascii_uppercase(),
        };
        let submitter_country = {
            let mut r = rng_of(&["submitter", &spec.source]);
            pick_w(&mut r, words::SCAN_COUNTRIES).to_ascii_uppercase()
        };
        let ua = spec
            .user_agent
            .clone()
            .filter(|s| !s.trim().is_empty())
            .unwrap_or_else(|| default_user_agent(t_ms));
        let accept_language = words::ACCEPT_LANGUAGES
            .iter()
            .find(|(c, _)| c.eq_ignore_ascii_case(&scanner_country))
            .map(|(_, l)| l.to_string())
            .unwrap_or_else(|| "en-US,en;q=0.9".to_string());
        let use_v6 = sr.random_bool(0.3);

        // Status: deep generic paths occasionally 404.
        let status = {
            let depth = page.path().split('/').filter(|s| !s.is_empty()).count();
            let mut pr = rng_of(&["status", &page_url]);
            if matches!(site.kind, SiteKind::Generic) && depth >= 2 && pr.random_bool(0.06) {
                404
            } else {
                200
            }
        };

        let mut m = Model {
            spec,
            submitted: submitted.clone(),
            page: page.clone(),
            page_url: page_url.clone(),
            page_host: 0,
            hosts: Vec::new(),
            reqs: Vec::new(),
            redirect: None,
            title: String::new(),
            status,
            links: Vec::new(),
            dom: String::new(),
            cookies: Vec::new(),
            console: Vec::new(),
            globals: Vec::new(),
            apps: Vec::new(),
            scanner_country,
            submitter_country,
            ua,
            accept_language,
            nav0: t_ms + sr.random_range(1_500..6_000),
            t_ms,
            mono: round_to(sr.random_range(80_000.0..9_000_000.0), 6),
            loader_id: rhex(&mut sr, 32).to_ascii_uppercase(),
            frame_id: rhex(&mut sr, 32).to_ascii_uppercase(),
            dcl: 0.0,
            load: 0.0,
            score: 0,
            community_votes: 0,
            site,
            brand,
        };

        // Hosts: the redirect origin first (it was contacted first).
        if let Some(st) = redirect_status {
            let h = if submitted.host == page.host {
                None
            } else {
                let (prov, server) = if words::REDIRECTORS.iter().any(|r| r.0 == submitted.host) {
                    redirector_provider(&submitted.host)
                } else {
                    (m.site.provider, "")
                };
                let server = if server.is_empty() {
                    m.site.server.clone()
                } else {
                    server.to_string()
                };
                Some(m.host_index(&submitted.host, prov, &server, use_v6))
            };
            let page_host =
                m.host_index(&page.host, m.site.provider, &m.site.server.clone(), use_v6);
            m.redirect = Some(Redirect {
                from: submitted.url(),
                to: page_url.clone(),
                status: st,
                host: h.unwrap_or(page_host),
            });
            m.page_host = page_host;
        } else {
            let server = m.site.server.clone();
            m.page_host = m.host_index(&page.host, m.site.provider, &server, use_v6);
        }

        m.plan_requests(use_v6);
        m.title = m.make_title();
        m.links = m.make_links();
        m.render_bodies();
        m.schedule(&mut sr);
        m.make_cookies(&mut sr);
        m.make_console(&mut sr);
        m.make_globals_and_apps();
        if m.brand.is_some() {
            m.score = 100 - (h64(&["score", &m.page_url]) % 4) as i64 * 10;
            m.community_votes = sr.random_range(0..4);
        }
        m
    }

    fn host_index(
        &mut self,
        name: &str,
        prov: &'static Provider,
        server: &str,
        use_v6: bool,
    ) -> usize {
        if let Some(i) = self.hosts.iter().position(|h| h.name == name) {
            return i;
        }
        let issuer = if name == self.page.host {
            self.site.issuer
        } else {
            None
        };
        let mut host = Host::new(HostOpts {
            name,
            prov,
            server,
            issuer,
            use_v6,
            time_ms: self.t_ms,
        });
        if name == self.page.host && host.tls.from_s * 1000 < self.site.reg_ms {
            // A certificate cannot predate the domain: freshly registered
            // (phishing) domains get one issued shortly after registration.
            let t = &mut host.tls;
            let span = t.to_s - t.from_s;
            let now_s = self.t_ms / 1000;
            let from = self.site.reg_ms / 1000 + (h64(&["tls-reg", name]) % 43_200) as i64;
            t.from_s = from.min(now_s);
            t.to_s = t.from_s + span;
            t.age_days = (now_s - t.from_s).max(0) / 86_400;
        }
        self.hosts.push(host);
        self.hosts.len() - 1
    }

    fn other_domains(&self) -> usize {
        self.hosts.len() - 1
    }

    /// Decides every request of the page (without bodies or timing).
    fn plan_requests(&mut self, use_v6: bool) {
        let origin = self.page.origin();
        let mut doc = Req::new(self.page_url.clone(), self.page_host, Kind::Document);
        doc.status = self.status;
        doc.init_type = "other";
        doc.label = "document".into();
        self.reqs.push(doc);

        // Site's own assets.
        let assets = self.site_assets();
        let mut main_script: Option<usize> = None;
        for (path, kind, label, seed) in assets {
            let mut q = Req::new(format!("{origin}{path}"), self.page_host, kind);
            q.label = label;
            if let Some(s) = seed {
                q.body_seed = s;
            }
            if kind == Kind::Script && main_script.is_none() {
                main_script = Some(self.reqs.len());
            }
            if matches!(kind, Kind::Xhr | Kind::Fetch) {
                q.injected_by = main_script;
            }
            self.reqs.push(q);
        }

        // Third parties, within the request and domain budgets.
        let third = self.site.third.clone();
        for tp in third {
            if self.reqs.len() >= MAX_REQUESTS {
                break;
            }
            let known_host = self.hosts.iter().any(|h| h.name == tp.host);
            if !known_host && self.other_domains() >= MAX_OTHER_DOMAINS {
                continue;
            }
            self.push_third(tp, use_v6, main_script);
        }
        // Every page pulls in at least one outside resource.
        if self.other_domains() == 0 {
            let fallback = ["google-fonts", "cdnjs"]
                .iter()
                .filter_map(|k| third_party(k))
                .find(|t| t.host != self.page.host);
            if let Some(tp) = fallback {
                self.reqs.truncate(MAX_REQUESTS - tp.resources.len());
                self.push_third(tp, use_v6, main_script);
            }
        }
    }

    fn push_third(&mut self, tp: &'static ThirdParty, use_v6: bool, main_script: Option<usize>) {
        let hi = self.host_index(tp.host, provider(tp.provider), tp.server, use_v6);
        let mut first_script: Option<usize> = None;
        for (i, (path, kind)) in tp.resources.iter().enumerate() {
            if self.reqs.len() >= MAX_REQUESTS {
                break;
            }
            let filled = self.fill_tp_path(tp, path, i);
            let mut q = Req::new(format!("https://{}{}", tp.host, filled), hi, *kind);
            q.tp = Some(tp);
            q.tracker = tp.tracker;
            q.label = tp.key.to_string();
            if *kind == Kind::Script && first_script.is_none() {
                first_script = Some(self.reqs.len());
            }
            match kind {
                Kind::Ping | Kind::Xhr | Kind::Fetch => {
                    // Beacons come from the tag manager; kit calls from the kit's script.
                    let gtm = self.reqs.iter().position(|r| r.label == "gtm");
                    q.injected_by = match tp.key {
                        "ga" => gtm.or(main_script),
                        "ipapi" | "telegram" => main_script,
                        _ => first_script.or(main_script),
                    };
                }
                Kind::Script if tp.key == "fb-pixel" || tp.key == "cf-insights" => {
                    // Loaded by an inline snippet in the document.
                    q.init_type = "script";
                }
                _ => {}
            }
            self.reqs.push(q);
        }
    }

    fn fill_tp_path(&self, tp: &ThirdParty, path: &str, idx: usize) -> String {
        const SITE_SCOPED: &[&str] = &[
            "gtm",
            "ga",
            "hotjar",
            "onetrust",
            "shopify",
            "telegram",
            "doubleclick",
        ];
        let scope = if SITE_SCOPED.contains(&tp.key) {
            self.site.scope.as_str()
        } else {
            ""
        };
        let mut r = rng_of(&["tp", tp.key, scope]);
        let hexv = rhex(&mut r, 16);
        let hex3 = rhex(&mut r, 3);
        let uuid = format!(
            "{}-{}-{}-{}-{}",
            rhex(&mut r, 8),
            rhex(&mut r, 4),
            rhex(&mut r, 4),
            rhex(&mut r, 4),
            rhex(&mut r, 12)
        );
        let mut out = path
            .replace("{ga}", &self.site.ga_id)
            .replace("{font}", self.site.font)
            .replace("{hex}", &hexv)
            .replace("{hex3}", &hex3)
            .replace("{uuid}", &uuid);
        if out.contains("{cid}") {
            let mut sr = rng_of(&["cid", &self.spec.uuid]);
            let cid = format!(
                "{}.{}",
                sr.random_range(100_000_000..999_999_999u32),
                self.t_ms / 1000
            );
            out = out.replace("{cid}", &cid);
        }
        let mut k = 0;
        while out.contains("{num}") {
            let mut nr = rng_of(&["num", tp.key, scope, &idx.to_string(), &k.to_string()]);
            out = out.replacen("{num}", &nr.random_range(1_000..9_999_999).to_string(), 1);
            k += 1;
        }
        out
    }

    /// The site's own stylesheets, scripts, images and API calls:
    /// (path, kind, label, body seed override).
    fn site_assets(&self) -> Vec<(String, Kind, String, Option<String>)> {
        let s = &self.site;
        let mut r = rng_of(&["assets", &s.apex]);
        let mut v: Vec<(String, Kind, String, Option<String>)> = Vec::new();
        let mut add = |p: String, k: Kind, l: &str| v.push((p, k, l.to_string(), None));
        match s.style {
            Style::WordPress => {
                let ver = &s.wp_version;
                add(
                    format!("/wp-includes/css/dist/block-library/style.min.css?ver={ver}"),
                    Kind::Stylesheet,
                    "wp-block-library",
                );
                add(
                    format!(
                        "/wp-content/themes/{}/style.css?ver={}",
                        s.theme,
                        r.random_range(1..5)
                    ),
                    Kind::Stylesheet,
                    "theme",
                );
                add(
                    "/wp-includes/js/jquery/jquery.min.js?ver=3.7.1".to_string(),
                    Kind::Script,
                    "jquery",
                );
                if r.random_bool(0.6) {
                    add(
                        format!(
                            "/wp-content/plugins/{}/assets/js/frontend.min.js?ver={}.{}",
                            s.plugin,
                            r.random_range(3..9),
                            r.random_range(0..20)
                        ),
                        Kind::Script,
                        "plugin",
                    );
                }
                let y = 2019 + (h64(&["upl", &s.apex]) % 6) as i64;
                add(
                    format!(
                        "/wp-content/uploads/{y}/{:02}/logo.svg",
                        r.random_range(1..13)
                    ),
                    Kind::Image,
                    "logo",
                );
            }
            Style::Static | Style::Known => {
                let hx = rhex(&mut r, 8);
                add(
                    format!("/assets/css/main.{hx}.css"),
                    Kind::Stylesheet,
                    "main-css",
                );
                add(
                    format!("/assets/js/app.{}.js", rhex(&mut r, 8)),
                    Kind::Script,
                    "app",
                );
                add("/assets/img/logo.svg".to_string(), Kind::Image, "logo");
                if r.random_bool(0.4) {
                    add("/assets/img/hero.svg".to_string(), Kind::Image, "hero");
                }
            }
            Style::Vite => {
                add(
                    format!("/assets/index-{}.css", ralnum(&mut r, 8, false)),
                    Kind::Stylesheet,
                    "main-css",
                );
                add(
                    format!("/assets/index-{}.js", ralnum(&mut r, 8, false)),
                    Kind::Script,
                    "app",
                );
                add("/vite.svg".to_string(), Kind::Image, "logo");
                if r.random_bool(0.5) {
                    add("/api/config.json".to_string(), Kind::Xhr, "config");
                }
            }
            Style::NextJs => {
                let b = ralnum(&mut r, 21, false);
                add(
                    format!("/_next/static/css/{}.css", rhex(&mut r, 16)),
                    Kind::Stylesheet,
                    "main-css",
                );
                add(
                    format!("/_next/static/chunks/webpack-{}.js", rhex(&mut r, 16)),
                    Kind::Script,
                    "app",
                );
                add(
                    format!("/_next/static/chunks/framework-{}.js", rhex(&mut r, 16)),
                    Kind::Script,
                    "framework",
                );
                add(
                    format!("/_next/static/chunks/pages/_app-{}.js", rhex(&mut r, 16)),
                    Kind::Script,
                    "next-app",
                );
                if r.random_bool(0.5) {
                    add(
                        format!("/_next/static/{b}/_buildManifest.js"),
                        Kind::Script,
                        "manifest",
                    );
                }
                add("/logo.svg".to_string(), Kind::Image, "logo");
            }
            Style::Shopify => {
                add(
                    "/checkouts/internal/preloads.js?locale=en-US".to_string(),
                    Kind::Script,
                    "app",
                );
                add("/cart.js".to_string(), Kind::Xhr, "cart");
            }
            Style::Kit => {
                let d = s.kit_dir;
                let kit = s.scope.clone();
                let mut addk = |p: String, k: Kind, l: &str| {
                    let seed = format!("{kit}:{p}");
                    v.push((p, k, l.to_string(), Some(seed)));
                };
                addk(format!("/{d}/css/style.css"), Kind::Stylesheet, "kit-css");
                addk(format!("/{d}/js/main.js"), Kind::Script, "app");
                let hotlinks = s
                    .third
                    .iter()
                    .any(|t| Some(t.key) == self.brand.and_then(|b| b.assets));
                if !hotlinks {
                    addk(format!("/{d}/img/logo.svg"), Kind::Image, "logo");
                }
            }
        }
        v
    }

    fn make_title(&self) -> String {
        let name = &self.site.name;
        if self.status == 404 {
            return if self.site.style == Style::WordPress {
                format!("Page not found – {name}")
            } else {
                "404 Not Found".to_string()
            };
        }
        let pt = path_title(self.page.path());
        match self.site.kind {
            SiteKind::Phish(b) => b.title.to_string(),
            SiteKind::Known(k) => match pt {
                Some(t) => format!("{t} - {}", k.name),
                None => k.title.to_string(),
            },
            SiteKind::Generic => match pt {
                Some(t) => format!("{t} – {name}"),
                None => {
                    let mut r = rng_of(&["tagline", &self.site.apex]);
                    let sep = *pick(&mut r, &[" – ", " | ", " - "]);
                    format!("{name}{sep}{}", pick(&mut r, words::TAGLINES))
                }
            },
        }
    }

    fn make_links(&self) -> Vec<(String, String)> {
        let origin = self.page.origin();
        let mut r = rng_of(&["links", &self.page_url]);
        let mut out: Vec<(String, String)> = Vec::new();
        match self.site.kind {
            SiteKind::Phish(b) => {
                out.push((
                    format!("{origin}{}", self.page.path()),
                    "Forgot password?".into(),
                ));
                out.push((format!("{}privacy", b.home), "Privacy".into()));
                out.push((format!("{}legal", b.home), "Legal".into()));
                if r.random_bool(0.5) {
                    out.push((format!("{}help", b.home), "Help".into()));
                }
            }
            SiteKind::Known(k) => {
                for sub in ["support", "about", "developer", "accounts"] {
                    if r.random_bool(0.6) {
                        out.push((format!("https://{sub}.{}/", k.apex), capitalize(sub)));
                    }
                }
                for w in ["about", "privacy", "terms", "help"] {
                    out.push((format!("{origin}/{w}"), capitalize(w)));
                }
            }
            SiteKind::Generic => {
                let labels = words::NAV_LABELS
                    .iter()
                    .find(|(l, _)| *l == self.site.lang)
                    .map(|(_, v)| *v)
                    .unwrap_or(words::NAV_LABELS[0].1);
                let paths = ["", "about", "services", "blog", "contact"];
                for (p, l) in paths.iter().zip(labels.iter()) {
                    let href = if p.is_empty() {
                        format!("{origin}/")
                    } else {
                        format!("{origin}/{p}/")
                    };
                    out.push((href, l.to_string()));
                }
                for _ in 0..r.random_range(1..4) {
                    let n = r.random_range(2..5);
                    let slug: Vec<&str> =
                        (0..n).map(|_| *pick(&mut r, words::SLUG_WORDS)).collect();
                    let text = capitalize(&slug.join(" "));
                    out.push((format!("{origin}/blog/{}/", slug.join("-")), text));
                }
                let handle = self
                    .site
                    .apex
                    .split('.')
                    .next()
                    .unwrap_or("site")
                    .to_string();
                let socials = [
                    (format!("https://www.facebook.com/{handle}"), "Facebook"),
                    (format!("https://x.com/{handle}"), "X"),
                    (format!("https://www.instagram.com/{handle}/"), "Instagram"),
                    (
                        format!("https://www.linkedin.com/company/{handle}"),
                        "LinkedIn",
                    ),
                    (format!("https://www.youtube.com/@{handle}"), "YouTube"),
                ];
                for (href, t) in socials {
                    if r.random_bool(0.5) {
                        out.push((href, t.into()));
                    }
                }
                out.push((format!("{origin}/privacy-policy/"), "Privacy Policy".into()));
            }
        }
        out
    }

    fn is_parser_resource(&self, i: usize) -> bool {
        let q = &self.reqs[i];
        i > 0 && q.injected_by.is_none() && q.init_type == "parser"
    }

    /// HTML of the page; `rendered` adds what scripts insert at runtime.
    /// Returns the text and, per request index, the 0-based line referencing it.
    fn html(&self, rendered: bool) -> (String, Vec<(usize, i64)>) {
        let mut lines: Vec<String> = Vec::new();
        let mut refs: Vec<(usize, i64)> = Vec::new();
        let mut r = rng_of(&["html", &self.page_url]);
        let s = &self.site;
        let t = html_escape(&self.title);
        if !rendered {
            lines.push("<!DOCTYPE html>".into());
        }
        lines.push(format!("<html lang=\"{}\">", s.lang));
        lines.push("<head>".into());
        lines.push("<meta charset=\"utf-8\">".into());
        lines.push(
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">".into(),
        );
        lines.push(format!("<title>{t}</title>"));
        if s.style == Style::WordPress {
            lines.push(format!(
                "<meta name=\"generator\" content=\"WordPress {}\">",
                s.wp_version
            ));
        }
        if !s.is_phish() {
            let desc: Vec<&str> = (0..r.random_range(8..16))
                .map(|_| *pick(&mut r, words::TEXT_WORDS))
                .collect();
            lines.push(format!(
                "<meta name=\"description\" content=\"{}.\">",
                html_escape(&capitalize(&desc.join(" ")))
            ));
            lines.push(format!(
                "<link rel=\"canonical\" href=\"{}{}\">",
                html_escape(&self.page.origin()),
                html_escape(self.page.path())
            ));
        } else {
            lines.push("<meta name=\"robots\" content=\"noindex, nofollow\">".into());
        }
        for (i, q) in self.reqs.iter().enumerate() {
            if !self.is_parser_resource(i) {
                continue;
            }
            let u = html_escape(&q.url);
            match q.kind {
                Kind::Stylesheet => {
                    refs.push((i, lines.len() as i64));
                    lines.push(format!(
                        "<link rel=\"stylesheet\" href=\"{u}\" media=\"all\">"
                    ));
                }
                Kind::Script => {
                    refs.push((i, lines.len() as i64));
                    let attr = if q.tp.is_some() { " async" } else { " defer" };
                    let attr = if rendered {
                        attr.to_string() + "=\"\""
                    } else {
                        attr.to_string()
                    };
                    lines.push(format!("<script src=\"{u}\"{attr}></script>"));
                }
                _ => {}
            }
        }
        if s.third.iter().any(|x| x.key == "gtm") {
            lines.push(format!(
                "<script>window.dataLayer=window.dataLayer||[];function gtag(){{dataLayer.push(arguments);}}gtag('js',new Date());gtag('config','{}');</script>",
                s.ga_id
            ));
        }
        for (i, q) in self.reqs.iter().enumerate() {
            if q.init_type == "script" && q.kind == Kind::Script {
                refs.push((i, lines.len() as i64));
                if rendered {
                    lines.push(format!(
                        "<script async=\"\" src=\"{}\"></script>",
                        html_escape(&q.url)
                    ));
                } else {
                    lines.push(format!(
                        "<script>!function(d,s){{var e=d.createElement(s);e.async=!0;e.src=\"{}\";d.head.appendChild(e)}}(document,\"script\");</script>",
                        q.url
                    ));
                }
            }
        }
        if s.style == Style::NextJs {
            lines.push(format!(
                "<script id=\"__NEXT_DATA__\" type=\"application/json\">{{\"props\":{{\"pageProps\":{{}}}},\"page\":\"{}\",\"query\":{{}},\"buildId\":\"{}\",\"nextExport\":true}}</script>",
                html_escape(self.page.path()),
                rhex(&mut r, 21)
            ));
        }
        lines.push("</head>".into());
        let images: Vec<usize> = (0..self.reqs.len())
            .filter(|&i| self.is_parser_resource(i) && self.reqs[i].kind == Kind::Image)
            .collect();
        match s.kind {
            SiteKind::Phish(b) => {
                lines.push("<body class=\"login-page\">".into());
                lines.push("<div class=\"container\"><div class=\"card\">".into());
                for &i in &images {
                    refs.push((i, lines.len() as i64));
                    lines.push(format!(
                        "<img class=\"logo\" src=\"{}\" alt=\"{}\" width=\"124\">",
                        html_escape(&self.reqs[i].url),
                        html_escape(b.name)
                    ));
                }
                lines.push(format!("<h1>{}</h1>", html_escape(b.heading)));
                let action = format!("{}/next.php", s.kit_dir);
                lines.push(format!("<form id=\"login-form\" method=\"post\" action=\"{action}\" autocomplete=\"off\">"));
                lines.push("<input type=\"email\" name=\"email\" id=\"email\" placeholder=\"Email or mobile number\" required>".into());
                lines.push("<input type=\"password\" name=\"password\" id=\"password\" placeholder=\"Password\" required>".into());
                lines.push("<button type=\"submit\" class=\"btn-primary\">Next</button>".into());
                lines.push("</form>".into());
                for (href, text) in &self.links {
                    lines.push(format!(
                        "<a href=\"{}\">{}</a>",
                        html_escape(href),
                        html_escape(text)
                    ));
                }
                lines.push("</div></div>".into());
            }
            _ => {
                lines.push(format!(
                    "<body class=\"{}\">",
                    if self.status == 404 {
                        "error404"
                    } else {
                        "home page"
                    }
                ));
                lines.push("<header class=\"site-header\">".into());
                let mut iter = self.links.iter();
                lines.push(format!(
                    "<a class=\"logo\" href=\"{}/\">{}</a>",
                    html_escape(&self.page.origin()),
                    html_escape(&s.name)
                ));
                lines.push("<nav><ul>".into());
                let nav_n = if matches!(s.kind, SiteKind::Generic) {
                    5
                } else {
                    0
                };
                for _ in 0..nav_n {
                    if let Some((h, tx)) = iter.next() {
                        lines.push(format!(
                            "<li><a href=\"{}\">{}</a></li>",
                            html_escape(h),
                            html_escape(tx)
                        ));
                    }
                }
                lines.push("</ul></nav>".into());
                lines.push("</header>".into());
                lines.push("<main>".into());
                if self.status == 404 {
                    lines.push("<h1>Oops! That page can’t be found.</h1>".into());
                    lines.push("<p>It looks like nothing was found at this location.</p>".into());
                } else {
                    let heading = self
                        .title
                        .split(['–', '|'])
                        .next()
                        .unwrap_or(&self.title)
                        .trim()
                        .to_string();
                    lines.push(format!("<h1>{}</h1>", html_escape(&heading)));
                    for _ in 0..r.random_range(2..5) {
                        let n = r.random_range(2..5);
                        let sentences: Vec<String> = (0..n)
                            .map(|_| {
                                let k = r.random_range(6..15);
                                let w: Vec<&str> =
                                    (0..k).map(|_| *pick(&mut r, words::TEXT_WORDS)).collect();
                                format!("{}.", capitalize(&w.join(" ")))
                            })
                            .collect();
                        lines.push(format!("<p>{}</p>", sentences.join(" ")));
                    }
                }
                for &i in &images {
                    refs.push((i, lines.len() as i64));
                    lines.push(format!(
                        "<img src=\"{}\" alt=\"{}\" loading=\"lazy\">",
                        html_escape(&self.reqs[i].url),
                        html_escape(&s.name)
                    ));
                }
                lines.push("<ul class=\"links\">".into());
                for (h, tx) in iter {
                    lines.push(format!(
                        "<li><a href=\"{}\">{}</a></li>",
                        html_escape(h),
                        html_escape(tx)
                    ));
                }
                lines.push("</ul>".into());
                lines.push("</main>".into());
                let year = dt(self.t_ms).year();
                lines.push(format!(
                    "<footer><p>&copy; {year} {}. All rights reserved.</p></footer>",
                    html_escape(&s.name)
                ));
            }
        }
        if rendered && s.third.iter().any(|x| x.key == "onetrust") {
            lines.push("<div id=\"onetrust-consent-sdk\"><div id=\"onetrust-banner-sdk\" class=\"otFlat\" role=\"region\" aria-label=\"Cookie banner\"><p id=\"onetrust-policy-text\">We use cookies to improve your experience.</p><button id=\"onetrust-accept-btn-handler\">Accept All Cookies</button></div></div>".into());
        }
        lines.push("</body>".into());
        lines.push("</html>".into());
        (lines.join("\n"), refs)
    }

    fn render_bodies(&mut self) {
        let (src, refs) = self.html(false);
        self.dom = self.html(true).0;
        for (i, line) in refs {
            let doc_url = self.page_url.clone();
            let q = &mut self.reqs[i];
            if q.init_type == "parser" {
                q.init_line = Some(line);
            }
            q.init_url = Some(doc_url);
        }
        let color = self.site.color;
        let name = self.site.name.clone();
        let scanner = self.scanner_country.clone();
        let n = self.reqs.len();
        for i in 0..n {
            let body = if i == 0 {
                if self.status == 404 && self.site.style != Style::WordPress {
                    not_found_page(&self.hosts[self.page_host].server)
                } else {
                    src.clone()
                }
            } else {
                let q = &self.reqs[i];
                match q.kind {
                    Kind::Stylesheet => gen_css(&q.body_seed, &q.url, color),
                    Kind::Script => gen_js(&q.body_seed, &q.url),
                    Kind::Image => gen_svg(&q.body_seed, color, &name),
                    Kind::Xhr | Kind::Fetch => gen_json(
                        &q.body_seed,
                        q.tp.map(|t| t.key).unwrap_or(&q.label),
                        &scanner,
                    ),
                    Kind::Ping | Kind::Document => String::new(),
                }
            };
            let q = &mut self.reqs[i];
            q.hash = sha256_hex(body.as_bytes());
            q.body = body;
            if let Some(j) = q.injected_by {
                q.init_type = "script";
                let u = self.reqs[j].url.clone();
                self.reqs[i].init_url = Some(u);
            }
        }
        let page_url = self.page_url.clone();
        for q in self.reqs.iter_mut().skip(1) {
            if q.init_url.is_none() {
                q.init_url = Some(page_url.clone());
            }
        }
    }

    /// Assigns request ids, start/end times, connection setup and sizes.
    fn schedule(&mut self, sr: &mut ChaCha8Rng) {
        let pid = sr.random_range(1_000..60_000);
        let mut seen_hosts: Vec<usize> = Vec::new();
        let n = self.reqs.len();
        let mut parser_end: f64 = 0.0;
        for i in 0..n {
            let host = self.reqs[i].host;
            let fresh = !seen_hosts.contains(&host);
            if fresh {
                seen_hosts.push(host);
            }
            let kind = self.reqs[i].kind;
            let start = if i == 0 {
                round_to(sr.random_range(2.0..12.0), 3)
            } else if let Some(j) = self.reqs[i].injected_by {
                self.reqs[j].end + sr.random_range(5.0..60.0)
            } else if self.reqs[i].init_type == "script" {
                self.reqs[0].end + sr.random_range(20.0..120.0)
            } else {
                self.reqs[0].ttfb
                    + self.reqs[0].start
                    + sr.random_range(3.0..25.0)
                    + i as f64 * sr.random_range(0.5..3.0)
            };
            let conn = if fresh {
                let dns = sr.random_range(0.3..25.0);
                let connect = sr.random_range(5.0..45.0);
                let ssl = if self.reqs[i].url.starts_with("https") {
                    connect * sr.random_range(0.4..0.7)
                } else {
                    0.0
                };
                Some((dns, connect, ssl, sr.random_range(0.05..0.4)))
            } else {
                None
            };
            let setup = conn.map(|c| c.0 + c.1).unwrap_or(0.0);
            let ttfb = setup
                + match kind {
                    Kind::Document => sr.random_range(60.0..450.0),
                    Kind::Ping => sr.random_range(15.0..90.0),
                    _ => sr.random_range(8.0..160.0),
                };
            let body_len = self.reqs[i].body.len() as f64;
            let transfer = body_len / sr.random_range(400.0..6_000.0) + sr.random_range(0.5..8.0);
            let q = &mut self.reqs[i];
            q.id = if i == 0 {
                self.loader_id.clone()
            } else {
                format!("{pid}.{}", 10 + i * 3 + sr.random_range(0..3))
            };
            q.start = round_to(start, 3);
            q.ttfb = round_to(ttfb, 3);
            q.end = round_to(start + ttfb + transfer, 3);
            q.conn = conn;
            if q.injected_by.is_none()
                && q.init_type == "parser"
                && i > 0
                && matches!(kind, Kind::Script | Kind::Stylesheet)
            {
                parser_end = parser_end.max(q.end);
            }
            // Compression and header sizes.
            let compressible = matches!(
                kind,
                Kind::Document
                    | Kind::Stylesheet
                    | Kind::Script
                    | Kind::Image
                    | Kind::Xhr
                    | Kind::Fetch
            ) && body_len >= 1024.0;
            q.compressed = compressible;
            let ratio = match kind {
                Kind::Image => sr.random_range(0.4..0.55),
                Kind::Xhr | Kind::Fetch => sr.random_range(0.5..0.7),
                _ => sr.random_range(0.22..0.36),
            };
            q.enc_body = if compressible {
                (body_len * ratio) as u64
            } else {
                body_len as u64
            };
        }
        let first_end = self.reqs[0].end;
        self.dcl = round_to(parser_end.max(first_end) + sr.random_range(8.0..60.0), 3);
        let last = self.reqs.iter().map(|q| q.end).fold(0.0, f64::max);
        self.load = round_to(last.max(self.dcl) + sr.random_range(5.0..80.0), 3);
        for i in 0..n {
            let hdrs = self.response_headers(i);
            let len: usize = hdrs
                .iter()
                .map(|(k, v)| k.len() + v.len() + 4)
                .sum::<usize>()
                + 17;
            self.reqs[i].hdr_len = len as u64;
        }
    }

    fn response_headers(&self, i: usize) -> Vec<(String, String)> {
        let q = &self.reqs[i];
        let h = &self.hosts[q.host];
        let protocol = self.protocol_of(i);
        let mut r = rng_of(&["hdr", &q.url]);
        let mut v: Vec<(&str, String)> = Vec::new();
        let date = http_date(self.nav0 + (q.start + q.ttfb) as i64);
        v.push(("date", date));
        if q.status != 204 {
            let ct = match q.kind {
                Kind::Document | Kind::Stylesheet | Kind::Script => {
                    format!("{}; charset=utf-8", q.mime)
                }
                Kind::Xhr | Kind::Fetch => "application/json".to_string(),
                _ => q.mime.to_string(),
            };
            v.push(("content-type", ct));
        }
        if q.compressed {
            v.push((
                "content-encoding",
                if protocol == "http/1.1" {
                    "gzip".into()
                } else {
                    pick(&mut r, &["gzip", "br"]).to_string()
                },
            ));
            v.push(("vary", "Accept-Encoding".into()));
        } else {
            v.push(("content-length", q.body.len().to_string()));
        }
        if !h.server.is_empty() {
            v.push(("server", h.server.clone()));
        }
        match q.kind {
            Kind::Document => {
                v.push((
                    "cache-control",
                    if self.site.style == Style::WordPress {
                        "max-age=0, must-revalidate".into()
                    } else {
                        "private, no-cache".into()
                    },
                ));
                if self.site.hsts && q.url.starts_with("https") && i == 0 {
                    v.push((
                        "strict-transport-security",
                        "max-age=31536000; includeSubDomains".into(),
                    ));
                }
                if r.random_bool(0.5) {
                    v.push(("x-frame-options", "SAMEORIGIN".into()));
                }
                if r.random_bool(0.5) {
                    v.push(("x-content-type-options", "nosniff".into()));
                }
                if let Some(p) = &self.site.php {
                    v.push(("x-powered-by", p.clone()));
                }
                if self.site.style == Style::WordPress {
                    let origin = self.page.origin();
                    v.push((
                        "link",
                        format!("<{origin}/wp-json/>; rel=\"https://api.w.org/\""),
                    ));
                }
            }
            Kind::Ping => {
                v.push((
                    "cache-control",
                    "no-cache, no-store, must-revalidate".into(),
                ));
            }
            _ => {
                v.push((
                    "cache-control",
                    "public, max-age=31536000, immutable".into(),
                ));
                v.push(("etag", format!("W/\"{}\"", &q.hash[..16])));
                v.push((
                    "last-modified",
                    http_date(self.t_ms - (h64(&["lm", &q.url]) % (400 * DAY_MS as u64)) as i64),
                ));
            }
        }
        match h.prov.key {
            "cloudflare" => {
                v.push((
                    "cf-ray",
                    format!(
                        "{}-{}",
                        rhex(&mut r, 16),
                        pick(&mut r, &["FRA", "AMS", "IAD", "LHR", "SJC", "NRT"])
                    ),
                ));
                v.push((
                    "cf-cache-status",
                    if q.kind == Kind::Document {
                        "DYNAMIC".into()
                    } else {
                        "HIT".into()
                    },
                ));
            }
            "fastly" => {
                v.push((
                    "x-served-by",
                    format!("cache-fra-eddf82{:05}-FRA", r.random_range(0..99_999)),
                ));
                v.push(("x-cache", "HIT".into()));
            }
            "cloudfront" => {
                v.push(("x-cache", "Hit from cloudfront".into()));
                v.push((
                    "via",
                    format!("1.1 {}.cloudfront.net (CloudFront)", rhex(&mut r, 32)),
                ));
                v.push(("x-amz-cf-pop", "FRA56-P5".into()));
            }
            _ => {}
        }
        if protocol == "h3" || (protocol == "h2" && h.prov.protocols.contains(&"h3")) {
            v.push(("alt-svc", "h3=\":443\"; ma=86400".into()));
        }
        let title_case = protocol == "http/1.1";
        v.into_iter()
            .map(|(k, val)| {
                let key = if title_case {
                    k.split('-').map(capitalize).collect::<Vec<_>>().join("-")
                } else {
                    k.to_string()
                };
                (key, val)
            })
            .collect()
    }

    fn protocol_of(&self, i: usize) -> &'static str {
        let q = &self.reqs[i];
        if q.url.starts_with("https") {
            self.hosts[q.host].protocol
        } else {
            "http/1.1"
        }
    }

    fn make_cookies(&mut self, sr: &mut ChaCha8Rng) {
        let secure = self.page.scheme == "https";
        let apex = format!(".{}", self.site.apex);
        let now_s = self.nav0 as f64 / 1000.0;
        let mut add = |name: String,
                       value: String,
                       domain: String,
                       expires: Option<f64>,
                       http_only: bool,
                       same_site: Option<&str>| {
            let mut c = Map::new();
            c.insert("name".into(), json!(name));
            c.insert("size".into(), json!(name.len() + value.len()));
            c.insert("value".into(), json!(value));
            c.insert("domain".into(), json!(domain));
            c.insert("path".into(), json!("/"));
            c.insert(
                "expires".into(),
                json!(expires.map(|e| round_to(e, 6)).unwrap_or(-1.0)),
            );
            c.insert("httpOnly".into(), json!(http_only));
            c.insert(
                "secure".into(),
                json!(secure && (same_site == Some("None") || http_only)),
            );
            c.insert("session".into(), json!(expires.is_none()));
            if let Some(s) = same_site {
                c.insert("sameSite".into(), json!(s));
            }
            c.insert("priority".into(), json!("Medium"));
            c.insert("sameParty".into(), json!(false));
            c.insert(
                "sourceScheme".into(),
                json!(if secure { "Secure" } else { "NonSecure" }),
            );
            c.insert("sourcePort".into(), json!(if secure { 443 } else { 80 }));
            self.cookies.push(Value::Object(c));
        };
        let page_host = &self.hosts[self.page_host];
        if page_host.prov.key == "cloudflare" && secure && sr.random_bool(0.6) {
            let v = format!(
                "{}-{}-1.0.1.1-{}",
                ralnum(sr, 43, false),
                self.nav0 / 1000,
                ralnum(sr, 60, false)
            );
            add(
                "__cf_bm".into(),
                v,
                apex.clone(),
                Some(now_s + 1800.0),
                true,
                Some("None"),
            );
        }
        if let SiteKind::Known(k) = self.site.kind {
            let name = match k.apex {
                "google.com" | "youtube.com" => "NID",
                "facebook.com" | "instagram.com" => "datr",
                "github.com" => "_gh_sess",
                "microsoft.com" | "bing.com" | "linkedin.com" => "MUID",
                "amazon.com" => "session-id",
                "netflix.com" => "nfvdid",
                _ => "session",
            };
            let v = ralnum(sr, 32, true);
            add(
                name.into(),
                v,
                apex.clone(),
                Some(now_s + 180.0 * 86_400.0),
                true,
                Some("Lax"),
            );
        }
        if self.site.php.is_some() && matches!(self.site.style, Style::Kit) {
            add(
                "PHPSESSID".into(),
                ralnum(sr, 26, false),
                self.page.host.clone(),
                None,
                false,
                None,
            );
        }
        let has = |k: &str| self.site.third.iter().any(|t| t.key == k);
        let (ga, fb, hj, ot) = (has("gtm"), has("fb-pixel"), has("hotjar"), has("onetrust"));
        let ts = self.nav0 / 1000;
        if ga {
            add(
                "_ga".into(),
                format!(
                    "GA1.1.{}.{}",
                    sr.random_range(100_000_000..2_000_000_000u32),
                    ts
                ),
                apex.clone(),
                Some(now_s + 400.0 * 86_400.0),
                false,
                None,
            );
            let id = self.site.ga_id.trim_start_matches("G-").to_string();
            add(
                format!("_ga_{id}"),
                format!("GS2.1.s{ts}$o1$g0$t{ts}$j60$l0$h0"),
                apex.clone(),
                Some(now_s + 400.0 * 86_400.0),
                false,
                None,
            );
        }
        if fb {
            add(
                "_fbp".into(),
                format!(
                    "fb.1.{}.{}",
                    self.nav0,
                    sr.random_range(100_000_000..999_999_999u32)
                ),
                apex.clone(),
                Some(now_s + 90.0 * 86_400.0),
                false,
                Some("Lax"),
            );
        }
        if hj {
            let id = sr.random_range(1_000_000..9_999_999u32);
            add(
                format!("_hjSessionUser_{id}"),
                format!("eyJpZCI6Ij{}", ralnum(sr, 40, false)),
                apex.clone(),
                Some(now_s + 365.0 * 86_400.0),
                false,
                Some("None"),
            );
        }
        if ot {
            let v = format!(
                "isGpcEnabled=0&datestamp={}&version=202401.1.0&hosts=&landingPath={}",
                http_date(self.nav0).replace(' ', "+"),
                self.page_url.replace(':', "%3A").replace('/', "%2F")
            );
            add(
                "OptanonConsent".into(),
                v,
                apex.clone(),
                Some(now_s + 365.0 * 86_400.0),
                false,
                Some("Lax"),
            );
        }
    }

    fn make_console(&mut self, sr: &mut ChaCha8Rng) {
        let ts0 = self.nav0 as f64;
        let mut out: Vec<Value> = Vec::new();
        let mut msg =
            |level: &str, source: &str, text: String, url: &str, line: Option<i64>, at: f64| {
                let mut m = Map::new();
                m.insert("source".into(), json!(source));
                m.insert("level".into(), json!(level));
                m.insert("text".into(), json!(text));
                m.insert("timestamp".into(), json!(round_to(ts0 + at, 3)));
                m.insert("url".into(), json!(url));
                if let Some(l) = line {
                    m.insert("line".into(), json!(l));
                }
                out.push(json!({ "message": Value::Object(m) }));
            };
        if self.status == 404 {
            msg(
                "error",
                "network",
                "Failed to load resource: the server responded with a status of 404 ()".into(),
                &self.page_url,
                None,
                self.reqs[0].end,
            );
        }
        if let Some(q) = self.reqs.iter().find(|q| q.label == "jquery") {
            if sr.random_bool(0.7) {
                msg(
                    "log",
                    "console-api",
                    "JQMIGRATE: Migrate is installed, version 3.4.1".into(),
                    &q.url,
                    Some(2),
                    q.end + 3.0,
                );
            }
        }
        if let Some(q) = self.reqs.iter().find(|q| q.label == "app") {
            if sr.random_bool(0.25) {
                msg(
                    "error",
                    "javascript",
                    "Uncaught TypeError: Cannot read properties of null (reading 'addEventListener')".into(),
                    &q.url,
                    Some(sr.random_range(1..400)),
                    q.end + 2.0,
                );
            }
        }
        if let Some(q) = self
            .reqs
            .iter()
            .find(|q| q.kind == Kind::Stylesheet && q.tp.is_some())
        {
            if sr.random_bool(0.2) {
                msg(
                    "warning",
                    "other",
                    format!("The resource {} was preloaded using link preload but not used within a few seconds from the window's load event. Please make sure it has an appropriate `as` value and it is preloaded intentionally.", q.url),
                    &self.page_url,
                    None,
                    self.load + 3000.0,
                );
            }
        }
        if self.site.is_phish() && sr.random_bool(0.3) {
            let u = self
                .reqs
                .iter()
                .find(|q| q.label == "app")
                .map(|q| q.url.clone())
                .unwrap_or_else(|| self.page_url.clone());
            msg("log", "console-api", "loaded".into(), &u, Some(1), self.dcl);
        }
        self.console = out;
    }

    fn make_globals_and_apps(&mut self) {
        let mut g: Vec<(String, &'static str)> = Vec::new();
        let add_g = |p: &str, t: &'static str, g: &mut Vec<(String, &'static str)>| {
            if !g.iter().any(|x| x.0 == p) {
                g.push((p.to_string(), t));
            }
        };
        let mut apps: Vec<(&'static str, String)> = Vec::new();
        let add_app = |a: &'static str, pattern: String, apps: &mut Vec<(&'static str, String)>| {
            if !apps.iter().any(|x| x.0 == a) && words::APPS.iter().any(|x| x.0 == a) {
                apps.push((a, pattern));
            }
        };
        let server = self.hosts[self.page_host].server.clone();
        let sl = server.to_ascii_lowercase();
        let by_server: &[(&str, &'static str)] = &[
            ("nginx", "Nginx"),
            ("apache", "Apache HTTP Server"),
            ("litespeed", "LiteSpeed"),
            ("iis", "IIS"),
            ("cloudflare", "Cloudflare"),
            ("amazons3", "Amazon S3"),
            ("cloudfront", "Amazon CloudFront"),
            ("akamai", "Akamai"),
            ("varnish", "Varnish"),
            ("gws", "Google Web Server"),
            ("caddy", "Caddy"),
        ];
        for (needle, app) in by_server {
            if sl.contains(needle) {
                add_app(app, format!("headers server /{needle}/i"), &mut apps);
            }
        }
        if let SiteKind::Known(k) = self.site.kind {
            for a in k.apps {
                add_app(a, format!("dom /{}/i", a.to_ascii_lowercase()), &mut apps);
            }
        }
        match self.site.style {
            Style::WordPress => {
                add_app(
                    "WordPress",
                    "meta generator /^WordPress ?([\\d.]+)?/i".into(),
                    &mut apps,
                );
                add_g("wp", "object", &mut g);
                add_g("jQuery", "function", &mut g);
                add_g("$", "function", &mut g);
                add_app(
                    "jQuery",
                    "scriptSrc /jquery(?:\\.min)?\\.js(?:\\?ver=([\\d.]+))?/i".into(),
                    &mut apps,
                );
            }
            Style::NextJs => {
                add_app("Next.js", "js __NEXT_DATA__".into(), &mut apps);
                add_app("React", "js React".into(), &mut apps);
                add_g("__NEXT_DATA__", "object", &mut g);
                add_g("next", "object", &mut g);
                add_g("__next_f", "object", &mut g);
            }
            Style::Vite => {
                add_g(
                    "__vite_plugin_react_preamble_installed__",
                    "boolean",
                    &mut g,
                );
            }
            Style::Shopify => {
                add_app("Shopify", "js Shopify.shop".into(), &mut apps);
                add_g("Shopify", "object", &mut g);
                add_g("ShopifyAnalytics", "object", &mut g);
            }
            Style::Kit => {
                add_g("validateForm", "function", &mut g);
                add_g("sendData", "function", &mut g);
            }
            Style::Static | Style::Known => {
                add_g("app", "object", &mut g);
            }
        }
        if self.site.php.is_some() {
            add_app(
                "PHP",
                "headers x-powered-by /^php\\/?([\\d.]+)?/i".into(),
                &mut apps,
            );
        }
        for q in &self.reqs {
            if let Some(tp) = q.tp {
                for a in tp.apps {
                    add_app(
                        a,
                        format!("scriptSrc /{}/i", tp.host.replace('.', "\\.")),
                        &mut apps,
                    );
                }
                for (p, t) in tp.globals {
                    add_g(p, t, &mut g);
                }
            }
        }
        if self.site.hsts && self.page.scheme == "https" {
            add_app(
                "HSTS",
                "headers strict-transport-security".into(),
                &mut apps,
            );
        }
        if self.protocol_of(0) == "h3" {
            add_app("HTTP/3", "headers alt-svc /h3/i".into(), &mut apps);
        }
        self.globals = g;
        self.apps = apps;
    }

    // -----------------------------------------------------------------------
    // JSON rendering
    // -----------------------------------------------------------------------

    fn page_json(&self) -> Value {
        let h = &self.hosts[self.page_host];
        let mut p = Map::new();
        p.insert("url".into(), json!(self.page_url));
        p.insert("domain".into(), json!(self.page.host));
        p.insert("apexDomain".into(), json!(self.site.apex));
        p.insert("country".into(), json!(h.loc.country));
        p.insert("city".into(), json!(h.loc.city));
        p.insert("server".into(), json!(h.server));
        p.insert("ip".into(), json!(h.ip));
        p.insert("asn".into(), json!(format!("AS{}", h.prov.asn)));
        p.insert("asnname".into(), json!(h.prov.asnname));
        p.insert("ptr".into(), json!(h.ptr));
        p.insert("title".into(), json!(self.title));
        p.insert("status".into(), json!(self.status.to_string()));
        p.insert("mimeType".into(), json!("text/html"));
        p.insert("language".into(), json!(self.site.lang));
        if let Some(rd) = &self.redirect {
            let from = &self.hosts[rd.host];
            let label = if from.name == h.name {
                "same-domain"
            } else if from.apex == h.apex {
                "sub-domain"
            } else {
                "off-domain"
            };
            p.insert("redirected".into(), json!(label));
        }
        if self.page.scheme == "https" {
            let t = &h.tls;
            p.insert("tlsIssuer".into(), json!(t.issuer));
            p.insert("tlsValidDays".into(), json!(t.valid_days));
            p.insert("tlsAgeDays".into(), json!(t.age_days));
            p.insert("tlsValidFrom".into(), json!(iso(t.from_s * 1000)));
        }
        if !self.page.is_ip {
            let apex_age = ((self.t_ms - self.site.reg_ms) / DAY_MS).max(0);
            let dom_age = if self.page.host == self.site.apex
                || self.page.host == format!("www.{}", self.site.apex)
            {
                apex_age
            } else {
                (apex_age as f64 * (0.2 + (h64(&["dage", &self.page.host]) % 80) as f64 / 100.0))
                    as i64
            };
            p.insert("apexDomainAgeDays".into(), json!(apex_age));
            p.insert("domainAgeDays".into(), json!(dom_age));
        }
        if let Some(rank) = self.site.rank {
            p.insert("umbrellaRank".into(), json!(rank));
        }
        Value::Object(p)
    }

    fn task_json(&self, base: &str, full: bool) -> Value {
        let s = self.spec;
        let mut t = Map::new();
        t.insert("uuid".into(), json!(s.uuid));
        t.insert("time".into(), json!(iso(s.time_ms)));
        // The service echoes the URL as submitted ("https://www.google.com",
        // no slash); only unusable input is replaced by its normalised form.
        let raw = s.url.trim();
        let as_submitted = url::Url::parse(raw)
            .map(|u| {
                matches!(u.scheme(), "http" | "https")
                    && (u.as_str() == raw || u.as_str() == format!("{raw}/"))
            })
            .unwrap_or(false);
        let task_url = if as_submitted {
            raw.to_string()
        } else {
            self.submitted.url()
        };
        t.insert("url".into(), json!(task_url));
        t.insert("visibility".into(), json!(s.visibility));
        t.insert("method".into(), json!(s.method));
        t.insert("source".into(), json!(s.source));
        t.insert("tags".into(), json!(s.tags));
        t.insert("domain".into(), json!(self.submitted.host));
        t.insert("apexDomain".into(), json!(apex_of(&self.submitted.host)));
        if full {
            let mut o = Map::new();
            o.insert("useragent".into(), json!(self.ua));
            if let Some(r) = &s.referer {
                o.insert("referer".into(), json!(r));
            }
            t.insert("options".into(), Value::Object(o));
            t.insert("userAgent".into(), json!(self.ua));
            t.insert(
                "reportURL".into(),
                json!(format!("{base}/result/{}/", s.uuid)),
            );
            t.insert(
                "screenshotURL".into(),
                json!(format!("{base}/screenshots/{}.png", s.uuid)),
            );
            t.insert("domURL".into(), json!(format!("{base}/dom/{}/", s.uuid)));
        }
        Value::Object(t)
    }

    /// TLS details of a response; the SCT list is spelled out only for the
    /// response that opened the connection, which keeps documents compact.
    fn security_details(&self, h: &Host, with_scts: bool) -> Value {
        let t = &h.tls;
        let year = dt(t.from_s * 1000).year();
        let mut r = rng_of(&["sct", &h.name, &t.from_s.to_string()]);
        let mut scts = Vec::new();
        for _ in 0..if with_scts { 2 } else { 0 } {
            let log = pick(&mut r, words::CT_LOGS).replace("{y}", &year.to_string());
            scts.push(json!({
                "status": "Verified",
                "origin": "Embedded in certificate",
                "logDescription": log,
                "logId": rhex(&mut r, 64).to_ascii_uppercase(),
                "timestamp": t.from_s * 1000 + 3_600_000 + r.random_range(0..900_000i64),
                "hashAlgorithm": "SHA-256",
                "signatureAlgorithm": "ECDSA",
                "signatureData": rhex(&mut r, 142).to_ascii_uppercase(),
            }));
        }
        json!({
            "protocol": t.version,
            "keyExchange": t.kx,
            "keyExchangeGroup": t.group,
            "cipher": t.cipher,
            "certificateId": 0,
            "subjectName": t.subject,
            "sanList": t.san,
            "issuer": t.issuer,
            "validFrom": t.from_s,
            "validTo": t.to_s,
            "signedCertificateTimestampList": scts,
            "certificateTransparencyCompliance": "compliant",
            "serverSignatureAlgorithm": if t.issuer.starts_with('E') || t.issuer.starts_with("WE") { 1027 } else { 2052 },
            "encryptedClientHello": false,
        })
    }

    fn request_json(&self, i: usize) -> Value {
        let q = &self.reqs[i];
        let h = &self.hosts[q.host];
        let secure = q.url.starts_with("https");
        let protocol = self.protocol_of(i);
        let same_site = h.apex == self.site.apex;

        let mut rh = Map::new();
        if i == 0 {
            rh.insert("Upgrade-Insecure-Requests".into(), json!("1"));
        } else if let Some(u) = &q.init_url {
            if !self.site.is_phish() || same_site {
                rh.insert(
                    "Referer".into(),
                    json!(format!("{}/", Target::parse(u).origin())),
                );
            }
        }
        rh.insert("User-Agent".into(), json!(self.ua));
        if i == 0 {
            rh.insert("Accept-Language".into(), json!(self.accept_language));
            if let Some(v) = chrome_major(&self.ua) {
                rh.insert("sec-ch-ua".into(), json!(format!("\"Chromium\";v=\"{v}\", \"Not:A-Brand\";v=\"24\", \"Google Chrome\";v=\"{v}\"")));
                rh.insert("sec-ch-ua-mobile".into(), json!("?0"));
                rh.insert("sec-ch-ua-platform".into(), json!("\"Windows\""));
            }
            if let Some(r) = &self.spec.referer {
                rh.insert("Referer".into(), json!(r));
            }
        }
        let mut inner = Map::new();
        inner.insert("url".into(), json!(q.url));
        inner.insert("method".into(), json!(q.method));
        inner.insert("headers".into(), Value::Object(rh));
        inner.insert("mixedContentType".into(), json!("none"));
        inner.insert("initialPriority".into(), json!(q.priority));
        inner.insert(
            "referrerPolicy".into(),
            json!("strict-origin-when-cross-origin"),
        );
        if q.method == "POST" {
            inner.insert("hasPostData".into(), json!(true));
        }
        inner.insert("isSameSite".into(), json!(same_site));

        let mut initiator = Map::new();
        initiator.insert("type".into(), json!(q.init_type));
        if i > 0 {
            if let Some(u) = &q.init_url {
                initiator.insert("url".into(), json!(u));
            }
            if let Some(l) = q.init_line {
                initiator.insert("lineNumber".into(), json!(l));
            }
            if q.init_type == "script" {
                initiator.insert(
                    "columnNumber".into(),
                    json!((h64(&["col", &q.url]) % 4000) as i64),
                );
            }
        }

        let ts = round_to(self.mono + q.start / 1000.0, 6);
        let mut req = Map::new();
        req.insert("requestId".into(), json!(q.id));
        req.insert("loaderId".into(), json!(self.loader_id));
        req.insert("documentURL".into(), json!(self.page_url));
        req.insert("request".into(), Value::Object(inner));
        req.insert("timestamp".into(), json!(ts));
        req.insert(
            "wallTime".into(),
            json!(round_to((self.nav0 as f64 + q.start) / 1000.0, 5)),
        );
        req.insert("initiator".into(), Value::Object(initiator));
        req.insert(
            "redirectHasExtraInfo".into(),
            json!(i == 0 && self.redirect.is_some()),
        );
        req.insert("type".into(), json!(cdp_type(q.kind)));
        req.insert("frameId".into(), json!(self.frame_id));
        req.insert("hasUserGesture".into(), json!(false));
        if i == 0 {
            req.insert("primaryRequest".into(), json!(true));
        }

        // Response.
        let hdrs = self.response_headers(i);
        let mut hm = Map::new();
        for (k, v) in &hdrs {
            hm.insert(k.clone(), json!(v));
        }
        let mut timing = Map::new();
        let (dns, connect, ssl, send) = q.conn.unwrap_or((0.0, 0.0, 0.0, 0.1));
        let fresh = q.conn.is_some();
        let neg = -1;
        timing.insert("requestTime".into(), json!(ts));
        timing.insert("proxyStart".into(), json!(neg));
        timing.insert("proxyEnd".into(), json!(neg));
        timing.insert(
            "dnsStart".into(),
            if fresh { json!(0.2) } else { json!(neg) },
        );
        timing.insert(
            "dnsEnd".into(),
            if fresh {
                json!(round_to(0.2 + dns, 3))
            } else {
                json!(neg)
            },
        );
        timing.insert(
            "connectStart".into(),
            if fresh {
                json!(round_to(0.2 + dns, 3))
            } else {
                json!(neg)
            },
        );
        timing.insert(
            "connectEnd".into(),
            if fresh {
                json!(round_to(0.2 + dns + connect, 3))
            } else {
                json!(neg)
            },
        );
        timing.insert(
            "sslStart".into(),
            if fresh && secure {
                json!(round_to(0.2 + dns + connect - ssl, 3))
            } else {
                json!(neg)
            },
        );
        timing.insert(
            "sslEnd".into(),
            if fresh && secure {
                json!(round_to(0.2 + dns + connect, 3))
            } else {
                json!(neg)
            },
        );
        timing.insert("workerStart".into(), json!(neg));
        timing.insert("workerReady".into(), json!(neg));
        timing.insert("workerFetchStart".into(), json!(neg));
        timing.insert("workerRespondWithSettled".into(), json!(neg));
        let send_start = round_to(if fresh { 0.3 + dns + connect } else { 0.4 }, 3);
        timing.insert("sendStart".into(), json!(send_start));
        timing.insert("sendEnd".into(), json!(round_to(send_start + send, 3)));
        timing.insert("pushStart".into(), json!(0));
        timing.insert("pushEnd".into(), json!(0));
        timing.insert(
            "receiveHeadersStart".into(),
            json!(round_to(q.ttfb - 0.5, 3)),
        );
        timing.insert("receiveHeadersEnd".into(), json!(round_to(q.ttfb, 3)));

        let mut resp = Map::new();
        resp.insert("url".into(), json!(q.url));
        resp.insert("status".into(), json!(q.status));
        resp.insert("statusText".into(), json!(status_text(q.status, protocol)));
        resp.insert("headers".into(), Value::Object(hm));
        resp.insert("mimeType".into(), json!(q.mime));
        let remote = if h.v6 {
            format!("[{}]", h.ip)
        } else {
            h.ip.clone()
        };
        resp.insert("remoteIPAddress".into(), json!(remote));
        let port = if i == 0 {
            self.page.port_num()
        } else if secure {
            443
        } else {
            80
        };
        resp.insert("remotePort".into(), json!(port));
        resp.insert("encodedDataLength".into(), json!(q.hdr_len));
        resp.insert("timing".into(), Value::Object(timing));
        resp.insert(
            "responseTime".into(),
            json!(round_to(self.nav0 as f64 + q.start + q.ttfb, 3)),
        );
        resp.insert("protocol".into(), json!(protocol));
        if protocol == "h3" {
            resp.insert(
                "alternateProtocolUsage".into(),
                json!("alternativeJobWonWithoutRace"),
            );
        }
        resp.insert(
            "securityState".into(),
            json!(if secure { "secure" } else { "insecure" }),
        );
        if secure {
            resp.insert(
                "securityDetails".into(),
                self.security_details(h, q.conn.is_some()),
            );
            let sec: Vec<Value> = hdrs
                .iter()
                .filter(|(k, _)| {
                    let k = k.to_ascii_lowercase();
                    k == "strict-transport-security" || k == "x-frame-options" || k == "x-content-type-options" || k == "content-security-policy"
                })
                .map(|(k, v)| json!({"name": k.split('-').map(capitalize).collect::<Vec<_>>().join("-"), "value": v}))
                .collect();
            if !sec.is_empty() {
                resp.insert("securityHeaders".into(), Value::Array(sec));
            }
        }

        let mut outer = Map::new();
        outer.insert("encodedDataLength".into(), json!(q.hdr_len + q.enc_body));
        outer.insert("dataLength".into(), json!(q.body.len()));
        outer.insert("requestId".into(), json!(q.id));
        outer.insert("type".into(), json!(cdp_type(q.kind)));
        outer.insert("response".into(), Value::Object(resp));
        outer.insert("hasExtraInfo".into(), json!(false));
        outer.insert("hash".into(), json!(q.hash));
        outer.insert("size".into(), json!(q.body.len()));
        outer.insert("asn".into(), h.asn_json());
        outer.insert("geoip".into(), h.geoip_json());
        if !h.ptr.is_empty() {
            outer.insert("rdns".into(), json!({"ip": h.ip, "ptr": h.ptr}));
        }

        let mut entry = Map::new();
        entry.insert("request".into(), Value::Object(req));
        entry.insert("response".into(), Value::Object(outer));
        if i > 0 {
            if let Some(u) = &q.init_url {
                let ih = Target::parse(u).host;
                entry.insert(
                    "initiatorInfo".into(),
                    json!({"url": u, "host": ih, "type": q.init_type}),
                );
            }
        }
        Value::Object(entry)
    }

    /// Hosts in first-contact order with their request index list
    /// (the redirect hop counts as a contact).
    fn lists(&self) -> Lists {
        let mut l = Lists::default();
        let mut host_order: Vec<usize> = Vec::new();
        if let Some(rd) = &self.redirect {
            host_order.push(rd.host);
            push_unique(&mut l.urls, &rd.from);
        }
        for q in &self.reqs {
            if !host_order.contains(&q.host) {
                host_order.push(q.host);
            }
            push_unique(&mut l.urls, &q.url);
            push_unique(&mut l.hashes, &q.hash);
        }
        for &hi in &host_order {
            let h = &self.hosts[hi];
            push_unique(&mut l.ips, &h.ip);
            push_unique(&mut l.countries, h.loc.country);
            push_unique(&mut l.asns, &h.prov.asn.to_string());
            push_unique(&mut l.asnnames, h.prov.asnname);
            push_unique(&mut l.domains, &h.name);
            push_unique(&mut l.servers, &h.server);
        }
        for q in &self.reqs {
            if q.url.starts_with("https") {
                let h = &self.hosts[q.host];
                if !l
                    .certs
                    .iter()
                    .any(|c: &Value| c["subjectName"] == json!(h.tls.subject))
                {
                    l.certs.push(json!({
                        "subjectName": h.tls.subject,
                        "issuer": h.tls.issuer,
                        "validFrom": h.tls.from_s,
                        "validTo": h.tls.to_s,
                    }));
                }
            }
        }
        for (href, _) in &self.links {
            let t = Target::parse(href);
            push_unique(&mut l.link_domains, &t.host);
        }
        l.host_order = host_order;
        l
    }

    fn stats_json(&self, lists: &Lists) -> Value {
        #[derive(Default)]
        struct Agg {
            count: u64,
            size: u64,
            enc: u64,
            ips: Vec<String>,
            countries: Vec<String>,
            initiators: Vec<String>,
            redirects: u64,
            domains: Vec<String>,
            protocols: Vec<(String, u64)>,
        }
        fn group<'g>(groups: &'g mut Vec<(String, Agg)>, key: &str) -> &'g mut Agg {
            if let Some(i) = groups.iter().position(|g| g.0 == key) {
                return &mut groups[i].1;
            }
            groups.push((key.to_string(), Agg::default()));
            &mut groups.last_mut().expect("just pushed").1
        }
        let mut by_type: Vec<(String, Agg)> = Vec::new();
        let mut by_proto: Vec<(String, Agg)> = Vec::new();
        let mut by_tls: Vec<(String, Agg)> = Vec::new();
        let mut by_server: Vec<(String, Agg)> = Vec::new();
        let mut by_domain: Vec<(String, Agg)> = Vec::new();
        let mut by_reg: Vec<(String, Agg)> = Vec::new();
        let mut by_ip: Vec<(String, Agg)> = Vec::new();
        // Seed domain/ip order with the lists order (redirect hop first).
        for &hi in &lists.host_order {
            let h = &self.hosts[hi];
            group(&mut by_domain, &h.name);
            group(&mut by_reg, &h.apex);
            group(&mut by_ip, &h.ip);
        }
        if let Some(rd) = &self.redirect {
            let h = &self.hosts[rd.host];
            for g in [
                group(&mut by_domain, &h.name),
                group(&mut by_reg, &h.apex),
                group(&mut by_ip, &h.ip),
            ] {
                g.redirects += 1;
            }
            let d = group(&mut by_ip, &h.ip);
            push_unique(&mut d.domains, &h.name);
        }
        let mut secure = 0u64;
        let mut v6 = 0u64;
        for (i, q) in self.reqs.iter().enumerate() {
            let h = &self.hosts[q.host];
            let size = q.body.len() as u64;
            let enc = q.hdr_len + q.enc_body;
            let proto = self.protocol_of(i);
            let init_host = q
                .init_url
                .as_ref()
                .map(|u| Target::parse(u).host)
                .unwrap_or_else(|| h.name.clone());
            let is_secure = q.url.starts_with("https");
            if is_secure {
                secure += 1;
            }
            if h.v6 {
                v6 += 1;
            }
            let tls_key = if is_secure { "secure" } else { "" };
            let tls_proto = format!("{} / {} / {}", h.tls.version, h.tls.kx, h.tls.cipher);
            let mut groups: Vec<&mut Agg> = vec![
                group(&mut by_type, cdp_type(q.kind)),
                group(&mut by_proto, proto),
                group(&mut by_server, &h.server),
            ];
            for g in groups.iter_mut() {
                g.count += 1;
                g.size += size;
                g.enc += enc;
                push_unique(&mut g.ips, &h.ip);
                push_unique(&mut g.countries, h.loc.country);
            }
            if is_secure {
                let g = group(&mut by_tls, tls_key);
                g.count += 1;
                g.size += size;
                g.enc += enc;
                push_unique(&mut g.ips, &h.ip);
                push_unique(&mut g.countries, h.loc.country);
                match g.protocols.iter_mut().find(|p| p.0 == tls_proto) {
                    Some(p) => p.1 += 1,
                    None => g.protocols.push((tls_proto.clone(), 1)),
                }
            }
            for g in [group(&mut by_domain, &h.name), group(&mut by_reg, &h.apex)] {
                g.count += 1;
                g.size += size;
                g.enc += enc;
                push_unique(&mut g.ips, &h.ip);
                push_unique(&mut g.countries, h.loc.country);
                push_unique(&mut g.initiators, &init_host);
                push_unique(&mut g.domains, &h.name);
            }
            let g = group(&mut by_ip, &h.ip);
            g.count += 1;
            g.size += size;
            g.enc += enc;
            push_unique(&mut g.countries, h.loc.country);
            push_unique(&mut g.domains, &h.name);
        }
        let total = self.reqs.len().max(1) as u64;
        let pct = |c: u64| ((c * 100) as f64 / total as f64).round() as i64;
        let simple = |groups: &Vec<(String, Agg)>, key: &str| -> Vec<Value> {
            groups
                .iter()
                .map(|(k, g)| {
                    let mut m = Map::new();
                    m.insert("count".into(), json!(g.count));
                    m.insert("size".into(), json!(g.size));
                    m.insert("encodedSize".into(), json!(g.enc));
                    m.insert("latency".into(), json!(0));
                    m.insert("countries".into(), json!(g.countries));
                    m.insert("ips".into(), json!(g.ips));
                    m.insert(key.into(), json!(k));
                    m.insert("percentage".into(), json!(pct(g.count)));
                    Value::Object(m)
                })
                .collect()
        };
        let resource_stats: Vec<Value> = by_type
            .iter()
            .map(|(k, g)| {
                let comp = if g.enc > 0 {
                    g.size as f64 / g.enc as f64
                } else {
                    1.0
                };
                json!({
                    "count": g.count, "size": g.size, "encodedSize": g.enc, "latency": 0,
                    "countries": g.countries, "ips": g.ips, "type": k,
                    "compression": format!("{comp:.1}"), "percentage": pct(g.count),
                })
            })
            .collect();
        let protocol_stats: Vec<Value> = by_proto
            .iter()
            .map(|(k, g)| {
                json!({
                    "count": g.count, "size": g.size, "encodedSize": g.enc, "ips": g.ips,
                    "countries": g.countries, "securityState": {}, "protocol": k,
                })
            })
            .collect();
        let tls_stats: Vec<Value> = by_tls
            .iter()
            .map(|(k, g)| {
                let mut protos = Map::new();
                for (p, c) in &g.protocols {
                    protos.insert(p.clone(), json!(c));
                }
                json!({
                    "count": g.count, "size": g.size, "encodedSize": g.enc, "ips": g.ips,
                    "countries": g.countries, "protocols": protos, "securityState": k,
                })
            })
            .collect();
        let server_stats = simple(&by_server, "server");
        let domain_stats: Vec<Value> = by_domain
            .iter()
            .enumerate()
            .map(|(i, (k, g))| {
                json!({
                    "count": g.count, "ips": g.ips, "domain": k, "size": g.size, "encodedSize": g.enc,
                    "countries": g.countries, "index": i, "initiators": g.initiators,
                    "redirects": g.redirects, "requests": g.count,
                })
            })
            .collect();
        let reg_stats: Vec<Value> = by_reg
            .iter()
            .enumerate()
            .map(|(i, (k, g))| {
                let subs: Vec<Value> = g
                    .domains
                    .iter()
                    .filter(|d| *d != k)
                    .map(|d| {
                        let sub = d.strip_suffix(&format!(".{k}")).unwrap_or(d);
                        let c = self.hosts.iter().find(|h| &h.name == d).map(|h| h.loc.country).unwrap_or("");
                        json!({"domain": sub, "country": c})
                    })
                    .collect();
                json!({
                    "count": g.count, "ips": g.ips, "regDomain": k, "size": g.size, "encodedSize": g.enc,
                    "countries": g.countries, "index": i, "subDomains": subs,
                    "redirects": g.redirects, "requests": g.count, "initiators": g.initiators,
                })
            })
            .collect();
        let ip_stats: Vec<Value> = by_ip
            .iter()
            .enumerate()
            .map(|(i, (k, g))| {
                let h = self
                    .hosts
                    .iter()
                    .find(|h| &h.ip == k)
                    .expect("ip belongs to a host");
                let mut m = Map::new();
                m.insert("requests".into(), json!(g.count));
                m.insert("domains".into(), json!(g.domains));
                m.insert("ip".into(), json!(k));
                m.insert("asn".into(), h.asn_json());
                m.insert("dns".into(), json!({}));
                m.insert("geoip".into(), h.geoip_json());
                m.insert("size".into(), json!(g.size));
                m.insert("encodedSize".into(), json!(g.enc));
                m.insert("countries".into(), json!(g.countries));
                m.insert("index".into(), json!(i));
                m.insert("ipv6".into(), json!(h.v6));
                m.insert("redirects".into(), json!(g.redirects));
                m.insert("count".into(), Value::Null);
                if !h.ptr.is_empty() {
                    m.insert("rdns".into(), json!({"ip": h.ip, "ptr": h.ptr}));
                }
                Value::Object(m)
            })
            .collect();
        json!({
            "resourceStats": resource_stats,
            "protocolStats": protocol_stats,
            "tlsStats": tls_stats,
            "serverStats": server_stats,
            "domainStats": domain_stats,
            "regDomainStats": reg_stats,
            "secureRequests": secure,
            "securePercentage": pct(secure),
            "IPv6Percentage": pct(v6),
            "uniqCountries": lists.countries.len(),
            "totalLinks": self.links.len(),
            "malicious": if self.brand.is_some() { 1 } else { 0 },
            "adBlocked": self.reqs.iter().filter(|q| q.tracker).count(),
            "ipStats": ip_stats,
        })
    }

    fn brand_json(&self) -> Vec<Value> {
        self.brand
            .map(|b| {
                vec![json!({
                    "key": b.key,
                    "name": b.name,
                    "country": b.country,
                    "vertical": b.vertical,
                })]
            })
            .unwrap_or_default()
    }

    fn verdicts_json(&self) -> Value {
        let mal = self.brand.is_some();
        let brands = self.brand_json();
        let (cats, tags): (Vec<&str>, Vec<String>) = match self.brand {
            Some(b) => (
                vec!["phishing"],
                vec!["phishing".to_string(), b.key.to_string()],
            ),
            None => (vec![], vec![]),
        };
        let votes = self.community_votes;
        json!({
            "overall": {
                "score": self.score, "categories": cats, "brands": brands, "tags": tags,
                "malicious": mal, "hasVerdicts": mal,
            },
            "urlscan": {
                "score": self.score, "categories": cats, "brands": brands, "tags": tags,
                "malicious": mal, "hasVerdicts": mal,
            },
            "engines": {
                "score": 0, "categories": [], "brands": [], "tags": [], "malicious": false,
                "hasVerdicts": false, "enginesTotal": 0, "maliciousTotal": 0, "benignTotal": 0,
                "maliciousVerdicts": [], "benignVerdicts": [], "verdicts": [],
            },
            "community": {
                "score": if votes > 0 { 100 } else { 0 },
                "categories": if votes > 0 { cats.clone() } else { vec![] },
                "brands": if votes > 0 { brands.clone() } else { vec![] },
                "tags": [], "malicious": votes > 0, "hasVerdicts": votes > 0,
                "votesTotal": votes, "votesMalicious": votes, "votesBenign": 0,
            },
        })
    }

    fn meta_json(&self, lists: &Lists) -> Value {
        let hosts: Vec<&Host> = lists.host_order.iter().map(|&i| &self.hosts[i]).collect();
        let mut asn = Vec::new();
        let mut geo = Vec::new();
        let mut rdns = Vec::new();
        let mut seen: Vec<String> = Vec::new();
        for h in &hosts {
            if seen.contains(&h.ip) {
                continue;
            }
            seen.push(h.ip.clone());
            asn.push(h.asn_json());
            geo.push(json!({"ip": h.ip, "geoip": h.geoip_json()}));
            if !h.ptr.is_empty() {
                rdns.push(json!({"ip": h.ip, "ptr": h.ptr}));
            }
        }
        let mut umbrella = Vec::new();
        for h in &hosts {
            let rank = if h.name == self.page.host {
                self.site.rank
            } else {
                h.rank
            };
            if let Some(rk) = rank {
                if !umbrella
                    .iter()
                    .any(|u: &Value| u["hostname"] == json!(h.name))
                {
                    umbrella.push(json!({"hostname": h.name, "rank": rk}));
                }
            }
        }
        let wappa: Vec<Value> = self
            .apps
            .iter()
            .filter_map(|(a, pattern)| {
                let rec = words::APPS.iter().find(|x| x.0 == *a)?;
                let cats: Vec<Value> = rec
                    .1
                    .iter()
                    .map(|(n, p, g)| json!({"name": n, "priority": p, "groups": [g]}))
                    .collect();
                Some(json!({
                    "app": a,
                    "categories": cats,
                    "confidence": [{"pattern": pattern, "confidence": 100}],
                    "confidenceTotal": 100,
                    "icon": format!("{}.svg", a.replace('/', "")),
                    "website": rec.2,
                }))
            })
            .collect();
        json!({
            "processors": {
                "umbrella": {"data": umbrella},
                "geoip": {"data": geo},
                "asn": {"data": asn},
                "rdns": {"data": rdns},
                "wappa": {"data": wappa},
                "download": {"data": []},
            }
        })
    }

    fn result(&self, base: &str) -> Value {
        let lists = self.lists();
        let requests: Vec<Value> = (0..self.reqs.len()).map(|i| self.request_json(i)).collect();
        let links: Vec<Value> = self
            .links
            .iter()
            .map(|(h, t)| json!({"href": h, "text": t}))
            .collect();
        let globals: Vec<Value> = self
            .globals
            .iter()
            .map(|(p, t)| json!({"prop": p, "type": t, "source": "windowScope"}))
            .collect();
        let redirects: Vec<Value> = self
            .redirect
            .iter()
            .map(|rd| json!({"from": rd.from, "to": rd.to, "status": rd.status, "initiator": "other"}))
            .collect();
        let t = |off: f64| iso(self.nav0 + off.round() as i64);
        let doc = &self.reqs[0];
        let timing = json!({
            "beginNavigation": iso(self.nav0),
            "frameStartedLoading": t(doc.start + 1.0),
            "frameNavigated": t(doc.ttfb + doc.start + 2.0),
            "domContentEventFired": t(self.dcl),
            "loadEventFired": t(self.load),
            "frameStoppedLoading": t(self.load + 1.0),
        });
        let data = json!({
            "requests": requests,
            "cookies": self.cookies,
            "console": self.console,
            "links": links,
            "timing": timing,
            "globals": globals,
            "redirects": redirects,
            "storages": [],
        });
        json!({
            "data": data,
            "stats": self.stats_json(&lists),
            "meta": self.meta_json(&lists),
            "task": self.task_json(base, true),
            "page": self.page_json(),
            "lists": {
                "ips": lists.ips,
                "countries": lists.countries,
                "asns": lists.asns,
                "domains": lists.domains,
                "servers": lists.servers,
                "urls": lists.urls,
                "linkDomains": lists.link_domains,
                "certificates": lists.certs,
                "hashes": lists.hashes,
            },
            "verdicts": self.verdicts_json(),
            "submitter": {"country": self.submitter_country},
            "scanner": {"country": self.scanner_country},
        })
    }

    fn hit(&self, base: &str) -> Value {
        let lists = self.lists();
        let data_len: usize = self.reqs.iter().map(|q| q.body.len()).sum();
        let enc_len: u64 = self.reqs.iter().map(|q| q.hdr_len + q.enc_body).sum();
        let uuid = &self.spec.uuid;
        let mut m = Map::new();
        m.insert("task".into(), self.task_json(base, false));
        m.insert(
            "stats".into(),
            json!({
                "uniqIPs": lists.ips.len(),
                "consoleMsgs": self.console.len(),
                "uniqCountries": lists.countries.len(),
                "dataLength": data_len,
                "encodedDataLength": enc_len,
                "requests": self.reqs.len(),
            }),
        );
        m.insert("page".into(), self.page_json());
        m.insert(
            "indexedAt".into(),
            json!(iso(self.nav0
                + self.load as i64
                + 4_000
                + (h64(&["idx", uuid]) % 20_000) as i64)),
        );
        m.insert("_id".into(), json!(uuid));
        m.insert("_score".into(), Value::Null);
        m.insert("sort".into(), json!([self.spec.time_ms, uuid]));
        m.insert(
            "result".into(),
            json!(format!("{base}/api/v1/result/{uuid}/")),
        );
        m.insert(
            "screenshot".into(),
            json!(format!("{base}/screenshots/{uuid}.png")),
        );
        m.insert(
            "verdicts".into(),
            json!({"score": self.score, "malicious": self.brand.is_some()}),
        );
        if self.brand.is_some() {
            m.insert("brand".into(), Value::Array(self.brand_json()));
        }
        Value::Object(m)
    }

    fn index(&self, hit: Value) -> Value {
        let lists = self.lists();
        let mut v = hit;
        let mut filenames: Vec<String> = Vec::new();
        for q in &self.reqs {
            let t = Target::parse(&q.url);
            if let Some(f) = t.path().rsplit('/').next() {
                push_unique(&mut filenames, f);
            }
        }
        if let Value::Object(m) = &mut v {
            m.insert("domain".into(), json!(lists.domains));
            m.insert("ip".into(), json!(lists.ips));
            m.insert("hash".into(), json!(lists.hashes));
            m.insert(
                "asn".into(),
                json!(lists
                    .asns
                    .iter()
                    .map(|a| format!("AS{a}"))
                    .collect::<Vec<_>>()),
            );
            m.insert("asnname".into(), json!(lists.asnnames));
            m.insert("country".into(), json!(lists.countries));
            m.insert("server".into(), json!(lists.servers));
            m.insert("filename".into(), json!(filenames));
            m.insert("date".into(), json!(iso(self.spec.time_ms)));
            m.insert("hostname".into(), json!(self.page.host));
        }
        v
    }

    // -----------------------------------------------------------------------
    // Screenshot
    // -----------------------------------------------------------------------

    fn screenshot(&self) -> Vec<u8> {
        const W: usize = 320;
        const H: usize = 200;
        let mut c = Canvas::new(W, H, (255, 255, 255));
        let mut r = rng_of(&["shot", &self.page_url]);
        let primary = self.site.color;
        let light = self.site.accent;
        let gray = (205, 205, 210);
        let dark = (40, 44, 52);
        match self.site.kind {
            SiteKind::Phish(b) => {
                c.fill(0, 0, W, H, (243, 243, 243));
                c.fill(99, 24, 122, 152, (218, 218, 222));
                c.fill(100, 25, 120, 150, (255, 255, 255));
                c.fill(130, 38, 60, 14, b.color);
                c.fill(115, 62, 90, 6, dark);
                for y in [80usize, 102] {
                    c.fill(110, y, 100, 15, (190, 190, 196));
                    c.fill(111, y + 1, 98, 13, (255, 255, 255));
                    c.fill(115, y + 5, 40, 4, (170, 170, 176));
                }
                c.fill(110, 126, 100, 15, b.color);
                c.fill(145, 131, 30, 4, (255, 255, 255));
                c.fill(128, 152, 64, 3, (0, 102, 204));
                c.fill(140, 162, 40, 3, (150, 150, 156));
            }
            _ if self.status == 404 => {
                c.fill(0, 0, W, 24, primary);
                c.fill(10, 7, 48, 10, light);
                for (x, w) in [(90usize, 36usize), (142, 36), (194, 36)] {
                    c.fill(x, 60, w, 50, (225, 225, 230));
                    c.fill(x + 10, 70, w - 20, 30, (255, 255, 255));
                }
                c.fill(95, 130, 130, 6, (120, 120, 126));
                c.fill(120, 144, 80, 4, gray);
            }
            _ => {
                c.fill(0, 0, W, 26, primary);
                c.fill(10, 8, 44, 10, mix(primary, (255, 255, 255), 0.7));
                let mut x = 300usize;
                for _ in 0..4 {
                    let w = r.random_range(18..32);
                    x = x.saturating_sub(w + 10);
                    c.fill(x, 11, w, 4, mix(primary, (255, 255, 255), 0.85));
                }
                c.fill(0, 26, W, 74, light);
                let tw = (self.title.chars().count() * 5).clamp(60, 280);
                c.fill(20, 44, tw, 10, dark);
                c.fill(20, 62, (tw * 3 / 5).max(40), 5, (90, 94, 102));
                c.fill(20, 76, 54, 14, primary);
                c.fill(30, 81, 34, 4, (255, 255, 255));
                for col in 0..3usize {
                    let x0 = 12 + col * 100;
                    c.fill(x0, 110, 96, 64, (228, 228, 232));
                    c.fill(x0 + 1, 111, 94, 62, (255, 255, 255));
                    c.fill(x0 + 6, 116, 84, 22, mix(light, primary, 0.25));
                    for line in 0..3usize {
                        let w = r.random_range(40..84);
                        c.fill(x0 + 6, 144 + line * 8, w, 3, gray);
                    }
                }
                c.fill(0, 184, W, 16, dark);
                c.fill(12, 190, 90, 3, (150, 150, 156));
                if self.site.third.iter().any(|t| t.key == "onetrust") {
                    c.fill(0, 160, W, 40, (30, 30, 30));
                    c.fill(12, 170, 180, 4, (200, 200, 200));
                    c.fill(12, 180, 140, 4, (200, 200, 200));
                    c.fill(230, 168, 78, 18, (70, 130, 220));
                }
            }
        }
        c.png()
    }
}

#[derive(Default)]
struct Lists {
    ips: Vec<String>,
    countries: Vec<String>,
    asns: Vec<String>,
    asnnames: Vec<String>,
    domains: Vec<String>,
    servers: Vec<String>,
    urls: Vec<String>,
    link_domains: Vec<String>,
    certs: Vec<Value>,
    hashes: Vec<String>,
    host_order: Vec<usize>,
}

struct Canvas {
    w: usize,
    h: usize,
    px: Vec<u8>,
}

impl Canvas {
    fn new(w: usize, h: usize, bg: (u8, u8, u8)) -> Canvas {
        let mut px = Vec::with_capacity(w * h * 3);
        for _ in 0..w * h {
            px.extend_from_slice(&[bg.0, bg.1, bg.2]);
        }
        Canvas { w, h, px }
    }

    fn fill(&mut self, x: usize, y: usize, w: usize, h: usize, c: (u8, u8, u8)) {
        for yy in y..(y + h).min(self.h) {
            for xx in x..(x + w).min(self.w) {
                let i = (yy * self.w + xx) * 3;
                self.px[i] = c.0;
                self.px[i + 1] = c.1;
                self.px[i + 2] = c.2;
            }
        }
    }

    fn png(&self) -> Vec<u8> {
        let mut out = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut out, self.w as u32, self.h as u32);
            enc.set_color(png::ColorType::Rgb);
            enc.set_depth(png::BitDepth::Eight);
            // Writing into a Vec cannot fail for a well-formed image.
            if let Ok(mut wr) = enc.write_header() {
                let _ = wr.write_image_data(&self.px);
            }
        }
        out
    }
}

// ---------------------------------------------------------------------------
// Response bodies
// ---------------------------------------------------------------------------

fn not_found_page(server: &str) -> String {
    let s = server.to_ascii_lowercase();
    if s.contains("nginx") {
        "<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n".to_string()
    } else if s.contains("apache") {
        "<!DOCTYPE HTML PUBLIC \"-//IETF//DTD HTML 2.0//EN\">\n<html><head>\n<title>404 Not Found</title>\n</head><body>\n<h1>Not Found</h1>\n<p>The requested URL was not found on this server.</p>\n</body></html>\n".to_string()
    } else {
        "<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head><body><h1>404 Not Found</h1><p>The page you requested could not be found.</p></body></html>\n".to_string()
    }
}

const CSS_SELECTORS: &[&str] = &[
    "body",
    "a",
    "h1",
    "h2",
    "h3",
    "p",
    "img",
    "ul",
    "li",
    "button",
    "input",
    ".container",
    ".row",
    ".col",
    ".btn",
    ".btn-primary",
    ".nav",
    ".navbar",
    ".header",
    ".site-header",
    ".footer",
    ".card",
    ".card-body",
    ".hero",
    ".logo",
    ".menu",
    ".menu-item",
    ".form-control",
    ".site-title",
    ".entry-content",
    ".widget",
    ".sidebar",
    ".modal",
    ".badge",
    ".alert",
    ".links",
    ".login-page",
];
const CSS_PROPS: &[&str] = &[
    "margin",
    "padding",
    "color",
    "background-color",
    "font-size",
    "line-height",
    "display",
    "border-radius",
    "font-weight",
    "max-width",
    "border",
    "text-align",
    "box-shadow",
    "transition",
    "width",
    "height",
    "letter-spacing",
    "gap",
];

fn css_value<R: Rng>(r: &mut R, prop: &str, color: (u8, u8, u8)) -> String {
    match prop {
        "color" | "background-color" => {
            if r.random_bool(0.4) {
                css_color(color)
            } else {
                css_color(hsl(
                    r.random_range(0.0..360.0),
                    r.random_range(0.0..0.4),
                    r.random_range(0.1..0.97),
                ))
            }
        }
        "display" => pick(r, &["block", "flex", "inline-block", "grid", "none"]).to_string(),
        "font-weight" => pick(r, &["400", "500", "600", "700"]).to_string(),
        "text-align" => pick(r, &["left", "center", "right"]).to_string(),
        "border" => format!(
            "1px solid {}",
            css_color(hsl(0.0, 0.0, r.random_range(0.7..0.92)))
        ),
        "box-shadow" => format!(
            "0 {}px {}px rgba(0,0,0,.{})",
            r.random_range(1..4),
            r.random_range(2..16),
            r.random_range(5..25)
        ),
        "transition" => format!("all .{}s ease-in-out", r.random_range(1..5)),
        "line-height" => format!("1.{}", r.random_range(2..8)),
        "max-width" | "width" | "height" => format!("{}px", r.random_range(1..120) * 8),
        _ => format!(
            "{}{}",
            r.random_range(0..48),
            pick(r, &["px", "rem", "em", "px"])
        ),
    }
}

fn gen_css(seed: &str, url: &str, color: (u8, u8, u8)) -> String {
    let mut r = rng_of(&["css", seed]);
    let minified =
        url.contains(".min.") || url.contains("/_next/") || url.contains("/assets/index-");
    let n = r.random_range(14..70);
    let file = url
        .split('?')
        .next()
        .unwrap_or(url)
        .rsplit('/')
        .next()
        .unwrap_or("style.css");
    let mut out = format!("/*! {file} */\n");
    for _ in 0..n {
        let sel = if r.random_bool(0.3) {
            format!(
                "{} {}",
                pick(&mut r, CSS_SELECTORS),
                pick(&mut r, CSS_SELECTORS)
            )
        } else if r.random_bool(0.2) {
            format!("{}:hover", pick(&mut r, CSS_SELECTORS))
        } else {
            pick(&mut r, CSS_SELECTORS).to_string()
        };
        let k = r.random_range(1..6);
        let decls: Vec<String> = (0..k)
            .map(|_| {
                let p = *pick(&mut r, CSS_PROPS);
                format!("{p}:{}", css_value(&mut r, p, color))
            })
            .collect();
        if minified {
            out.push_str(&format!("{sel}{{{}}}", decls.join(";")));
        } else {
            out.push_str(&format!("{sel} {{\n  {};\n}}\n", decls.join(";\n  ")));
        }
    }
    if r.random_bool(0.5) {
        let bp = *pick(&mut r, &[576, 768, 992, 1200]);
        out.push_str(&format!(
            "@media (max-width:{bp}px){{.container{{max-width:100%;padding:0 {}px}}}}",
            r.random_range(8..24)
        ));
    }
    out.push('\n');
    out
}

const JS_IDENTS: &[&str] = &[
    "init", "render", "update", "handler", "options", "config", "state", "query", "element",
    "node", "callback", "request", "response", "data", "items", "target", "event", "value",
    "index", "length", "module", "exports", "ready", "listener", "selector", "queue", "cache",
];

fn gen_js(seed: &str, url: &str) -> String {
    let mut r = rng_of(&["js", seed]);
    let file = url
        .split('?')
        .next()
        .unwrap_or(url)
        .rsplit('/')
        .next()
        .unwrap_or("app.js");
    let header = if url.contains("jquery") {
        "/*! jQuery v3.7.1 | (c) OpenJS Foundation and other contributors | jquery.org/license */"
            .to_string()
    } else if url.contains("bootstrap") {
        "/*!\n  * Bootstrap v5.3.3 (https://getbootstrap.com/)\n  * Copyright 2011-2024 The Bootstrap Authors (https://github.com/twbs/bootstrap/graphs/contributors)\n  * Licensed under MIT (https://github.com/twbs/bootstrap/blob/main/LICENSE)\n  */".to_string()
    } else if url.contains("fbevents") {
        "/**\n* Copyright (c) 2017-present, Facebook, Inc. All rights reserved.\n*/".to_string()
    } else if url.contains("googletagmanager") {
        "\n// Copyright 2012 Google Inc. All rights reserved.\n".to_string()
    } else {
        format!("/*! {file} */")
    };
    let mut out = header;
    out.push('\n');
    out.push_str("!function(e,t){\"use strict\";");
    let n = r.random_range(20..90);
    for i in 0..n {
        let a = *pick(&mut r, JS_IDENTS);
        let b = *pick(&mut r, JS_IDENTS);
        let stmt = match r.random_range(0..6) {
            0 => format!("var {a}{i}=function(n){{return n&&n.nodeType===1&&n.{b}!==void 0}};"),
            1 => format!(
                "function {a}_{i}(n,r){{for(var o=0;o<n.length;o++)r.call(n[o],o,n[o]);return n}}"
            ),
            2 => format!(
                "t.addEventListener(\"{}\",function(n){{e.{a}&&e.{a}.{b}(n)}},{{passive:!0}});",
                pick(
                    &mut r,
                    &["DOMContentLoaded", "click", "scroll", "load", "resize"]
                )
            ),
            3 => format!(
                "e.{a}=e.{a}||{{}};e.{a}.{b}={};",
                r.random_range(0..100_000)
            ),
            4 => format!("var {a}{i}=\"{}\";", pick(&mut r, words::TEXT_WORDS)),
            _ => format!(
                "if(typeof e.{a}===\"function\"){{e.{a}({{{b}:{}}})}}",
                r.random_bool(0.5)
            ),
        };
        out.push_str(&stmt);
    }
    out.push_str("}(window,document);\n");
    out
}

fn gen_svg(seed: &str, color: (u8, u8, u8), title: &str) -> String {
    let mut r = rng_of(&["svg", seed]);
    let w = r.random_range(2..16) * 16;
    let h = r.random_range(2..8) * 8;
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\"><title>{}</title>",
        html_escape(title)
    );
    for _ in 0..r.random_range(2..9) {
        let c = if r.random_bool(0.5) {
            css_color(color)
        } else {
            css_color(hsl(r.random_range(0.0..360.0), 0.5, 0.5))
        };
        match r.random_range(0..3) {
            0 => out.push_str(&format!(
                "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"{}\" fill=\"{c}\"/>",
                r.random_range(0..w),
                r.random_range(0..h),
                r.random_range(4..w),
                r.random_range(4..h),
                r.random_range(0..6)
            )),
            1 => out.push_str(&format!(
                "<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{c}\"/>",
                r.random_range(0..w),
                r.random_range(0..h),
                r.random_range(2..h.max(3))
            )),
            _ => out.push_str(&format!(
                "<path d=\"M{} {}L{} {}L{} {}Z\" fill=\"{c}\"/>",
                r.random_range(0..w),
                r.random_range(0..h),
                r.random_range(0..w),
                r.random_range(0..h),
                r.random_range(0..w),
                r.random_range(0..h)
            )),
        }
    }
    out.push_str("</svg>");
    out
}

fn gen_json(seed: &str, key: &str, scanner_country: &str) -> String {
    let mut r = rng_of(&["json", seed]);
    let v = match key {
        "ipapi" => {
            let ip = format!(
                "{}.{}.{}.{}",
                r.random_range(20..220),
                r.random_range(0..256),
                r.random_range(0..256),
                r.random_range(1..255)
            );
            json!({
                "ip": ip, "network": format!("{}/24", ip.rsplitn(2, '.').last().unwrap_or(&ip)),
                "version": "IPv4", "country": scanner_country, "country_code": scanner_country,
                "in_eu": matches!(scanner_country, "DE" | "FR" | "NL" | "IT" | "ES" | "SE"),
                "timezone": "UTC", "asn": "AS24940", "org": "Hetzner Online GmbH",
            })
        }
        "telegram" => json!({
            "ok": true,
            "result": {
                "message_id": r.random_range(100..99_999),
                "from": {"id": r.random_range(1_000_000_000u64..7_999_999_999), "is_bot": true, "first_name": "Result", "username": format!("{}_bot", ralnum(&mut r, 8, false))},
                "chat": {"id": -(r.random_range(1_000_000_000i64..1_999_999_999)), "title": "Logs", "type": "group"},
                "date": r.random_range(1_600_000_000i64..1_800_000_000),
                "text": "New visitor",
            }
        }),
        "doubleclick" => {
            json!({"id": format!("{}", r.random_range(1_000_000_000u64..9_999_999_999))})
        }
        "onetrust" => json!({
            "CookieSPAEnabled": false, "MultiVariantTestingEnabled": false, "UseV2": true,
            "MobileSDK": false, "SkipGeolocation": false, "ScriptType": "PRODUCTION",
            "Version": "202401.1.0", "OptanonDataJSON": rhex(&mut r, 32),
            "RuleSet": [{"Name": "Global", "Countries": ["us", "de", "gb"], "Default": true, "Type": "GDPR"}],
        }),
        "cart" => json!({
            "token": format!("{}?key={}", ralnum(&mut r, 26, false), rhex(&mut r, 32)),
            "note": null, "attributes": {}, "original_total_price": 0, "total_price": 0,
            "total_discount": 0, "total_weight": 0.0, "item_count": 0, "items": [],
            "requires_shipping": false, "currency": "USD", "items_subtotal_price": 0,
        }),
        _ => json!({
            "status": "ok",
            "version": format!("{}.{}.{}", r.random_range(1..5), r.random_range(0..20), r.random_range(0..40)),
            "features": {"search": r.random_bool(0.5), "newsletter": r.random_bool(0.5)},
            "locale": "en-US",
        }),
    };
    v.to_string()
}

// ---------------------------------------------------------------------------
// Corpus
// ---------------------------------------------------------------------------

fn uuid_v4(r: &mut ChaCha8Rng) -> String {
    let mut b = [0u8; 16];
    r.fill(&mut b);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h = hex::encode(b);
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

fn gen_benign_apex(r: &mut ChaCha8Rng) -> String {
    let tld = {
        let pool: Vec<(&str, u32)> = words::TLDS.iter().map(|t| (t.0, t.1)).collect();
        *pick_w(r, &pool)
    };
    let label = match r.random_range(0..7) {
        0 | 1 => format!("{}{}", pick(r, words::ADJECTIVES), pick(r, words::NOUNS)),
        2 => format!("{}{}", pick(r, words::NOUNS), pick(r, words::NOUNS)),
        3 => format!("{}-{}", pick(r, words::NOUNS), pick(r, words::NOUNS)),
        4 => format!("{}{}", pick(r, words::SURNAMES), pick(r, words::NOUNS)),
        5 => format!(
            "{}{}",
            pick(r, words::NOUNS),
            pick(r, words::BUSINESS_SUFFIXES)
        ),
        _ => format!("the{}{}", pick(r, words::ADJECTIVES), pick(r, words::NOUNS)),
    };
    format!("{label}.{tld}")
}

/// A phishing URL for `brand`, or `None` if the random draw happened to
/// produce something the classifier would not flag.
fn gen_phish_url(r: &mut ChaCha8Rng, b: &'static Brand, benign: &[String]) -> Option<String> {
    let kw = if r.random_bool(0.75) {
        b.keywords[0]
    } else {
        *pick(r, b.keywords)
    };
    let w1 = *pick(
        r,
        &[
            "login", "secure", "verify", "account", "support", "update", "signin", "auth",
            "billing", "service", "help", "wallet", "recovery",
        ],
    );
    let w2 = *pick(
        r,
        &[
            "center", "online", "portal", "team", "access", "info", "id", "web", "app", "check",
        ],
    );
    let bad = *pick(r, words::BAD_TLDS);
    let scheme = if r.random_bool(0.85) { "https" } else { "http" };
    let (host, path): (String, String) = match r.random_range(0..7) {
        0 => (format!("{kw}-{w1}-{w2}.{bad}"), "/".into()),
        1 => (format!("{w1}-{kw}{w2}.{bad}"), format!("/{w1}/")),
        2 => (
            format!("{kw}{w1}{}.{bad}", r.random_range(10..99)),
            "/".into(),
        ),
        3 => {
            let suf = pick(r, words::HOSTING_SUFFIXES).0;
            (
                format!("{kw}-{w1}-{}.{suf}", ralnum(r, 6, false)),
                "/".into(),
            )
        }
        4 => (format!("{w1}{kw}.{bad}"), format!("/{kw}/{w1}.php")),
        5 => (
            format!("www.{kw}.{w1}-{}.{bad}", ralnum(r, 5, false)),
            format!("/?session={}", rhex(r, 24)),
        ),
        _ => {
            let host = format!("www.{}", pick(r, benign));
            let path = match r.random_range(0..3) {
                0 => format!("/wp-content/plugins/{kw}/{w1}/index.php"),
                1 => format!("/wp-includes/{kw}-{w1}/login.html"),
                _ => format!("/.well-known/{kw}/{w1}/"),
            };
            (host, path)
        }
    };
    let host = host.replace("..", ".");
    let url = format!("{scheme}://{host}{path}");
    let t = Target::parse(&url);
    match classify(&t.host, t.path()) {
        Some(found) if found.key == b.key => Some(url),
        _ => None,
    }
}

fn gen_path(r: &mut ChaCha8Rng) -> String {
    let slug = |r: &mut ChaCha8Rng| {
        let n = r.random_range(2..6);
        (0..n)
            .map(|_| *pick(r, words::SLUG_WORDS))
            .collect::<Vec<_>>()
            .join("-")
    };
    match r.random_range(0..12) {
        0..=3 => "/".to_string(),
        4 => format!("/{}/", pick(r, words::PATH_WORDS)),
        5 => format!("/blog/{}/", slug(r)),
        6 => format!(
            "/{}/{:02}/{}/",
            r.random_range(2019..2026),
            r.random_range(1..13),
            slug(r)
        ),
        7 => format!("/products/{}-{}", slug(r), r.random_range(100..9999)),
        8 => format!("/search?q={}", pick(r, words::TEXT_WORDS)),
        9 => format!(
            "/?utm_source={}&utm_medium={}&utm_campaign={}",
            pick(
                r,
                &["newsletter", "twitter", "facebook", "google", "linkedin"]
            ),
            pick(r, &["email", "social", "cpc", "referral"]),
            slug(r)
        ),
        10 => format!("/{}/{}", pick(r, words::PATH_WORDS), slug(r)),
        _ => format!("/docs/{}/{}.html", pick(r, words::PATH_WORDS), slug(r)),
    }
}

fn gen_known_url(r: &mut ChaCha8Rng, k: &KnownSite) -> String {
    let host = match r.random_range(0..10) {
        0..=5 => k.host.to_string(),
        6 | 7 => k.apex.to_string(),
        _ => format!(
            "{}.{}",
            pick(r, &["support", "blog", "developer", "help", "news"]),
            k.apex
        ),
    };
    let path = match k.apex {
        "wikipedia.org" if r.random_bool(0.6) => {
            let w: Vec<String> = (0..r.random_range(1..3))
                .map(|_| capitalize(pick::<&str, _>(r, words::NOUNS)))
                .collect();
            return format!("https://en.wikipedia.org/wiki/{}", w.join("_"));
        }
        "github.com" => format!("/{}/{}", pick(r, words::SURNAMES), pick(r, words::NOUNS)),
        "google.com" if r.random_bool(0.5) => format!(
            "/search?q={}+{}",
            pick(r, words::ADJECTIVES),
            pick(r, words::NOUNS)
        ),
        "youtube.com" if r.random_bool(0.6) => format!("/watch?v={}", ralnum(r, 11, false)),
        _ => gen_path(r),
    };
    let scheme = if r.random_bool(0.9) { "https" } else { "http" };
    format!("{scheme}://{host}{path}")
}

/// A seeded historical corpus of `n` public scans before `now_ms`.
pub fn corpus(seed: u64, n: usize, now_ms: i64) -> Vec<ScanSpec> {
    let mut r = chacha_of(&["corpus", &seed.to_string()]);
    let mut benign: Vec<String> = Vec::new();
    let mut tries = 0;
    while benign.len() < 280 && tries < 5_000 {
        tries += 1;
        let a = gen_benign_apex(&mut r);
        if !benign.contains(&a) && classify(&a, "/").is_none() && !is_legit_apex(&a) {
            benign.push(a);
        }
    }
    let mut phish: Vec<String> = Vec::new();
    let mut tries = 0;
    while phish.len() < 48 && tries < 5_000 {
        tries += 1;
        let b = pick(&mut r, words::BRANDS);
        if let Some(u) = gen_phish_url(&mut r, b, &benign) {
            if !phish.contains(&u) {
                phish.push(u);
            }
        }
    }
    let submitters: Vec<String> = (0..30).map(|_| rhex(&mut r, 8)).collect();
    let tag_pool: &[&str] = &[
        "research",
        "osint",
        "automated",
        "ioc",
        "triage",
        "newsletter",
    ];
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let roll: f64 = r.random();
        let (url, is_phish) = if roll < 0.07 && !phish.is_empty() {
            (pick(&mut r, &phish).clone(), true)
        } else if roll < 0.37 {
            // Popular sites first: a skewed pick.
            let i = ((r.random::<f64>().powi(2)) * words::KNOWN_SITES.len() as f64) as usize;
            let k = &words::KNOWN_SITES[i.min(words::KNOWN_SITES.len() - 1)];
            (gen_known_url(&mut r, k), false)
        } else if roll < 0.40 {
            let (h, _) = *pick(&mut r, words::REDIRECTORS);
            let h = if h.contains("twitter") || h == "fb.com" || h == "youtu.be" {
                "bit.ly"
            } else {
                h
            };
            (format!("https://{h}/{}", ralnum(&mut r, 7, false)), false)
        } else {
            let i = ((r.random::<f64>().powf(1.6)) * benign.len() as f64) as usize;
            let apex = &benign[i.min(benign.len().saturating_sub(1))];
            let host = match r.random_range(0..20) {
                0..=10 => format!("www.{apex}"),
                11..=16 => apex.clone(),
                _ => format!("{}.{apex}", pick(&mut r, words::SUBDOMAINS)),
            };
            let scheme = if r.random_bool(0.8) { "https" } else { "http" };
            (format!("{scheme}://{host}{}", gen_path(&mut r)), false)
        };
        // Cubic skew puts ~27% of scans in the last 7 days.
        let age_ms = (r.random::<f64>().powi(3) * 365.0 * DAY_MS as f64) as i64;
        let time_ms = now_ms.saturating_sub(age_ms.max(60_000) + r.random_range(0..1_000));
        let method = if r.random_bool(0.65) { "api" } else { "manual" };
        let mut tags: Vec<String> = Vec::new();
        if is_phish && r.random_bool(0.4) {
            tags.push("phishing".into());
        } else if r.random_bool(0.08) {
            tags.push(pick(&mut r, tag_pool).to_string());
        }
        let user_agent = r
            .random_bool(0.08)
            .then(|| pick(&mut r, words::CUSTOM_USER_AGENTS).to_string());
        let referer = r
            .random_bool(0.05)
            .then(|| "https://www.google.com/".to_string());
        out.push(ScanSpec {
            uuid: uuid_v4(&mut r),
            url,
            time_ms,
            visibility: "public".into(),
            country: Some(pick_w(&mut r, words::SCAN_COUNTRIES).to_string()),
            tags,
            method: method.into(),
            source: pick(&mut r, &submitters).clone(),
            user_agent,
            referer,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_767_225_600_000; // 2026-01-01T00:00:00Z

    fn spec(url: &str) -> ScanSpec {
        ScanSpec {
            uuid: "0a2121d2-76ae-43f0-a4f9-b4b43cd3770a".into(),
            url: url.into(),
            time_ms: NOW - 3_600_000,
            visibility: "public".into(),
            country: None,
            tags: vec![],
            method: "api".into(),
            source: "66de627f".into(),
            user_agent: None,
            referer: None,
        }
    }

    fn sample_specs() -> Vec<ScanSpec> {
        let mut v = vec![
            spec("https://www.google.com/"),
            spec("http://google.com"),
            spec("https://paypal-secure-login.xyz/"),
            spec("https://bit.ly/3abcDEF"),
            spec("http://192.0.2.10:8080/admin"),
            spec("https://example.com/some/deep/path/page.html?x=1"),
            spec("http://[2001:db8::1]/x"),
            spec("https://coinbase-auth-hi29jf.workers.dev/"),
            spec("https://fonts.googleapis.com/"),
            spec("https://www.googletagmanager.com/gtag/js"),
        ];
        for k in words::KNOWN_SITES {
            v.push(spec(&format!("https://{}/", k.apex)));
        }
        for (h, _) in words::REDIRECTORS {
            v.push(spec(&format!("https://{h}/abc")));
        }
        v.extend(corpus(7, 60, NOW));
        v
    }

    #[test]
    fn odd_inputs_do_not_panic() {
        for url in [
            "",
            "not a url",
            "ftp://x.y/",
            "http://",
            "https://UPPER.Example.COM./A?b=c#frag",
        ] {
            for t in [i64::MIN, -1, 0, i64::MAX] {
                let mut s = spec(url);
                s.time_ms = t;
                s.country = Some("zz".into());
                s.user_agent = Some(String::new());
                let r = result_json(&s, "");
                assert!(r["data"]["requests"].as_array().unwrap().len() >= 3);
                assert_eq!(r["task"]["time"].as_str().unwrap().len(), 24);
                let _ = (
                    search_hit(&s, ""),
                    index_doc(&s),
                    dom(&s),
                    screenshot_png(&s),
                );
                assert!(!response_bodies(&s).is_empty());
            }
        }
        let r = result_json(&spec("https://UPPER.Example.COM./A?b=c#frag"), "");
        assert_eq!(r["page"]["domain"], json!("upper.example.com"));
    }

    #[test]
    fn same_site_shares_infrastructure_across_scans() {
        let mut a = spec("https://www.goldenmusic.com/");
        let mut b = spec("https://www.goldenmusic.com/");
        a.uuid = "11111111-1111-4111-8111-111111111111".into();
        b.uuid = "22222222-2222-4222-a222-222222222222".into();
        b.time_ms -= 3 * DAY_MS;
        let (ra, rb) = (result_json(&a, ""), result_json(&b, ""));
        assert_eq!(ra["page"]["server"], rb["page"]["server"]);
        assert_eq!(ra["page"]["asn"], rb["page"]["asn"]);
        assert_eq!(ra["lists"]["hashes"], rb["lists"]["hashes"]);
        assert_ne!(ra["data"]["timing"], rb["data"]["timing"]);
    }

    #[test]
    fn deterministic_outputs() {
        let specs: Vec<ScanSpec> = sample_specs().into_iter().step_by(4).collect();
        let render = |s: &ScanSpec| {
            (
                result_json(s, "http://127.0.0.1:8000").to_string(),
                search_hit(s, "x").to_string(),
                index_doc(s).to_string(),
                dom(s),
                screenshot_png(s),
                response_bodies(s),
            )
        };
        // Two passes over different specs, so no per-thread reuse can mask a difference.
        let first: Vec<_> = specs.iter().map(render).collect();
        let second: Vec<_> = specs.iter().map(render).collect();
        assert!(first == second);
    }

    #[test]
    fn png_decodes() {
        for s in sample_specs().iter().take(10) {
            let bytes = screenshot_png(s);
            assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
            let dec = png::Decoder::new(std::io::Cursor::new(bytes));
            let mut reader = dec.read_info().expect("png header");
            let mut buf = vec![0; reader.output_buffer_size().expect("size")];
            let info = reader.next_frame(&mut buf).expect("png frame");
            assert_eq!((info.width, info.height), (320, 200));
        }
    }

    #[test]
    fn hashes_match_bodies_and_lists() {
        for s in sample_specs() {
            let res = result_json(&s, "");
            let bodies = response_bodies(&s);
            for (h, b) in &bodies {
                assert_eq!(*h, sha256_hex(b.as_bytes()));
            }
            let mut listed: Vec<String> = res["lists"]["hashes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap().to_string())
                .collect();
            let mut req_hashes: Vec<String> = res["data"]["requests"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["response"]["hash"].as_str().unwrap().to_string())
                .collect();
            req_hashes.sort();
            req_hashes.dedup();
            listed.sort();
            assert_eq!(listed, req_hashes);
            let mut served: Vec<String> = bodies.iter().map(|b| b.0.clone()).collect();
            served.sort();
            assert_eq!(served, listed);
            for r in res["data"]["requests"].as_array().unwrap() {
                let size = r["response"]["size"].as_u64().unwrap();
                let h = r["response"]["hash"].as_str().unwrap();
                let body = &bodies.iter().find(|b| b.0 == h).unwrap().1;
                assert_eq!(size as usize, body.len());
            }
        }
    }

    #[test]
    fn structure_and_required_fields() {
        for s in sample_specs() {
            let res = result_json(&s, "http://127.0.0.1:8000");
            for k in [
                "data",
                "stats",
                "meta",
                "task",
                "page",
                "lists",
                "verdicts",
                "submitter",
                "scanner",
            ] {
                assert!(res.get(k).is_some(), "missing {k}");
            }
            let reqs = res["data"]["requests"].as_array().unwrap();
            assert!((3..=15).contains(&reqs.len()), "{} requests", reqs.len());
            let page = &res["page"];
            for k in [
                "url",
                "domain",
                "apexDomain",
                "country",
                "server",
                "ip",
                "asn",
                "asnname",
                "title",
                "status",
                "mimeType",
            ] {
                assert!(page.get(k).is_some(), "page.{k}");
            }
            assert!(page["status"].is_string());
            let domains: Vec<&str> = res["lists"]["domains"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap())
                .collect();
            assert!(domains.contains(&page["domain"].as_str().unwrap()));
            let others = domains.len() - 1;
            assert!(
                (1..=5).contains(&others),
                "{others} other domains for {}",
                s.url
            );
            for k in ["requests", "uniqIPs", "dataLength", "encodedDataLength"] {
                assert!(
                    res["stats"].get(k).is_none(),
                    "result stats must not have {k}"
                );
            }
            let task = &res["task"];
            assert_eq!(task["uuid"], json!(s.uuid));
            assert_eq!(
                task["reportURL"],
                json!(format!("http://127.0.0.1:8000/result/{}/", s.uuid))
            );
            assert!(task["time"].as_str().unwrap().ends_with('Z'));
            for p in ["asn", "download", "geoip", "rdns", "umbrella", "wappa"] {
                assert!(
                    res["meta"]["processors"][p]["data"].is_array(),
                    "processor {p}"
                );
            }
            for v in ["overall", "urlscan", "engines", "community"] {
                let o = &res["verdicts"][v];
                assert!(
                    o["score"].is_i64()
                        && o["malicious"].is_boolean()
                        && o["hasVerdicts"].is_boolean()
                );
                let sc = o["score"].as_i64().unwrap();
                assert!((-100..=100).contains(&sc));
            }
            assert!(res["verdicts"]["community"]["votesTotal"].is_i64());
            assert!(res["verdicts"]["engines"]["enginesTotal"].is_i64());
            let size = res.to_string().len();
            assert!(size > 3_000 && size < 80_000, "result size {size}");
            let page_url = page["url"].as_str().unwrap();
            assert_eq!(reqs[0]["request"]["request"]["url"], json!(page_url));
            assert!(res["lists"]["urls"]
                .as_array()
                .unwrap()
                .contains(&json!(page_url)));
        }
    }

    #[test]
    fn malicious_verdicts() {
        let res = result_json(&spec("https://paypal-secure-login.xyz/"), "");
        let o = &res["verdicts"]["overall"];
        assert_eq!(o["malicious"], json!(true));
        assert!(o["score"].as_i64().unwrap() >= 50);
        assert_eq!(o["categories"], json!(["phishing"]));
        assert_eq!(o["brands"][0]["key"], json!("paypal"));
        assert!(!o["tags"].as_array().unwrap().is_empty());
        let hit = search_hit(&spec("https://paypal-secure-login.xyz/"), "");
        assert_eq!(hit["verdicts"]["malicious"], json!(true));
        assert_eq!(hit["brand"][0]["key"], json!("paypal"));
        for u in [
            "https://www.paypal.com/",
            "https://www.google.com/search?q=paypal+login",
            "https://purchase-guide.com/",
        ] {
            let r = result_json(&spec(u), "");
            assert_eq!(r["verdicts"]["overall"]["malicious"], json!(false), "{u}");
        }
    }

    #[test]
    fn hit_consistent_with_result() {
        for s in sample_specs() {
            let res = result_json(&s, "http://h");
            let hit = search_hit(&s, "http://h");
            assert_eq!(hit["task"]["uuid"], res["task"]["uuid"]);
            assert_eq!(hit["task"]["time"], res["task"]["time"]);
            assert_eq!(hit["page"], res["page"]);
            assert_eq!(hit["_id"], json!(s.uuid));
            assert_eq!(hit["sort"], json!([s.time_ms, s.uuid]));
            assert_eq!(hit["_score"], Value::Null);
            assert_eq!(
                hit["result"],
                json!(format!("http://h/api/v1/result/{}/", s.uuid))
            );
            assert_eq!(
                hit["screenshot"],
                json!(format!("http://h/screenshots/{}.png", s.uuid))
            );
            assert_eq!(
                hit["stats"]["requests"].as_u64().unwrap() as usize,
                res["data"]["requests"].as_array().unwrap().len()
            );
            assert_eq!(
                hit["verdicts"]["malicious"],
                res["verdicts"]["overall"]["malicious"]
            );
            let idx = index_doc(&s);
            assert_eq!(idx["domain"], res["lists"]["domains"]);
            assert_eq!(idx["hash"], res["lists"]["hashes"]);
            assert_eq!(idx["ip"], res["lists"]["ips"]);
            assert_eq!(idx["hostname"], res["page"]["domain"]);
            assert_eq!(idx["date"], res["task"]["time"]);
            assert!(idx["asn"][0].as_str().unwrap().starts_with("AS"));
        }
    }

    #[test]
    fn dom_mentions_title_and_domains() {
        let s = spec("https://www.google.com/");
        let d = dom(&s);
        let res = result_json(&s, "");
        assert!(d.contains(&format!(
            "<title>{}</title>",
            html_escape(res["page"]["title"].as_str().unwrap())
        )));
        assert!(d.contains("www.gstatic.com"));
    }

    #[test]
    fn redirects() {
        let res = result_json(&spec("http://google.com"), "");
        assert_eq!(res["page"]["url"], json!("https://www.google.com/"));
        assert_eq!(res["page"]["redirected"], json!("sub-domain"));
        assert_eq!(res["task"]["url"], json!("http://google.com"));
        assert_eq!(res["lists"]["urls"][0], json!("http://google.com/"));
        let res = result_json(&spec("https://bit.ly/3abcDEF"), "");
        assert_eq!(res["page"]["redirected"], json!("off-domain"));
        assert!(res["lists"]["domains"]
            .as_array()
            .unwrap()
            .contains(&json!("bit.ly")));
    }

    #[test]
    fn corpus_properties() {
        let a = corpus(42, 600, NOW);
        let b = corpus(42, 600, NOW);
        assert_eq!(a.len(), 600);
        assert_eq!(format!("{a:?}"), format!("{b:?}"));
        assert_ne!(
            format!("{:?}", corpus(43, 5, NOW)),
            format!("{:?}", corpus(42, 5, NOW))
        );
        let mut mal = 0;
        let mut recent = 0;
        let mut domains: Vec<String> = Vec::new();
        for s in &a {
            let u = &s.uuid;
            assert_eq!(u.len(), 36);
            assert_eq!(&u[14..15], "4");
            assert!("89ab".contains(&u[19..20]));
            assert!(s.time_ms < NOW && s.time_ms > NOW - 366 * DAY_MS);
            if s.time_ms > NOW - 7 * DAY_MS {
                recent += 1;
            }
            let hit = search_hit(s, "");
            if hit["verdicts"]["malicious"] == json!(true) {
                mal += 1;
            }
            push_unique(&mut domains, hit["page"]["apexDomain"].as_str().unwrap());
        }
        assert!((24..=66).contains(&mal), "{mal} malicious of 600");
        assert!(recent > 90, "{recent} recent");
        assert!(domains.len() > 120, "{} domains", domains.len());
    }
}
