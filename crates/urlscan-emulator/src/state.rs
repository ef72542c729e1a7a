//! The emulator's state: API keys, scans (seeded corpus and submissions), the
//! clock, rate limits, the search index, and the records of the premium
//! features and notifications. It depends on no logic that changes it.
use std::cmp::Reverse;
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use rand::{Rng, SeedableRng};
use serde_json::{Map, Value};

pub use super::access::{Caller, KeyInfo};
use super::content::{self, ScanSpec};
use super::faults::FaultPlan;
use super::names::{no_suggestion, unknown_name, Closest};
use super::query::Query;
use super::ratelimit::{Limits, RateLimiter, ACTIONS};

pub(crate) mod event_records;
pub mod locks;
pub(crate) mod premium_records;
pub mod saved_matches;

use event_records::Events;
pub use locks::Guard;
use premium_records::PremiumState;
pub use saved_matches::SavedMatches;

/// Latency added before answers, per endpoint group ("scan", "result",
/// "search", "screenshot", "dom", "responses", ...), with a default.
#[derive(Debug, Clone, Default)]
pub struct Latency {
    pub default: f64,
    pub groups: HashMap<String, f64>,
}

impl Latency {
    pub fn for_group(&self, g: &str) -> f64 {
        self.groups.get(g).copied().unwrap_or(self.default)
    }
}

/// Path prefixes and the endpoint group of the paths under them.
const GROUP_PATHS: [(&str, &str); 8] = [
    ("/api/v1/scan", "scan"),
    ("/api/v1/result/", "result"),
    ("/api/v1/search", "search"),
    ("/api/v1/pro/result/", "search"),
    ("/api/v1/pro/phishfeed", "search"),
    ("/screenshots/", "screenshot"),
    ("/dom/", "dom"),
    ("/responses/", "responses"),
];

/// Every endpoint group `group_of` gives: the names `Latency` takes.
pub const LATENCY_GROUPS: [&str; 7] = [
    "scan",
    "result",
    "search",
    "screenshot",
    "dom",
    "responses",
    "default",
];

/// The endpoint group of a request path, as `Latency` names them.
pub fn group_of(path: &str) -> &'static str {
    GROUP_PATHS
        .iter()
        .find(|(p, _)| path.starts_with(p))
        .map(|(_, g)| *g)
        .unwrap_or("default")
}

/// The most scans the emulator pre-loads. Each holds about 20 KiB (its
/// index document and search hit) and takes about 0.2 ms of a core to
/// build: 100,000, what the benchmarks load, take about 2 GiB and 20 s on
/// two cores. A corpus much larger would not fit a CI runner, and a huge one
/// aborts the process when its allocation fails.
pub const MAX_SCANS: usize = 100_000;

/// The largest result document `result_size` may ask for: the client's
/// default `max_body_bytes` (256 MiB). A document is built whole for each
/// answer, at about 8 times its size in memory: 256 MiB take about 2 GiB and
/// 7 s, and far larger ones never finish before a client gives up.
pub const MAX_RESULT_SIZE: usize = 256 << 20;

/// The longest `scan_duration`, in seconds (about 31 years: as good as never
/// in a test); much longer ones carry finish times out of range.
pub const MAX_SCAN_DURATION: f64 = 1e9;

/// The longest wall-clock wait a setting may ask for, in seconds (latency
/// and the timeouts): an hour, longer than a test should ever wait.
pub const MAX_WAIT: f64 = 3600.0;

/// `value` (seconds, for the setting `name`) is within `0..=max`, and above
/// 0 when `positive`.
fn check_seconds(name: &str, value: f64, max: f64, positive: bool) -> Result<(), String> {
    let low_ok = if positive { value > 0.0 } else { value >= 0.0 };
    if value.is_finite() && low_ok && value <= max {
        return Ok(());
    }
    let range = if positive {
        format!("more than 0 and at most {max} seconds")
    } else {
        format!("from 0 to {max} seconds")
    };
    Err(format!("{name} must be {range}, got {value}"))
}

