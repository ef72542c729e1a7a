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
            other => {
                eprintln!(
                    "unknown workload {other:?}: search, results, fanout, trivial or emulator"
                );
                std::process::exit(2);
            }
        }
    });
}
