//! The data the premium features keep (guarded by `AppState::premium`),
//! apart from the handlers and clocks that work on it, so that the
//! emulator state can hold it without depending on them.
use std::collections::{HashMap, VecDeque};

use serde_json::{Map, Value};

use super::super::content::ScanSpec;

/// State of the premium features (guarded by `AppState::premium`).
#[derive(Debug, Default)]
pub struct PremiumState {
    pub(super) livescans: HashMap<String, LiveScan>,
    pub(super) searches: Vec<Item>,
    pub(super) subscriptions: Vec<Item>,
    pub(super) channels: Vec<Item>,
    pub(super) incidents: Vec<Incident>,
    /// Temporary data dump links: token -> (path, expiry ms).
    pub(super) dump_tokens: HashMap<String, (String, i64)>,
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

/// A live scan on its scanner (see `livescan`).
#[derive(Debug, Clone)]
pub(super) struct LiveScan {
    pub(super) scanner: &'static str,
    pub(super) spec: ScanSpec,
    pub(super) owner: String,
    pub(super) team: Option<String>,
    pub(super) finish_ms: i64,
    pub(super) disabled: Vec<String>,
}

/// How an incident's observable is doing (see `incidents`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Condition {
    Suspended,
    Inactive,
    Malicious,
}

/// What a scan of the observable sees: the same at every scan, but for the
/// page IP and title of a `changing.` host (see `Incident::observation`).
#[derive(Debug, Clone)]
pub(super) struct Observation {
    pub(super) url: String,
    /// The host's first label is `changing`.
    pub(super) changing: bool,
    pub(super) condition: Option<Condition>,
    pub(super) page: Value,
    pub(super) brands: Vec<Value>,
    pub(super) score: i64,
}

/// An incident and its states (see `incidents`).
#[derive(Debug, Clone)]
pub(super) struct Incident {
    pub(super) id: String,
    pub(super) owner: String,
    pub(super) team: Option<String>,
    /// Request fields with defaults filled in (without expireAfter).
    pub(super) fields: Map<String, Value>,
    pub(super) expire_after_s: Option<i64>,
    pub(super) created_ms: i64,
    pub(super) scanned_ms: Option<i64>,
    pub(super) expire_ms: i64,
    pub(super) source_type: &'static str,
    pub(super) source_id: Option<String>,
    pub(super) closed: bool,
    pub(super) states: Vec<Value>,
    pub(super) state_size: u64,
    pub(super) next_scan_ms: i64,
    pub(super) interval_no: u64,
    /// The condition seen and when it was first seen.
    pub(super) condition: Option<(Condition, i64)>,
    pub(super) labels: Vec<String>,
    pub(super) obs: Observation,
    /// The watched attributes of the last interval's observation.
    pub(super) last_attrs: Option<Map<String, Value>>,
    /// Scans made and not yet in the scan store, oldest first.
    pub(super) pending: VecDeque<NewScan>,
    /// States dropped so far (cap, restart): `NewScan::state_no` minus this is
    /// the index in `states`.
    pub(super) states_dropped: u64,
}

/// A scan an incident made, not yet in the scan store.
#[derive(Debug, Clone)]
pub(super) struct NewScan {
    pub(super) spec: ScanSpec,
    /// The number of its state among all states the incident ever had.
    pub(super) state_no: u64,
    /// The page fields it observed (`ip`, `title`, `status`).
    pub(super) page: Map<String, Value>,
    /// `[{"attribute", "before", "after"}]` since the previous interval (on
    /// the first scan of an interval only).
    pub(super) changes: Vec<Value>,
}
