//! Notifications over real HTTP: subscriptions matched by finished scans,
//! delivered to a loopback webhook receiver and to the outbox, on the
//! emulator clock.
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode};
use reqwest::Method;
use serde_json::{json, Value};

use crate::events::IncidentChange;
use crate::{Emulator, EmulatorConfig};

const HOUR_MS: i64 = 3_600_000;
const DAY_MS: i64 = 86_400_000;
use urlscan_rules::WEEK_DAYS;
/// How long a test waits for something that happens in the background.
const PATIENCE: Duration = Duration::from_secs(10);

/// What `read` gives, once it holds at least `n` items (fails after `PATIENCE`):
/// for things that happen in the background.
async fn at_least<T>(n: usize, what: &str, read: impl Fn() -> Vec<T>) -> Vec<T> {
    let until = tokio::time::Instant::now() + PATIENCE;
    loop {
        let all = read();
        if all.len() >= n {
            return all;
        }
        assert!(
            tokio::time::Instant::now() < until,
            "{} of {n} {what}",
            all.len()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// `base` with the keys of `fields` added or replaced.
fn merged(mut base: Value, fields: Value) -> Value {
    for (k, v) in fields.as_object().unwrap() {
        base[k] = v.clone();
    }
    base
}

// ---------------------------------------------------------------- receiver

#[derive(Debug, Clone)]
struct Received {
    headers: HashMap<String, String>,
    body: Value,
}

impl Received {
    fn header(&self, name: &str) -> &str {
        self.headers.get(name).map(String::as_str).unwrap_or("")
    }
}

/// A loopback HTTP endpoint recording every request; the first `fail_first`
/// answers carry `fail_status`, the others 200.
struct Receiver {
    url: String,
    got: Arc<Mutex<Vec<Received>>>,
}

impl Receiver {
    async fn start(fail_first: usize, fail_status: u16) -> Receiver {
        let got: Arc<Mutex<Vec<Received>>> = Arc::default();
        let g = Arc::clone(&got);
        let app = axum::Router::new().fallback(move |headers: HeaderMap, body: Bytes| {
            let g = Arc::clone(&g);
            async move {
                let headers = headers
                    .iter()
                    .map(|(k, v)| (k.as_str().to_string(), v.to_str().unwrap_or("").into()))
                    .collect();
                let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
                let mut all = g.lock().unwrap();
                all.push(Received { headers, body });
                if all.len() <= fail_first {
                    StatusCode::from_u16(fail_status).unwrap()
                } else {
                    StatusCode::OK
                }
            }
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Receiver {
            url: format!("http://{addr}/hook"),
            got,
        }
    }

    async fn ok() -> Receiver {
        Receiver::start(0, 200).await
    }

    fn all(&self) -> Vec<Received> {
        self.got.lock().unwrap().clone()
    }

    /// The requests, once there are at least `n` (fails after `PATIENCE`).
    async fn wait(&self, n: usize) -> Vec<Received> {
        at_least(n, "requests arrived", || self.all()).await
    }
}

/// An address where nothing listens.
async fn closed_url() -> String {
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = l.local_addr().unwrap();
    drop(l);
    format!("http://{addr}/hook")
}

// ---------------------------------------------------------------- emulator

struct T {
    emu: Emulator,
    http: reqwest::Client,
    key: String,
}

impl T {
    async fn new() -> T {
        T::timed(10.0, 2.0).await
    }

    /// How long a scan takes and a webhook may take to answer, in seconds.
    async fn timed(scan_duration: f64, webhook_timeout: f64) -> T {
        let cfg = EmulatorConfig {
            scans: 20,
            seed: 3,
            scan_duration,
            webhook_timeout,
            ..EmulatorConfig::default()
        };
        let emu = Emulator::start(cfg).await.expect("emulator starts");
        let key = emu.api_key();
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        T { emu, http, key }
    }

    async fn call(&self, m: Method, path: &str, body: Option<Value>) -> Value {
        let mut rb = self
            .http
            .request(m, format!("{}{path}", self.emu.url()))
            .header("api-key", &self.key);
        if let Some(b) = body {
            rb = rb.json(&b);
        }
        let r = rb.send().await.expect("request");
        let status = r.status();
        let text = r.text().await.unwrap();
        assert!(status.is_success(), "{path}: {status} {text}");
        serde_json::from_str(&text).unwrap()
    }

    async fn post(&self, path: &str, body: Value) -> Value {
        self.call(Method::POST, path, Some(body)).await
    }

    async fn saved_search(&self, datasource: &str, query: &str) -> String {
        let r = self
            .post(
                "/api/v1/user/searches/",
                json!({"search": {"datasource": datasource, "name": query, "query": query}}),
            )
            .await;
        r["search"]["_id"].as_str().unwrap().to_string()
    }

    /// A channel; `fields` add to or override `{"type": "webhook", "name"}`.
    async fn channel(&self, fields: Value) -> String {
        let c = merged(json!({"type": "webhook", "name": "hook"}), fields);
        let r = self
            .post("/api/v1/user/channels/", json!({ "channel": c }))
            .await;
        r["channel"]["_id"].as_str().unwrap().to_string()
    }

    async fn webhook(&self, url: &str) -> String {
        self.webhook_with(url, json!({})).await
    }

    /// A webhook channel to `url`; `fields` add to or override it.
    async fn webhook_with(&self, url: &str, fields: Value) -> String {
        self.channel(merged(json!({ "webhookURL": url }), fields))
            .await
    }

    /// An active and an inactive webhook channel, both to `url`.
    async fn on_and_off(&self, url: &str) -> (String, String) {
        let on = self.webhook(url).await;
        let off = self.webhook_with(url, json!({"isActive": false})).await;
        (on, off)
    }

    async fn email(&self, name: &str, address: &str) -> String {
        self.email_with(address, json!({ "name": name })).await
    }

    /// An e-mail channel to `address`; `fields` add to or override it.
    async fn email_with(&self, address: &str, fields: Value) -> String {
        let c = json!({"type": "email", "emailAddresses": [address]});
        self.channel(merged(c, fields)).await
    }

    /// A webhook channel to `url` and a live subscription to it for the
    /// scans of `domain`; gives the channel.
    async fn live_webhook(&self, url: &str, domain: &str) -> String {
        let ch = self.webhook(url).await;
        let query = format!("page.domain:{domain}");
        self.search_and_subscribe("scans", &query, json!({ "channelIds": [ch] }))
            .await;
        ch
    }

    /// A subscription; `fields` add to or override a live one without
    /// channels or e-mail addresses.
    async fn subscribe(&self, searches: &[&str], fields: Value) -> String {
        let s = merged(
            json!({
                "searchIds": searches, "frequency": "live", "emailAddresses": [],
                "name": "alerts", "isActive": true, "ignoreTime": false,
            }),
            fields,
        );
        let r = self
            .post("/api/v1/user/subscriptions/", json!({ "subscription": s }))
            .await;
        r["subscription"]["_id"].as_str().unwrap().to_string()
    }

    /// A saved search and a subscription to it alone (see `subscribe`);
    /// gives both ids.
    async fn search_and_subscribe(
        &self,
        datasource: &str,
        query: &str,
        fields: Value,
    ) -> (String, String) {
        let sid = self.saved_search(datasource, query).await;
        let sub = self.subscribe(&[&sid], fields).await;
        (sid, sub)
    }

    /// Submit a scan; it finishes `scan_duration` seconds of emulator time later.
    async fn scan(&self, url: &str) -> String {
        let r = self.post("/api/v1/scan/", json!({ "url": url })).await;
        r["uuid"].as_str().unwrap().to_string()
    }

    /// Submit a scan and move the clock until it finished.
    async fn scanned(&self, url: &str) -> String {
        let uuid = self.scan(url).await;
        self.advance(11.0);
        uuid
    }

    fn advance(&self, secs: f64) {
        self.emu.advance(secs);
    }

    /// Move the clock, then give the background work time to act on it.
    async fn advance_and_settle(&self, secs: f64) {
        self.advance(secs);
        tokio::time::sleep(Duration::from_millis(300)).await;
    }

    async fn incident(&self, id: &str) -> Value {
        self.call(Method::GET, &format!("/api/v1/user/incidents/{id}"), None)
            .await["incident"]
            .clone()
    }

    fn now(&self) -> i64 {
        self.emu.state.now_ms()
    }

    /// Move the clock to `offset` ms past the next multiple of `period`,
    /// `by` ms late (negative: early).
    fn advance_to_next(&self, period: i64, offset: i64, by: i64) {
        let now = self.now();
        let next = now - (now - offset).rem_euclid(period) + period;
        self.advance((next + by - now) as f64 / 1000.0);
    }

    fn notifications(&self) -> Vec<Value> {
        let ev = self.emu.state.events();
        ev.notifications.iter().map(|n| n.payload.clone()).collect()
    }

    fn outbox(&self) -> Vec<Value> {
        self.emu.state.events().outbox.clone()
    }

    fn deliveries(&self) -> Vec<Value> {
        self.emu.state.events().deliveries.clone()
    }

    fn opened(&self, subscription: &str) -> Vec<String> {
        let ev = self.emu.state.events();
        ev.opened_incidents()
            .iter()
            .filter(|(s, _)| s == subscription)
            .map(|(_, i)| i.clone())
            .collect()
    }

    /// The webhook attempts, once there are at least `n`.
    async fn wait_deliveries(&self, n: usize) -> Vec<Value> {
        at_least(n, "attempts recorded", || self.deliveries()).await
    }

    /// Queue a change of incident `incident` seen now, as the incident clock
    /// does, for `channels`; gives the uuid of its hit.
    fn incident_change(&self, incident: &str, channels: &[&str]) -> String {
        let now = self.now();
        let uuid = format!("2b1c7a0e-0000-4000-8000-{now:012}");
        self.emu
            .state
            .events()
            .incident_changes
            .push(IncidentChange {
                owner: "analyst".into(),
                team: Some("blue-team".into()),
                incident_id: incident.into(),
                observable: "changing.example.net".into(),
                channels: channels.iter().map(|c| c.to_string()).collect(),
                changes: vec![
                    json!({"attribute": "ip", "before": "192.0.2.1", "after": "192.0.2.2"}),
                ],
                hit: json!({"_id": uuid, "sort": [now, uuid]}),
                at_ms: now,
            });
        uuid
    }

    /// Make sure a whole `period` lies ahead before its next boundary (at
    /// `offset`), so that a test's steps cannot cross it by accident.
    fn leave_room(&self, period: i64, offset: i64, room: i64) {
        let now = self.now();
        let left = period - (now - offset).rem_euclid(period);
        if left < room {
            self.advance((left + 60_000) as f64 / 1000.0);
        }
    }

    /// The daily batch of scan `uuid` (found or changed before 03:30 UTC) to
    /// the channel `at_time` of utcTime 03:30: nothing before then, that one
    /// alone just after; gives the notifications.
    fn daily_at_0330(&self, at_time: &str, uuid: &str) -> Vec<Value> {
        self.advance_to_next(DAY_MS, 3 * HOUR_MS + 30 * 60_000, -30_000);
        assert!(self.notifications().is_empty(), "nothing before 03:30");
        self.advance(60.0);
        let ns = self.notifications();
        assert_eq!(ids(&ns, "channelId"), vec![at_time]);
        assert_eq!(ns[0]["frequency"], "daily");
        assert_eq!(uuids(&ns[0]), vec![uuid]);
        ns
    }
}

fn ids(v: &[Value], field: &str) -> Vec<String> {
    v.iter()
        .map(|n| n[field].as_str().unwrap_or("").to_string())
        .collect()
}

fn uuids(n: &Value) -> Vec<String> {
    n["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["_id"].as_str().unwrap().to_string())
        .collect()
}

fn weekday(ms: i64) -> usize {
    use chrono::Datelike;
    chrono::DateTime::<chrono::Utc>::from_timestamp_millis(ms)
        .unwrap()
        .weekday()
        .num_days_from_monday() as usize
}

// ---------------------------------------------------------------- tests

#[tokio::test(flavor = "multi_thread")]
async fn live_webhook_delivers_the_search_hit() {
    let t = T::new().await;
    let hook = Receiver::ok().await;
    let ch = t.webhook(&hook.url).await;
    let (sid, sub) = t
        .search_and_subscribe(
            "scans",
            "page.domain:live.alerts.example.org",
            json!({"name": "lookalikes", "channelIds": [ch]}),
        )
        .await;
    let uuid = t.scan("https://live.alerts.example.org/login").await;
    t.scan("https://other.example.net/").await;
    assert!(
        t.notifications().is_empty(),
        "nothing before the scan finished"
    );
    t.advance(11.0);
    let ns = t.notifications();
    assert_eq!(ns.len(), 1, "{ns:?}");
    let n = &ns[0];
    let id = n["id"].as_str().unwrap();
    assert_eq!(id.len(), 24);
    assert!(id
        .chars()
        .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
    assert_eq!(n["type"], "subscription");
    assert_eq!(n["frequency"], "live");
    assert_eq!(n["subscriptionId"], sub.as_str());
    assert_eq!(n["subscriptionName"], "lookalikes");
    assert_eq!(n["searchIds"], json!([sid]));
    assert_eq!(n["incidentId"], Value::Null);
    assert_eq!(n["observable"], Value::Null);
    assert_eq!(n["changes"], json!([]));
    assert_eq!(n["channelId"], ch.as_str());
    assert_eq!(n["datasource"], "scans");
    assert_eq!(n["total"], 1);
    assert_eq!(uuids(n), vec![uuid.clone()]);
    let created = n["createdAt"].as_str().unwrap();
    assert!(
        created.len() == 24 && created.ends_with('Z') && created.as_bytes()[19] == b'.',
        "{created}"
    );
    // the hit is the one search gives
    let found = t
        .call(
            Method::GET,
            "/api/v1/search/?q=page.domain:live.alerts.example.org",
            None,
        )
        .await;
    assert_eq!(found["results"][0], n["results"][0]);

    let got = hook.wait(1).await;
    let r = &got[0];
    assert_eq!(r.body, *n);
    assert_eq!(r.header("content-type"), "application/json");
    assert!(r.header("user-agent").starts_with("urlscan-emulator/"));
    assert_eq!(r.header("x-urlscan-notification-id"), id);
    assert_eq!(r.header("x-urlscan-delivery-attempt"), "1");
    let d = t.wait_deliveries(1).await;
    assert_eq!(d[0]["url"], hook.url.as_str());
    assert_eq!(d[0]["status"], 200);
    assert_eq!(d[0]["error"], Value::Null);
    assert_eq!(d[0]["attempt"], 1);
    assert_eq!(d[0]["notification"], *n);
    // kept with its owner; nothing more goes out later
    {
        let ev = t.emu.state.events();
        assert_eq!(ev.notifications[0].owner, "analyst");
        assert_eq!(ev.notifications[0].team.as_deref(), Some("blue-team"));
    }
    t.advance(3_600.0);
    assert_eq!(t.notifications().len(), 1);
    assert_eq!(t.deliveries().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn hourly_batches_at_the_full_hour() {
    let t = T::new().await;
    let hook = Receiver::ok().await;
    let hourly = t.webhook(&hook.url).await;
    let live = t
        .webhook_with(&hook.url, json!({"frequency": "live"}))
        .await;
    let sid = t
        .saved_search("scans", "page.domain:hourly.example.org")
        .await;
    t.subscribe(
        &[&sid],
        json!({"frequency": "hourly", "channelIds": [hourly, live]}),
    )
    .await;
    t.leave_room(HOUR_MS, 0, 10 * 60_000);
    let a = t.scanned("https://a.hourly.example.org/").await;
    let b = t.scanned("https://b.hourly.example.org/").await;
    // the channel's own frequency governs it: live at once
    let ns = t.notifications();
    assert_eq!(ids(&ns, "channelId"), vec![live.clone(), live.clone()]);
    assert!(ns.iter().all(|n| n["frequency"] == "live"));
    t.advance_to_next(HOUR_MS, 0, -30_000);
    assert_eq!(t.notifications().len(), 2, "nothing before the full hour");
    t.advance(60.0);
    let ns = t.notifications();
    assert_eq!(ns.len(), 3);
    let n = &ns[2];
    assert_eq!(n["channelId"], hourly.as_str());
    assert_eq!(n["frequency"], "hourly");
    assert_eq!(n["total"], 2);
    assert_eq!(uuids(n), vec![b, a], "newest first");
    let got = hook.wait(3).await;
    assert!(got.iter().any(|r| r.body == *n));
    // no empty batches
    t.advance(2.0 * 3_600.0);
    assert_eq!(t.notifications().len(), 3);
}

#[tokio::test(flavor = "multi_thread")]
async fn daily_at_utc_time_and_at_midnight() {
    let t = T::new().await;
    let hook = Receiver::ok().await;
    let at_time = t.webhook_with(&hook.url, json!({"utcTime": "03:30"})).await;
    let at_midnight = t.webhook(&hook.url).await;
    let sid = t
        .saved_search("scans", "page.domain:daily.example.org")
        .await;
    t.subscribe(
        &[&sid],
        json!({"frequency": "daily", "channelIds": [at_time, at_midnight], "emailAddresses": ["soc@example.com"]}),
    )
    .await;
    // 01:00 UTC
    t.advance_to_next(DAY_MS, HOUR_MS, 0);
    let uuid = t.scanned("https://www.daily.example.org/").await;
    assert!(t.notifications().is_empty());
    t.daily_at_0330(&at_time, &uuid);
    hook.wait(1).await;
    t.advance_to_next(DAY_MS, 0, -30_000);
    assert_eq!(t.notifications().len(), 1, "nothing before midnight");
    assert!(t.outbox().is_empty());
    t.advance(60.0);
    let ns = t.notifications();
    assert_eq!(ns.len(), 3);
    assert_eq!(ns[1]["channelId"], at_midnight.as_str());
    // the subscription's own addresses: daily at 00:00
    assert_eq!(ns[2]["channelId"], Value::Null);
    let out = t.outbox();
    assert_eq!(out.len(), 1);
    assert_eq!(out[0]["to"], json!(["soc@example.com"]));
    assert_eq!(out[0]["notification"], ns[2]);
    for n in &ns[1..] {
        assert_eq!(uuids(n), vec![uuid.clone()]);
    }
    hook.wait(2).await;
    t.advance(DAY_MS as f64 / 1000.0);
    assert_eq!(t.notifications().len(), 3, "no empty batches");
}

#[tokio::test(flavor = "multi_thread")]
async fn week_days_and_ignore_time() {
    let t = T::new().await;
    let hook = Receiver::ok().await;
    t.leave_room(DAY_MS, 0, 10 * 60_000);
    let today = weekday(t.now() + 11_000);
    let others: Vec<&str> = (0..7)
        .filter(|d| *d != today)
        .map(|d| WEEK_DAYS[d])
        .collect();
    let sid = t
        .saved_search("scans", "page.domain:weekly.example.org")
        .await;
    let plain = t.webhook(&hook.url).await;
    let limited = t
        .webhook_with(&hook.url, json!({ "weekDays": others }))
        .await;
    let limited_ignored = t
        .webhook_with(&hook.url, json!({"weekDays": others, "ignoreTime": true}))
        .await;
    let sub_limited = t
        .subscribe(&[&sid], json!({"weekDays": others, "channelIds": [plain]}))
        .await;
    let sub_ignored = t
        .subscribe(
            &[&sid],
            json!({"weekDays": others, "ignoreTime": true, "channelIds": [plain]}),
        )
        .await;
    let sub_any = t
        .subscribe(&[&sid], json!({"channelIds": [limited, limited_ignored]}))
        .await;
    t.scanned("https://weekly.example.org/").await;
    let ns = t.notifications();
    let mut got: Vec<(String, String)> = ns
        .iter()
        .map(|n| {
            (
                n["subscriptionId"].as_str().unwrap().to_string(),
                n["channelId"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    got.sort();
    let mut want = vec![
        (sub_ignored.clone(), plain.clone()),
        (sub_any.clone(), limited_ignored.clone()),
    ];
    want.sort();
    assert_eq!(got, want, "matches on an unlisted day are dropped");
    hook.wait(2).await;
    // the next day is listed
    t.advance_to_next(DAY_MS, 0, 60_000);
    t.scanned("https://www2.weekly.example.org/").await;
    let ns = t.notifications();
    assert_eq!(ns.len(), 2 + 4);
    assert!(ns[2..]
        .iter()
        .any(|n| n["subscriptionId"] == sub_limited.as_str()));
    assert!(ns[2..].iter().any(|n| n["channelId"] == limited.as_str()));
    // the dropped match does not come back
    assert!(ns[2..].iter().all(|n| n["total"] == 1));
}

#[tokio::test(flavor = "multi_thread")]
async fn inactive_subscription_or_channel_sends_nothing() {
    let t = T::new().await;
    let hook = Receiver::ok().await;
    let (on, off) = t.on_and_off(&hook.url).await;
    let sid = t
        .saved_search("scans", "page.domain:quiet.example.org")
        .await;
    t.subscribe(
        &[&sid],
        json!({"isActive": false, "channelIds": [on], "emailAddresses": ["a@example.com"]}),
    )
    .await;
    t.subscribe(&[&sid], json!({"channelIds": [off]})).await;
    // queued for an hourly batch, then switched off before it
    t.leave_room(HOUR_MS, 0, 10 * 60_000);
    let later = t
        .subscribe(&[&sid], json!({"frequency": "hourly", "channelIds": [on]}))
        .await;
    t.scanned("https://quiet.example.org/").await;
    t.call(
        Method::PUT,
        &format!("/api/v1/user/subscriptions/{later}"),
        Some(json!({"subscription": {"isActive": false}})),
    )
    .await;
    t.advance(2.0 * 3_600.0);
    assert!(t.notifications().is_empty(), "{:?}", t.notifications());
    assert!(t.outbox().is_empty());
    assert!(t.deliveries().is_empty());
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(hook.all().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn retries_keep_the_id_and_follow_the_emulator_clock() {
    let t = T::new().await;
    let hook = Receiver::start(2, 503).await;
    t.live_webhook(&hook.url, "retry.example.org").await;
    t.scanned("https://retry.example.org/").await;
    let d = t.wait_deliveries(1).await;
    assert_eq!(d[0]["status"], 503);
    // not due before 10 s of emulator time
    t.advance_and_settle(5.0).await;
    assert_eq!(hook.all().len(), 1);
    t.advance(5.0);
    let d = t.wait_deliveries(2).await;
    assert_eq!(d[1]["status"], 503);
    t.advance_and_settle(10.0).await;
    assert_eq!(hook.all().len(), 2, "the second wait is 20 s");
    t.advance(10.0);
    let d = t.wait_deliveries(3).await;
    assert_eq!(d[2]["status"], 200);
    let attempts: Vec<i64> = d.iter().map(|x| x["attempt"].as_i64().unwrap()).collect();
    assert_eq!(attempts, vec![1, 2, 3]);
    let got = hook.wait(3).await;
    let id = t.notifications()[0]["id"].as_str().unwrap().to_string();
    for (i, r) in got.iter().enumerate() {
        assert_eq!(r.header("x-urlscan-notification-id"), id);
        assert_eq!(r.header("x-urlscan-delivery-attempt"), (i + 1).to_string());
        assert_eq!(r.body["id"], id.as_str());
    }
    t.advance_and_settle(1_000.0).await;
    assert_eq!(t.deliveries().len(), 3);
    assert_eq!(t.notifications().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn refused_connections_timeouts_and_client_errors() {
    let t = T::timed(10.0, 0.5).await;
    let refused = closed_url().await;
    t.live_webhook(&refused, "refused.example.org").await;
    t.scanned("https://refused.example.org/").await;
    for (n, wait) in (1..).zip([10.0, 20.0, 40.0, 80.0]) {
        let d = t.wait_deliveries(n).await;
        let last = &d[n - 1];
        assert_eq!(last["status"], Value::Null);
        assert!(!last["error"].as_str().unwrap().is_empty());
        assert_eq!(last["attempt"], n);
        t.advance(wait);
    }
    let d = t.wait_deliveries(5).await;
    assert_eq!(d[4]["attempt"], 5);
    t.advance_and_settle(10_000.0).await;
    assert_eq!(t.deliveries().len(), 5, "at most five attempts");

    // an endpoint that never answers: a timeout, retried
    let hole = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let hole_url = format!("http://{}/hook", hole.local_addr().unwrap());
    let held = tokio::spawn(async move {
        let mut conns = Vec::new();
        while let Ok((c, _)) = hole.accept().await {
            conns.push(c);
        }
    });
    t.live_webhook(&hole_url, "hole.example.org").await;
    t.scanned("https://hole.example.org/").await;
    let d = t.wait_deliveries(6).await;
    assert_eq!(d[5]["error"], "timeout");
    t.advance(10.0);
    let d = t.wait_deliveries(7).await;
    assert_eq!(
        (d[6]["attempt"].as_i64(), d[6]["error"].as_str()),
        (Some(2), Some("timeout"))
    );
    held.abort();

    // other 4xx answers are final (on an emulator of its own with a long
    // timeout: the half-second one above is real time, which a loaded
    // machine can miss before the answer comes back)
    let t = T::timed(10.0, 30.0).await;
    let gone = Receiver::start(usize::MAX, 404).await;
    t.live_webhook(&gone.url, "gone.example.org").await;
    t.scanned("https://gone.example.org/").await;
    gone.wait(1).await;
    let d = t.wait_deliveries(1).await;
    assert_eq!(
        (d[0]["url"].as_str(), &d[0]["status"]),
        (Some(gone.url.as_str()), &json!(404))
    );
    t.advance_and_settle(1_000.0).await;
    assert_eq!(gone.all().len(), 1);
    assert_eq!(t.deliveries().len(), 1, "a 404 is not retried");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_disabled_channel_ends_the_retries() {
    let t = T::new().await;
    let hook = Receiver::start(usize::MAX, 503).await;
    let ch = t.live_webhook(&hook.url, "flaky.example.org").await;
    t.scanned("https://flaky.example.org/").await;
    t.wait_deliveries(1).await;
    t.call(
        Method::PUT,
        &format!("/api/v1/user/channels/{ch}"),
        Some(json!({"channel": {"isActive": false}})),
    )
    .await;
    t.advance_and_settle(1_000.0).await;
    assert_eq!(t.deliveries().len(), 1);
    assert_eq!(hook.all().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn email_channel_and_subscription_addresses_fill_the_outbox() {
    let t = T::new().await;
    let mail = t.email("soc", "soc@example.com").await;
    let fields = json!({"name": "phish", "channelIds": [mail], "emailAddresses": ["a@example.com", "b@example.com"]});
    let (_, sub) = t
        .search_and_subscribe("scans", "page.domain:mail.example.org", fields)
        .await;
    let uuid = t.scanned("https://mail.example.org/").await;
    let out = t.outbox();
    assert_eq!(out.len(), 2, "{out:?}");
    let to: Vec<&Value> = out.iter().map(|o| &o["to"]).collect();
    assert!(to.contains(&&json!(["soc@example.com"])));
    assert!(to.contains(&&json!(["a@example.com", "b@example.com"])));
    let ns = t.notifications();
    assert_eq!(ns.len(), 2);
    let mut seen = std::collections::HashSet::new();
    for o in &out {
        let n = &o["notification"];
        assert!(
            seen.insert(n["id"].as_str().unwrap().to_string()),
            "one id per target"
        );
        assert_eq!(n["subscriptionId"], sub.as_str());
        assert_eq!(uuids(n), vec![uuid.clone()]);
        assert!(o["subject"].as_str().unwrap().contains("phish"));
        assert!(o["at"].as_str().unwrap().ends_with('Z'));
        let target = if o["to"] == json!(["a@example.com", "b@example.com"]) {
            Value::Null
        } else {
            json!(mail)
        };
        assert_eq!(n["channelId"], target);
    }
    assert!(t.deliveries().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn incident_creation_modes() {
    let t = T::new().await;
    let ch = t.email("inc", "inc@example.com").await;
    let mut subs = HashMap::new();
    for mode in ["none", "default", "always", "ignore-if-exists", "unset"] {
        let sid = t
            .saved_search("scans", &format!("page.domain:{mode}.modes.example.org"))
            .await;
        let mut fields = json!({});
        if mode != "unset" {
            fields["incidentCreationMode"] = json!(mode);
        }
        subs.insert(mode, t.subscribe(&[&sid], fields).await);
    }
    for mode in ["none", "default", "always", "ignore-if-exists", "unset"] {
        t.scan(&format!("https://{mode}.modes.example.org/a")).await;
        t.scan(&format!("https://{mode}.modes.example.org/b")).await;
    }
    t.advance(11.0);
    assert!(t.opened(&subs["none"]).is_empty());
    assert!(t.opened(&subs["unset"]).is_empty());
    assert_eq!(
        t.opened(&subs["default"]).len(),
        1,
        "one active incident is enough"
    );
    assert_eq!(t.opened(&subs["always"]).len(), 2, "one per match");
    assert_eq!(t.opened(&subs["ignore-if-exists"]).len(), 1);
    let first = t.opened(&subs["default"])[0].clone();
    let inc = t.incident(&first).await;
    assert_eq!(inc["observable"], "default.modes.example.org");
    assert_eq!(inc["sourceType"], "subscription");
    assert_eq!(inc["sourceId"], subs["default"].as_str());
    assert_eq!(inc["visibility"], "private");
    assert_eq!(inc["channels"], json!([]));
    assert_eq!(inc["state"], "active");
    assert_eq!(inc["owner"], "analyst");
    // closed incidents: `default` opens a new one, `ignore-if-exists` does not
    for mode in ["default", "ignore-if-exists"] {
        let id = t.opened(&subs[mode])[0].clone();
        t.call(
            Method::PUT,
            &format!("/api/v1/user/incidents/{id}/close"),
            Some(json!({})),
        )
        .await;
        t.scan(&format!("https://{mode}.modes.example.org/c")).await;
    }
    t.advance(11.0);
    assert_eq!(t.opened(&subs["default"]).len(), 2);
    assert_eq!(t.opened(&subs["ignore-if-exists"]).len(), 1);
    // a scan made by an incident opens none, even for `always`
    {
        let st = &t.emu.state;
        let now = st.now_ms();
        let uuid = uuid::Uuid::new_v4().to_string();
        let url = "https://always.modes.example.org/".to_string();
        let spec = crate::premium_model::incidents::scan_spec(uuid, url, now);
        let e = st.entry(spec, Some("analyst".into()), Some("blue-team".into()), now);
        st.store().insert(e);
    }
    t.advance(1.0);
    assert_eq!(t.opened(&subs["always"]).len(), 2);

    // the subscription's incident options, and another watch key
    let (_, sub) = t
        .search_and_subscribe(
            "scans",
            "page.domain:options.modes.example.org",
            json!({
                "frequency": "daily",
                "incidentCreationMode": "always", "incidentVisibility": "unlisted",
                "incidentChannelIds": [ch], "incidentProfileId": "profile-1",
                "incidentWatchKeys": "scans/page.url",
            }),
        )
        .await;
    t.scanned("https://options.modes.example.org/path").await;
    let opened = t.opened(&sub);
    assert_eq!(opened.len(), 1, "whatever the frequency, at the match");
    let inc = t.incident(&opened[0]).await;
    assert_eq!(inc["observable"], "https://options.modes.example.org/path");
    assert_eq!(inc["visibility"], "unlisted");
    assert_eq!(inc["channels"], json!([ch]));
    assert_eq!(inc["incidentProfile"], "profile-1");
    assert_eq!(inc["sourceId"], sub.as_str());
}

#[tokio::test(flavor = "multi_thread")]
async fn hostnames_subscription_alerts_new_hostnames() {
    let t = T::new().await;
    let hook = Receiver::ok().await;
    let ch = t.webhook(&hook.url).await;
    t.scanned("https://old.hosts.example.org/").await;
    let (sid, sub) = t
        .search_and_subscribe(
            "hostnames",
            "hostname:hosts.example.org",
            json!({"channelIds": [ch], "incidentCreationMode": "default"}),
        )
        .await;
    // seen before the subscription: not new
    t.scanned("https://old.hosts.example.org/again").await;
    assert!(t.notifications().is_empty(), "{:?}", t.notifications());
    t.scanned("https://new.hosts.example.org/").await;
    let ns = t.notifications();
    assert_eq!(ns.len(), 1, "{ns:?}");
    let n = &ns[0];
    assert_eq!(n["datasource"], "hostnames");
    assert_eq!(n["searchIds"], json!([sid]));
    assert_eq!(n["total"], 1);
    let hit = &n["results"][0];
    assert_eq!(hit["hostname"], "new.hosts.example.org");
    // the hit is the one the hostnames search gives
    let found = t
        .call(
            Method::GET,
            &format!("/api/v1/user/searches/{sid}/results"),
            None,
        )
        .await;
    let same = found["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["hostname"] == "new.hosts.example.org")
        .unwrap();
    // The same record; the search shows it as of now (last seen may have moved on).
    for k in [
        "hostname",
        "domain",
        "apexDomain",
        "first_seen",
        "_id",
        "sources",
    ] {
        assert_eq!(same[k], hit[k], "{k}");
    }
    assert_eq!(same["sort"][1], hit["sort"][1]);
    hook.wait(1).await;
    // seen again: nothing
    t.scanned("https://new.hosts.example.org/page").await;
    assert_eq!(t.notifications().len(), 1);
    // the incident observes the hostname
    let opened = t.opened(&sub);
    assert_eq!(opened.len(), 1);
    let inc = t.incident(&opened[0]).await;
    assert_eq!(inc["observable"], "new.hosts.example.org");
}

#[tokio::test(flavor = "multi_thread")]
async fn incident_changes_notify_the_incident_channels() {
    let t = T::new().await;
    let hook = Receiver::ok().await;
    let (on, off) = t.on_and_off(&hook.url).await;
    let mail = t.email("m", "ir@example.com").await;
    let hit = json!({"_id": "2b1c7a0e-0000-4000-8000-000000000000", "sort": [1, "x"]});
    let changes = vec![json!({"attribute": "ip", "before": "192.0.2.1", "after": "192.0.2.2"})];
    t.emu.state.events().incident_changes.push(IncidentChange {
        owner: "analyst".into(),
        team: Some("blue-team".into()),
        incident_id: "674199e0a1b2c3d4e5f60718".into(),
        observable: "changing.example.net".into(),
        channels: vec![on.clone(), off, mail.clone()],
        changes: changes.clone(),
        hit: hit.clone(),
        at_ms: t.now(),
    });
    t.advance(0.0);
    let ns = t.notifications();
    assert_eq!(ids(&ns, "channelId"), vec![on, mail]);
    for n in &ns {
        assert_eq!(n["type"], "incident");
        assert_eq!(n["frequency"], "live");
        assert_eq!(n["subscriptionId"], Value::Null);
        assert_eq!(n["searchIds"], json!([]));
        assert_eq!(n["incidentId"], "674199e0a1b2c3d4e5f60718");
        assert_eq!(n["observable"], "changing.example.net");
        assert_eq!(n["changes"], json!(changes));
        assert_eq!(n["datasource"], "scans");
        assert_eq!(n["results"], json!([hit]));
        assert_eq!(n["total"], 1);
    }
    let got = hook.wait(1).await;
    assert_eq!(got[0].body, ns[0]);
    assert_eq!(t.outbox()[0]["to"], json!(["ir@example.com"]));
    assert!(t.emu.state.events().incident_changes.is_empty());
}

const INCIDENT: &str = "674199e0a1b2c3d4e5f60718";

#[tokio::test(flavor = "multi_thread")]
async fn live_incident_channels_get_each_change_at_once() {
    let t = T::new().await;
    let hook = Receiver::ok().await;
    // `utcTime` and `weekDays` on every day do not hold back a live channel
    let live = t
        .webhook_with(
            &hook.url,
            json!({"frequency": "live", "utcTime": "03:30", "weekDays": WEEK_DAYS}),
        )
        .await;
    let a = t.incident_change(INCIDENT, &[&live]);
    t.advance(0.0);
    t.advance(1.0);
    let b = t.incident_change(INCIDENT, &[&live]);
    t.advance(0.0);
    let ns = t.notifications();
    assert_eq!(ns.len(), 2, "one notification per change, each at once");
    for (n, uuid) in ns.iter().zip([&a, &b]) {
        assert_eq!(n["type"], "incident");
        assert_eq!(n["frequency"], "live");
        assert_eq!(n["channelId"], live.as_str());
        assert_eq!(n["incidentId"], INCIDENT);
        assert_eq!(uuids(n), vec![uuid.clone()]);
        assert_eq!(n["total"], 1);
    }
    // two POSTs of their own: either may arrive first
    let got = hook.wait(2).await;
    assert!(ns.iter().all(|n| got.iter().any(|r| r.body == *n)));
    // nothing left for later
    t.advance(2.0 * 86_400.0);
    assert_eq!(t.notifications().len(), 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn incident_changes_on_days_the_channel_excludes_are_dropped() {
    let t = T::new().await;
    t.leave_room(DAY_MS, 0, 10 * 60_000);
    let today = weekday(t.now());
    let others: Vec<&str> = (0..7)
        .filter(|d| *d != today)
        .map(|d| WEEK_DAYS[d])
        .collect();
    let plain = t.email("plain", "plain@example.com").await;
    let limited = t
        .email_with("limited@example.com", json!({ "weekDays": others }))
        .await;
    let ignored = t
        .email_with(
            "ignored@example.com",
            json!({"weekDays": others, "ignoreTime": true}),
        )
        .await;
    let hourly = t
        .email_with(
            "hourly@example.com",
            json!({"weekDays": others, "frequency": "hourly"}),
        )
        .await;
    t.incident_change(INCIDENT, &[&plain, &limited, &ignored, &hourly]);
    t.advance(0.0);
    let ns = t.notifications();
    assert_eq!(ids(&ns, "channelId"), vec![plain.clone(), ignored.clone()]);
    // dropped, not held back: the next (listed) day brings nothing for them
    t.advance_to_next(DAY_MS, 0, 60_000);
    assert_eq!(t.notifications().len(), 2);
    // a change on a listed day goes out
    let uuid = t.incident_change(INCIDENT, &[&plain, &limited, &ignored]);
    t.advance(0.0);
    let ns = t.notifications();
    assert_eq!(ids(&ns[2..], "channelId"), vec![plain, limited, ignored]);
    assert!(ns[2..].iter().all(|n| uuids(n) == vec![uuid.clone()]));
    assert_eq!(t.outbox().len(), 5);
}

#[tokio::test(flavor = "multi_thread")]
async fn hourly_incident_channels_get_changes_at_the_full_hour() {
    let t = T::new().await;
    let hook = Receiver::ok().await;
    let hourly = t
        .webhook_with(&hook.url, json!({"frequency": "hourly"}))
        .await;
    let live = t.webhook(&hook.url).await;
    let switched_off = t
        .webhook_with(&hook.url, json!({"frequency": "hourly"}))
        .await;
    t.leave_room(HOUR_MS, 0, 10 * 60_000);
    let a = t.incident_change(INCIDENT, &[&hourly, &live, &switched_off]);
    t.advance(60.0);
    let other = "674199e0a1b2c3d4e5f60719";
    let b = t.incident_change(other, &[&hourly, &live, &switched_off]);
    t.advance(0.0);
    // the live channel at once
    let ns = t.notifications();
    assert_eq!(ids(&ns, "channelId"), vec![live.clone(), live.clone()]);
    hook.wait(2).await;
    // an inactive channel at the time of the batch drops what waits for it
    t.call(
        Method::PUT,
        &format!("/api/v1/user/channels/{switched_off}"),
        Some(json!({"channel": {"isActive": false}})),
    )
    .await;
    t.advance_to_next(HOUR_MS, 0, -30_000);
    assert_eq!(t.notifications().len(), 2, "nothing before the full hour");
    t.advance(60.0);
    let ns = t.notifications();
    assert_eq!(ns.len(), 4);
    // one notification per change, oldest first, each of its own incident
    for (n, (uuid, incident)) in ns[2..].iter().zip([(&a, INCIDENT), (&b, other)]) {
        assert_eq!(n["type"], "incident");
        assert_eq!(n["channelId"], hourly.as_str());
        assert_eq!(n["frequency"], "hourly");
        assert_eq!(n["incidentId"], incident);
        assert_eq!(uuids(n), vec![uuid.clone()]);
        assert_eq!(n["total"], 1);
        assert_eq!(n["changes"][0]["attribute"], "ip");
    }
    let created = ns[2]["createdAt"].as_str().unwrap();
    assert!(created.contains(":00:"), "cut at the full hour: {created}");
    let got = hook.wait(4).await;
    assert!(ns[2..].iter().all(|n| got.iter().any(|r| r.body == *n)));
    // no empty batches, and nothing for the switched-off channel
    t.advance(2.0 * 3_600.0);
    assert_eq!(t.notifications().len(), 4);
}

#[tokio::test(flavor = "multi_thread")]
async fn daily_incident_channels_get_changes_at_their_utc_time() {
    let t = T::new().await;
    let at_time = t
        .email_with(
            "day@example.com",
            json!({"frequency": "daily", "utcTime": "03:30"}),
        )
        .await;
    let at_midnight = t
        .email_with("night@example.com", json!({"frequency": "daily"}))
        .await;
    // 01:00 UTC
    t.advance_to_next(DAY_MS, HOUR_MS, 0);
    let uuid = t.incident_change(INCIDENT, &[&at_time, &at_midnight]);
    t.advance(0.0);
    assert!(t.notifications().is_empty());
    let ns = t.daily_at_0330(&at_time, &uuid);
    assert_eq!(ns[0]["incidentId"], INCIDENT);
    assert_eq!(t.outbox()[0]["to"], json!(["day@example.com"]));
    t.advance_to_next(DAY_MS, 0, -30_000);
    assert_eq!(t.notifications().len(), 1, "nothing before midnight");
    t.advance(60.0);
    let ns = t.notifications();
    assert_eq!(ids(&ns, "channelId"), vec![at_time, at_midnight]);
    assert_eq!(ns[1]["frequency"], "daily");
    assert_eq!(uuids(&ns[1]), vec![uuid]);
    let out = t.outbox();
    assert_eq!(out[1]["to"], json!(["night@example.com"]));
    assert_eq!(out[1]["notification"], ns[1]);
    t.advance(DAY_MS as f64 / 1000.0);
    assert_eq!(t.notifications().len(), 2, "no empty batches");
}

#[tokio::test(flavor = "multi_thread")]
async fn live_is_delivered_by_the_background_tick() {
    // scans finish at once: only the wall-clock tick can notice them
    let t = T::timed(0.0, 5.0).await;
    let hook = Receiver::ok().await;
    t.live_webhook(&hook.url, "tick.example.org").await;
    let uuid = t.scan("https://tick.example.org/").await;
    let got = hook.wait(1).await;
    assert_eq!(uuids(&got[0].body), vec![uuid]);
    t.wait_deliveries(1).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn stopping_ends_the_background_work() {
    let mut t = T::new().await;
    let hook = Receiver::start(usize::MAX, 503).await;
    t.live_webhook(&hook.url, "stop.example.org").await;
    t.scanned("https://stop.example.org/").await;
    t.wait_deliveries(1).await;
    let weak = Arc::downgrade(&t.emu.state);
    t.emu.stop();
    // no attempts after the stop, even when due
    t.advance_and_settle(1_000.0).await;
    assert_eq!(hook.all().len(), 1);
    drop(t);
    // nothing keeps the state alive once the server is gone
    let until = tokio::time::Instant::now() + PATIENCE;
    while weak.upgrade().is_some() {
        assert!(
            tokio::time::Instant::now() < until,
            "the state outlives the emulator"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
