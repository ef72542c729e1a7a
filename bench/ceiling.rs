//! The pure-Rust ceiling: the benchmark workloads run on the core alone (no
//! Python), against an emulator given on the command line, plus the
//! emulator's own numbers. Run through `bench/run.py`, or by hand:
//!
//! ```text
//! cargo bench --bench ceiling -- search URL KEY HITS
//! cargo bench --bench ceiling -- results URL KEY N CONCURRENCY
//! cargo bench --bench ceiling -- fanout URL KEY N
//! cargo bench --bench ceiling -- trivial URL KEY REQUESTS CONCURRENCY
//! cargo bench --bench ceiling -- emulator SCANS PAGES [QUERY]
//! cargo bench --bench ceiling -- serve SCANS SEED [RESULT_MIN RESULT_MAX]
//! cargo bench --bench ceiling -- floor-search URL KEY HITS [SIZE|none] [nine|all] [REPS]
//! cargo bench --bench ceiling -- floor-results URL KEY N [all|PATH] [REPS]
//! ```
//!
//! Each prints one JSON line: wall seconds, process CPU seconds (user +
//! system, all threads) and what was counted.
use std::sync::Arc;
use std::time::Instant;

use futures::stream::{self, StreamExt};
use serde::Deserialize;

use urlscan_core::api::{SearchKind, SearchParams};
use urlscan_core::paginate::SearchCursor;
use urlscan_core::{Client, Config};
use urlscan_emulator::state::{AppState, Caller};
use urlscan_emulator::EmulatorConfig;

/// Process CPU time (user + system, every thread), from /proc/self/stat.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name (which is in parentheses and may hold spaces).
    let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let f: Vec<&str> = rest.split_whitespace().collect();
    // rest starts at field 3 (state); utime and stime are fields 14 and 15.
    let ticks = |i: usize| {
        f.get(i - 3)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(14) + ticks(15)) / 100.0
}

fn client(url: &str, key: &str) -> Client {
    Client::new(Config::new(Some(key.to_string()), Some(url.to_string())).expect("config"))
        .expect("client")
}

/// The ten typed fields a playbook reads of a result (as `bench/workloads.py`).
#[derive(Deserialize)]
#[allow(dead_code)]
struct Ten {
    page: Option<Page>,
    verdicts: Option<Verdicts>,
    stats: Option<Stats>,
    lists: Option<Lists>,
    task: Option<Task>,
}
#[derive(Deserialize)]
#[allow(dead_code)]
struct Page {
    domain: Option<String>,
    ip: Option<String>,
    country: Option<String>,
}
#[derive(Deserialize)]
#[allow(dead_code)]
struct Verdicts {
    overall: Option<Overall>,
}
#[derive(Deserialize)]
#[allow(dead_code)]
struct Overall {
    malicious: Option<bool>,
    score: Option<i64>,
}
#[derive(Deserialize)]
#[allow(dead_code)]
#[serde(rename_all = "camelCase")]
struct Stats {
    malicious: Option<i64>,
    uniq_countries: Option<i64>,
}
#[derive(Deserialize)]
#[allow(dead_code)]
struct Lists {
    ips: Option<Vec<String>>,
}
#[derive(Deserialize)]
#[allow(dead_code)]
struct Task {
    time: Option<String>,
    url: Option<String>,
}

async fn uuids(c: &Client, n: usize) -> Vec<String> {
    let mut p = SearchParams::new(SearchKind::Search);
    p.limit = Some(n as u64);
    let mut cur = SearchCursor::new(c.clone(), p).expect("search");
    let mut out = Vec::with_capacity(n);
    while let Some(page) = cur.next_page().await.expect("search page") {
        out.extend(page.head.results.into_iter().filter_map(|h| h.id));
    }
    out
}

fn report(what: &str, wall: f64, cpu: f64, count: usize, extra: &str) {
    println!(
        "{{\"workload\":\"{what}\",\"wall\":{wall:.6},\"cpu\":{cpu:.6},\"count\":{count}{extra}}}"
    );
}

async fn search(url: &str, key: &str, hits: u64) {
    let c = client(url, key);
    let mut p = SearchParams::new(SearchKind::Search);
    p.limit = Some(hits);
    let (t0, c0) = (Instant::now(), cpu_seconds());
    let mut cur = SearchCursor::new(c, p).expect("search");
    let mut n = 0usize;
    let mut ids = 0usize;
    while let Some(page) = cur.next_page().await.expect("search page") {
        // What an export does with each hit: decode it, read id, page domain, scan time.
        let v: serde_json::Value = page.value().expect("page");
        for h in v["results"].as_array().into_iter().flatten() {
            n += 1;
            ids += h["_id"].as_str().map_or(0, str::len)
                + h["page"]["domain"].as_str().map_or(0, str::len)
                + usize::from(h["task"]["time"].is_string());
        }
    }
    let wall = t0.elapsed().as_secs_f64();
    report(
        "search",
        wall,
        cpu_seconds() - c0,
        n,
        &format!(",\"idbytes\":{ids}"),
    );
}

