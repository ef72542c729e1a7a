//! The rate-limit actions the service counts calls against (its
//! `X-Rate-Limit-Action`), which the client paces them as: these for the
//! calls written by hand, and a table row's own in `Endpoint::action`.
//! `request()` finds either for any path (`request::action_of`).

/// Search, structure search and the phish feed.
pub const SEARCH: &str = "search";
/// A scan's result.
pub const RETRIEVE: &str = "retrieve";
/// Live scans (tasked or run).
pub const LIVESCAN: &str = "livescan";

/// A submission counts against the visibility it asks for ("public" by default).
pub fn scan(visibility: Option<&str>) -> String {
    visibility.map_or_else(|| "public".into(), str::to_ascii_lowercase)
}
