//! The incident model: what an incident observes, and the scans it makes
//! on the emulator clock (the lifecycle is described in `premium::incidents`).
use std::collections::VecDeque;

use serde_json::{json, Map, Value};

use super::super::content::{self, ScanSpec};
use super::super::document::Doc;
use super::super::state::event_records::IncidentChange;
use super::super::state::premium_records::{
    Condition, Incident, NewScan, Observation, PremiumState,
};
use super::super::state::{lookup, AppState, Caller, Entry, KeyInfo};
use super::{h64, iso, new_id, same_team, strings, Access};
use urlscan_rules::WATCHED_ATTRIBUTES as ATTRIBUTES;

pub(crate) const DEFAULT_EXPIRE_S: i64 = 7 * 86_400;
/// Defaults of the runtime options, shown in answers when not given.
const DEFAULTS: &[(&str, i64)] = &[
    ("scanInterval", 3_600),
    ("userAgentsPerInterval", 1),
    ("countriesPerInterval", 1),
    ("stopDelaySuspended", 86_400),
    ("stopDelayInactive", 86_400),
    ("stopDelayMalicious", 604_800),
    ("scanIntervalAfterSuspended", 21_600),
    ("scanIntervalAfterMalicious", 900),
];
const DEFAULT_USER_AGENT: &str = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const DEFAULT_COUNTRY: &str = "de";
/// Stored states per incident are capped; the oldest go first.
const MAX_STATES: usize = 10_000;
/// Real scans an incident makes between two trips to the scan store (one
/// clock tick or request). An incident advanced over many intervals at once
/// (a year at 60 s is 525,600 of them) makes real scans of its last 250
/// states only; the older states have `scanId` null and their changes are
/// not reported.
const MAX_NEW_SCANS: usize = 250;

/// A scan of an incident, with what storing it and reporting it needs.
pub(super) struct Made {
    scan: NewScan,
    owner: String,
    team: Option<String>,
    incident: String,
    observable: String,
    channels: Vec<String>,
}

/// A scan an incident makes: private, through the API, from no particular
/// country or user agent unless the caller sets them.
pub(crate) fn scan_spec(uuid: String, url: String, time_ms: i64) -> ScanSpec {
    ScanSpec {
        source: "incident".into(),
        ..ScanSpec::api(uuid, url, time_ms, "private".into())
    }
}

/// `url`, `ip` or `hostname`.
fn observable_type(o: &str) -> &'static str {
    if o.contains("://") || o.contains('/') {
        "url"
    } else if o
        .trim_matches(['[', ']'])
        .parse::<std::net::IpAddr>()
        .is_ok()
    {
        "ip"
    } else {
        "hostname"
    }
}

/// The address scanned for an observable.
pub(crate) fn target_url(o: &str, extra_path: Option<&str>) -> Option<url::Url> {
    let s = match observable_type(o) {
        "url" if o.contains("://") => o.to_string(),
        "url" => format!("https://{o}"),
        "ip" => format!("http://{o}{}", extra_path.unwrap_or("/")),
        _ => format!("https://{o}{}", extra_path.unwrap_or("/")),
    };
    let u = url::Url::parse(&s).ok()?;
    (matches!(u.scheme(), "http" | "https")
        && u.host_str()
            .is_some_and(|h| h.contains('.') || h.contains(':')))
    .then_some(u)
}

pub(crate) fn observe(o: &str, extra_path: Option<&str>) -> Observation {
    let url = target_url(o, extra_path)
        .map(|u| u.to_string())
        .unwrap_or_else(|| format!("https://{o}/"));
    let host = url::Url::parse(&url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_ascii_lowercase))
        .unwrap_or_default();
    let id = uuid::Builder::from_random_bytes(
        (h64(&url) as u128 | ((h64(&format!("i{url}")) as u128) << 64)).to_be_bytes(),
    )
    .into_uuid()
    .to_string();
    let spec = scan_spec(id, url.clone(), 1_767_225_600_000);
    let doc = content::index_doc(&spec);
    let mut page = doc.get("page").cloned().unwrap_or(json!({}));
    let flagged = lookup(&doc, "verdicts.malicious") == Some(&Value::Bool(true));
    let condition = if host.starts_with("suspended.") {
        Some(Condition::Suspended)
    } else if host.starts_with("inactive.") {
        Some(Condition::Inactive)
    } else if host.starts_with("malicious.") || flagged {
        Some(Condition::Malicious)
    } else {
        None
    };
    match condition {
        Some(Condition::Suspended) => {
            page["title"] = json!("Account Suspended");
            page["status"] = json!("403");
        }
        Some(Condition::Inactive) => page = Value::Null,
        _ => {}
    }
    let brands = doc
        .get("brand")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let score = lookup(&doc, "verdicts.score")
        .and_then(Value::as_i64)
        .unwrap_or(0);
    Observation {
        changing: host.split('.').next() == Some("changing"),
        url,
        condition,
        page,
        brands,
        score: if condition == Some(Condition::Malicious) {
            score.max(100)
        } else {
            score
        },
    }
}

