//! Walking search pages with `search_after`, per the interface's rules:
//! the next page starts after the last hit's `sort`; `total` is exact only up
//! to 10,000, beyond which `has_more` is true.
//!
//! Speed: the next page is requested while the current one is read. Past
//! its third page, the task that fetched a page asks for the one after it
//! itself, `CHAIN` times, so the caller wakes the I/O thread once per
//! `CHAIN + 1` pages (a wake-up costs what reading 100 hits does). Pages over
//! `CHAIN_BYTES` do not chain: one page ahead, the buffers of the page read
//! serve the page after next (`recycle`). A walk left early has asked for up
//! to `CHAIN + 1` pages it did not read (1 before its fourth page).
//! When asked for (`parallel=`; never by default, as it rewrites the query
//! and multiplies the requests), a large scan export is split into shards by
//! the first hex digit of the scan's uuid (`task.uuid:(0* OR 1*)`, ...),
//! walked concurrently and merged by the sort values, so the hits come out in
//! exactly the order of a single walk. Sharding checks itself on the first
//! pages (every hit in its shard, totals adding up) and falls back to one walk.
use std::cmp::Ordering;
use std::collections::{HashSet, VecDeque};

use crate::runtime::Task;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use crate::api::search::{Parallel, FIRST_PAGE};
use crate::api::{SearchKind, SearchParams};
use crate::client::Client;
use crate::error::{ApiErrorKind, Error, Result};
use crate::models::{Doc, SearchHitHead, SearchPageHead};

pub const EXACT_TOTAL_CAP: u64 = urlscan_rules::SEARCH_TOTAL_CAP;
/// With `Parallel::Auto`: this many shards, once a page
/// took at least `SLOW_PAGE` to come back.
const AUTO_SHARDS: usize = 8;
const SLOW_PAGE: std::time::Duration = std::time::Duration::from_millis(25);
/// Shard only when at least this many more pages are expected.
const SHARD_MIN_PAGES: u64 = 4;

type PageResult = Result<Doc<SearchPageHead>>;

fn fetch(client: &Client, p: &SearchParams, size: u64, after: Option<String>) -> Task<PageResult> {
    let (client, p) = (client.clone(), p.clone());
    Task::spawn(async move { client.search_page(&p, size, after.as_deref()).await })
}

/// Pages the task of a page asks for after it, past a walk's third page (see
/// the module docs).
const CHAIN: u32 = 2;
/// About 2,000 hits: larger pages are a few wake-ups' worth of reading.
const CHAIN_BYTES: usize = 4 << 20;

/// A page read ahead, and the request of the page after it when the task
/// asked for that one too.
struct Fetched {
    doc: PageResult,
    next: Option<Ahead>,
}

/// A page asked for ahead: its size, the cursor it resumes from, the task.
struct Ahead {
    size: u64,
    after: Option<String>,
    pending: Task<Fetched>,
}

/// What a walk knows before a page: hits handed out, and the total and
/// `has_more` of the pages so far.
#[derive(Clone, Copy)]
struct Seen {
    fetched: u64,
    total: Option<u64>,
    has_more: Option<bool>,
}

impl Seen {
    /// What the walk knows after `page` too: a page without a total keeps
    /// the one an earlier page gave.
    fn after(self, page: &SearchPageHead) -> Seen {
        Seen {
            fetched: self.fetched + page.results.len() as u64,
            total: page.total.or(self.total),
            has_more: page.has_more.or(self.has_more),
        }
    }
}

/// Whether a page of `n` hits (`asked` for; the largest page so far
/// `largest`) ends a walk that knows `seen` after it. A page without a
/// cursor ends it too; the caller checks that.
fn ends(p: &SearchParams, seen: Seen, n: u64, asked: u64, largest: u64) -> bool {
    if n == 0 || p.limit.is_some_and(|l| seen.fetched >= l) {
        return true;
    }
    let capped = seen.has_more == Some(true) || seen.total.is_none_or(|t| t >= EXACT_TOTAL_CAP);
    if !capped {
        // total is exact; resuming from a cursor counts fewer than total,
        // so a short page also ends the walk.
        return seen.fetched >= seen.total.unwrap_or(0);
    }
    // The service may clamp the page size; a page shorter than both what
    // was asked and the largest page seen is the last one.
    largest > 0 && n < asked.min(largest)
}

