//! The endpoints, one file per area of the interface.
pub mod account;
pub mod batch;
pub mod scanning;
pub mod search;

pub use batch::{Progress, ScanOutcome};
pub use scanning::{ScanOptions, WaitOptions};
pub use search::{SearchKind, SearchParams};