#[derive(Debug, Clone)]
pub struct EmulatorConfig {
    pub host: String,
    pub port: u16,
    pub scans: usize,
    pub seed: u64,
    /// Seconds of emulator time from submission until a scan is finished.
    pub scan_duration: f64,
    pub latency: Latency,
    pub rate_limits: HashMap<String, Limits>,
    /// `(min, max)` bytes: result documents are grown (more `data.requests`
    /// entries) to a size drawn per scan from this range; `None` keeps their
    /// natural size (tens of kilobytes).
    pub result_size: Option<(usize, usize)>,
    /// Characters of every page's title (a hostile page); `None` keeps the
    /// page's own title.
    pub title_size: Option<usize>,
    /// Answer JSON on one line instead of the service's two-space indent
    /// (to measure a client on both layouts).
    pub compact_json: bool,
    /// Wall-clock seconds one webhook delivery attempt may take.
    pub webhook_timeout: f64,
    /// Wall-clock seconds a client may take to send a request's headers;
    /// the connection is closed after that. hyper also counts a keep-alive
    /// connection's idle time against it, so it must outlast the clients'
    /// pool expiry (reqwest 90 s, httpx 5 s), or a reused connection can be
    /// closed under a request that was just sent.
    pub header_read_timeout: f64,
    /// Wall-clock seconds a client may take to send a request's body once
    /// its headers are in; after that it is answered 408 and the connection
    /// closed.
    pub body_timeout: f64,
    /// Recorded answers served before the emulator's own (`replay`; read
    /// with `replay::Recordings::load`).
    pub recordings: Option<std::sync::Arc<super::replay::Recordings>>,
}

impl Default for EmulatorConfig {
    fn default() -> Self {
        EmulatorConfig {
            host: "127.0.0.1".into(),
            port: 0,
            scans: 1000,
            seed: 0,
            scan_duration: 10.0,
            latency: Latency::default(),
            rate_limits: super::ratelimit::default_limits(),
            result_size: None,
            title_size: None,
            compact_json: false,
            webhook_timeout: 5.0,
            header_read_timeout: 120.0,
            body_timeout: 30.0,
            recordings: None,
        }
    }
}

impl EmulatorConfig {
    /// Check every setting against what the emulator can honour (see
    /// `MAX_SCANS` and the other limits); the error names the setting and
    /// the values it takes.
    pub fn validate(&self) -> Result<(), String> {
        self.validate_with(no_suggestion)
    }

    /// `validate`, with `closest` suggesting the name a misspelt latency
    /// group or rate-limit action most likely meant.
    pub fn validate_with(&self, closest: Closest) -> Result<(), String> {
        if self.scans > MAX_SCANS {
            return Err(format!(
                "scans must be an integer from 0 to {MAX_SCANS}, got {}",
                self.scans
            ));
        }
        if let Some((lo, hi)) = self.result_size {
            if hi == 0 || lo > hi || hi > MAX_RESULT_SIZE {
                return Err(format!(
                    "result_size must be (min, max) bytes with min <= max and 0 < max <= {MAX_RESULT_SIZE}, got ({lo}, {hi})"
                ));
            }
        }
        if let Some(n) = self.title_size {
            if n > MAX_RESULT_SIZE / 2 {
                return Err(format!(
                    "title_size must be from 0 to {} characters, got {n}",
                    MAX_RESULT_SIZE / 2
                ));
            }
        }
        check_seconds(
            "scan_duration",
            self.scan_duration,
            MAX_SCAN_DURATION,
            false,
        )?;
        check_seconds("latency", self.latency.default, MAX_WAIT, false)?;
        // Sorted, so that the setting named is the same from run to run.
        let mut groups: Vec<_> = self.latency.groups.iter().collect();
        groups.sort_by(|a, b| a.0.cmp(b.0));
        for (group, secs) in groups {
            if !LATENCY_GROUPS.contains(&group.as_str()) {
                let m = unknown_name("endpoint group", group, &LATENCY_GROUPS, closest);
                return Err(format!("latency: {m}"));
            }
            check_seconds(&format!("latency[{group:?}]"), *secs, MAX_WAIT, false)?;
        }
        check_seconds("webhook_timeout", self.webhook_timeout, MAX_WAIT, true)?;
        check_seconds(
            "header_read_timeout",
            self.header_read_timeout,
            MAX_WAIT,
            true,
        )?;
        check_seconds("body_timeout", self.body_timeout, MAX_WAIT, true)?;
        let mut actions: Vec<&String> = self.rate_limits.keys().collect();
        actions.sort();
        for action in actions {
            if !ACTIONS.contains(&action.as_str()) {
                let m = unknown_name("action", action, &ACTIONS, closest);
                return Err(format!("rate_limits: {m}"));
            }
        }
        Ok(())
    }
}

