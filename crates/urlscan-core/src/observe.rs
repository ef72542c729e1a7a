//! What an observer of the client is told about every request: each attempt
//! as it is sent, and each answer. The Python `event_hooks` are one such
//! observer. The API key is never in what it sees, and an observer cannot
//! change what a call does.
use std::fmt;
use std::time::Duration;

pub use reqwest::header::HeaderMap;

/// One attempt of a request, about to be sent.
pub struct Sent<'a> {
    pub method: &'a str,
    /// The whole URL, query included.
    pub url: &'a str,
    /// The request's own headers, without the `API-Key` header (the HTTP
    /// client adds `User-Agent` and the transport headers when it sends).
    pub headers: &'a HeaderMap,
    /// 0 for the first attempt, then 1, 2, ... for each retry or wait.
    pub attempt: u32,
    /// The rate-limit action the request is paced as, if any.
    pub action: Option<&'a str>,
    /// The endpoint's path template (`/api/v1/result/{0}/`), when it came
    /// from a row: the route without ids.
    pub template: Option<&'static str>,
}

/// The answer to one attempt: its status and headers (its body was read).
pub struct Answered<'a> {
    pub sent: &'a Sent<'a>,
    pub status: u16,
    pub headers: &'a HeaderMap,
    /// From sending the request to the end of its body.
    pub elapsed: Duration,
}

/// Told of every attempt and every answer, on the client's I/O thread.
pub trait Observer: Send + Sync + fmt::Debug {
    fn sent(&self, e: &Sent<'_>);
    fn answered(&self, e: &Answered<'_>);
}