/// The size of the next page of a walk that has handed out `fetched` hits:
/// the size given; else what `limit` still needs, or (no limit) twice what
/// the walk handed out so far, from `FIRST_PAGE`; at most the service's
/// largest page, which it clamps to what the key is allowed (a clamped page
/// does not end a walk, see `ends`). Never more than `limit` still needs.
fn page_size(p: &SearchParams, fetched: u64) -> u64 {
    let left = p.limit.map(|l| l.saturating_sub(fetched).max(1));
    let largest = urlscan_rules::SEARCH_SIZE_MAX as u64;
    let size = match (p.size, left) {
        (Some(n), _) => n,
        (None, Some(left)) => left.min(largest),
        (None, None) => (2 * fetched).clamp(FIRST_PAGE, largest),
    };
    left.map_or(size, |l| size.min(l))
}

/// Ask for a page (`seen` before it), and then, `chain` times, for
/// the page after it when this one surely does not end the walk: a full
/// page whose cursor moves on and that `ends` does not end (a full page is
/// never the clamped last one, so the largest page does not matter). A page
/// the walk turns out not to want is dropped by `next_page`, which checks
/// every page itself.
fn fetch_ahead(
    client: &Client,
    p: &SearchParams,
    size: u64,
    after: Option<String>,
    seen: Seen,
    chain: u32,
    largest: u64,
) -> Ahead {
    let (c, params, sent) = (client.clone(), p.clone(), after.clone());
    let pending = Task::spawn(async move {
        let doc = c.search_page(&params, size, sent.as_deref()).await;
        let next = match &doc {
            Ok(d) if chain > 0 && d.body.len() <= CHAIN_BYTES => {
                let n = d.head.results.len() as u64;
                let seen = seen.after(&d.head);
                let cursor = d.head.results.last().and_then(|h| h.cursor());
                // Full: as many as asked, or as the largest page so far (the
                // service clamps a page to what the key is allowed).
                let full = n >= size || (largest > 0 && n >= largest);
                let more = full
                    && cursor.is_some()
                    && cursor != sent
                    && !ends(&params, seen, n, size, largest.max(n));
                more.then(|| {
                    let size = page_size(&params, seen.fetched);
                    fetch_ahead(&c, &params, size, cursor, seen, chain - 1, largest.max(n))
                })
            }
            _ => None,
        };
        Fetched { doc, next }
    });
    Ahead {
        size,
        after,
        pending,
    }
}

/// One hit of a shard: its sort values, head and raw JSON.
struct Hit {
    head: SearchHitHead,
    raw: Box<RawValue>,
}

impl Hit {
    /// Newest first: larger sort values come first (numbers, then strings).
    fn ahead_of(&self, other: &Hit) -> bool {
        compare_sort(&self.head.sort, &other.head.sort) == Some(Ordering::Greater)
    }
}

/// How the first of two hits' sort values compares with the other's, when
/// both have the same shape (as many values, of the same kinds); `None`
/// otherwise.
fn first_sort_step(a: &[Value], b: &[Value]) -> Option<Ordering> {
    let same_shape = a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| (x.is_number() && y.is_number()) || (x.is_string() && y.is_string()));
    if !same_shape || a.is_empty() {
        return None;
    }
    compare_sort(&a[..1], &b[..1])
}

/// Two hits' sort values in order, value by value (numbers with numbers,
/// strings with strings); `None` where they cannot be compared.
fn compare_sort(a: &[Value], b: &[Value]) -> Option<Ordering> {
    if a.len() != b.len() {
        return None;
    }
    for (a, b) in a.iter().zip(b) {
        let ord = match (a, b) {
            (Value::Number(x), Value::Number(y)) => x.as_f64()?.partial_cmp(&y.as_f64()?)?,
            (Value::String(x), Value::String(y)) => x.cmp(y),
            _ => return None,
        };
        if ord != Ordering::Equal {
            return Some(ord);
        }
    }
    Some(Ordering::Equal)
}