/// Chooses what a submitted URL finishes as: `Ok(None)` for the emulator's
/// own content, `Ok(Some(doc))` for that document, `Err` when the test's
/// rule failed (the submission is answered 500 saying so).
pub type OnScan = Arc<dyn Fn(&str) -> Result<Option<Value>, String> + Send + Sync>;

/// The rule of an emulator's submissions, if a test set one.
#[derive(Default)]
pub struct Scripted(Mutex<Option<OnScan>>);

impl Scripted {
    pub fn set(&self, rule: Option<OnScan>) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = rule;
    }

    pub(crate) fn get(&self) -> Option<OnScan> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// One scan: seeded (no owner) or submitted through the API.
#[derive(Debug, Clone)]
pub struct Entry {
    pub spec: ScanSpec,
    pub owner: Option<String>,
    pub team: Option<String>,
    pub original_visibility: String,
    /// Current visibility; "deleted" once deleted.
    pub visibility: String,
    pub finish_ms: i64,
    pub doc: Value,
    /// The search-hit JSON, serialized once.
    pub hit: String,
    /// Page fields the scan observed over its generated content (an
    /// incident's observation: `ip`, `title`, `status`); see `observe`.
    pub observed: Option<Map<String, Value>>,
}

impl Entry {
    pub fn finished(&self, now: i64) -> bool {
        now >= self.finish_ms
    }
    pub fn deleted(&self) -> bool {
        self.visibility == "deleted"
    }
    /// Record page fields the scan observed: they replace the generated ones
    /// in the index document and the hit (and in the result document, see
    /// `patch_result`); a new page IP replaces the old one in the IP lists.
    pub fn observe(&mut self, fields: Map<String, Value>) {
        patch_page(&mut self.doc, &fields, Some("/ip"));
        self.observed = Some(fields);
        self.patch_hit();
    }

    fn patch_hit(&mut self) {
        if let Some(f) = &self.observed {
            if let Ok(mut hit) = serde_json::from_str::<Value>(&self.hit) {
                patch_page(&mut hit, f, None);
                self.hit = hit.to_string();
            }
        }
    }

    /// The scan's result document with what it observed.
    pub fn patch_result(&self, doc: &mut Value) {
        if let Some(f) = &self.observed {
            patch_page(doc, f, Some("/lists/ips"));
        }
    }

    /// Owner or owner's team.
    pub fn owned_by(&self, c: &Caller) -> bool {
        let Some(k) = c.key() else { return false };
        self.owner.as_deref() == Some(k.user.as_str())
            || (self.team.is_some() && self.team == k.team)
    }
    /// Searchable by this caller: public scans of anyone, others of the owner and team.
    pub fn searchable_by(&self, c: &Caller) -> bool {
        self.visibility == "public" || (!self.deleted() && self.owned_by(c))
    }
    /// Readable by uuid: unlisted scans are readable with their id, private
    /// ones only by owner and team.
    pub fn readable_by(&self, c: &Caller) -> bool {
        match self.visibility.as_str() {
            "private" => self.owned_by(c),
            _ => true,
        }
    }
}

/// Set `page.<field>` for each field; a changed page IP also replaces the
/// old one in the list at `ips`.
fn patch_page(doc: &mut Value, fields: &Map<String, Value>, ips: Option<&str>) {
    let old_ip = doc.pointer("/page/ip").cloned();
    if let Some(page) = doc.get_mut("page").and_then(Value::as_object_mut) {
        for (k, v) in fields {
            page.insert(k.clone(), v.clone());
        }
    }
    if let (Some(old), Some(new), Some(ips)) = (old_ip, fields.get("ip"), ips) {
        if let Some(Value::Array(list)) = doc.pointer_mut(ips) {
            for x in list.iter_mut().filter(|x| **x == old) {
                *x = new.clone();
            }
        }
    }
}

type SortKey = (Reverse<i64>, Reverse<String>);

#[derive(Debug, Default)]
pub struct Store {
    /// Newest first, by (time, uuid) descending: the service's sort order.
    /// Change entries through `insert` and `get_mut` only: they keep the
    /// cached search totals honest.
    pub by_time: BTreeMap<SortKey, Entry>,
    pub time_of: HashMap<String, i64>,
    /// Response hash -> uuid of a scan that holds it.
    pub hashes: HashMap<String, String>,
    /// Bumped by every change (`insert`, `get_mut`).
    generation: u64,
    /// Finish times (epoch ms) of the scans that were submitted, with counts:
    /// a scan finishing changes what searches see.
    finishes: BTreeMap<i64, u32>,
    /// (finish ms, uuid) of submitted scans not yet taken by the
    /// notification engine (`take_new_finishes`).
    new_finishes: Vec<(i64, String)>,
}

