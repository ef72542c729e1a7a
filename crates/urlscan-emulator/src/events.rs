//! Notifications: subscriptions and incidents alert their channels and
//! e-mail addresses (the specification's "Events"). The payload format is
//! this project's own, documented in the README.
//!
//! The engine runs on every `tick` (each `advance` and a background task
//! every 200 ms of wall time):
//! * submitted scans whose finish time passed are matched against the saved
//!   searches of active subscriptions (datasource scans), and their
//!   hostnames seen for the first time by the owner against those of
//!   datasource hostnames; matches queue per (subscription, target, data
//!   source) and may open incidents (`incidentCreationMode`);
//! * incident changes queue per channel of the incident (active, and its
//!   `weekDays` allow the day of the change);
//! * queues cut into notifications when their frequency says so (`live` at
//!   once, `hourly` at each full hour, `daily` at the channel's `utcTime`),
//!   one rule for both kinds (`due_until`): a subscription's batch becomes
//!   one notification, each incident change in a batch one of its own;
//! * e-mails land in the outbox; webhook attempts that are due start as
//!   tasks and are recorded when they end; failed ones are retried on the
//!   emulator clock.
use std::collections::HashSet;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use chrono::Datelike;
use serde_json::{json, Map, Value};
use tokio::sync::watch;

use super::premium_model::hostnames::{approx_apex, document as hostname_document, host_names};
use super::premium_model::{self, incidents::open_for_subscription, new_id};
use super::query::Query;
use super::state::event_records::{Engine, Matched, Queue, Queued, Source, Target, Webhook};
use super::state::premium_records::{Item, PremiumState};
use super::state::{lookup, AppState, Caller, Entry, KeyInfo, SavedMatches, Store};

pub use super::state::event_records::{Events, IncidentChange, Stored};

const HOUR_MS: i64 = 3_600_000;
const DAY_MS: i64 = 86_400_000;
/// Webhook attempts per notification.
const MAX_ATTEMPTS: u32 = 5;
/// Emulator time from the end of the first failed attempt to the second;
/// doubled for each further one.
const FIRST_BACKOFF_MS: i64 = 10_000;
const TICK_EVERY: Duration = Duration::from_millis(200);

/// What webhook attempts need while the emulator runs; held by the running
/// emulator (and its background tick), outside the state it points to.
#[derive(Debug)]
pub struct Runner {
    rt: tokio::runtime::Handle,
    app: Weak<AppState>,
    /// Set to true when the emulator stops: running attempts end.
    stop: watch::Sender<bool>,
    /// Built on first use; follows no redirects.
    client: Mutex<Option<reqwest::Client>>,
}

impl Runner {
    /// Not stopped yet: new attempts may start.
    fn running(&self) -> bool {
        !*self.stop.borrow()
    }
}

/// A webhook attempt to start.
struct Attempt {
    id: String,
    url: String,
    n: u32,
    payload: Value,
}

/// An item that matched a subscription.
struct Match {
    subscription: String,
    datasource: &'static str,
    item: Matched,
    /// Values at the subscription's `incidentWatchKeys`.
    watched: Vec<String>,
    /// The scan was made by an incident: it opens no incident (an `always`
    /// subscription matching its own incidents' scans would never stop).
    by_incident: bool,
}

/// An incident to open for a match.
struct Open {
    key: KeyInfo,
    mode: String,
    fields: Map<String, Value>,
    subscription: String,
}

// ---------------------------------------------------------------- running

/// Start the background tick (every 200 ms of wall time) on the current
/// runtime and allow webhook attempts through the returned runner; the task
/// ends when the state is gone or is aborted.
pub(crate) fn start(st: &Arc<AppState>) -> (Arc<Runner>, tokio::task::JoinHandle<()>) {
    let (stop, _) = watch::channel(false);
    let runner = Arc::new(Runner {
        rt: tokio::runtime::Handle::current(),
        app: Arc::downgrade(st),
        stop,
        client: Mutex::new(None),
    });
    let app = Arc::downgrade(st);
    let ticking = Arc::clone(&runner);
    let task = tokio::spawn(async move {
        let mut every = tokio::time::interval(TICK_EVERY);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            every.tick().await;
            let Some(st) = app.upgrade() else { break };
            let now = st.now_ms();
            premium_model::tick(&st, now);
            tick(&st, now, Some(&ticking));
        }
    });
    (runner, task)
}