#[derive(Deserialize)]
struct RawPage<'a> {
    #[serde(borrow, default)]
    results: Vec<&'a RawValue>,
}

fn split_hits(doc: &Doc<SearchPageHead>) -> Result<Vec<Hit>> {
    let page: RawPage<'_> = serde_json::from_slice(&doc.body)
        .map_err(|e| Error::Decode(format!("search page: {e}")))?;
    Ok(page
        .results
        .into_iter()
        .zip(doc.head.results.iter())
        .map(|(raw, head)| Hit {
            head: head.clone(),
            raw: raw.to_owned(),
        })
        .collect())
}

struct Shard {
    prefixes: Vec<char>,
    params: SearchParams,
    buf: VecDeque<Hit>,
    pending: Option<Task<PageResult>>,
    after: Option<String>,
    /// Every cursor a page of this shard ended at.
    cursors: HashSet<String>,
    total: Option<u64>,
    checked: bool,
    done: bool,
}

impl Shard {
    fn start(&mut self, client: &Client, size: u64) {
        if !self.done && self.pending.is_none() {
            self.pending = Some(fetch(client, &self.params, size, self.after.clone()));
        }
    }

    /// Wait for the page in flight (if the buffer ran dry) and ask for the next.
    async fn refill(&mut self, client: &Client, size: u64, clamp: u64) -> Result<()> {
        while self.buf.is_empty() && !self.done {
            self.start(client, size);
            let doc = self
                .pending
                .take()
                .expect("started")
                .join("search page")
                .await??;
            let hits = split_hits(&doc)?;
            if !self.checked {
                self.checked = true;
                self.total = doc.head.total;
                let stray = hits.iter().any(|h| {
                    let first = h.head.id.as_deref().and_then(|id| id.chars().next());
                    !first.is_some_and(|c| self.prefixes.contains(&c.to_ascii_lowercase()))
                });
                if stray {
                    return Err(Error::Decode(
                        "shard returned hits outside its shard".into(),
                    ));
                }
            }
            let n = hits.len() as u64;
            let full = n > 0 && n >= size.min(clamp.max(1));
            let next = hits.last().and_then(|h| h.head.cursor());
            if full && next.is_none() {
                return Err(Error::Decode(
                    "a full search page ends with a hit whose `sort` is missing or unreadable"
                        .into(),
                ));
            }
            if next
                .as_ref()
                .is_some_and(|c| !self.cursors.insert(c.clone()))
            {
                return Err(Error::Decode(
                    "the search cursor does not advance (a page came back)".into(),
                ));
            }
            if next.is_some() {
                self.after = next.clone();
            }
            self.done = !full || next.is_none();
            self.buf.extend(hits);
            self.start(client, size);
        }
        Ok(())
    }
}

enum Mode {
    Linear { next: Option<Ahead> },
    Sharded { shards: Vec<Shard>, size: u64 },
}

pub struct SearchCursor {
    client: Client,
    params: SearchParams,
    /// The cursor to resume from: after the last hit handed out.
    pub search_after: Option<String>,
    pub total: Option<u64>,
    pub has_more: Option<bool>,
    pub fetched: u64,
    pub pages: u64,
    largest_page: u64,
    done: bool,
    mode: Mode,
    /// Hits handed out from shards (0: a failing shard may still fall back).
    fetched_from_shards: u64,
    /// How long the first page took.
    first_page: Option<std::time::Duration>,
    /// Every cursor a page of this walk ended at (and the one it resumed
    /// from): one seen again means the pages go round in a circle.
    cursors: HashSet<String>,
    /// The last page's last sort values, and the direction the walk's
    /// cursors move in (set by its second page).
    last_sort: Vec<Value>,
    direction: Option<Ordering>,
    /// The largest exact total any page announced.
    largest_total: Option<u64>,
    /// What the walk's requests run under, whoever reads its pages (a
    /// trace context: the walk's own span).
    pub parent: Option<crate::observe::Parent>,
}

