//! The core client against the emulator over real loopback sockets.
use urlscan_core::api::{ScanOptions, SearchKind, SearchParams, WaitOptions};
use urlscan_core::models::{Doc, Submission};
use urlscan_core::paginate::SearchCursor;
use urlscan_core::{ApiErrorKind, Client, Config, Error};
use urlscan_emulator::{Emulator, EmulatorConfig};

async fn start(scans: usize, scan_duration: f64) -> Emulator {
    Emulator::start(EmulatorConfig {
        scans,
        scan_duration,
        seed: 11,
        ..EmulatorConfig::default()
    })
    .await
    .expect("emulator starts")
}

fn client(emu: &Emulator, key: Option<String>) -> Client {
    Client::new(Config::new(key.or_else(|| Some(emu.api_key())), Some(emu.url())).unwrap()).unwrap()
}

/// A scan of www.example.com with no options, submitted.
async fn submit(c: &Client) -> Doc<Submission> {
    c.scan("https://www.example.com/", &ScanOptions::default())
        .await
        .unwrap()
}

fn kind(e: &Error) -> Option<ApiErrorKind> {
    e.api_kind().cloned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scan_lifecycle_and_errors() {
    let emu = start(10, 5.0).await;
    let c = client(&emu, None);
    let sub = submit(&c).await;
    assert_eq!(sub.head.visibility.as_deref(), Some("public"));
    let pending = c.result(&sub.head.uuid).await.unwrap_err();
    assert_eq!(kind(&pending), Some(ApiErrorKind::ScanPending));
    emu.advance(6.0);
    let r = c.result(&sub.head.uuid).await.unwrap();
    assert_eq!(
        r.head.task.unwrap().uuid.as_deref(),
        Some(sub.head.uuid.as_str())
    );
    let missing = c
        .result("00000000-0000-4000-8000-000000000000")
        .await
        .unwrap_err();
    assert_eq!(kind(&missing), Some(ApiErrorKind::NotFound));
    let refused = c
        .scan("http://x.invalid/", &ScanOptions::default())
        .await
        .unwrap_err();
    assert_eq!(kind(&refused), Some(ApiErrorKind::ScanRefused));
    let eleven = serde_json::json!({"tags": vec!["t"; 11]});
    let bad = ScanOptions::new(eleven.as_object().unwrap());
    assert!(matches!(bad, Err(Error::Validation(_))));
    // the rate-limit headers of the scan and result answers were recorded
    let actions: Vec<_> = c
        .rate_limits()
        .into_iter()
        .filter_map(|r| r.action)
        .collect();
    assert!(actions.contains(&"public".to_string()) && actions.contains(&"retrieve".to_string()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_and_bulk() {
    let emu = start(0, 0.2).await;
    let c = client(&emu, None);
    let w = WaitOptions {
        timeout: 20.0,
        initial_wait: 0.0,
        interval: 0.05,
    };
    let urls = vec![
        "https://a.example.com/".to_string(),
        "https://b.invalid/".into(),
        "https://c.example.com/".into(),
    ];
    let out = c
        .bulk_scan(urls.clone(), &ScanOptions::default(), Some(w), 2, None)
        .await
        .unwrap();
    assert_eq!(out.iter().map(|o| o.url.clone()).collect::<Vec<_>>(), urls);
    assert!(out[0].result.is_some() && out[2].result.is_some());
    assert!(out[1].error.is_some() && out[1].submission.is_none());
    let t = c
        .wait_for_result("00000000-0000-4000-8000-000000000000", w)
        .await
        .unwrap_err();
    assert_eq!(kind(&t), Some(ApiErrorKind::NotFound));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_pagination() {
    let emu = start(250, 1.0).await;
    let c = client(&emu, None);
    let mut p = SearchParams::new(SearchKind::Search);
    p.size = Some(60);
    let mut cur = SearchCursor::new(c.clone(), p).unwrap();
    let mut ids = Vec::new();
    while let Some(page) = cur.next_page().await.unwrap() {
        ids.extend(page.head.results.iter().filter_map(|h| h.id.clone()));
    }
    assert_eq!(ids.len(), 250);
    assert_eq!(cur.total, Some(250));
    assert_eq!(cur.pages, 5);
    let mut uniq = ids.clone();
    uniq.sort();
    uniq.dedup();
    assert_eq!(uniq.len(), 250);
    let (n, more) = SearchCursor::new(c, SearchParams::new(SearchKind::Search))
        .unwrap()
        .count()
        .await
        .unwrap();
    assert_eq!((n, more), (250, false));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_and_tiers() {
    let emu = start(5, 1.0).await;
    let keys = emu.keys();
    let free = keys.iter().find(|(k, _)| *k == "free").unwrap().1.clone();
    let c = client(&emu, Some(free));
    let e = SearchCursor::new(c.clone(), SearchParams::new(SearchKind::Phishfeed))
        .unwrap()
        .next_page()
        .await
        .unwrap_err();
    assert_eq!(kind(&e), Some(ApiErrorKind::PermissionDenied));
    let bad = client(&emu, Some("nope".into()));
    // The service's 400 "Invalid API key format" is an authentication error.
    let none = serde_json::Map::new();
    let e = bad.call_raw("quotas", &[], &none).await.unwrap_err();
    assert_eq!(kind(&e), Some(ApiErrorKind::Authentication));
    let anon = Client::new(Config {
        base_url: emu.url(),
        ..Config::default()
    })
    .unwrap();
    let e = anon.call_raw("user", &[], &none).await.unwrap_err();
    assert_eq!(kind(&e), Some(ApiErrorKind::Authentication));
}

/// Concurrent requests share the action's window: none overshoots it, so the
/// service never answers 429, and each window is used in full.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pacing_keeps_concurrent_requests_inside_the_window() {
    let mut limits = urlscan_emulator::ratelimit::default_limits();
    limits
        .get_mut("search")
        .unwrap()
        .set("1s", Some(6))
        .unwrap();
    let emu = Emulator::start(EmulatorConfig {
        scans: 20,
        rate_limits: limits,
        ..EmulatorConfig::default()
    })
    .await
    .unwrap();
    let c = client(&emu, None);
    let p = SearchParams::new(SearchKind::Search);
    let start = emu.state.now_ms();
    let jobs = (0..30).map(|_| c.search_page(&p, 1, None));
    for r in futures::future::join_all(jobs).await {
        r.unwrap();
    }
    let end = emu.state.now_ms();
    let throttled = emu
        .state
        .throttled
        .load(std::sync::atomic::Ordering::Relaxed);
    assert_eq!(throttled, 0, "the service answered 429");
    // 30 requests at 6 per window need 5 windows; a spare one allows for a slow machine.
    let windows = end / 1000 - start / 1000 + 1;
    assert!((5..=6).contains(&windows), "{windows} windows");
    let rl = c.rate_limits();
    let search = rl
        .iter()
        .find(|r| r.action.as_deref() == Some("search"))
        .unwrap();
    assert_eq!(search.window.as_deref(), Some("1s"));
}

/// `close()` ends calls in flight (here a wait that would take minutes).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn close_ends_calls_in_flight() {
    let emu = start(5, 600.0).await;
    let c = client(&emu, None);
    let sub = submit(&c).await;
    let waiter = {
        let c = c.clone();
        let uuid = sub.head.uuid.clone();
        tokio::spawn(async move {
            c.wait_for_result(
                &uuid,
                WaitOptions {
                    timeout: 600.0,
                    initial_wait: 0.0,
                    interval: 2.0,
                },
            )
            .await
        })
    };
    // Let the first poll come back "not finished"; then close.
    while emu
        .state
        .requests
        .load(std::sync::atomic::Ordering::Relaxed)
        < 2
    {
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    c.close();
    let out = tokio::time::timeout(std::time::Duration::from_secs(10), waiter)
        .await
        .expect("the wait ended")
        .unwrap();
    assert!(matches!(out, Err(Error::Closed)), "{out:?}");
    let user = c.call_raw("user", &[], &serde_json::Map::new()).await;
    assert!(matches!(user, Err(Error::Closed)));
}

/// A client that never finishes its request headers is disconnected; one
/// that does gets its answer on the same kind of connection.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unfinished_request_headers_are_cut_off() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let emu = Emulator::start(EmulatorConfig {
        scans: 1,
        header_read_timeout: 0.3,
        ..EmulatorConfig::default()
    })
    .await
    .expect("emulator starts");
    let mut slow = tokio::net::TcpStream::connect(emu.addr).await.unwrap();
    slow.write_all(b"GET /api/v1/quotas HTTP/1.1\r\nHost: x\r\n")
        .await
        .unwrap();
    let mut buf = Vec::new();
    // Bounded generously: the emulator closes after 0.3 s; 30 s means it never did.
    let read = tokio::time::timeout(
        std::time::Duration::from_secs(30),
        slow.read_to_end(&mut buf),
    )
    .await;
    assert!(read.is_ok(), "the connection was still open after 30 s");

    let mut fine = tokio::net::TcpStream::connect(emu.addr).await.unwrap();
    let req = format!(
        "GET /api/v1/availableCountries HTTP/1.1\r\nHost: x\r\napi-key: {}\r\nConnection: close\r\n\r\n",
        emu.api_key()
    );
    fine.write_all(req.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    fine.read_to_end(&mut answer).await.unwrap();
    assert!(
        answer.starts_with(b"HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&answer)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_as_large_as_the_key_allows() {
    let emu = start(1_000, 1.0).await;
    let free = emu
        .keys()
        .into_iter()
        .find(|(k, _)| *k == "free")
        .unwrap()
        .1;
    // The sizes of the pages handed out, and how many different hits they held.
    async fn walk(c: Client, limit: Option<u64>) -> (Vec<usize>, usize) {
        let mut p = SearchParams::new(SearchKind::Search);
        p.limit = limit;
        let mut cur = SearchCursor::new(c, p).unwrap();
        let (mut sizes, mut ids) = (Vec::new(), std::collections::HashSet::new());
        while let Some(page) = cur.next_page().await.unwrap() {
            sizes.push(page.head.results.len());
            ids.extend(page.head.results.iter().filter_map(|h| h.id.clone()));
        }
        (sizes, ids.len())
    }
    // No size and no limit: 100 first, then twice what the walk handed out.
    let all = walk(client(&emu, None), None).await;
    assert_eq!(all, (vec![100, 200, 600, 100], 1_000));
    // A limit: one page of what it needs.
    assert_eq!(walk(client(&emu, None), Some(800)).await, (vec![800], 800));
    // A free key: the service clamps every page to 100, and each hit comes once.
    let free = walk(client(&emu, Some(free)), Some(350)).await;
    assert_eq!(free, (vec![100, 100, 100, 50], 350));
}

/// An observer that writes down what it is told, with the parent each request ran under.
#[derive(Debug, Default)]
struct Recorder(std::sync::Mutex<Vec<String>>);

impl Recorder {
    fn push(&self, line: String) {
        self.0.lock().unwrap().push(line);
    }
}

impl urlscan_core::observe::Observer for Recorder {
    fn sent(
        &self,
        e: &urlscan_core::observe::Sent<'_>,
        add: &mut urlscan_core::observe::HeaderMap,
    ) -> Option<urlscan_core::observe::Token> {
        let parent = urlscan_core::observe::parent()
            .and_then(|p| p.downcast_ref::<&'static str>().copied())
            .unwrap_or("none");
        assert!(e.headers.get("api-key").is_none(), "the key is never shown");
        self.push(format!("sent {} {} under {parent}", e.method, e.attempt));
        add.insert(
            "x-told",
            urlscan_core::observe::HeaderValue::from_static("1"),
        );
        Some(Box::new(e.attempt))
    }
    fn answered(
        &self,
        e: &urlscan_core::observe::Answered<'_>,
        token: Option<urlscan_core::observe::Token>,
    ) {
        let t = token.and_then(|t| t.downcast::<u32>().ok()).map(|t| *t);
        self.push(format!("answered {} to attempt {t:?}", e.status));
    }
    fn failed(
        &self,
        e: &urlscan_core::observe::Failed<'_>,
        token: Option<urlscan_core::observe::Token>,
    ) {
        let t = token.and_then(|t| t.downcast::<u32>().ok()).map(|t| *t);
        self.push(format!("failed {} at attempt {t:?}", e.kind));
    }
    fn waited(&self, e: &urlscan_core::observe::Waited<'_>) {
        self.push(format!(
            "waited {} after {} before attempt {}",
            e.reason.as_str(),
            e.why.unwrap_or("-"),
            e.attempt
        ));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_observer_sees_every_attempt_and_the_calls_parent_follows_its_tasks() {
    use urlscan_emulator::faults::{FaultKind, FaultSpec};
    let emu = start(20, 1.0).await;
    let mut cur =
        SearchCursor::new(client(&emu, None), SearchParams::new(SearchKind::Search)).unwrap();
    let page = cur.next_page().await.unwrap().unwrap();
    let uuids: Vec<String> = page
        .head
        .results
        .iter()
        .take(4)
        .filter_map(|h| h.id.clone())
        .collect();
    let rec = std::sync::Arc::new(Recorder::default());
    let mut cfg = Config::new(Some(emu.api_key()), Some(emu.url())).unwrap();
    cfg.observer = Some(rec.clone());
    let c = Client::new(cfg).unwrap();
    // One answer a 503 (retried after a back-off), one connection dropped (sent again).
    for (kind, uuid) in [
        (FaultKind::Status, &uuids[0]),
        (FaultKind::Reset, &uuids[1]),
    ] {
        let mut f = FaultSpec::new(kind);
        f.status = (kind == FaultKind::Status).then_some(503);
        f.path = Some(format!("/api/v1/result/{uuid}/"));
        emu.inject(f).unwrap();
    }
    let parent: urlscan_core::observe::Parent = std::sync::Arc::new("job");
    let got = urlscan_core::observe::within(Some(parent), c.results(uuids.clone(), 4, None))
        .await
        .unwrap();
    assert!(got.iter().all(|r| r.is_ok()));
    let told = rec.0.lock().unwrap().clone();
    let count = |p: &str| told.iter().filter(|l| l.starts_with(p)).count();
    // Six attempts (four first ones, two sent again), each under the call's parent although
    // the batch runs them as tasks of their own.
    assert_eq!(count("sent GET 0 under job"), 4, "{told:#?}");
    assert_eq!(count("sent GET 1 under job"), 2, "{told:#?}");
    assert_eq!(count("answered 200 to attempt Some("), 4, "{told:#?}");
    assert_eq!(count("answered 503 to attempt Some(0)"), 1, "{told:#?}");
    assert_eq!(count("failed transport at attempt Some(0)"), 1, "{told:#?}");
    assert_eq!(
        count("waited retry after HTTP 503 before attempt 1"),
        1,
        "{told:#?}"
    );
    assert_eq!(count("waited retry after "), 2, "{told:#?}");
    // Without a parent, none is seen.
    c.result(&uuids[2]).await.unwrap();
    assert_eq!(
        rec.0
            .lock()
            .unwrap()
            .iter()
            .filter(|l| l.ends_with("under none"))
            .count(),
        1
    );
}
