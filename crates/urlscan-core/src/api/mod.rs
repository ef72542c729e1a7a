//! The endpoints, one file per area of the interface.
pub mod account;
pub mod actions;
pub mod batch;
pub mod brands;
pub mod call;
pub mod channels;
pub mod datadumps;
pub mod endpoints;
pub mod files;
pub mod hostnames;
pub mod incidents;
pub mod livescan;
pub mod lookup;
pub mod malicious;
pub mod request;
pub mod saved_searches;
pub mod scanning;
pub mod search;
pub mod subscriptions;

pub use batch::{Progress, ScanOutcome};
pub use lookup::Lookup;
pub use scanning::{ScanOptions, WaitOptions};
pub use search::{SearchKind, SearchParams};