async fn results(url: &str, key: &str, n: usize, concurrency: usize) {
    let c = client(url, key);
    let ids = uuids(&c, n).await;
    let (t0, c0) = (Instant::now(), cpu_seconds());
    let malicious = stream::iter(ids.iter())
        .map(|id| {
            let c = c.clone();
            async move {
                let doc = c.result(id).await.expect("result");
                let ten: Ten = serde_json::from_slice(&doc.body).expect("typed fields");
                ten.verdicts
                    .and_then(|v| v.overall)
                    .and_then(|o| o.malicious)
                    .unwrap_or(false)
            }
        })
        .buffered(concurrency.max(1))
        .filter(|m| std::future::ready(*m))
        .count()
        .await;
    let wall = t0.elapsed().as_secs_f64();
    report(
        "results",
        wall,
        cpu_seconds() - c0,
        ids.len(),
        &format!(",\"malicious\":{malicious}"),
    );
}

async fn fanout(url: &str, key: &str, n: usize) {
    let c = client(url, key);
    let ids = uuids(&c, n).await;
    let (t0, c0) = (Instant::now(), cpu_seconds());
    let futs = ids.iter().map(|id| {
        let c = c.clone();
        async move { c.result(id).await.map(|d| d.body.len()).unwrap_or(0) }
    });
    let bytes: usize = futures::future::join_all(futs).await.into_iter().sum();
    let wall = t0.elapsed().as_secs_f64();
    report(
        "fanout",
        wall,
        cpu_seconds() - c0,
        ids.len(),
        &format!(",\"bytes\":{bytes}"),
    );
}

/// Many concurrent GETs of a trivial endpoint straight through reqwest.
async fn trivial(url: &str, key: &str, requests: usize, concurrency: usize) {
    let http = reqwest::Client::new();
    let target = format!("{url}/api/v1/quotas/");
    let (t0, c0) = (Instant::now(), cpu_seconds());
    let ok = stream::iter(0..requests)
        .map(|_| {
            let req = http.get(&target).header("API-Key", key);
            async move {
                match req.send().await {
                    Ok(r) => r.bytes().await.is_ok(),
                    Err(_) => false,
                }
            }
        })
        .buffer_unordered(concurrency.max(1))
        .filter(|ok| std::future::ready(*ok))
        .count()
        .await;
    let wall = t0.elapsed().as_secs_f64();
    report("trivial", wall, cpu_seconds() - c0, ok, "");
}

/// The emulator in-process: how long a corpus takes to build, and the cost
/// of one search page (size 100, walking with search_after, no HTTP).
fn emulator(scans: usize, pages: usize, q: &str) {
    let t0 = Instant::now();
    let st = AppState::new(
        EmulatorConfig {
            scans,
            ..EmulatorConfig::default()
        },
        "http://127.0.0.1:1".into(),
    );
    let build = t0.elapsed().as_secs_f64();
    let caller = Caller::Key(st.keys[0].1.clone());
    let query = urlscan_emulator::query::Query::parse(q).expect("query");
    let mut after: Option<(i64, String)> = None;
    let t1 = Instant::now();
    let mut walked = 0usize;
    let mut total = 0u64;
    for _ in 0..pages {
        let none = urlscan_emulator::state::SavedMatches::default();
        let page = st.search(&caller, &query, &|_| true, 100, after.clone(), None, &none);
        total = page.total;
        let Some(last) = page.hits.last() else { break };
        walked += 1;
        let v: serde_json::Value = serde_json::from_str(last).expect("hit");
        after = Some((
            v["sort"][0].as_i64().unwrap_or(0),
            v["sort"][1].as_str().unwrap_or("").to_string(),
        ));
    }
    let per_page = t1.elapsed().as_secs_f64() / walked.max(1) as f64;
    println!(
        "{{\"workload\":\"emulator\",\"query\":{q:?},\"scans\":{scans},\"build\":{build:.6},\"pages\":{walked},\"per_page\":{per_page:.9},\"total\":{total}}}"
    );
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let arg = |i: usize| args.get(i).cloned().unwrap_or_default();
    let num = |i: usize, d: usize| args.get(i).and_then(|v| v.parse().ok()).unwrap_or(d);
    if arg(0) == "emulator" {
        emulator(num(1, 100_000), num(2, 1_000), &arg(3));
        return;
    }
    if arg(0) == "serve" {
        let size = (args.len() > 4).then(|| (num(3, 0), num(4, 0)));
        serve(num(1, 100_000), num(2, 0) as u64, size);
        return;
    }
    let rt = Arc::new(
        tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .expect("runtime"),
    );
    let (url, key) = (arg(1), arg(2));
    rt.block_on(async {
        match arg(0).as_str() {
            "search" => search(&url, &key, num(3, 100_000) as u64).await,
            "results" => results(&url, &key, num(3, 500), num(4, 1)).await,
            "fanout" => fanout(&url, &key, num(3, 1_000)).await,
            "trivial" => trivial(&url, &key, num(3, 50_000), num(4, 64)).await,
            // floor-search URL KEY HITS [SIZE|none] [nine|all] [REPS]
            "floor-search" => {
                let size = args.get(4).and_then(|v| v.parse().ok()).or(
                    (args.get(4).map(String::as_str) != Some("none")).then_some(100),
                );
                let all = arg(5) == "all";
                floor_search(&url, &key, num(3, 50_000) as u64, size, all, num(6, 5)).await
            }
            // floor-results URL KEY N [all|data.requests[].request.request.url] [REPS]
            "floor-results" => {
                let column = if args.len() > 4 { arg(4) } else { "all".into() };
                floor_results(&url, &key, num(3, 100), &column, num(5, 5)).await
            }
            other => {
                eprintln!(
                    "unknown workload {other:?}: search, results, fanout, trivial, emulator, serve, floor-search or floor-results"
                );
                std::process::exit(2);
            }
        }
    });
}