impl Store {
    /// The scan one of whose responses has a body with this SHA-256.
    pub fn spec_with_body(&self, sha: &str) -> Option<ScanSpec> {
        let id = self.hashes.get(sha)?;
        self.get(id).map(|e| e.spec.clone())
    }

    pub fn get(&self, uuid: &str) -> Option<&Entry> {
        let t = *self.time_of.get(uuid)?;
        self.by_time.get(&(Reverse(t), Reverse(uuid.to_string())))
    }
    pub fn get_mut(&mut self, uuid: &str) -> Option<&mut Entry> {
        let t = *self.time_of.get(uuid)?;
        self.generation += 1;
        self.by_time
            .get_mut(&(Reverse(t), Reverse(uuid.to_string())))
    }
    pub fn insert(&mut self, e: Entry) {
        // A planted document lists hashes of bodies the emulator does not have.
        let hashes = e.doc.get("hash").filter(|_| e.spec.planted.is_none());
        for h in hashes.and_then(Value::as_array).into_iter().flatten() {
            // Most hashes are known already (sites repeat): no key is made for those.
            if let Some(h) = h.as_str().filter(|h| !self.hashes.contains_key(*h)) {
                self.hashes.insert(h.to_string(), e.spec.uuid.clone());
            }
        }
        self.generation += 1;
        if e.finish_ms > 0 {
            *self.finishes.entry(e.finish_ms).or_default() += 1;
            self.new_finishes.push((e.finish_ms, e.spec.uuid.clone()));
        }
        self.time_of.insert(e.spec.uuid.clone(), e.spec.time_ms);
        self.by_time
            .insert((Reverse(e.spec.time_ms), Reverse(e.spec.uuid.clone())), e);
    }

    /// The submitted scans inserted since the last call: (finish ms, uuid).
    pub(crate) fn take_new_finishes(&mut self) -> Vec<(i64, String)> {
        std::mem::take(&mut self.new_finishes)
    }

    /// Did any scan finish in `(from, to]`?
    fn finished_between(&self, from: i64, to: i64) -> bool {
        from < to && self.finishes.range(from + 1..=to).next().is_some()
    }
}

/// A search total, counted once and reused by the following pages of the
/// same search while nothing changed.
#[derive(Debug, Clone)]
struct CachedTotal {
    generation: u64,
    at_ms: i64,
    /// Matches counted, up to `TOTAL_CAP + 1`.
    count: u64,
}

const TOTAL_CACHE_ENTRIES: usize = 256;

/// A page of search results.
pub struct Page {
    pub hits: Vec<String>,
    pub total: u64,
    pub has_more: bool,
}

pub const TOTAL_CAP: u64 = urlscan_rules::SEARCH_TOTAL_CAP;

pub struct AppState {
    pub cfg: EmulatorConfig,
    pub base_url: String,
    pub keys: Vec<(String, KeyInfo)>,
    clock_offset_ms: AtomicI64,
    // The next three are taken through `locks` only, in its order.
    store: Mutex<Store>,
    premium: Mutex<PremiumState>,
    /// Notifications (see `events`).
    events: Mutex<Events>,
    pub limiter: Mutex<RateLimiter>,
    pub submissions: AtomicU64,
    /// 429 answers of the rate limiter (injected ones count as faults).
    pub throttled: AtomicU64,
    pub requests: AtomicU64,
    /// TCP connections accepted: a test tells a kept connection from a new one.
    pub connections: AtomicU64,
    /// The fault plan (and how many requests it affected).
    pub faults: Mutex<FaultPlan>,
    /// Search totals by (query, caller): see `search`.
    totals: Mutex<HashMap<String, CachedTotal>>,
    /// What a test said submissions finish as (`scenario`).
    pub on_scan: Scripted,
}

impl Drop for AppState {
    fn drop(&mut self) {
        if self.cfg.result_size.is_some() || self.cfg.title_size.is_some() {
            content::set_result_size(&self.base_url, None);
            content::set_title_size(&self.base_url, None);
        }
    }
}