/// No more webhook attempts; running ones end.
pub(crate) fn stop(r: &Runner) {
    r.stop.send_replace(true);
}

/// Bring notifications up to the emulator time `now`: match newly finished
/// scans, open incidents, cut due batches, record e-mails and start due
/// webhook attempts (which run as tasks, not here) when a runner is given.
pub fn tick(st: &AppState, now: i64, runner: Option<&Runner>) {
    let (mut p, next) = st.lock().premium();
    let mut opens = Vec::new();
    let attempts = {
        let (mut store, next) = next.store();
        let mut guard = next.events();
        let ev = &mut *guard;
        let fresh = store.take_new_finishes();
        ev.engine.unfinished.extend(fresh);
        let mut due: Vec<(i64, String)> = Vec::new();
        ev.engine.unfinished.retain(|(t, u)| {
            let done = *t <= now;
            if done {
                due.push((*t, u.clone()));
            }
            !done
        });
        due.sort();
        let found = if due.is_empty() {
            vec![]
        } else {
            matches(st, &p, &store, &mut ev.engine, &due, now)
        };
        drop(store);
        for m in found {
            opens.extend(incident_opens(st, &p, &m));
            enqueue(&p, &mut ev.engine, m);
        }
        enqueue_changes(&p, ev);
        cut(st, &p, ev, now);
        due_attempts(&p, ev, now, runner.is_some_and(Runner::running))
    };
    let opening = !opens.is_empty();
    let mut opened = Vec::new();
    for o in opens {
        let id = open_for_subscription(&mut p, &o.key, now, &o.mode, o.fields, &o.subscription);
        if let Some(id) = id {
            opened.push((o.subscription, id));
        }
    }
    drop(p);
    if !opened.is_empty() {
        st.events().engine.opened.extend(opened);
    }
    if opening {
        // The new incidents' first scans go to the store now, not at the next tick.
        premium_model::flush(st);
    }
    launch(st, runner, attempts);
}

// ---------------------------------------------------------------- matching

fn text<'a>(it: &'a Item, k: &str) -> Option<&'a str> {
    it.body.get(k).and_then(Value::as_str)
}

/// A list field; a single string counts as a list of one.
fn texts(it: &Item, k: &str) -> Vec<String> {
    match it.body.get(k) {
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(|v| v.as_str().map(String::from))
            .collect(),
        Some(Value::String(s)) => vec![s.clone()],
        _ => vec![],
    }
}

fn active(it: &Item) -> bool {
    it.body.get("isActive").and_then(Value::as_bool) != Some(false)
}

/// `weekDays` allow alerts on this UTC day, or `ignoreTime` is set. No
/// `weekDays` (or an empty list) allows every day.
fn day_allowed(it: &Item, at_ms: i64) -> bool {
    if it.body.get("ignoreTime").and_then(Value::as_bool) == Some(true) {
        return true;
    }
    let days = texts(it, "weekDays");
    let day = chrono::DateTime::<chrono::Utc>::from_timestamp_millis(at_ms)
        .map(|d| d.weekday().num_days_from_monday() as usize)
        .unwrap_or(0);
    days.is_empty() || days.iter().any(|d| d == urlscan_rules::WEEK_DAYS[day])
}

fn owner_key<'a>(st: &'a AppState, user: &str) -> Option<&'a KeyInfo> {
    st.keys.iter().map(|(_, k)| k).find(|k| k.user == user)
}

/// The hostnames-datasource document of a hostname first seen by scan `e`
/// (the shape the hostnames search answers), and its hit with `_id` and `sort`.
fn host_doc(e: &Entry, host: &str) -> (Value, Value) {
    let page = lookup(&e.doc, "page.domain").and_then(Value::as_str) == Some(host);
    let apex = page
        .then(|| lookup(&e.doc, "page.apexDomain").and_then(Value::as_str))
        .flatten()
        .map(String::from)
        .unwrap_or_else(|| approx_apex(host));
    let t = e.spec.time_ms;
    let src = if page { "scan" } else { "scan-link" };
    // First seen now: the document the hostnames data source shows, and its hit.
    let d = hostname_document(host, &apex, t, t, vec!["pdns", src]);
    (d.doc.clone(), d.hit())
}