impl std::fmt::Debug for SearchCursor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SearchCursor")
            .field("params", &self.params)
            .field("fetched", &self.fetched)
            .field("sharded", &matches!(self.mode, Mode::Sharded { .. }))
            .finish_non_exhaustive()
    }
}

impl SearchCursor {
    /// The walk of `params` (checked by `SearchParams::from_options`, or
    /// made by the client itself).
    pub fn new(client: Client, params: SearchParams) -> Result<SearchCursor> {
        Ok(SearchCursor {
            // A walk resumed from a cursor must not come back to it.
            cursors: HashSet::from_iter(params.search_after.clone()),
            client,
            search_after: params.search_after.clone(),
            params,
            total: None,
            has_more: None,
            fetched: 0,
            pages: 0,
            largest_page: 0,
            done: false,
            mode: Mode::Linear { next: None },
            fetched_from_shards: 0,
            first_page: None,
            last_sort: Vec::new(),
            direction: None,
            largest_total: None,
            parent: None,
        })
    }

    /// A new walk of the same search from `after` (None: from where this
    /// one started), handing out at most `limit` hits.
    pub fn resumed(&self, after: Option<String>, limit: Option<u64>) -> Result<SearchCursor> {
        let mut p = self.params.clone();
        if after.is_some() {
            p.search_after = after;
        }
        p.limit = limit;
        let mut c = SearchCursor::new(self.client.clone(), p)?;
        c.parent = self.parent.clone();
        Ok(c)
    }

    /// What this walk is of, for an export's state: its endpoint and what
    /// its pages send but for their size (not its limit, which a resumed walk
    /// lowers), so that an option a row gains is told apart too.
    pub fn fingerprint(&self) -> String {
        let p = &self.params;
        let kind = match &p.kind {
            SearchKind::Search => "search".to_string(),
            SearchKind::Similar(u) => format!("similar {u}"),
            SearchKind::Phishfeed => "phishfeed".to_string(),
        };
        // An export's state keeps this text, so it stays as it was: the query
        // as given, then the other options in the row's order (not the
        // order a caller gave them in), then the cursor.
        let mut out = format!("{kind} q={:?}", p.given_q().unwrap_or(""));
        let sent = p.page_query(0, None).into_iter();
        let sent = sent.filter(|(k, _)| *k != "q" && *k != "size");
        for (k, v) in sent.chain(p.search_after.clone().map(|a| ("search_after", a))) {
            out.push_str(&format!(" {k}={v:?}"));
        }
        out
    }

    pub fn is_done(&self) -> bool {
        self.done
    }

    /// The checked parameters.
    pub fn params(&self) -> &SearchParams {
        &self.params
    }

    pub fn is_sharded(&self) -> bool {
        matches!(self.mode, Mode::Sharded { .. })
    }

    fn next_size(&self) -> u64 {
        page_size(&self.params, self.fetched)
    }

    /// The next page, or `None` once every hit was handed out. Its requests
    /// run under the walk's `parent` (where it has one).
    pub async fn next_page(&mut self) -> Result<Option<Doc<SearchPageHead>>> {
        let parent = self.parent.clone();
        crate::observe::within(parent, self.read_page()).await
    }