fn wall_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

impl AppState {
    pub fn new(cfg: EmulatorConfig, base_url: String) -> AppState {
        let keys = make_keys(cfg.seed);
        let limiter = RateLimiter::new(cfg.rate_limits.clone());
        let st = AppState {
            base_url,
            keys,
            clock_offset_ms: AtomicI64::new(0),
            store: Mutex::new(Store::default()),
            premium: Mutex::new(PremiumState::default()),
            events: Mutex::new(Events::default()),
            limiter: Mutex::new(limiter),
            submissions: AtomicU64::new(0),
            throttled: AtomicU64::new(0),
            requests: AtomicU64::new(0),
            connections: AtomicU64::new(0),
            faults: Mutex::new(FaultPlan::default()),
            totals: Mutex::new(HashMap::new()),
            on_scan: Default::default(),
            cfg,
        };
        if st.cfg.result_size.is_some() {
            content::set_result_size(&st.base_url, st.cfg.result_size);
        }
        if st.cfg.title_size.is_some() {
            content::set_title_size(&st.base_url, st.cfg.title_size);
        }
        let now = st.now_ms();
        let specs = content::corpus(st.cfg.seed, st.cfg.scans, now);
        let mut store = st.store();
        build_entries(
            &specs,
            |s| st.entry(s.clone(), None, None, 0),
            |run| run.into_iter().for_each(|e| store.insert(e)),
        );
        drop(store);
        st
    }

    /// Emulator time: the wall clock plus whatever `advance` added.
    pub fn now_ms(&self) -> i64 {
        wall_ms() + self.clock_offset_ms.load(Ordering::SeqCst)
    }

    /// Move the emulator clock forward; `clock::advance` also brings the
    /// time-driven state up to it.
    pub fn move_clock(&self, secs: f64) {
        self.clock_offset_ms
            .fetch_add((secs * 1000.0).round() as i64, Ordering::SeqCst);
    }

    pub fn key_info(&self, key: &str) -> Option<&KeyInfo> {
        self.keys.iter().find(|(k, _)| k == key).map(|(_, i)| i)
    }

    pub fn entry(
        &self,
        spec: ScanSpec,
        owner: Option<String>,
        team: Option<String>,
        finish_ms: i64,
    ) -> Entry {
        let (doc, hit) = content::indexed(&spec, &self.base_url);
        Entry {
            owner,
            team,
            original_visibility: spec.visibility.clone(),
            visibility: spec.visibility.clone(),
            finish_ms,
            doc,
            hit,
            spec,
            observed: None,
        }
    }

    /// Re-derive the stored hit after the visibility changed.
    pub fn refresh_hit(&self, e: &mut Entry) {
        let mut spec = e.spec.clone();
        spec.visibility = e.visibility.clone();
        e.hit = content::search_hit(&spec, &self.base_url).to_string();
        e.patch_hit();
    }

