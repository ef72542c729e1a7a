//! The logic of the premium features that changes the state, below their
//! HTTP handlers (`premium`) and used by the notifications and data sources
//! too: incidents and their scans on the emulator clock, hostname documents,
//! and what runs on the clock (incidents, live-scan and data-dump link
//! expiry).
use serde_json::{Map, Value};

use crate::access::{Caller, KeyInfo};
use crate::query::Query;
use crate::state::premium_records::{Item, PremiumState};
use crate::state::{AppState, SavedMatches};

pub(crate) mod hostnames;
pub(crate) mod incidents;

/// Temporary live-scan results are purged this long after the scan.
const LIVESCAN_RETENTION_MS: i64 = 60 * 60 * 1000;

/// Bring time-driven state (incidents, live-scan purges) up to the emulator
/// clock; called before premium requests are answered and after `advance`.
pub fn tick(st: &AppState, now_ms: i64) {
    let made = {
        let mut p = st.premium();
        p.livescans
            .retain(|_, s| s.spec.time_ms + LIVESCAN_RETENTION_MS > now_ms);
        incidents::tick(&mut p, now_ms);
        p.dump_tokens.retain(|_, (_, exp)| *exp > now_ms);
        incidents::drain(&mut p)
    };
    incidents::record(st, made);
}

/// Put the scans incidents made (when created, changed or restarted) into
/// the scan store, and queue the changes they saw. Call it without holding
/// the premium lock.
pub(crate) fn flush(st: &AppState) {
    let made = incidents::drain(&mut st.premium());
    incidents::record(st, made);
}

/// The current emulator time, after bringing time-driven state up to it.
pub(crate) fn now(st: &AppState) -> i64 {
    let now = st.now_ms();
    tick(st, now);
    now
}

// ---------------------------------------------------------------- shared

/// What a key may do with an item or incident.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub(crate) enum Access {
    None,
    Read,
    Write,
}

pub(crate) fn same_team(team: &Option<String>, k: &KeyInfo) -> bool {
    team.is_some() && *team == k.team
}

impl Item {
    fn has_perm(&self, p: &str) -> bool {
        self.body
            .get("permissions")
            .and_then(Value::as_array)
            .is_some_and(|a| a.iter().any(|v| v.as_str() == Some(p)))
    }

    pub(crate) fn access(&self, k: &KeyInfo) -> Access {
        if self.owner == k.user || (same_team(&self.team, k) && self.has_perm("team:write")) {
            Access::Write
        } else if (same_team(&self.team, k) && self.has_perm("team:read"))
            || self.has_perm("public:read")
        {
            Access::Read
        } else {
            Access::None
        }
    }
}

/// A saved search the caller's list shows: their own and their team's
/// shared ones (others' public ones are readable by id but not listed).
pub(crate) fn saved_search_listed(s: &Item, k: &KeyInfo) -> bool {
    s.owner == k.user || (same_team(&s.team, k) && s.access(k) >= Access::Read)
}

/// The saved searches over scans whose matches the caller's results and hits
/// show (`usertags`, `meta`): those their list shows them; none without a
/// key. Takes the premium lock.
pub(crate) fn saved_matches(st: &AppState, c: &Caller) -> SavedMatches {
    match c.key() {
        Some(k) => saved_matches_in(&st.premium(), k),
        None => SavedMatches::default(),
    }
}

/// `saved_matches` of a key, with the premium state at hand.
pub(crate) fn saved_matches_in(p: &PremiumState, k: &KeyInfo) -> SavedMatches {
    SavedMatches::new(
        p.searches()
            .iter()
            .filter(|s| saved_search_listed(s, k))
            .filter(|s| s.body.get("datasource").and_then(Value::as_str) == Some("scans"))
            .filter_map(|s| {
                let q = s.body.get("query").and_then(Value::as_str)?;
                let query = Query::parse(q).ok()?;
                Some((s.id.clone(), strings(&s.body, "userTags"), query))
            }),
    )
}

/// A 24-hex-character id (4 bytes of seconds, 8 random bytes), like the
/// service's document ids.
pub(crate) fn new_id(now_ms: i64) -> String {
    format!(
        "{:08x}{:016x}",
        (now_ms / 1000) as u32,
        rand::random::<u64>()
    )
}

pub(crate) fn iso(ms: i64) -> String {
    crate::ratelimit::iso_ms(ms)
}

pub(crate) fn hex_sha256(data: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(data))
}

/// A stable number from text, for deterministic choices.
pub(crate) fn h64(s: &str) -> u64 {
    use sha2::Digest;
    let d = sha2::Sha256::digest(s.as_bytes());
    u64::from_be_bytes(d[..8].try_into().unwrap_or_default())
}

/// The strings in array field `k` (none when absent or not an array).
pub(crate) fn strings(m: &Map<String, Value>, k: &str) -> Vec<String> {
    m.get(k)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}
