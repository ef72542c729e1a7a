//! The data the premium features keep (guarded by `AppState::premium`),
//! apart from the logic (`premium_model`) and the handlers (`premium`)
//! that work on it.
use std::collections::{HashMap, VecDeque};

use serde_json::{Map, Value};

use crate::content::ScanSpec;

/// State of the premium features (guarded by `AppState::premium`).
#[derive(Debug, Default)]
pub struct PremiumState {
    pub(crate) livescans: HashMap<String, LiveScan>,
    pub(crate) searches: Vec<Item>,
    pub(crate) subscriptions: Vec<Item>,
    pub(crate) channels: Vec<Item>,
    pub(crate) incidents: Vec<Incident>,
    /// Temporary data dump links: token -> (path, expiry ms).
    pub(crate) dump_tokens: HashMap<String, (String, i64)>,
    /// Sizes of data dump files as rendered: (type, path, the scans in it) -> bytes.
    pub(crate) dump_sizes: HashMap<(String, String, u64), usize>,
}

/// Read access for the notification engine.
impl PremiumState {
    pub(crate) fn searches(&self) -> &[Item] {
        &self.searches
    }
    pub(crate) fn subscriptions(&self) -> &[Item] {
        &self.subscriptions
    }
    pub(crate) fn channels(&self) -> &[Item] {
        &self.channels
    }
}

/// A user-created item: saved search, subscription or channel.
#[derive(Debug, Clone)]
pub(crate) struct Item {
    pub(crate) id: String,
    pub(crate) owner: String,
    pub(crate) team: Option<String>,
    pub(crate) created_ms: i64,
    /// The validated request fields.
    pub(crate) body: Map<String, Value>,
}

/// A live scan on its scanner (see `premium::livescan`).
#[derive(Debug, Clone)]
pub(crate) struct LiveScan {
    pub(crate) scanner: &'static str,
    pub(crate) spec: ScanSpec,
    pub(crate) owner: String,
    pub(crate) team: Option<String>,
    pub(crate) finish_ms: i64,
    pub(crate) disabled: Vec<String>,
}

/// How an incident's observable is doing (see `premium::incidents`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Condition {
    Suspended,
    Inactive,
    Malicious,
}

/// What a scan of the observable sees: the same at every scan, but for the
/// page IP and title of a `changing.` host (see `Incident::observation`).
#[derive(Debug, Clone)]
pub(crate) struct Observation {
    pub(crate) url: String,
    /// The host's first label is `changing`.
    pub(crate) changing: bool,
    pub(crate) condition: Option<Condition>,
    pub(crate) page: Value,
    pub(crate) brands: Vec<Value>,
    pub(crate) score: i64,
}

/// An incident and its states (see `premium::incidents`).
#[derive(Debug, Clone)]
pub(crate) struct Incident {
    pub(crate) id: String,
    pub(crate) owner: String,
    pub(crate) team: Option<String>,
    /// Request fields with defaults filled in (without expireAfter).
    pub(crate) fields: Map<String, Value>,
    pub(crate) expire_after_s: Option<i64>,
    pub(crate) created_ms: i64,
    pub(crate) scanned_ms: Option<i64>,
    pub(crate) expire_ms: i64,
    pub(crate) source_type: &'static str,
    pub(crate) source_id: Option<String>,
    pub(crate) closed: bool,
    pub(crate) states: Vec<Value>,
    pub(crate) state_size: u64,
    pub(crate) next_scan_ms: i64,
    pub(crate) interval_no: u64,
    /// The condition seen and when it was first seen.
    pub(crate) condition: Option<(Condition, i64)>,
    pub(crate) labels: Vec<String>,
    pub(crate) obs: Observation,
    /// The watched attributes of the last interval's observation.
    pub(crate) last_attrs: Option<Map<String, Value>>,
    /// Scans made and not yet in the scan store, oldest first.
    pub(crate) pending: VecDeque<NewScan>,
    /// States dropped so far (cap, restart): `NewScan::state_no` minus this is
    /// the index in `states`.
    pub(crate) states_dropped: u64,
}

/// A scan an incident made, not yet in the scan store.
#[derive(Debug, Clone)]
pub(crate) struct NewScan {
    pub(crate) spec: ScanSpec,
    /// The number of its state among all states the incident ever had.
    pub(crate) state_no: u64,
    /// The page fields it observed (`ip`, `title`, `status`).
    pub(crate) page: Map<String, Value>,
    /// `[{"attribute", "before", "after"}]` since the previous interval (on
    /// the first scan of an interval only).
    pub(crate) changes: Vec<Value>,
}