    /// Run a search: `total` counts every match (capped at 10,000, with
    /// `has_more` beyond); the page holds up to `size` matches after the
    /// cursor, as the caller with these saved searches sees them (`saved`).
    #[allow(clippy::too_many_arguments)]
    pub fn search(
        &self,
        caller: &Caller,
        query: &Query,
        extra: &dyn Fn(&Entry) -> bool,
        size: usize,
        after: Option<(i64, String)>,
        collapse: Option<&str>,
        saved: &SavedMatches,
    ) -> Page {
        let now = self.now_ms();
        let store = self.store();
        // `meta` and `usertags` are the caller's: computed per scan, and only
        // for a query that names them.
        let per_caller = SavedMatches::needed_by(query);
        let matches = |e: &Entry| {
            if per_caller {
                query.matches_with(&e.doc, &saved.query_fields(&e.doc, now), now)
            } else {
                query.matches(&e.doc, now)
            }
        };
        // A shard's query names the first characters of its uuids: other scans are passed
        // over on that alone, before the query is evaluated on them.
        let heads = query.uuid_heads();
        let head_ok = |e: &Entry| {
            heads.as_ref().is_none_or(|h| {
                e.spec
                    .uuid
                    .chars()
                    .next()
                    .is_some_and(|c| h.contains(&c.to_ascii_lowercase()))
            })
        };
        let visible = |e: &Entry| {
            head_ok(e) && e.finished(now) && e.searchable_by(caller) && extra(e) && matches(e)
        };
        // The total does not depend on the cursor: the pages of one search walk
        // count it once. It is cached for unfiltered searches (the predicate
        // `extra` keeps even a scan with no facts) whose query does not move
        // with the clock, until the store changes or a submitted scan finishes.
        // Saved searches change without the store: per-caller totals are
        // counted every time.
        let key = self.total_key(caller, query, extra).filter(|_| !per_caller);
        let cached = key.as_ref().and_then(|k| {
            let totals = self.totals.lock().unwrap();
            let c = totals.get(k)?;
            (c.generation == store.generation
                && now >= c.at_ms
                && !store.finished_between(c.at_ms, now))
            .then_some(c.count)
        });
        let total = match cached {
            Some(t) => t,
            None => {
                let mut total = 0u64;
                for e in store.by_time.values() {
                    if visible(e) {
                        total += 1;
                        if total > TOTAL_CAP {
                            break;
                        }
                    }
                }
                if let Some(k) = key {
                    let mut totals = self.totals.lock().unwrap();
                    if totals.len() >= TOTAL_CACHE_ENTRIES {
                        totals.clear();
                    }
                    totals.insert(
                        k,
                        CachedTotal {
                            generation: store.generation,
                            at_ms: now,
                            count: total,
                        },
                    );
                }
                total
            }
        };
        let mut hits = Vec::new();
        if size > 0 {
            let iter: Box<dyn Iterator<Item = &Entry>> = match after {
                Some((t, id)) => {
                    let start = (Reverse(t), Reverse(id));
                    Box::new(
                        store
                            .by_time
                            .range((std::ops::Bound::Excluded(start), std::ops::Bound::Unbounded))
                            .map(|(_, e)| e),
                    )
                }
                None => Box::new(store.by_time.values()),
            };
            let mut seen = std::collections::HashSet::new();
            for e in iter.filter(|e| visible(e)) {
                if let Some(field) = collapse {
                    let key = lookup(&e.doc, field)
                        .map(|v| v.to_string())
                        .unwrap_or_default();
                    if !seen.insert(key) {
                        continue;
                    }
                }
                hits.push(saved.hit(&e.hit, &e.doc, now));
                if hits.len() >= size {
                    break;
                }
            }
        }
        Page {
            hits,
            total: total.min(TOTAL_CAP),
            has_more: total > TOTAL_CAP,
        }
    }
}

impl AppState {
    /// The cache key of a search total, or `None` when it must be counted
    /// every time: a predicate that captures state or filters scans (similar
    /// scans, the phish feed), or a query with date math on `now`.
    fn total_key(
        &self,
        caller: &Caller,
        query: &Query,
        extra: &dyn Fn(&Entry) -> bool,
    ) -> Option<String> {
        if std::mem::size_of_val(extra) != 0 || !extra(&blank_entry()) {
            return None;
        }
        let q = format!("{query:?}");
        if q.to_ascii_lowercase().contains("now") {
            return None;
        }
        let team = caller.key().and_then(|k| k.team.as_deref()).unwrap_or("");
        Some(format!("{}\u{1f}{team}\u{1f}{q}", caller.subject()))
    }
}

/// A scan with no facts at all: what a filtering predicate rejects.
fn blank_entry() -> Entry {
    Entry {
        spec: ScanSpec {
            uuid: String::new(),
            url: String::new(),
            time_ms: 0,
            visibility: String::new(),
            country: None,
            tags: vec![],
            method: String::new(),
            source: String::new(),
            user_agent: None,
            referer: None,
            planted: None,
        },
        owner: None,
        team: None,
        original_visibility: String::new(),
        visibility: String::new(),
        finish_ms: 0,
        doc: Value::Null,
        hit: String::new(),
        observed: None,
    }
}

/// A dotted path into a JSON document.
pub fn lookup<'a>(doc: &'a Value, path: &str) -> Option<&'a Value> {
    doc.get(path)
        .or_else(|| path.split('.').try_fold(doc, |v, k| v.get(k)))
}

