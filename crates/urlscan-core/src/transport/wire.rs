//! Transport failures in words (never with the API key, nor a temporary
//! link's signature).

use crate::error::Error;

pub(super) fn map_reqwest_error(e: reqwest::Error) -> Error {
    // reqwest's Display holds the URL but never headers, so the key cannot leak.
    if e.is_builder() {
        // Nothing was sent, and sending again cannot help: the request
        // cannot be made (e.g. a path past the longest URI the HTTP stack
        // takes). Said without the URL, which may be megabytes long.
        let why = error_chain(&e.without_url());
        return Error::Validation(format!(
            "the request cannot be made: {} (not sent)",
            urlscan_rules::shown(&why, 200)
        ));
    }
    let msg = error_chain(&e);
    if e.is_timeout() {
        Error::Timeout(msg)
    } else if e.is_connect() {
        Error::Connect(msg)
    } else {
        Error::Transport(msg)
    }
}

/// Why a body stopped arriving, without the address (a temporary link may
/// carry a signature): a stall says how long nothing came.
pub fn describe_body_error(e: reqwest::Error) -> String {
    if e.is_timeout() {
        "no byte arrived for the client's timeout (a stall)".to_string()
    } else {
        error_chain(&e.without_url())
    }
}

pub(super) fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cur = c.source();
    }
    s
}