impl Incident {
    fn int(&self, k: &str) -> i64 {
        self.fields.get(k).and_then(Value::as_i64).unwrap_or(0)
    }

    pub(crate) fn strs(&self, k: &str) -> Vec<String> {
        strings(&self.fields, k)
    }

    pub(crate) fn access(&self, k: &KeyInfo) -> Access {
        if self.owner == k.user {
            Access::Write
        } else if same_team(&self.team, k) {
            Access::Read
        } else {
            Access::None
        }
    }

    fn automatic(&self) -> bool {
        self.fields.get("scanIntervalMode").and_then(Value::as_str) != Some("manual")
    }

    pub(crate) fn interval_ms(&self) -> i64 {
        let key = match self.condition.map(|c| c.0) {
            Some(Condition::Malicious) if self.automatic() => "scanIntervalAfterMalicious",
            Some(Condition::Suspended) if self.automatic() => "scanIntervalAfterSuspended",
            _ => "scanInterval",
        };
        self.int(key).max(60) * 1000
    }

    /// When the incident closes by itself: expiry or the condition's stop delay.
    fn close_due(&self) -> i64 {
        let stop = self.condition.map(|(c, since)| {
            let key = match c {
                Condition::Suspended => "stopDelaySuspended",
                Condition::Inactive => "stopDelayInactive",
                Condition::Malicious => "stopDelayMalicious",
            };
            since + self.int(key) * 1000
        });
        stop.map_or(self.expire_ms, |s| s.min(self.expire_ms))
    }

    /// `per` values of `list` for interval `n`, round-robin.
    fn rotation(list: &[String], per: i64, n: u64) -> Vec<String> {
        let per = (per.max(1) as usize).min(list.len());
        (0..per)
            .map(|j| list[(n as usize * per + j) % list.len()].clone())
            .collect()
    }

    /// One interval's scans at `t`.
    fn scan(&mut self, t: i64) {
        let mut uas = self.strs("userAgents");
        if uas.is_empty() {
            uas.push(DEFAULT_USER_AGENT.into());
        }
        let mut ccs = self.strs("countries");
        if ccs.is_empty() {
            ccs.push(DEFAULT_COUNTRY.into());
        }
        let uas = Self::rotation(&uas, self.int("userAgentsPerInterval"), self.interval_no);
        let ccs = Self::rotation(&ccs, self.int("countriesPerInterval"), self.interval_no);
        let cond = self.obs.condition;
        let o = self.observation(self.interval_no);
        let attrs = self.attributes(&o);
        let mut changes: Vec<Value> = match &self.last_attrs {
            Some(prev) => attrs
                .iter()
                .filter_map(|(a, now)| {
                    let before = prev.get(a).filter(|b| *b != now)?;
                    Some(json!({"attribute": a, "before": before, "after": now}))
                })
                .collect(),
            None => vec![],
        };
        let page: Map<String, Value> = ["ip", "title", "status"]
            .iter()
            .filter_map(|k| {
                let v = o.page.get(*k).filter(|v| !v.is_null())?;
                Some((k.to_string(), v.clone()))
            })
            .collect();
        let visibility = self.fields["visibility"]
            .as_str()
            .unwrap_or("private")
            .to_string();
        let mut seq = 0i64;
        for ua in &uas {
            for cc in &ccs {
                let start = t + seq * 1000;
                seq += 1;
                let uuid = uuid::Uuid::new_v4().to_string();
                let st = self.state_json(&o, &attrs, start, ua, cc, &uuid);
                self.state_size += st.to_string().len() as u64;
                self.states.push(st);
                self.pending.push_back(NewScan {
                    spec: ScanSpec {
                        visibility: visibility.clone(),
                        country: Some(cc.clone()),
                        user_agent: Some(ua.clone()),
                        ..scan_spec(uuid, o.url.clone(), start)
                    },
                    state_no: self.states_dropped + self.states.len() as u64 - 1,
                    page: page.clone(),
                    changes: std::mem::take(&mut changes),
                });
                if self.pending.len() > MAX_NEW_SCANS {
                    if let Some(old) = self.pending.pop_front() {
                        self.unscanned(old.state_no);
                    }
                }
            }
        }
        self.last_attrs = Some(attrs);
        if self.states.len() > MAX_STATES {
            let drop = self.states.len() - MAX_STATES;
            for s in self.states.drain(..drop) {
                self.state_size = self.state_size.saturating_sub(s.to_string().len() as u64);
            }
            self.states_dropped += drop as u64;
        }
        self.scanned_ms = Some(t + (seq - 1).max(0) * 1000);
        self.interval_no += 1;
        if let Some(c) = cond {
            if self.condition.is_none() {
                self.condition = Some((c, t));
            }
        }
        self.labels = self.current_labels();
    }