// --- The floor: the same bytes received, one pass over them, the values written ------------------------------------------------
//
// The same bodies the client fetches, received over loopback with reqwest and then read in
// memory stage by stage: (a) receiving the bytes only; (b) one pass over them finding the
// columns' values, with sonic-rs and with simd-json; (c) the core's own reading
// (`index::search_page`, `index::result_doc`); (d) the values written into Arrow builders; and
// the table the client builds today from the same bytes (core + urlscan-tables). Each in-memory
// stage runs REPS times over every body; the fastest run is reported.

/// One stage's figures over all the bodies.
struct Stage {
    name: &'static str,
    wall: f64,
    cpu: f64,
    /// What the stage counted (values found, rows written): the stages agree on it.
    check: usize,
}

/// Run `f` `reps` times; the fastest run (wall) with its CPU seconds.
fn stage(name: &'static str, reps: usize, mut f: impl FnMut() -> usize) -> Stage {
    let mut best: Option<Stage> = None;
    for _ in 0..reps.max(1) {
        let (t0, c0) = (Instant::now(), cpu_seconds());
        let check = std::hint::black_box(f());
        let (wall, cpu) = (t0.elapsed().as_secs_f64(), cpu_seconds() - c0);
        if best.as_ref().is_none_or(|b| wall < b.wall) {
            best = Some(Stage {
                name,
                wall,
                cpu,
                check,
            });
        }
    }
    best.expect("one run")
}

/// One JSON line: each stage's wall and CPU seconds, MB/s and ns per row.
fn report_floor(what: &str, extra: &str, bytes: usize, rows: usize, stages: &[Stage]) {
    let each: Vec<String> = stages
        .iter()
        .map(|s| {
            format!(
                "\"{}\":{{\"wall\":{:.6},\"cpu\":{:.6},\"mb_s\":{:.1},\"ns_per_row\":{:.0},\"check\":{}}}",
                s.name,
                s.wall,
                s.cpu,
                bytes as f64 / 1e6 / s.wall,
                s.wall * 1e9 / rows.max(1) as f64,
                s.check
            )
        })
        .collect();
    println!(
        "{{\"workload\":\"{what}\"{extra},\"bytes\":{bytes},\"rows\":{rows},\"stages\":{{{}}}}}",
        each.join(",")
    );
}

/// A GET of `url` with the key, answered with a success (a failure is a
/// panic: a bench).
async fn get(http: &reqwest::Client, key: &str, url: &str) -> reqwest::Response {
    let r = http
        .get(url)
        .header("API-Key", key)
        .send()
        .await
        .expect("GET");
    assert!(r.status().is_success(), "{url}: {}", r.status());
    r
}

/// The body of `get`.
async fn get_body(http: &reqwest::Client, key: &str, url: &str) -> bytes::Bytes {
    get(http, key, url).await.bytes().await.expect("body")
}

/// GET each of `urls` in turn (as the client's walk does): the bodies, and the
/// receive stage (wall and CPU seconds of the process).
async fn receive(http: &reqwest::Client, key: &str, urls: &[String]) -> (Vec<bytes::Bytes>, Stage) {
    let (t0, c0) = (Instant::now(), cpu_seconds());
    let mut bodies = Vec::with_capacity(urls.len());
    for u in urls {
        bodies.push(get_body(http, key, u).await);
    }
    let (wall, cpu) = (t0.elapsed().as_secs_f64(), cpu_seconds() - c0);
    let check = bodies.len();
    (
        bodies,
        Stage {
            name: "receive",
            wall,
            cpu,
            check,
        },
    )
}

/// GET each of `urls` in turn into one reused buffer, keeping nothing: the
/// client side of the transfer in warm memory (the client keeps the last large
/// body's buffer for the next). Twice; the second walk is the stage.
async fn receive_warm(http: &reqwest::Client, key: &str, urls: &[String]) -> Stage {
    let mut buf: Vec<u8> = Vec::new();
    let mut stage = None;
    for _ in 0..2 {
        let (t0, c0) = (Instant::now(), cpu_seconds());
        let mut check = 0;
        for u in urls {
            let mut r = get(http, key, u).await;
            buf.clear();
            while let Some(c) = r.chunk().await.expect("body") {
                buf.extend_from_slice(&c);
            }
            check += usize::from(!buf.is_empty());
        }
        stage = Some(Stage {
            name: "receive_warm",
            wall: t0.elapsed().as_secs_f64(),
            cpu: cpu_seconds() - c0,
            check,
        });
    }
    stage.expect("two walks")
}

/// The columns read: the distinct wire paths (split at dots) and, per column,
/// its type and the paths it reads (the first present and not null wins).
struct Cols {
    paths: Vec<Vec<String>>,
    cols: Vec<(urlscan_tables::schema::Ty, Vec<usize>)>,
    names: Vec<String>,
}

fn cols_of(schema: &'static urlscan_tables::schema::Schema, names: Option<&[&str]>) -> Cols {
    let chosen: Vec<&urlscan_tables::schema::Col> = match names {
        None => schema.columns.iter().collect(),
        Some(n) => n
            .iter()
            .map(|c| schema.column(c).expect("a column"))
            .collect(),
    };
    let mut paths: Vec<Vec<String>> = Vec::new();
    let mut cols = Vec::new();
    for c in &chosen {
        let slots = c
            .paths
            .iter()
            .map(|p| {
                let parts: Vec<String> = p.split('.').map(String::from).collect();
                paths.iter().position(|q| *q == parts).unwrap_or_else(|| {
                    paths.push(parts);
                    paths.len() - 1
                })
            })
            .collect();
        cols.push((c.ty, slots));
    }
    let names = chosen.iter().map(|c| c.name.to_string()).collect();
    Cols { paths, cols, names }
}