    async fn read_page(&mut self) -> Result<Option<Doc<SearchPageHead>>> {
        if self.done {
            return Ok(None);
        }
        if self.is_sharded() {
            match self.next_merged().await {
                Err(e) if self.fetched_from_shards == 0 && fallback(&e) => {
                    log::info!("search shards disagree ({e}); walking the pages one after another");
                    self.mode = Mode::Linear { next: None };
                }
                other => return other,
            }
        }
        let size = self.next_size();
        let prefetched = match &mut self.mode {
            Mode::Linear { next } => next.take(),
            Mode::Sharded { .. } => None,
        };
        let started = std::time::Instant::now();
        let (doc, ahead) = match prefetched {
            Some(a) if a.size == size && a.after == self.search_after => {
                let f = a.pending.join("search page").await?;
                (f.doc?, f.next)
            }
            _ => {
                let doc = self
                    .client
                    .search_page(&self.params, size, self.search_after.as_deref())
                    .await?;
                (doc, None)
            }
        };
        self.first_page.get_or_insert_with(|| started.elapsed());
        let n = doc.head.results.len() as u64;
        self.pages += 1;
        let seen = self.seen().after(&doc.head);
        (self.fetched, self.total, self.has_more) = (seen.fetched, seen.total, seen.has_more);
        let cursor = doc.head.results.last().and_then(|h| h.cursor());
        if cursor.is_some() {
            self.search_after = cursor.clone();
        }
        if n > 0 && self.params.limit.is_none_or(|l| self.fetched < l) {
            let more = self.has_more == Some(true) || n >= size;
            self.check_cursor(cursor.as_deref(), more)?;
        }
        if n > 0 {
            let last = doc.head.results.last().map(|h| h.sort.as_slice());
            self.check_progress(cursor.as_deref(), last.unwrap_or_default())?;
        }
        // Without a cursor there is no next page to ask for.
        self.done = cursor.is_none() || ends(&self.params, seen, n, size, self.largest_page);
        self.largest_page = self.largest_page.max(n);
        if n == 0 {
            return Ok(None);
        }
        if !self.done {
            if self.pages == 1 && self.shardable(&doc) {
                self.start_shards();
            } else {
                // The page the chain asked for, if it is the one this walk
                // wants; otherwise a new request (a new chain past page 3).
                let size = self.next_size();
                let after = self.search_after.clone();
                let next = match ahead {
                    Some(a) if a.size == size && a.after == after => a,
                    _ => {
                        let chain = if self.pages >= 3 { CHAIN } else { 0 };
                        let largest = self.largest_page;
                        fetch_ahead(
                            &self.client,
                            &self.params,
                            size,
                            after,
                            seen,
                            chain,
                            largest,
                        )
                    }
                };
                self.mode = Mode::Linear { next: Some(next) };
            }
        }
        Ok(Some(doc))
    }

    /// A walk always ends: a page that announces more (`has_more`, or a
    /// full page) must end with a readable cursor, or the walk would stop
    /// silently. (That the cursor moves on is `check_progress`'s.)
    fn check_cursor(&mut self, got: Option<&str>, more: bool) -> Result<()> {
        if got.is_none() && more {
            self.done = true;
            return Err(Error::Decode(format!(
                "search walk cannot go on after {} hits: the last hit's `sort` is missing or unreadable while more results are announced",
                self.fetched
            )));
        }
        Ok(())
    }

    /// A walk moves on: its cursors never come back, its first sort value
    /// (the date) never goes against the direction the walk set out in
    /// (ties are fine: the cursor set refuses a repeat), and it never hands
    /// out more hits than the largest exact total announced.
    fn check_progress(&mut self, cursor: Option<&str>, sort: &[Value]) -> Result<()> {
        let fetched = self.fetched;
        let fail = |done: &mut bool, why: String| {
            *done = true;
            Err(Error::Decode(format!(
                "search walk cannot go on after {fetched} hits: {why}"
            )))
        };
        // The largest: a total that shrinks while the walk runs (scans
        // deleted meanwhile) is no reason to stop.
        self.largest_total = self.largest_total.max(self.total);
        if let Some(total) = self.largest_total {
            if self.has_more != Some(true) && total < EXACT_TOTAL_CAP && fetched > total {
                return fail(
                    &mut self.done,
                    format!("the pages held more hits than the {total} the server announced"),
                );
            }
        }
        let Some(cursor) = cursor else {
            return Ok(());
        };
        if !self.cursors.insert(cursor.to_owned()) {
            return fail(
                &mut self.done,
                format!(
                    "a page ended at cursor {:?} again (the pages go round in a circle: the walk does not advance)",
                    urlscan_rules::shown(cursor, 80)
                ),
            );
        }
        if !self.last_sort.is_empty() {
            let went_back = match first_sort_step(sort, &self.last_sort) {
                None => Some("its sort values changed shape"),
                Some(Ordering::Equal) => None,
                Some(step) => (*self.direction.get_or_insert(step) != step)
                    .then_some("its sort values went back"),
            };
            if let Some(why) = went_back {
                return fail(
                    &mut self.done,
                    format!(
                        "the page ending at {:?} does not follow the one before: {why} (each page must go on in the order of the query)",
                        urlscan_rules::shown(cursor, 80)
                    ),
                );
            }
        }
        self.last_sort = sort.to_vec();
        Ok(())
    }