    fn current_labels(&self) -> Vec<String> {
        let mut l = Vec::new();
        match self.obs.condition {
            Some(Condition::Malicious) => {
                l.push("malicious".to_string());
                l.push("phishing".to_string());
                for b in &self.obs.brands {
                    if let Some(k) = b.get("key").and_then(Value::as_str) {
                        l.push(format!("brand:{k}"));
                    }
                }
            }
            Some(Condition::Suspended) => l.push("suspended".into()),
            Some(Condition::Inactive) => l.push("inactive".into()),
            None => {}
        }
        l
    }

    /// The state `state_no` (see `NewScan`) has no real scan after all.
    fn unscanned(&mut self, state_no: u64) {
        let Some(i) = state_no.checked_sub(self.states_dropped) else {
            return;
        };
        if let Some(s) = self.states.get_mut(i as usize) {
            // `"<uuid>"` becomes `null` in the serialized state.
            let was = s["state"]["scanId"].as_str().map_or(4, |u| u.len() + 2) as u64;
            s["state"]["scanId"] = Value::Null;
            self.state_size = (self.state_size + 4).saturating_sub(was);
        }
    }

    /// What interval `n` sees: a `changing.` host moves to another address
    /// (from the documentation ranges) with another title at each interval.
    fn observation(&self, n: u64) -> Observation {
        let mut o = self.obs.clone();
        if o.changing && o.page.is_object() {
            let k = n % 750;
            let net = ["192.0.2", "198.51.100", "203.0.113"][(k / 250) as usize];
            o.page["ip"] = json!(format!("{net}.{}", k % 250 + 1));
            let title = o.page["title"].as_str().unwrap_or("").to_string();
            o.page["title"] = json!(format!("{title} (revision {})", n + 1));
        }
        o
    }

    /// The watched attributes' details of an observation.
    fn attributes(&self, o: &Observation) -> Map<String, Value> {
        let malicious = o.condition == Some(Condition::Malicious);
        let p = |k: &str| o.page.get(k).cloned().unwrap_or(Value::Null);
        let mut attrs = Map::new();
        for a in &self.strs("watchedAttributes") {
            let v = match a.as_str() {
                "detections" => {
                    json!({"malicious": malicious, "score": o.score, "brands": o.brands})
                }
                "tls" => {
                    json!({"issuer": p("tlsIssuer"), "validFrom": p("tlsValidFrom"), "validDays": p("tlsValidDays")})
                }
                "dns" => {
                    json!({"a": if p("ip").is_null() { vec![] } else { vec![p("ip")] }, "ptr": p("ptr")})
                }
                "labels" => json!(self.current_labels()),
                "page" => {
                    json!({"url": p("url"), "domain": p("domain"), "title": p("title"), "status": p("status"), "mimeType": p("mimeType")})
                }
                "meta" => json!({"server": p("server"), "language": p("language")}),
                "ip" => {
                    json!({"ip": p("ip"), "asn": p("asn"), "asnname": p("asnname"), "country": p("country")})
                }
                _ => continue,
            };
            attrs.insert(a.clone(), v);
        }
        attrs
    }