fn sonic_tree(cols: &Cols) -> sonic_rs::PointerTree {
    let mut tree = sonic_rs::PointerTree::new();
    for p in &cols.paths {
        tree.add_path(p.iter().map(String::as_str));
    }
    tree
}

/// What the find stages count of a value: list elements and string bytes, 1 for a scalar.
fn touch_sonic(ty: urlscan_tables::schema::Ty, v: &sonic_rs::LazyValue<'_>) -> usize {
    use sonic_rs::JsonValueTrait;
    use urlscan_tables::schema::Ty;
    match ty {
        Ty::Count => sonic_rs::to_array_iter(v.as_raw_str()).count(),
        Ty::StrList => sonic_rs::to_array_iter(v.as_raw_str())
            .map(|e| e.map_or(0, |e| e.as_str().map_or(0, str::len)))
            .sum(),
        _ => v.as_str().map_or(1, str::len),
    }
}

fn touch_tape(ty: urlscan_tables::schema::Ty, v: &simd_json::tape::Value<'_, '_>) -> usize {
    use simd_json::prelude::*;
    use urlscan_tables::schema::Ty;
    match ty {
        Ty::Count => v.as_array().map_or(0, |a| a.len()),
        Ty::StrList => v.as_array().map_or(0, |a| {
            a.iter().map(|e| e.as_str().map_or(0, str::len)).sum()
        }),
        _ => v.as_str().map_or(1, str::len),
    }
}

/// Each column's first non-null path in `obj` (`get` a member, `null`
/// whether a value is null), touched by `touch`.
fn find_each<V: Copy>(
    cols: &Cols,
    obj: V,
    get: impl Fn(V, &str) -> Option<V>,
    null: impl Fn(V) -> bool,
    touch: impl Fn(urlscan_tables::schema::Ty, V) -> usize,
) -> usize {
    let mut n = 0;
    for (ty, slots) in &cols.cols {
        let v = slots.iter().find_map(|&s| {
            let mut v = obj;
            for k in &cols.paths[s] {
                v = get(v, k)?;
            }
            (!null(v)).then_some(v)
        });
        n += v.map_or(0, |v| touch(*ty, v));
    }
    n
}