    /// What the walk knows so far.
    fn seen(&self) -> Seen {
        Seen {
            fetched: self.fetched,
            total: self.total,
            has_more: self.has_more,
        }
    }

    /// Worth sharding: a scans search with many pages still to come.
    fn shardable(&self, first: &Doc<SearchPageHead>) -> bool {
        let p = &self.params;
        let slow = self.first_page.is_some_and(|t| t >= SLOW_PAGE);
        if p.parallel == Parallel::One
            || (p.parallel == Parallel::Auto && !slow)
            || p.kind != SearchKind::Search
            || !p.scans_by_query_alone()
        {
            return false;
        }
        let keyed = first.head.results.iter().all(|h| {
            h.id.as_deref().is_some_and(|id| id.len() >= 32)
                && matches!(h.sort.as_slice(), [Value::Number(_), Value::String(_)])
        });
        let matching = if self.has_more == Some(true) {
            u64::MAX
        } else {
            self.total.unwrap_or(0)
        };
        let left = matching
            .min(p.limit.unwrap_or(u64::MAX))
            .saturating_sub(self.fetched);
        keyed && left >= SHARD_MIN_PAGES * self.largest_page.max(1) && self.shard_count() > 1
    }

    /// How many shards: as asked (`AUTO_SHARDS` for "auto"), a power of two
    /// up to 16, and never more than the searches the service lets the key
    /// run at once (`X-Rate-Limit-Concurrency-Limit`, when it says).
    fn shard_count(&self) -> usize {
        let wanted = match self.params.parallel {
            Parallel::One => 1,
            Parallel::Auto => AUTO_SHARDS,
            Parallel::Shards(n) => n,
        };
        let mut n = wanted.next_power_of_two().min(16);
        if let Some(limit) = self.client.t.concurrency_limit(crate::api::actions::SEARCH) {
            while n as u64 > limit.max(1) {
                n /= 2;
            }
        }
        n
    }

    fn start_shards(&mut self) {
        let n = self.shard_count();
        let digits: Vec<char> = "0123456789abcdef".chars().collect();
        let per = 16 / n;
        let q = self.params.q();
        let size = self.next_size();
        let shards = digits
            .chunks(per)
            .map(|prefixes| {
                let clause = prefixes
                    .iter()
                    .map(|c| format!("{c}*"))
                    .collect::<Vec<_>>()
                    .join(" OR ");
                let shard_q = match q {
                    Some(q) => format!("({q}) AND task.uuid:({clause})"),
                    None => format!("task.uuid:({clause})"),
                };
                let mut params = self.params.clone();
                params.query.insert("q".into(), shard_q.into());
                let mut s = Shard {
                    prefixes: prefixes.to_vec(),
                    params,
                    buf: VecDeque::new(),
                    pending: None,
                    after: self.search_after.clone(),
                    cursors: HashSet::new(),
                    total: None,
                    checked: false,
                    done: false,
                };
                s.start(&self.client, size);
                s
            })
            .collect();
        self.fetched_from_shards = 0;
        self.mode = Mode::Sharded { shards, size };
    }