    /// An incident state: the observation, with the watched attributes'
    /// details under `attributes` and the scan's uuid under `scanId`.
    fn state_json(
        &self,
        o: &Observation,
        attrs: &Map<String, Value>,
        t: i64,
        ua: &str,
        country: &str,
        scan_id: &str,
    ) -> Value {
        let status = match o.condition {
            Some(Condition::Suspended) => "suspended",
            Some(Condition::Inactive) => "inactive",
            _ => "active",
        };
        let malicious = o.condition == Some(Condition::Malicious);
        let p = |k: &str| o.page.get(k).cloned().unwrap_or(Value::Null);
        let mut s = Map::new();
        s.insert("status".into(), json!(status));
        s.insert("malicious".into(), json!(malicious));
        s.insert("observable".into(), self.fields["observable"].clone());
        s.insert("url".into(), json!(o.url));
        s.insert("userAgent".into(), json!(ua));
        s.insert("country".into(), json!(country));
        s.insert("ip".into(), p("ip"));
        s.insert("title".into(), p("title"));
        s.insert("scanId".into(), json!(scan_id));
        s.insert("attributes".into(), Value::Object(attrs.clone()));
        let dur = 4_000 + (h64(&format!("{}{t}{ua}{country}", self.id)) % 8_000) as i64;
        json!({
            "_id": new_id(t),
            "incident": self.id,
            "state": s,
            "timeStart": iso(t),
            "timeEnd": iso(t + dur),
        })
    }

    /// Run scans and automatic closes up to `now`.
    pub(crate) fn advance(&mut self, now: i64) {
        while !self.closed {
            let due = self.close_due();
            let next = self.next_scan_ms;
            if due <= now && due <= next {
                self.closed = true;
                break;
            }
            if next > now {
                break;
            }
            self.scan(next);
            self.next_scan_ms = next + self.interval_ms();
        }
    }

    pub(crate) fn json(&self) -> Value {
        let mut m = Map::new();
        m.insert("_id".into(), json!(self.id));
        m.extend(self.fields.clone());
        for (k, v) in [
            ("createdAt", json!(iso(self.created_ms))),
            ("scannedAt", json!(self.scanned_ms.map(iso))),
            ("expireAt", json!(iso(self.expire_ms))),
            ("sourceType", json!(self.source_type)),
            ("sourceId", json!(self.source_id)),
            (
                "state",
                json!(if self.closed { "closed" } else { "active" }),
            ),
            ("stateSize", json!(self.state_size)),
            ("stateCount", json!(self.states.len())),
            ("owner", json!(self.owner)),
            (
                "type",
                json!(observable_type(
                    self.fields["observable"].as_str().unwrap_or("")
                )),
            ),
            ("labels", json!(self.labels)),
        ] {
            m.insert(k.into(), v);
        }
        Value::Object(m)
    }

    /// A new active incident, scanned at once.
    pub(crate) fn start(
        k: &KeyInfo,
        now: i64,
        mut fields: Map<String, Value>,
        source_type: &'static str,
        source_id: Option<String>,
        history: Vec<Value>,
    ) -> Incident {
        let expire_after_s = fields.remove("expireAfter").and_then(|v| v.as_i64());
        for (f, d) in DEFAULTS {
            fields.entry(*f).or_insert(json!(d));
        }
        fields
            .entry("scanIntervalMode")
            .or_insert(json!("automatic"));
        fields
            .entry("watchedAttributes")
            .or_insert(json!(ATTRIBUTES));
        fields.entry("userAgents").or_insert(json!([]));
        fields.entry("countries").or_insert(json!([]));
        fields.entry("extraPath").or_insert(Value::Null);
        fields.entry("incidentProfile").or_insert(Value::Null);
        let o = fields["observable"].as_str().unwrap_or("").to_string();
        let obs = observe(&o, fields["extraPath"].as_str());
        let id = new_id(now);
        let mut states = history;
        for s in states.iter_mut() {
            s["_id"] = json!(new_id(now));
            s["incident"] = json!(id);
        }
        let state_size = states.iter().map(|s| s.to_string().len() as u64).sum();
        let mut inc = Incident {
            id,
            owner: k.user.clone(),
            team: k.team.clone(),
            fields,
            expire_after_s,
            created_ms: now,
            scanned_ms: None,
            expire_ms: now + expire_after_s.unwrap_or(DEFAULT_EXPIRE_S) * 1000,
            source_type,
            source_id,
            closed: false,
            states,
            state_size,
            next_scan_ms: now,
            interval_no: 0,
            condition: None,
            labels: vec![],
            obs,
            last_attrs: None,
            pending: VecDeque::new(),
            states_dropped: 0,
        };
        inc.advance(now);
        inc
    }
}