/// `f` of each body's simd-json tape (parsed in a mutable copy, as simd-json
/// parses in place), summed.
fn over_tapes(
    bodies: &[bytes::Bytes],
    mut f: impl FnMut(&simd_json::tape::Tape<'_>) -> usize,
) -> usize {
    let mut buffers = simd_json::Buffers::default();
    let mut n = 0;
    for b in bodies {
        let mut copy = b.to_vec();
        n += f(&simd_json::to_tape_with_buffers(&mut copy, &mut buffers).expect("tape"));
    }
    n
}

/// `f` of each body's simd-json borrowed DOM (of a mutable copy), summed.
fn over_doms(
    bodies: &[bytes::Bytes],
    mut f: impl FnMut(&simd_json::BorrowedValue<'_>) -> usize,
) -> usize {
    let mut buffers = simd_json::Buffers::default();
    let mut n = 0;
    for b in bodies {
        let mut copy = b.to_vec();
        n += f(&simd_json::to_borrowed_value_with_buffers(&mut copy, &mut buffers).expect("dom"));
    }
    n
}

/// `find_each` on the tape.
fn find_tape(cols: &Cols, obj: simd_json::tape::Value<'_, '_>) -> usize {
    use simd_json::prelude::*;
    find_each(
        cols,
        obj,
        |v, k| v.get(k),
        |v| v.is_null(),
        |t, v| touch_tape(t, &v),
    )
}

/// `find_each` on the borrowed DOM.
fn find_borrowed(cols: &Cols, obj: &simd_json::BorrowedValue<'_>) -> usize {
    use simd_json::prelude::*;
    find_each(cols, obj, |v, k| v.get(k), |v| v.is_null(), touch_borrowed)
}

fn touch_borrowed(ty: urlscan_tables::schema::Ty, v: &simd_json::BorrowedValue<'_>) -> usize {
    use simd_json::prelude::*;
    use urlscan_tables::schema::Ty;
    match ty {
        Ty::Count => v.as_array().map_or(0, Vec::len),
        Ty::StrList => v.as_array().map_or(0, |a| {
            a.iter().map(|e| e.as_str().map_or(0, str::len)).sum()
        }),
        _ => v.as_str().map_or(1, str::len),
    }
}

fn nonnull_sonic<'a, 'b>(
    found: &'b [Option<sonic_rs::LazyValue<'a>>],
    slots: &[usize],
) -> Option<&'b sonic_rs::LazyValue<'a>> {
    slots
        .iter()
        .filter_map(|&s| found[s].as_ref())
        .find(|v| v.as_raw_str() != "null")
}

/// The Arrow builders of the columns (as urlscan-tables makes them).
enum Builder {
    Str(arrow_array::builder::StringBuilder),
    Int(arrow_array::builder::Int64Builder),
    Float(arrow_array::builder::Float64Builder),
    Bool(arrow_array::builder::BooleanBuilder),
    Time(arrow_array::builder::TimestampMicrosecondBuilder),
    List(arrow_array::builder::ListBuilder<arrow_array::builder::StringBuilder>),
}

impl Builder {
    fn of(ty: urlscan_tables::schema::Ty) -> Builder {
        use arrow_array::builder::*;
        use urlscan_tables::schema::Ty;
        match ty {
            Ty::Int | Ty::Count => Builder::Int(Int64Builder::new()),
            Ty::Float => Builder::Float(Float64Builder::new()),
            Ty::Bool => Builder::Bool(BooleanBuilder::new()),
            Ty::Time => Builder::Time(TimestampMicrosecondBuilder::new().with_timezone("UTC")),
            Ty::StrList => Builder::List(ListBuilder::new(StringBuilder::new())),
            _ => Builder::Str(StringBuilder::new()),
        }
    }

    /// Write one value (None: null) of a column of type `ty`.
    fn put(&mut self, ty: urlscan_tables::schema::Ty, v: Option<&sonic_rs::LazyValue<'_>>) {
        use sonic_rs::JsonValueTrait;
        use urlscan_tables::schema::Ty;
        match self {
            Builder::Str(b) => b.append_option(v.and_then(|v| v.as_str())),
            Builder::Int(b) if ty == Ty::Count => {
                b.append_option(v.map(|v| sonic_rs::to_array_iter(v.as_raw_str()).count() as i64))
            }
            Builder::Int(b) => b.append_option(v.and_then(|v| {
                v.as_i64()
                    .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
            })),
            Builder::Float(b) => b.append_option(v.and_then(|v| {
                v.as_f64()
                    .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
            })),
            Builder::Bool(b) => b.append_option(v.and_then(|v| v.as_bool())),
            Builder::Time(b) => b.append_option(v.and_then(|v| v.as_str()).and_then(iso_micros)),
            Builder::List(b) => match v {
                None => b.append_null(),
                Some(v) => {
                    for e in sonic_rs::to_array_iter(v.as_raw_str()).flatten() {
                        b.values().append_option(e.as_str());
                    }
                    b.append(true);
                }
            },
        }
    }

    fn finish(&mut self) -> usize {
        use arrow_array::builder::ArrayBuilder;
        match self {
            Builder::Str(b) => ArrayBuilder::finish(b).len(),
            Builder::Int(b) => ArrayBuilder::finish(b).len(),
            Builder::Float(b) => ArrayBuilder::finish(b).len(),
            Builder::Bool(b) => ArrayBuilder::finish(b).len(),
            Builder::Time(b) => ArrayBuilder::finish(b).len(),
            Builder::List(b) => ArrayBuilder::finish(b).len(),
        }
    }
}

/// `2024-05-01T12:34:56.789Z` (or `+00:00`, fewer fraction digits) as microseconds since the epoch.
fn iso_micros(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let d = b.get(r)?;
        d.iter().try_fold(0i64, |n, &c| {
            c.is_ascii_digit().then(|| n * 10 + i64::from(c - b'0'))
        })
    };
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hh, mm, ss) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let mut micros = 0i64;
    let mut i = 19;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let mut scale = 100_000;
        while let Some(c) = b.get(i).filter(|c| c.is_ascii_digit()) {
            micros += i64::from(c - b'0') * scale;
            scale /= 10;
            i += 1;
        }
    }
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(((days * 86_400 + hh * 3600 + mm * 60 + ss) * 1_000_000) + micros)
}

/// The nine columns of a hit, found in the one pass of a typed deserialization
/// (sonic-rs skipping every other member), each value kept lazy (unparsed).
#[derive(Deserialize)]
struct NinePage<'a> {
    #[serde(borrow)]
    results: Vec<NineHit<'a>>,
}
/// A member read where it stands (a span of the body), when present.
type Lazy<'a> = Option<sonic_rs::LazyValue<'a>>;

