//! Messages for a name that is not one of the known ones (settings, fault
//! kinds, endpoint groups, rate-limit actions), shared by the modules that
//! check them.

/// Finds the known name a misspelt one most likely meant, for a "did you
/// mean" (the client's `fields::closest`: the emulator does not depend on
/// the client).
pub type Closest = fn(&str, &[&'static str]) -> Option<&'static str>;

/// No suggestion (where the client's matcher is not at hand).
pub fn no_suggestion(_: &str, _: &[&'static str]) -> Option<&'static str> {
    None
}

/// The message for a name that is not one of `known`.
pub fn unknown_name(what: &str, given: &str, known: &[&'static str], closest: Closest) -> String {
    let hint = closest(given, known)
        .map(|n| format!("; did you mean {n:?}?"))
        .unwrap_or_default();
    format!(
        "unknown {what} {:?}{hint} (one of {})",
        urlscan_rules::shown(given, 40),
        known.join(", ")
    )
}
