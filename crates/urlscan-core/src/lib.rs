//! The pure Rust client: no Python in here, usable and testable from Rust.
pub mod accept;
pub mod api;
pub mod cache;
pub mod client;
pub mod config;
pub mod disk;
pub mod error;
pub mod fields;
pub mod models;
pub mod observe;
pub mod paginate;
pub mod record;
mod recycle;
pub mod redact;
pub mod runtime;
pub mod transport;
pub mod validate;

pub use client::Client;
pub use config::Config;
pub use error::{ApiError, ApiErrorKind, Error, RateLimitInfo, Result};
