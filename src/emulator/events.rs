//! Notifications: subscriptions and incidents alert their channels and
//! e-mail addresses (the specification's "Events"). The payload format is
//! this project's own, documented in the README.
//!
//! Lock order: `AppState::premium`, then `AppState::store`, then
//! `AppState::events`; never the reverse.
use serde_json::Value;

/// A watched attribute of an incident changed between two observations;
/// queued by the incident clock, turned into notifications by this module.
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
    /// Changes seen by incidents, not yet turned into notifications.
    pub incident_changes: Vec<IncidentChange>,
    /// Every notification created, oldest first.
    pub notifications: Vec<Stored>,
    /// Delivered e-mails, oldest first: `{"to", "subject", "notification", "at"}`.
    pub outbox: Vec<Value>,
    /// Every webhook attempt, oldest first:
    /// `{"url", "status", "error", "attempt", "notification", "at"}`.
    pub deliveries: Vec<Value>,
}