/// Keys of every kind, UUID-shaped like the service's, derived from the seed.
fn make_keys(seed: u64) -> Vec<(String, KeyInfo)> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed ^ 0x6b65_7973);
    let mut key = || {
        let b: [u8; 16] = rng.random();
        uuid::Builder::from_random_bytes(b).into_uuid().to_string()
    };
    let info = |kind, user: &str, team: Option<&str>, premium, readwrite| KeyInfo {
        kind,
        user: user.into(),
        email: format!("{user}@example.com"),
        team: team.map(String::from),
        premium,
        readwrite,
    };
    vec![
        (
            key(),
            info("premium", "analyst", Some("blue-team"), true, true),
        ),
        (
            key(),
            info("team", "teammate", Some("blue-team"), true, true),
        ),
        (
            key(),
            info("readonly", "analyst", Some("blue-team"), true, false),
        ),
        (key(), info("free", "free-user", None, false, true)),
        (
            key(),
            info("other", "outsider", Some("red-team"), true, true),
        ),
    ]
}

/// The entries of the corpus's scans, handed to `take` in order, a run at a
/// time. Deriving a scan's content is the expensive part: it is spread over
/// the cores (at most 16 threads), each thread taking the next run of scans
/// as it is done with one (a core that other work slows down takes fewer),
/// and keeping the sites and bodies it has made (`content::indexing_corpus`).
/// The calling thread takes the runs as they are done, while later ones are
/// still being built.
fn build_entries(
    specs: &[ScanSpec],
    entry: impl Fn(&ScanSpec) -> Entry + Sync,
    mut take: impl FnMut(Vec<Entry>),
) {
    const RUN: usize = 512;
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, 16);
    let runs: Vec<&[ScanSpec]> = specs.chunks(RUN).collect();
    if threads < 2 || runs.len() < 2 {
        content::indexing_corpus(|| {
            runs.iter()
                .for_each(|r| take(r.iter().map(&entry).collect()))
        });
        return;
    }
    let next = AtomicUsize::new(0);
    let (done, arrived) = std::sync::mpsc::channel::<(usize, Vec<Entry>)>();
    std::thread::scope(|scope| {
        for _ in 0..threads.min(runs.len()) {
            let done = done.clone();
            let (next, runs, entry) = (&next, &runs, &entry);
            scope.spawn(move || {
                content::indexing_corpus(|| loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(run) = runs.get(i) else { break };
                    if done.send((i, run.iter().map(entry).collect())).is_err() {
                        break;
                    }
                })
            });
        }
        drop(done);
        // Runs finish out of order: each waits here until those before it are taken.
        let mut waiting = BTreeMap::new();
        let mut want = 0;
        for (i, run) in arrived {
            waiting.insert(i, run);
            while let Some(run) = waiting.remove(&want) {
                take(run);
                want += 1;
            }
        }
    });
}