    /// The next page of the merge: the newest heads of all shards, in order.
    async fn next_merged(&mut self) -> Result<Option<Doc<SearchPageHead>>> {
        let want = self.next_size();
        let clamp = self.largest_page;
        let exact_total = (self.has_more != Some(true))
            .then_some(self.total)
            .flatten()
            .filter(|t| *t < EXACT_TOTAL_CAP);
        let first = self.fetched_from_shards == 0;
        let Mode::Sharded { shards, size } = &mut self.mode else {
            return Ok(None);
        };
        let mut out: Vec<Hit> = Vec::with_capacity(want as usize);
        while (out.len() as u64) < want {
            for s in shards.iter_mut() {
                s.refill(&self.client, *size, clamp).await?;
            }
            if first && out.is_empty() {
                // Every shard's first page is in: the shards must add up.
                let sum: Option<u64> = shards.iter().map(|s| s.total).sum();
                if let (Some(t), Some(sum)) = (exact_total, sum) {
                    if sum != t {
                        return Err(Error::Decode(format!(
                            "shard totals add up to {sum}, not {t}"
                        )));
                    }
                }
            }
            let best = shards
                .iter()
                .enumerate()
                .filter_map(|(i, s)| s.buf.front().map(|h| (i, h)))
                .reduce(|a, b| if b.1.ahead_of(a.1) { b } else { a })
                .map(|(i, _)| i);
            let Some(i) = best else { break };
            out.push(shards[i].buf.pop_front().expect("has a head"));
        }
        let exhausted = shards.iter().all(|s| s.done && s.buf.is_empty());
        let n = out.len() as u64;
        self.fetched += n;
        self.fetched_from_shards += n;
        self.pages += 1;
        if let Some(c) = out.last().and_then(|h| h.head.cursor()) {
            self.search_after = Some(c);
        }
        self.done = exhausted || self.params.limit.is_some_and(|l| self.fetched >= l);
        if self.done {
            self.mode = Mode::Linear { next: None };
        }
        if n == 0 {
            return Ok(None);
        }
        Ok(Some(merged_page(out, self.total, self.has_more)?))
    }
}

/// A shard that the service cannot serve or that answers inconsistently.
fn fallback(e: &Error) -> bool {
    matches!(e, Error::Decode(_))
        || matches!(
            e.api_kind(),
            Some(ApiErrorKind::BadRequest | ApiErrorKind::PermissionDenied)
        )
}

/// A page body built from raw hits: `{"results": [...], "total": .., "has_more": ..}`.
fn merged_page(
    hits: Vec<Hit>,
    total: Option<u64>,
    has_more: Option<bool>,
) -> Result<Doc<SearchPageHead>> {
    let len: usize = hits.iter().map(|h| h.raw.get().len() + 1).sum();
    let mut body = Vec::with_capacity(len + 64);
    body.extend_from_slice(b"{\"results\":[");
    for (i, h) in hits.iter().enumerate() {
        if i > 0 {
            body.push(b',');
        }
        body.extend_from_slice(h.raw.get().as_bytes());
    }
    body.extend_from_slice(b"]");
    if let Some(t) = total {
        body.extend_from_slice(format!(",\"total\":{t}").as_bytes());
    }
    if let Some(m) = has_more {
        body.extend_from_slice(format!(",\"has_more\":{m}").as_bytes());
    }
    body.push(b'}');
    // Indexed like any page, so the bindings read it the same way.
    crate::models::index::search_page(body.into())
}

impl SearchCursor {
    /// The number of hits (a `size=0` request); a floor of 10,000 when
    /// `has_more` is true. An answer without `total` is a `DecodeError`:
    /// unknown is not 0.
    pub async fn count(&mut self) -> Result<(u64, bool)> {
        let after = self.params.search_after.as_deref();
        let doc = crate::observe::within(
            self.parent.clone(),
            self.client.search_page(&self.params, 0, after),
        )
        .await?;
        let total = doc.head.total.ok_or_else(|| {
            Error::Decode("search count: the answer has no `total` (the count is unknown)".into())
        })?;
        let has_more = doc.head.has_more.unwrap_or(total >= EXACT_TOTAL_CAP);
        if self.total.is_none() {
            self.total = Some(total);
            self.has_more = Some(has_more);
        }
        Ok((total, has_more))
    }
}

#[cfg(test)]
#[path = "paginate_tests.rs"]
mod tests;