#[derive(Deserialize)]
struct NineHit<'a> {
    #[serde(rename = "_id", borrow)]
    id: Lazy<'a>,
    #[serde(borrow)]
    page: Option<NinePart<'a>>,
    #[serde(borrow)]
    task: Option<NineTask<'a>>,
    #[serde(borrow)]
    stats: Option<NineStats<'a>>,
}
/// A struct of optional members, each read where it stands.
macro_rules! lazy_members {
    ($name:ident { $($field:ident $(= $wire:literal)?),* }) => {
        #[derive(Deserialize)]
        struct $name<'a> {
            $( $(#[serde(rename = $wire)])? #[serde(borrow)] $field: Lazy<'a>, )*
        }
    };
}
lazy_members!(NinePart {
    domain,
    ip,
    country,
    asn,
    status
});
lazy_members!(NineTask { time, url, uuid });
lazy_members!(NineStats { uniq_ips = "uniqIPs" });

impl<'a> NineHit<'a> {
    /// The nine values, in `NINE`'s order (uuid: `_id`, else `task.uuid`).
    fn values(&self) -> [Option<&sonic_rs::LazyValue<'a>>; 9] {
        fn keep<'s, 'a>(
            v: Option<&'s Option<sonic_rs::LazyValue<'a>>>,
        ) -> Option<&'s sonic_rs::LazyValue<'a>> {
            v.and_then(Option::as_ref)
                .filter(|v| v.as_raw_str() != "null")
        }
        let (p, t, s) = (self.page.as_ref(), self.task.as_ref(), self.stats.as_ref());
        [
            keep(Some(&self.id)).or_else(|| keep(t.map(|t| &t.uuid))),
            keep(p.map(|p| &p.domain)),
            keep(p.map(|p| &p.ip)),
            keep(p.map(|p| &p.country)),
            keep(p.map(|p| &p.asn)),
            keep(p.map(|p| &p.status)),
            keep(t.map(|t| &t.time)),
            keep(t.map(|t| &t.url)),
            keep(s.map(|s| &s.uniq_ips)),
        ]
    }
}

const NINE: [&str; 9] = [
    "uuid",
    "domain",
    "ip",
    "country",
    "asn",
    "status",
    "time",
    "submitted_url",
    "uniq_ips",
];

/// The URLs of the client's walk: the page sizes it asks for (`size` given, else what the limit
/// still needs, at most the service's largest page) and each page's cursor (the last hit's sort).
async fn search_plan(
    http: &reqwest::Client,
    url: &str,
    key: &str,
    hits: u64,
    size: Option<u64>,
) -> Vec<String> {
    let largest = urlscan_rules::SEARCH_SIZE_MAX as u64;
    let (mut fetched, mut after, mut urls) = (0u64, None::<String>, Vec::new());
    while fetched < hits {
        let left = hits - fetched;
        let n = size.unwrap_or(left.min(largest)).min(left);
        let mut u = reqwest::Url::parse(&format!("{url}/api/v1/search/")).expect("url");
        u.query_pairs_mut().append_pair("size", &n.to_string());
        if let Some(a) = &after {
            u.query_pairs_mut().append_pair("search_after", a);
        }
        let u = u.to_string();
        let body = get_body(http, key, &u).await;
        let page: serde_json::Value = serde_json::from_slice(&body).expect("page");
        let list = page["results"].as_array().cloned().unwrap_or_default();
        urls.push(u);
        let Some(last) = list.last() else { break };
        fetched += list.len() as u64;
        let sort: Vec<String> = last["sort"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|v| match v {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .collect();
        after = Some(sort.join(","));
        if (list.len() as u64) < n {
            break;
        }
    }
    urls
}

async fn floor_search(url: &str, key: &str, hits: u64, size: Option<u64>, all: bool, reps: usize) {
    use urlscan_tables::schema::SCANS;
    let http = reqwest::Client::new();
    let urls = search_plan(&http, url, key, hits, size).await;
    let (bodies, received) = receive(&http, key, &urls).await;
    let bytes: usize = bodies.iter().map(|b| b.len()).sum();
    let cols = if all {
        cols_of(&SCANS, None)
    } else {
        cols_of(&SCANS, Some(&NINE))
    };
    let tree = sonic_tree(&cols);
    let mut stages = vec![received, receive_warm(&http, key, &urls).await];
    let rows: usize = bodies.iter().map(|b| index_hits(b)).sum();

    // (b) sonic-rs, lazy: the page's `results` (checked), each hit, its columns' values (get_many).
    stages.push(stage("find_sonic_lazy", reps, || {
        let mut n = 0;
        for b in &bodies {
            let list = sonic_rs::get(&b[..], &["results"]).expect("results");
            for hit in sonic_rs::to_array_iter(list.as_raw_str()) {
                let hit = hit.expect("hit");
                let found = sonic_rs::get_many(hit.as_raw_str(), &tree).expect("values");
                for (ty, slots) in &cols.cols {
                    n += nonnull_sonic(&found, slots).map_or(0, |v| touch_sonic(*ty, v));
                }
            }
        }
        n
    }));
    // (b) sonic-rs, typed: one pass deserializing the nine values (lazy) of every hit.
    if !all {
        stages.push(stage("find_sonic_typed", reps, || {
            let mut n = 0;
            for b in &bodies {
                let page: NinePage<'_> = sonic_rs::from_slice(b).expect("page");
                for h in &page.results {
                    for (v, (ty, _)) in h.values().iter().zip(&cols.cols) {
                        n += v.map_or(0, |v| touch_sonic(*ty, v));
                    }
                }
            }
            n
        }));
    }
    // (b) simd-json: the tape of a mutable copy, then each hit's paths on it.
    stages.push(stage("find_simd_tape", reps, || {
        over_tapes(&bodies, |tape| {
            let mut n = 0;
            let page = tape.as_value();
            for hit in page.get_array("results").expect("results").iter() {
                n += find_tape(&cols, hit);
            }
            n
        })
    }));
    // (b) simd-json: a borrowed DOM of a mutable copy.
    stages.push(stage("find_simd_borrowed", reps, || {
        use simd_json::prelude::*;
        over_doms(&bodies, |page| {
            let mut n = 0;
            for hit in page.get_array("results").expect("results") {
                n += find_borrowed(&cols, hit);
            }
            n
        })
    }));
    // (c) the core: the checking scan and each hit's index (what the walk does per page).
    stages.push(stage("core_search_page", reps, || {
        bodies
            .iter()
            .map(|b| {
                urlscan_core::models::index::search_page(b.clone())
                    .expect("page")
                    .head
                    .hits
                    .len()
            })
            .sum()
    }));
    // (d) the values found (sonic-rs, lazy) written into Arrow builders.
    stages.push(stage("find_write_sonic_lazy", reps, || {
        let mut rows = 0;
        for b in &bodies {
            let mut out: Vec<Builder> = cols.cols.iter().map(|(ty, _)| Builder::of(*ty)).collect();
            let list = sonic_rs::get(&b[..], &["results"]).expect("results");
            for hit in sonic_rs::to_array_iter(list.as_raw_str()) {
                let hit = hit.expect("hit");
                let found = sonic_rs::get_many(hit.as_raw_str(), &tree).expect("values");
                for ((ty, slots), o) in cols.cols.iter().zip(&mut out) {
                    o.put(*ty, nonnull_sonic(&found, slots));
                }
                rows += 1;
            }
            out.iter_mut().for_each(|o| {
                o.finish();
            });
        }
        rows
    }));
    if !all {
        stages.push(stage("find_write_sonic_typed", reps, || {
            let mut rows = 0;
            for b in &bodies {
                let mut out: Vec<Builder> =
                    cols.cols.iter().map(|(ty, _)| Builder::of(*ty)).collect();
                let page: NinePage<'_> = sonic_rs::from_slice(b).expect("page");
                for h in &page.results {
                    for ((v, (ty, _)), o) in h.values().iter().zip(&cols.cols).zip(&mut out) {
                        o.put(*ty, *v);
                    }
                    rows += 1;
                }
                out.iter_mut().for_each(|o| {
                    o.finish();
                });
            }
            rows
        }));
    }
    // Today's table from the same bytes: the core's page reading and urlscan-tables' builder.
    let names: Vec<String> = cols.names.clone();
    stages.push(stage("core_tables", reps, || {
        let mut t = urlscan_tables::TableBuilder::new(&SCANS, Some(&names)).expect("builder");
        let mut rows = 0;
        for b in &bodies {
            let doc = urlscan_core::models::index::search_page(b.clone()).expect("page");
            for (i, idx) in doc.head.hits.iter().enumerate() {
                let parts = doc.head.hits.parts(i);
                t.append_parts(
                    &doc.body,
                    Some(idx),
                    parts,
                    &urlscan_tables::Item("results", i),
                )
                .expect("row");
            }
            rows += t.finish().expect("batch").num_rows();
        }
        rows
    }));
    let size = size.map_or("null".to_string(), |s| s.to_string());
    report_floor(
        "floor-search",
        &format!(
            ",\"size\":{size},\"pages\":{},\"columns\":{},\"reps\":{reps}",
            bodies.len(),
            cols.cols.len()
        ),
        bytes,
        rows,
        &stages,
    );
}

/// How many hits a page holds (serde_json, outside the timed stages).
fn index_hits(body: &[u8]) -> usize {
    urlscan_core::models::index::search_page(bytes::Bytes::copy_from_slice(body))
        .map_or(0, |d| d.head.hits.len())
}

async fn floor_results(url: &str, key: &str, n: usize, column: &str, reps: usize) {
    use urlscan_tables::schema::RESULTS;
    let http = reqwest::Client::new();
    // The uuids of the first N hits (as bench/run.py's uuids_file).
    let page = get_body(&http, key, &format!("{url}/api/v1/search/?size={n}")).await;
    let page: serde_json::Value = serde_json::from_slice(&page).expect("page");
    let urls: Vec<String> = page["results"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|h| h["_id"].as_str())
        .map(|id| format!("{url}/api/v1/result/{id}/"))
        .collect();
    // A first walk warms the emulator's and the connection's caches.
    let _ = receive(&http, key, &urls).await;
    let (bodies, received) = receive(&http, key, &urls).await;
    let bytes: usize = bodies.iter().map(|b| b.len()).sum();
    let rows = bodies.len();
    let mut stages = vec![received, receive_warm(&http, key, &urls).await];
    if column == "all" {
        floor_results_all(&bodies, &mut stages, reps);
    } else {
        floor_projection(&bodies, &mut stages, reps);
    }
    report_floor(
        "floor-results",
        &format!(",\"columns\":{column:?},\"reps\":{reps}"),
        bytes,
        rows,
        &stages,
    );
    let _ = RESULTS.name;
}

/// (c) the core on a result: the checking scan and its top-level index.
fn core_result_doc(bodies: &[bytes::Bytes], reps: usize) -> Stage {
    stage("core_result_doc", reps, || {
        bodies
            .iter()
            .map(|b| {
                urlscan_core::models::index::result_doc(b.clone())
                    .expect("result")
                    .index
                    .map_or(0, |i| i.len())
            })
            .sum()
    })
}

fn floor_results_all(bodies: &[bytes::Bytes], stages: &mut Vec<Stage>, reps: usize) {
    use urlscan_tables::schema::RESULTS;
    let cols = cols_of(&RESULTS, None);
    let tree = sonic_tree(&cols);
    // (b) sonic-rs: every column's path in one get_many (stops after the last path it finds).
    stages.push(stage("find_sonic_lazy", reps, || {
        let mut n = 0;
        for b in bodies {
            let found = sonic_rs::get_many(&b[..], &tree).expect("values");
            for (ty, slots) in &cols.cols {
                n += nonnull_sonic(&found, slots).map_or(0, |v| touch_sonic(*ty, v));
            }
        }
        n
    }));
    // (b) sonic-rs: the whole body checked in one pass (each top-level member skipped, checked).
    stages.push(stage("check_sonic_whole", reps, || {
        bodies
            .iter()
            .map(|b| {
                sonic_rs::to_object_iter(&b[..])
                    .map(|m| usize::from(m.is_ok()))
                    .sum::<usize>()
            })
            .sum()
    }));
    stages.push(stage("find_simd_tape", reps, || {
        over_tapes(bodies, |tape| {
            let mut n = 0;
            n += find_tape(&cols, tape.as_value());
            n
        })
    }));
    stages.push(stage("find_simd_borrowed", reps, || {
        over_doms(bodies, |doc| {
            let mut n = 0;
            n += find_borrowed(&cols, doc);
            n
        })
    }));
    stages.push(core_result_doc(bodies, reps));
    stages.push(stage("find_write_sonic_lazy", reps, || {
        let mut out: Vec<Builder> = cols.cols.iter().map(|(ty, _)| Builder::of(*ty)).collect();
        for b in bodies {
            let found = sonic_rs::get_many(&b[..], &tree).expect("values");
            for ((ty, slots), o) in cols.cols.iter().zip(&mut out) {
                o.put(*ty, nonnull_sonic(&found, slots));
            }
        }
        out.iter_mut().map(Builder::finish).max().unwrap_or(0)
    }));
    stages.push(stage("core_tables", reps, || {
        let mut t = urlscan_tables::TableBuilder::new(&RESULTS, None).expect("builder");
        for (i, b) in bodies.iter().enumerate() {
            let doc = urlscan_core::models::index::result_doc(b.clone()).expect("result");
            t.append(&doc.body, doc.index.as_deref(), &format!("[{i}]"))
                .expect("row");
        }
        t.finish().expect("batch").num_rows()
    }));
}

/// One path into every request of a result: `data.requests[].request.request.url`.
fn floor_projection(bodies: &[bytes::Bytes], stages: &mut Vec<Stage>, reps: usize) {
    use sonic_rs::JsonValueTrait;
    use urlscan_tables::schema::RESULTS;
    const URL: [&str; 3] = ["request", "request", "url"];
    stages.push(stage("find_sonic_lazy", reps, || {
        let mut n = 0;
        for b in bodies {
            let list = sonic_rs::get(&b[..], &["data", "requests"]).expect("requests");
            for r in sonic_rs::to_array_iter(list.as_raw_str()) {
                let r = r.expect("request");
                n += sonic_rs::get(r.as_raw_str(), &URL)
                    .ok()
                    .and_then(|v| v.as_str().map(str::len))
                    .unwrap_or(0);
            }
        }
        n
    }));
    stages.push(stage("find_simd_tape", reps, || {
        use simd_json::prelude::*;
        over_tapes(bodies, |tape| {
            let mut n = 0;
            let doc = tape.as_value();
            let list = doc
                .get("data")
                .and_then(|d| d.get_array("requests"))
                .expect("requests");
            for r in list.iter() {
                n += r
                    .get("request")
                    .and_then(|r| r.get("request"))
                    .and_then(|r| r.get("url"))
                    .map_or(0, |u| u.as_str().map_or(0, str::len));
            }
            n
        })
    }));
    stages.push(stage("find_simd_borrowed", reps, || {
        use simd_json::prelude::*;
        over_doms(bodies, |doc| {
            let mut n = 0;
            let list = doc
                .get("data")
                .and_then(|d| d.get_array("requests"))
                .expect("requests");
            for r in list {
                n += r
                    .get("request")
                    .and_then(|r| r.get("request"))
                    .and_then(|r| r.get("url"))
                    .and_then(|u| u.as_str())
                    .map_or(0, str::len);
            }
            n
        })
    }));
    stages.push(core_result_doc(bodies, reps));
    stages.push(stage("find_write_sonic_lazy", reps, || {
        use arrow_array::builder::{ArrayBuilder, ListBuilder, StringBuilder};
        let mut out = ListBuilder::new(StringBuilder::new());
        for b in bodies {
            let list = sonic_rs::get(&b[..], &["data", "requests"]).expect("requests");
            for r in sonic_rs::to_array_iter(list.as_raw_str()) {
                let r = r.expect("request");
                let url = sonic_rs::get(r.as_raw_str(), &URL).ok();
                out.values()
                    .append_option(url.as_ref().and_then(|u| u.as_str()));
            }
            out.append(true);
        }
        ArrayBuilder::finish(&mut out).len()
    }));
    let names = ["data.requests[].request.request.url".to_string()];
    stages.push(stage("core_tables", reps, || {
        let mut t = urlscan_tables::TableBuilder::new(&RESULTS, Some(&names)).expect("builder");
        for (i, b) in bodies.iter().enumerate() {
            let doc = urlscan_core::models::index::result_doc(b.clone()).expect("result");
            t.append(&doc.body, doc.index.as_deref(), &format!("[{i}]"))
                .expect("row");
        }
        t.finish().expect("batch").num_rows()
    }));
}

/// An emulator in this process for the floor modes and the profile (bench/run.py's `Emu`, in
/// Rust: the same corpus settings, no rate limits): prints `{"url", "api_key"}`, serves until
/// stdin closes.
fn serve(scans: usize, seed: u64, result_size: Option<(usize, usize)>) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let mut limits = std::collections::HashMap::new();
    for action in ["public", "unlisted", "private", "retrieve", "search"] {
        let mut l = urlscan_emulator::Limits::default();
        for w in ["minute", "hour", "day"] {
            l.set(w, None).expect("window");
        }
        limits.insert(action.to_string(), l);
    }
    let cfg = EmulatorConfig {
        scans,
        seed,
        result_size,
        rate_limits: limits,
        ..EmulatorConfig::default()
    };
    let emu = rt
        .block_on(urlscan_emulator::Emulator::start(cfg))
        .expect("emulator");
    println!(
        "{{\"url\":\"{}\",\"api_key\":\"{}\"}}",
        emu.url(),
        emu.api_key()
    );
    let mut line = String::new();
    while std::io::stdin().read_line(&mut line).is_ok_and(|n| n > 0) {
        line.clear();
    }
    drop(emu);
}
