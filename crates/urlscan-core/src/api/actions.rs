//! The rate-limit actions the service counts calls against (its
//! `X-Rate-Limit-Action`), named where more than one row uses them; each
//! row's is its `Endpoint::action` (`request()` finds it for any path).

/// A submission that names no visibility (each visibility is its own action).
pub const PUBLIC: &str = "public";
/// Search, structure search and the phish feed.
pub const SEARCH: &str = "search";
/// A scan's result.
pub const RETRIEVE: &str = "retrieve";
/// Live scans (tasked or run).
pub const LIVESCAN: &str = "livescan";