/// `f` of every item, in order, spread over the cores (at most 16 threads,
/// each given at least `min_chunk` items).
pub(crate) fn parallel_map<T: Sync, R: Send>(
    items: &[T],
    min_chunk: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, 16);
    let chunk = items.len().div_ceil(threads).max(min_chunk).max(1);
    let f = &f;
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|part| scope.spawn(move || part.iter().map(f).collect::<Vec<R>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a worker thread panicked"))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(f: impl FnOnce(&mut EmulatorConfig)) -> Result<(), String> {
        let mut cfg = EmulatorConfig::default();
        f(&mut cfg);
        cfg.validate()
    }

    #[test]
    fn every_group_is_one_latency_takes() {
        for (_, g) in GROUP_PATHS {
            assert!(LATENCY_GROUPS.contains(&g), "{g}");
        }
        assert_eq!(group_of("/nothing/here"), "default");
    }

    #[test]
    fn the_limits_are_inclusive() {
        assert_eq!(check(|_| {}), Ok(()));
        assert_eq!(
            check(|c| {
                c.scans = MAX_SCANS;
                c.result_size = Some((0, MAX_RESULT_SIZE));
                c.scan_duration = MAX_SCAN_DURATION;
                c.latency.default = MAX_WAIT;
                c.latency.groups.insert("search".into(), 0.0);
                c.webhook_timeout = MAX_WAIT;
                c.body_timeout = MAX_WAIT;
            }),
            Ok(())
        );
    }

    #[test]
    fn settings_past_the_limits_are_refused_by_name() {
        type Change = Box<dyn FnOnce(&mut EmulatorConfig)>;
        let cases: Vec<(Change, &str)> = vec![
            (Box::new(|c| c.scans = MAX_SCANS + 1), "scans must be an integer from 0 to 100000, got 100001"),
            (
                Box::new(|c| c.result_size = Some((0, MAX_RESULT_SIZE + 1))),
                "result_size must be (min, max) bytes with min <= max and 0 < max <= 268435456, got (0, 268435457)",
            ),
            (
                Box::new(|c| c.result_size = Some((5, 3))),
                "result_size must be (min, max) bytes with min <= max and 0 < max <= 268435456, got (5, 3)",
            ),
            (Box::new(|c| c.scan_duration = f64::INFINITY), "scan_duration must be from 0 to 1000000000 seconds, got inf"),
            (Box::new(|c| c.latency.default = -1.0), "latency must be from 0 to 3600 seconds, got -1"),
            (
                Box::new(|c| {
                    c.latency.groups.insert("dom".into(), f64::NAN);
                }),
                "latency[\"dom\"] must be from 0 to 3600 seconds, got NaN",
            ),
            (Box::new(|c| c.webhook_timeout = 0.0), "webhook_timeout must be more than 0 and at most 3600 seconds, got 0"),
            (Box::new(|c| c.header_read_timeout = 1e30), "header_read_timeout must be more than 0 and at most 3600 seconds, got 1000000000000000000000000000000"),
            (
                Box::new(|c| {
                    c.latency.groups.insert("serach".into(), 1.0);
                }),
                "latency: unknown endpoint group \"serach\" (one of scan, result, search, screenshot, dom, responses, default)",
            ),
            (
                Box::new(|c| {
                    c.rate_limits.insert("scan".into(), Limits::default());
                }),
                "rate_limits: unknown action \"scan\" (one of public, unlisted, private, retrieve, search, livescan)",
            ),
        ];
        for (f, want) in cases {
            assert_eq!(check(f), Err(want.to_string()));
        }
    }

    #[test]
    fn a_suggestion_goes_into_the_message() {
        let mut cfg = EmulatorConfig::default();
        cfg.rate_limits.insert("serach".into(), Limits::default());
        let err = cfg.validate_with(|_, _| Some("search")).unwrap_err();
        assert!(
            err.starts_with(
                "rate_limits: unknown action \"serach\"; did you mean \"search\"? (one of "
            ),
            "{err}"
        );
    }
}

#[cfg(test)]
mod start_time {
    use super::*;

    /// The corpus build of `AppState::new`, timed (bench/RESULTS.md, "Emulator
    /// start"): `URLSCAN_EMU_SCANS=100000 cargo test --release -p urlscan-emulator
    /// corpus_build -- --ignored --nocapture`.
    #[test]
    #[ignore = "a measurement, not a check"]
    fn corpus_build() {
        let scans = std::env::var("URLSCAN_EMU_SCANS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(10_000);
        let cfg = EmulatorConfig {
            scans,
            ..EmulatorConfig::default()
        };
        let started = std::time::Instant::now();
        let st = AppState::new(cfg, "http://127.0.0.1:1".into());
        let n = st.store().by_time.len();
        eprintln!("{n} scans built in {:.2?}", started.elapsed());
        assert_eq!(n, scans);
    }
}

#[cfg(test)]
mod corpus_tests {
    use super::*;

    #[test]
    fn a_corpus_built_on_many_threads_is_the_one_built_scan_by_scan() {
        // Three runs of scans (built on the threads, taken in order): every
        // entry is what the scan alone gives, and a body's hash names the
        // first scan of the corpus that has it.
        let cfg = EmulatorConfig {
            scans: 1_100,
            seed: 4,
            ..EmulatorConfig::default()
        };
        let base = "http://127.0.0.1:1";
        let st = AppState::new(cfg, base.into());
        let store = st.store();
        assert_eq!(store.by_time.len(), 1_100);
        let mut first: HashMap<String, String> = HashMap::new();
        // The corpus's order (its uuids do not depend on the time it is made at).
        for made in content::corpus(4, 1_100, 0) {
            let e = store.get(&made.uuid).expect("every scan is stored");
            let spec = &e.spec;
            assert_eq!(e.doc, content::index_doc(spec), "{}", spec.url);
            assert_eq!(
                e.hit,
                content::search_hit(spec, base).to_string(),
                "{}",
                spec.url
            );
            for h in e.doc["hash"].as_array().into_iter().flatten() {
                let h = h.as_str().unwrap_or_default().to_string();
                first.entry(h).or_insert_with(|| spec.uuid.clone());
            }
        }
        assert_eq!(store.hashes, first);
    }
}
