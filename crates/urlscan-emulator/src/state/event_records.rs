//! The data the notifications keep (guarded by `AppState::events`), apart
//! from the engine that works on it and the tasks that deliver webhooks
//! (`events`).
use std::collections::{HashMap, HashSet};

use serde_json::Value;

/// A watched attribute of an incident changed between two observations;
/// queued by the incident clock, then by `events` for the incident's
/// channels (each one's frequency and `weekDays`).
#[derive(Debug, Clone)]
pub struct IncidentChange {
    pub owner: String,
    pub team: Option<String>,
    pub incident_id: String,
    pub observable: String,
    /// The incident's channel ids.
    pub channels: Vec<String>,
    /// `[{"attribute", "before", "after"}]`
    pub changes: Vec<Value>,
    /// The search hit of the scan that saw the change.
    pub hit: Value,
    pub at_ms: i64,
}

/// A notification that was created, kept for the notifications data source.
#[derive(Debug, Clone)]
pub struct Stored {
    pub owner: String,
    pub team: Option<String>,
    pub created_ms: i64,
    /// The payload (see the README).
    pub payload: Value,
}

/// The event state of the emulator (guarded by `AppState::events`).
#[derive(Debug, Default)]
pub struct Events {
    /// Changes seen by incidents, not yet queued for their channels.
    pub incident_changes: Vec<IncidentChange>,
    /// Every notification created, oldest first.
    pub notifications: Vec<Stored>,
    /// Delivered e-mails, oldest first: `{"to", "subject", "notification", "at"}`.
    pub outbox: Vec<Value>,
    /// Every webhook attempt, oldest first:
    /// `{"url", "status", "error", "attempt", "notification", "at"}`.
    pub deliveries: Vec<Value>,
    pub(crate) engine: Engine,
}

impl Events {
    /// Incidents opened by subscriptions: (subscription id, incident id), oldest first.
    pub fn opened_incidents(&self) -> &[(String, String)] {
        &self.engine.opened
    }
}

/// What the notification engine keeps between ticks.
#[derive(Debug, Default)]
pub(crate) struct Engine {
    /// Submitted scans not finished yet: (finish ms, uuid).
    pub(crate) unfinished: Vec<(i64, String)>,
    /// Hostnames in each owner's searchable scans, for hostnames searches;
    /// filled the first time the owner has such a subscription.
    pub(crate) hosts_seen: HashMap<String, HashSet<String>>,
    /// Matched items and incident changes waiting for their batch.
    pub(crate) queues: Vec<Queue>,
    /// Webhook notifications not yet delivered or given up.
    pub(crate) webhooks: Vec<Webhook>,
    /// Incidents opened by subscriptions: (subscription id, incident id).
    pub(crate) opened: Vec<(String, String)>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Target {
    Channel(String),
    /// The subscription's own `emailAddresses`.
    Email,
}

/// What made the items of a queue.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Source {
    /// The matches of one subscription (its id).
    Subscription(String),
    /// The changes of every incident that names the target channel.
    Incidents,
}

/// Items waiting for the next batch of one target: a subscription's
/// matches of one data source, or the incident changes for one channel.
/// When a queue's items are due is one rule for both (`events::due_until`).
#[derive(Debug)]
pub(crate) struct Queue {
    pub(crate) source: Source,
    pub(crate) target: Target,
    /// `scans` for incident changes.
    pub(crate) datasource: &'static str,
    pub(crate) items: Vec<Queued>,
}

#[derive(Debug, Clone)]
pub(crate) enum Queued {
    Match(Matched),
    Change(IncidentChange),
}

impl Queued {
    /// When it matched or changed: it goes out in the first batch at or after.
    pub(crate) fn at_ms(&self) -> i64 {
        match self {
            Queued::Match(m) => m.at_ms,
            Queued::Change(c) => c.at_ms,
        }
    }
}

/// An item a subscription matched.
#[derive(Debug, Clone)]
pub(crate) struct Matched {
    /// When the item matched (the scan's finish time).
    pub(crate) at_ms: i64,
    /// The hit's sort key: (epoch ms, id).
    pub(crate) sort: (i64, String),
    pub(crate) hit: Value,
    pub(crate) searches: Vec<String>,
}

#[derive(Debug)]
pub(crate) struct Webhook {
    pub(crate) id: String,
    pub(crate) channel: String,
    pub(crate) payload: Value,
    /// Attempts started so far.
    pub(crate) attempts: u32,
    /// When the next attempt is due; `None` while one runs.
    pub(crate) due_ms: Option<i64>,
}