/// Values at the watch keys of a subscription for one datasource (default
/// `scans/page.domain` and `hostnames/hostname`).
fn watched(sub: &Item, datasource: &str, doc: &Value) -> Vec<String> {
    let prefix = format!("{datasource}/");
    let mut keys: Vec<String> = texts(sub, "incidentWatchKeys")
        .into_iter()
        .filter_map(|k| k.strip_prefix(&prefix).map(String::from))
        .collect();
    if keys.is_empty() {
        keys.push(
            if datasource == "scans" {
                "page.domain"
            } else {
                "hostname"
            }
            .into(),
        );
    }
    let mut out: Vec<String> = Vec::new();
    for k in keys {
        let v = match lookup(doc, &k) {
            Some(Value::String(s)) => s.clone(),
            Some(v @ Value::Number(_)) => v.to_string(),
            _ => continue,
        };
        if !v.is_empty() && !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

/// Matches of newly finished scans (`due`: (finish ms, uuid), oldest first).
fn matches(
    st: &AppState,
    p: &PremiumState,
    store: &Store,
    eng: &mut Engine,
    due: &[(i64, String)],
    now: i64,
) -> Vec<Match> {
    // Active subscriptions with their saved searches, by data source.
    struct Sub<'a> {
        item: &'a Item,
        caller: Caller,
        scans: Vec<(&'a str, Query)>,
        hostnames: Vec<(&'a str, Query)>,
        /// The owner's saved searches: scan hits show their matches, as the
        /// owner's searches do.
        tags: SavedMatches,
    }
    let mut subs: Vec<Sub> = Vec::new();
    for s in p.subscriptions().iter().filter(|s| active(s)) {
        let Some(k) = owner_key(st, &s.owner) else {
            continue;
        };
        let mut sub = Sub {
            item: s,
            caller: Caller::Key(k.clone()),
            scans: vec![],
            hostnames: vec![],
            tags: SavedMatches::default(),
        };
        let ids = texts(s, "searchIds");
        for saved in p.searches().iter().filter(|x| ids.contains(&x.id)) {
            let Ok(q) = Query::parse(text(saved, "query").unwrap_or("")) else {
                continue;
            };
            match text(saved, "datasource") {
                Some("hostnames") => sub.hostnames.push((&saved.id, q)),
                _ => sub.scans.push((&saved.id, q)),
            }
        }
        if !sub.scans.is_empty() {
            sub.tags = premium_model::saved_matches_in(p, k);
        }
        if !sub.scans.is_empty() || !sub.hostnames.is_empty() {
            subs.push(sub);
        }
    }
    // Owners whose first sightings of hostnames are tracked.
    let mut owners: Vec<(String, Caller)> = Vec::new();
    for s in subs.iter().filter(|s| !s.hostnames.is_empty()) {
        if !owners.iter().any(|(o, _)| *o == s.item.owner) {
            owners.push((s.item.owner.clone(), s.caller.clone()));
        }
    }
    for o in eng.hosts_seen.keys() {
        if !owners.iter().any(|(x, _)| x == o) {
            if let Some(k) = owner_key(st, o) {
                owners.push((o.clone(), Caller::Key(k.clone())));
            }
        }
    }
    if subs.is_empty() && owners.is_empty() {
        return vec![];
    }
    let batch: HashSet<&str> = due.iter().map(|(_, u)| u.as_str()).collect();
    let mut out = Vec::new();
    for (_, uuid) in due {
        let Some(e) = store.get(uuid) else { continue };
        for s in &subs {
            if s.scans.is_empty() || s.item.created_ms > e.finish_ms || !e.searchable_by(&s.caller)
            {
                continue;
            }
            let searches: Vec<String> = s
                .scans
                .iter()
                .filter(|(_, q)| q.matches(&e.doc, now))
                .map(|(id, _)| id.to_string())
                .collect();
            if searches.is_empty() {
                continue;
            }
            let hit = serde_json::from_str(&s.tags.hit(&e.hit, &e.doc, now)).unwrap_or(Value::Null);
            out.push(Match {
                subscription: s.item.id.clone(),
                datasource: "scans",
                item: Matched {
                    at_ms: e.finish_ms,
                    sort: (e.spec.time_ms, e.spec.uuid.clone()),
                    hit,
                    searches,
                },
                watched: watched(s.item, "scans", &e.doc),
                by_incident: e.spec.source == "incident",
            });
        }
        for (owner, caller) in &owners {
            if !e.searchable_by(caller) {
                continue;
            }
            let seen = eng.hosts_seen.entry(owner.clone()).or_insert_with(|| {
                store
                    .by_time
                    .values()
                    .filter(|x| {
                        x.finished(now)
                            && x.searchable_by(caller)
                            && !batch.contains(x.spec.uuid.as_str())
                    })
                    .flat_map(host_names)
                    .collect()
            });
            for host in host_names(e) {
                if !seen.insert(host.clone()) {
                    continue;
                }
                let (doc, hit) = host_doc(e, &host);
                for s in subs.iter().filter(|s| s.item.owner == *owner) {
                    if s.item.created_ms > e.finish_ms {
                        continue;
                    }
                    let searches: Vec<String> = s
                        .hostnames
                        .iter()
                        .filter(|(_, q)| q.matches(&doc, now))
                        .map(|(id, _)| id.to_string())
                        .collect();
                    if searches.is_empty() {
                        continue;
                    }
                    out.push(Match {
                        subscription: s.item.id.clone(),
                        datasource: "hostnames",
                        item: Matched {
                            at_ms: e.finish_ms,
                            sort: (e.spec.time_ms, host.clone()),
                            hit: hit.clone(),
                            searches,
                        },
                        watched: watched(s.item, "hostnames", &doc),
                        by_incident: e.spec.source == "incident",
                    });
                }
            }
        }
    }
    out
}

/// The incidents a match opens, per the subscription's `incidentCreationMode`.
fn incident_opens(st: &AppState, p: &PremiumState, m: &Match) -> Vec<Open> {
    let Some(sub) = p.subscriptions().iter().find(|s| s.id == m.subscription) else {
        return vec![];
    };
    let mode = text(sub, "incidentCreationMode").unwrap_or("none");
    let Some(key) = owner_key(st, &sub.owner) else {
        return vec![];
    };
    if mode == "none" || m.by_incident {
        return vec![];
    }
    let channels: Vec<String> = texts(sub, "incidentChannelIds")
        .into_iter()
        .filter(|id| p.channels().iter().any(|c| c.id == *id))
        .collect();
    m.watched
        .iter()
        .map(|value| {
            let mut fields = Map::new();
            fields.insert("observable".into(), json!(value));
            fields.insert(
                "visibility".into(),
                json!(text(sub, "incidentVisibility").unwrap_or("private")),
            );
            fields.insert("channels".into(), json!(channels));
            if let Some(profile) = text(sub, "incidentProfileId") {
                fields.insert("incidentProfile".into(), json!(profile));
            }
            Open {
                key: key.clone(),
                mode: mode.to_string(),
                fields,
                subscription: sub.id.clone(),
            }
        })
        .collect()
}

/// Queue a match for each target of the subscription that takes it.
fn enqueue(p: &PremiumState, eng: &mut Engine, m: Match) {
    let Some(sub) = p.subscriptions().iter().find(|s| s.id == m.subscription) else {
        return;
    };
    if !day_allowed(sub, m.item.at_ms) {
        return;
    }
    let mut targets = channel_targets(p, &texts(sub, "channelIds"), m.item.at_ms);
    if !texts(sub, "emailAddresses").is_empty() {
        targets.push(Target::Email);
    }
    for target in targets {
        let (source, item) = (Source::Subscription(m.subscription.clone()), m.item.clone());
        push(eng, source, target, m.datasource, Queued::Match(item));
    }
}

/// The channels among `ids` that take an item of `at_ms`, each once:
/// existing, active, and with `weekDays` that allow its UTC day (or
/// `ignoreTime`). An item of another day is dropped for a channel.
fn channel_targets(p: &PremiumState, ids: &[String], at_ms: i64) -> Vec<Target> {
    let mut targets = Vec::new();
    for id in ids {
        let Some(ch) = p.channels().iter().find(|c| c.id == *id) else {
            continue;
        };
        let target = Target::Channel(id.clone());
        if active(ch) && day_allowed(ch, at_ms) && !targets.contains(&target) {
            targets.push(target);
        }
    }
    targets
}

/// Queue each incident change for the incident's channels that take it
/// (`channel_targets`).
fn enqueue_changes(p: &PremiumState, ev: &mut Events) {
    for c in std::mem::take(&mut ev.incident_changes) {
        for target in channel_targets(p, &c.channels, c.at_ms) {
            let item = Queued::Change(c.clone());
            push(&mut ev.engine, Source::Incidents, target, "scans", item);
        }
    }
}

/// Add an item to the queue of (source, target, data source); a match of
/// an item already queued there adds its searches to it.
fn push(eng: &mut Engine, source: Source, target: Target, datasource: &'static str, item: Queued) {
    let q = match eng
        .queues
        .iter_mut()
        .position(|q| q.source == source && q.target == target && q.datasource == datasource)
    {
        Some(i) => &mut eng.queues[i],
        None => {
            eng.queues.push(Queue {
                source,
                target,
                datasource,
                items: vec![],
            });
            eng.queues.last_mut().expect("just pushed")
        }
    };
    if let Queued::Match(m) = &item {
        let same = q.items.iter_mut().find_map(|i| match i {
            Queued::Match(x) if x.sort == m.sort => Some(x),
            _ => None,
        });
        if let Some(i) = same {
            for s in &m.searches {
                if !i.searches.contains(s) {
                    i.searches.push(s.clone());
                }
            }
            return;
        }
    }
    q.items.push(item);
}

// ---------------------------------------------------------------- batches

/// The latest instant at or before `now` that is `offset` past a multiple
/// of `period`.
fn last_boundary(now: i64, period: i64, offset: i64) -> i64 {
    now - (now - offset).rem_euclid(period)
}

/// A channel's `utcTime` ("HH:MM") as milliseconds past midnight; 0 unset.
fn utc_offset(ch: Option<&Item>) -> i64 {
    let Some(t) = ch.and_then(|c| text(c, "utcTime")) else {
        return 0;
    };
    let (h, m) = t.split_once(':').unwrap_or(("0", "0"));
    let h: i64 = h.parse().unwrap_or(0);
    let m: i64 = m.parse().unwrap_or(0);
    (h * 60 + m) * 60_000
}

/// The last instant whose items are due at `now` for a target with this
/// `frequency` (`ch`: its channel, for `utcTime`): `live` now, `hourly`
/// the last full hour, `daily` the last `utcTime` (00:00 unset). An item
/// goes out in the first batch at or after it was queued.
fn due_until(frequency: &str, ch: Option<&Item>, now: i64) -> i64 {
    match frequency {
        "hourly" => last_boundary(now, HOUR_MS, 0),
        "daily" => last_boundary(now, DAY_MS, utc_offset(ch)),
        _ => now,
    }
}

/// Turn the queued items that are due into notifications: a subscription's
/// batch into one, each incident change of a batch into one of its own.
/// Items of an inactive (or deleted) subscription or channel are dropped.
fn cut(st: &AppState, p: &PremiumState, ev: &mut Events, now: i64) {
    let queues = std::mem::take(&mut ev.engine.queues);
    for mut q in queues {
        let sub = match &q.source {
            Source::Subscription(id) => match p.subscriptions().iter().find(|s| s.id == *id) {
                Some(s) if active(s) => Some(s),
                _ => continue,
            },
            Source::Incidents => None,
        };
        let ch = match &q.target {
            Target::Channel(id) => match p.channels().iter().find(|c| c.id == *id) {
                Some(c) if active(c) => Some(c),
                _ => continue,
            },
            Target::Email => None,
        };
        // A channel's own frequency wins over the subscription's.
        let frequency = ch
            .and_then(|c| text(c, "frequency"))
            .or_else(|| sub.and_then(|s| text(s, "frequency")))
            .unwrap_or("live");
        let until = due_until(frequency, ch, now);
        let (batch, keep): (Vec<Queued>, Vec<Queued>) =
            q.items.drain(..).partition(|i| i.at_ms() <= until);
        match (sub, ch) {
            (Some(sub), _) => {
                let items = batch
                    .into_iter()
                    .filter_map(|i| match i {
                        Queued::Match(m) => Some(m),
                        Queued::Change(_) => None,
                    })
                    .collect();
                subscription_batch(st, ev, sub, ch, q.datasource, frequency, items, now);
            }
            (None, Some(ch)) => {
                let mut changes: Vec<IncidentChange> = batch
                    .into_iter()
                    .filter_map(|i| match i {
                        Queued::Change(c) => Some(c),
                        Queued::Match(_) => None,
                    })
                    .collect();
                changes.sort_by_key(|c| c.at_ms);
                for c in changes {
                    incident_notification(st, ev, ch, frequency, c, now);
                }
            }
            (None, None) => continue,
        }
        if !keep.is_empty() {
            q.items = keep;
            ev.engine.queues.push(q);
        }
    }
}

/// One `subscription` notification of a batch (none for an empty batch).
#[allow(clippy::too_many_arguments)]
fn subscription_batch(
    st: &AppState,
    ev: &mut Events,
    sub: &Item,
    ch: Option<&Item>,
    datasource: &str,
    frequency: &str,
    mut batch: Vec<Matched>,
    now: i64,
) {
    if batch.is_empty() {
        return;
    }
    batch.sort_by(|a, b| b.sort.cmp(&a.sort));
    let order = texts(sub, "searchIds");
    let mut searches: Vec<String> = order
        .into_iter()
        .filter(|id| batch.iter().any(|i| i.searches.contains(id)))
        .collect();
    for i in &batch {
        for s in &i.searches {
            if !searches.contains(s) {
                searches.push(s.clone());
            }
        }
    }
    let results: Vec<Value> = batch.into_iter().map(|i| i.hit).collect();
    let payload = json!({
        "id": new_id(now),
        "type": "subscription",
        "createdAt": iso(now),
        "frequency": frequency,
        "subscriptionId": sub.id,
        "subscriptionName": text(sub, "name"),
        "searchIds": searches,
        "incidentId": null,
        "observable": null,
        "changes": [],
        "channelId": ch.map(|c| c.id.clone()),
        "datasource": datasource,
        "total": results.len(),
        "results": results,
    });
    let name = text(sub, "name").unwrap_or("");
    let n = payload["total"].as_u64().unwrap_or(0);
    let subject = format!(
        "[urlscan] {n} new {} for subscription \"{name}\"",
        if n == 1 { "result" } else { "results" }
    );
    let emails = match ch {
        None => texts(sub, "emailAddresses"),
        Some(_) => vec![],
    };
    deliver(
        st, ev, &sub.owner, &sub.team, ch, emails, subject, payload, now,
    );
}

/// The `incident` notification of one change to one channel, sent on the
/// channel's schedule (`frequency`).
fn incident_notification(
    st: &AppState,
    ev: &mut Events,
    ch: &Item,
    frequency: &str,
    c: IncidentChange,
    now: i64,
) {
    let attrs: Vec<&str> = c
        .changes
        .iter()
        .filter_map(|x| x.get("attribute").and_then(Value::as_str))
        .collect();
    let subject = format!(
        "[urlscan] incident {}: {} changed",
        c.observable,
        attrs.join(", ")
    );
    let payload = json!({
        "id": new_id(now),
        "type": "incident",
        "createdAt": iso(now),
        "frequency": frequency,
        "subscriptionId": null,
        "subscriptionName": null,
        "searchIds": [],
        "incidentId": c.incident_id,
        "observable": c.observable,
        "changes": c.changes,
        "channelId": ch.id,
        "datasource": "scans",
        "results": [c.hit],
        "total": 1,
    });
    deliver(
        st,
        ev,
        &c.owner,
        &c.team,
        Some(ch),
        vec![],
        subject,
        payload,
        now,
    );
}

/// Keep a notification and send it: an outbox entry for e-mail (the
/// channel's addresses, else the owner's; or `emails` without a channel),
/// a pending webhook attempt for webhook channels.
#[allow(clippy::too_many_arguments)]
fn deliver(
    st: &AppState,
    ev: &mut Events,
    owner: &str,
    team: &Option<String>,
    ch: Option<&Item>,
    emails: Vec<String>,
    subject: String,
    payload: Value,
    now: i64,
) {
    ev.notifications.push(Stored {
        owner: owner.to_string(),
        team: team.clone(),
        created_ms: now,
        payload: payload.clone(),
    });
    let to = match ch {
        None => emails,
        Some(c) if text(c, "type") == Some("email") => {
            let mut to = texts(c, "emailAddresses");
            if to.is_empty() {
                to.extend(owner_key(st, owner).map(|k| k.email.clone()));
            }
            to
        }
        Some(c) => {
            ev.engine.webhooks.push(Webhook {
                id: payload["id"].as_str().unwrap_or_default().to_string(),
                channel: c.id.clone(),
                payload,
                attempts: 0,
                due_ms: Some(now),
            });
            return;
        }
    };
    ev.outbox.push(json!({
        "to": to,
        "subject": subject,
        "notification": payload,
        "at": iso(now),
    }));
}

// ---------------------------------------------------------------- webhooks

/// Webhook attempts due at `now`, marked as running; none while the
/// emulator does not run. A channel disabled or deleted meanwhile ends its
/// notifications' attempts.
fn due_attempts(p: &PremiumState, ev: &mut Events, now: i64, running: bool) -> Vec<Attempt> {
    if !running {
        return vec![];
    }
    let mut out = Vec::new();
    let mut records = Vec::new();
    ev.engine.webhooks.retain_mut(|w| {
        let Some(due) = w.due_ms else {
            return true;
        };
        if due > now {
            return true;
        }
        let Some(ch) = p.channels().iter().find(|c| c.id == w.channel) else {
            return false;
        };
        if !active(ch) {
            return false;
        }
        w.attempts += 1;
        let Some(url) = text(ch, "webhookURL") else {
            records.push(json!({
                "url": null,
                "status": null,
                "error": "the channel has no webhookURL",
                "attempt": w.attempts,
                "notification": w.payload,
                "at": iso(now),
            }));
            return false;
        };
        w.due_ms = None;
        out.push(Attempt {
            id: w.id.clone(),
            url: url.to_string(),
            n: w.attempts,
            payload: w.payload.clone(),
        });
        true
    });
    ev.deliveries.extend(records);
    out
}

/// Start webhook attempts as tasks on the emulator's runtime.
fn launch(st: &AppState, runner: Option<&Runner>, attempts: Vec<Attempt>) {
    if attempts.is_empty() {
        return;
    }
    let timeout = Duration::from_secs_f64(st.cfg.webhook_timeout.clamp(0.001, 86_400.0));
    // A stopped runner starts nothing, like no runner at all.
    let Some(r) = runner.filter(|r| r.running()) else {
        return;
    };
    let mut cached = r.client.lock().unwrap();
    if cached.is_none() {
        let built = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .build();
        match built {
            Ok(c) => *cached = Some(c),
            Err(e) => log::error!("webhook client: {e}"),
        }
    }
    let Some(client) = cached.clone() else {
        return;
    };
    let (rt, app) = (r.rt.clone(), r.app.clone());
    for a in attempts {
        let stop = r.stop.subscribe();
        rt.spawn(attempt(app.clone(), client.clone(), a, timeout, stop));
    }
}

/// An error's message with its causes.
fn describe(e: &reqwest::Error) -> String {
    if e.is_timeout() {
        return "timeout".into();
    }
    let mut parts = vec![e.to_string()];
    let mut src = std::error::Error::source(e);
    while let Some(s) = src {
        let m = s.to_string();
        if !parts.contains(&m) {
            parts.push(m);
        }
        src = s.source();
    }
    parts.join(": ")
}

/// One POST of a notification; records the attempt and schedules the next
/// one (5xx, 408, 429, connection errors and timeouts, at most five attempts).
async fn attempt(
    app: Weak<AppState>,
    client: reqwest::Client,
    a: Attempt,
    timeout: Duration,
    mut stop: watch::Receiver<bool>,
) {
    let req = client
        .post(&a.url)
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .header(
            reqwest::header::USER_AGENT,
            concat!("urlscan-emulator/", env!("CARGO_PKG_VERSION")),
        )
        .header("X-Urlscan-Notification-Id", &a.id)
        .header("X-Urlscan-Delivery-Attempt", a.n.to_string())
        .timeout(timeout)
        .body(a.payload.to_string());
    let outcome = tokio::select! {
        r = req.send() => r.map(|resp| resp.status().as_u16()),
        _ = stop.wait_for(|s| *s) => return,
    };
    let (status, error) = match outcome {
        Ok(s) => (Some(s), None),
        Err(e) => (None, Some(describe(&e))),
    };
    let Some(st) = app.upgrade() else { return };
    let now = st.now_ms();
    let mut ev = st.events();
    ev.deliveries.push(json!({
        "url": a.url,
        "status": status,
        "error": error,
        "attempt": a.n,
        "notification": a.payload,
        "at": iso(now),
    }));
    let retry = a.n < MAX_ATTEMPTS
        && status.is_none_or(|s| (500..600).contains(&s) || s == 408 || s == 429);
    if retry {
        if let Some(w) = ev.engine.webhooks.iter_mut().find(|w| w.id == a.id) {
            w.due_ms = Some(now + FIRST_BACKOFF_MS * (1 << (a.n - 1)));
        }
    } else {
        ev.engine.webhooks.retain(|w| w.id != a.id);
    }
}

fn iso(ms: i64) -> String {
    super::ratelimit::iso_ms(ms)
}