pub(super) fn tick(p: &mut PremiumState, now: i64) {
    for inc in p.incidents.iter_mut() {
        inc.advance(now);
    }
}

/// The scans the incidents made since the last call.
pub(super) fn drain(p: &mut PremiumState) -> Vec<Made> {
    let mut out = Vec::new();
    for inc in p.incidents.iter_mut().filter(|i| !i.pending.is_empty()) {
        let observable = inc.fields["observable"].as_str().unwrap_or("").to_string();
        let channels = inc.strs("channels");
        for scan in inc.pending.drain(..) {
            out.push(Made {
                scan,
                owner: inc.owner.clone(),
                team: inc.team.clone(),
                incident: inc.id.clone(),
                observable: observable.clone(),
                channels: channels.clone(),
            });
        }
    }
    out
}

/// Put scans the incidents made into the scan store (finished at their
/// time) and queue the changes they saw for notification. Takes the store's
/// lock, then the events'; call it without holding the premium lock.
pub(super) fn record(st: &AppState, made: Vec<Made>) {
    if made.is_empty() {
        return;
    }
    let mut changes = Vec::new();
    let entries: Vec<Entry> = made
        .into_iter()
        .map(|m| {
            let t = m.scan.spec.time_ms;
            let mut e = st.entry(m.scan.spec, Some(m.owner.clone()), m.team.clone(), t);
            if !m.scan.page.is_empty() {
                e.observe(m.scan.page);
            }
            if !m.scan.changes.is_empty() {
                changes.push(IncidentChange {
                    owner: m.owner,
                    team: m.team,
                    incident_id: m.incident,
                    observable: m.observable,
                    channels: m.channels,
                    changes: m.scan.changes,
                    hit: serde_json::from_str(&e.hit).unwrap_or(Value::Null),
                    at_ms: t,
                });
            }
            e
        })
        .collect();
    {
        let mut store = st.store();
        for e in entries {
            store.insert(e);
        }
    }
    if !changes.is_empty() {
        st.events().incident_changes.extend(changes);
    }
}

/// Documents of the incidents data source: the incidents the caller may
/// read, as `GET /api/v1/user/incidents/{id}` answers them (unwrapped), plus
/// `date` (= `createdAt`); they sort by creation.
fn documents(p: &PremiumState, k: &KeyInfo) -> Vec<Doc> {
    p.incidents
        .iter()
        .filter(|i| i.access(k) != Access::None)
        .map(|i| {
            let mut doc = i.json();
            doc["date"] = json!(iso(i.created_ms));
            Doc {
                ms: i.created_ms,
                id: i.id.clone(),
                doc,
            }
        })
        .collect()
}

/// Documents of the incidents data source: the incidents the caller may read.
pub(crate) fn incident_documents(st: &AppState, c: &Caller) -> Vec<Doc> {
    let Some(k) = c.key() else {
        return vec![];
    };
    documents(&st.premium(), k)
}

/// Open an incident of `k` for a match of subscription `subscription_id`,
/// per its `incidentCreationMode`: `always` opens one, `default` unless an
/// active incident of the owner observes the same value, `ignore-if-exists`
/// unless any incident of the owner does; anything else opens none.
/// Answers the new incident's id.
pub(crate) fn open_for_subscription(
    p: &mut PremiumState,
    k: &KeyInfo,
    now: i64,
    mode: &str,
    fields: Map<String, Value>,
    subscription_id: &str,
) -> Option<String> {
    let value = fields.get("observable").and_then(Value::as_str)?;
    target_url(value, None)?;
    let exists = |any: bool| {
        p.incidents.iter().any(|i| {
            i.owner == k.user
                && (any || !i.closed)
                && i.fields
                    .get("observable")
                    .and_then(Value::as_str)
                    .is_some_and(|o| o.eq_ignore_ascii_case(value))
        })
    };
    let open = match mode {
        "always" => true,
        "default" => !exists(false),
        "ignore-if-exists" => !exists(true),
        _ => false,
    };
    if !open {
        return None;
    }
    let source = Some(subscription_id.to_string());
    let inc = Incident::start(k, now, fields, "subscription", source, vec![]);
    let id = inc.id.clone();
    p.incidents.push(inc);
    Some(id)
}
