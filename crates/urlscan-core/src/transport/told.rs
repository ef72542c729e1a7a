//! What observers and the log are told of attempts and waits.
use std::time::{Duration, Instant};

use reqwest::header::HeaderMap;

use crate::error::Error;
use crate::observe::Observer;

/// Waits this long or longer are worth telling a user about (they look like a hang).
pub(super) const NOTABLE_WAIT: Duration = Duration::from_secs(5);

/// Waits for a slot shorter than this are not told to observers: requests
/// sent together wait a few milliseconds for the first answer of a window
/// whose count is unknown, which is not worth an event each.
pub(super) const TOLD_WAIT: Duration = Duration::from_millis(10);

/// One attempt as its observers were told of it: a failure, or the attempt
/// dropped before its end (the call cancelled), is told once.
pub(super) struct Told<'a> {
    pub(super) observers: &'a [&'a dyn Observer],
    pub(super) sent: Option<&'a crate::observe::Sent<'a>>,
    pub(super) tokens: Vec<Option<crate::observe::Token>>,
    pub(super) started: Instant,
}

impl Told<'_> {
    pub(super) fn answered(&mut self, status: u16, headers: &HeaderMap) {
        let Some(sent) = self.sent.take() else {
            return;
        };
        let tokens = std::mem::take(&mut self.tokens);
        for (o, token) in self.observers.iter().zip(tokens) {
            let e = crate::observe::Answered {
                sent,
                status,
                headers,
                elapsed: self.started.elapsed(),
            };
            o.answered(&e, token);
        }
    }

    pub(super) fn failed(&mut self, kind: &str, message: &str) {
        let Some(sent) = self.sent.take() else {
            return;
        };
        let tokens = std::mem::take(&mut self.tokens);
        for (o, token) in self.observers.iter().zip(tokens) {
            let e = crate::observe::Failed {
                sent,
                kind,
                message,
                elapsed: self.started.elapsed(),
            };
            o.failed(&e, token);
        }
    }
}

impl Drop for Told<'_> {
    fn drop(&mut self) {
        self.failed("cancelled", "the call was dropped before the answer came");
    }
}

/// A failed attempt's kind, in a word (an observer's `error.type`).
pub(super) fn failure_kind(e: &Error) -> &'static str {
    match e {
        Error::Timeout(_) => "timeout",
        Error::Connect(_) => "connect",
        Error::Transport(_) => "transport",
        Error::Decode(_) => "decode",
        Error::Validation(_) => "validation",
        Error::Closed => "closed",
        _ => "other",
    }
}

pub(super) fn log_wait(delay: Duration, msg: std::fmt::Arguments<'_>) {
    if delay > NOTABLE_WAIT {
        log::warn!("{msg}");
    } else {
        log::info!("{msg}");
    }
}
