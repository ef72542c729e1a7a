//! Sending requests, in layers, one module each: `base` (the request, the
//! answer and the shared state), `send` (one call: key checks, the cache, an
//! attempt on the wire), `retry` (what is retried and when), `pacing` and
//! `limits` (the service's rate-limit windows and each server's clock),
//! `answer` (non-2xx answers as typed errors), `body` (bounded reads),
//! `wire` (transport failures in words) and `told` (what observers hear).
//! The modules name one another downwards only: `base` names none of the
//! layers that send through it.
mod answer;
mod base;
mod body;
mod limits;
mod pacing;
mod retry;
mod send;
mod told;
mod wire;

pub use answer::{api_error, says_invalid_key, says_scan_refused};
pub use base::{anonymous_ok, Check, RawCell, Req, Resp, Transport, ANONYMOUS_PATHS, RAW_RESPONSE};
pub use limits::{parse_rate_limit, server_clock_moved};
pub use wire::describe_body_error;

#[cfg(test)]
mod tests {
    use bytes::Bytes;
    use reqwest::header::HeaderMap;
    use reqwest::Method;

    use super::*;
    use crate::error::{ApiErrorKind, Error};

    fn answer(status: u16, body: &str) -> Resp {
        Resp {
            status,
            headers: HeaderMap::new(),
            body: Bytes::from(body.to_string()),
        }
    }

    fn kind(req: &Req, status: u16, body: &str) -> ApiErrorKind {
        api_error(req, &answer(status, body))
            .api_kind()
            .cloned()
            .unwrap()
    }

    #[test]
    fn errors_follow_what_the_service_says() {
        let scan = Req::new(Method::POST, "/api/v1/scan/");
        let get = Req::get("/api/v1/quotas");
        let bad_key = r#"{"message":"Invalid API key format","status":400}"#;
        assert_eq!(kind(&scan, 400, bad_key), ApiErrorKind::Authentication);
        assert_eq!(kind(&get, 400, bad_key), ApiErrorKind::Authentication);
        assert_eq!(
            kind(&get, 401, r#"{"message":"whatever"}"#),
            ApiErrorKind::Authentication
        );
        let dns = r#"{"message":"DNS Error - Could not resolve domain","status":400}"#;
        assert_eq!(kind(&scan, 400, dns), ApiErrorKind::ScanRefused);
        let blocked =
            r#"{"message":"Scan prevented ...","description":"on our blacklist","status":400}"#;
        assert_eq!(kind(&scan, 400, blocked), ApiErrorKind::ScanRefused);
        // Any other 400 of a submission is a bad request, not a refusal.
        assert_eq!(
            kind(&scan, 400, r#"{"message":"Something else","status":400}"#),
            ApiErrorKind::BadRequest
        );
        assert_eq!(kind(&scan, 400, "oops"), ApiErrorKind::BadRequest);
        assert_eq!(kind(&get, 400, dns), ApiErrorKind::BadRequest);
    }

    #[test]
    fn which_paths_need_a_key() {
        assert!(anonymous_ok("/api/v1/search/"));
        assert!(anonymous_ok("/screenshots/x.png"));
        assert!(!anonymous_ok("/api/v1/scan/"));
        assert!(!anonymous_ok("/api/v1/result/x/"));
        assert!(!anonymous_ok("/api/v1/quotas"));
    }

    #[test]
    fn a_post_is_sent_again_only_when_it_never_reached_the_service() {
        let (post, get) = (
            Req::new(Method::POST, "/api/v1/scan/"),
            Req::get("/api/v1/quotas"),
        );
        let refused = Error::Connect("connection refused".into());
        // The kind decides, not the words: a message that begins "connect" is not a refusal.
        let reset = Error::Transport("connection reset by peer".into());
        let timeout = Error::Timeout("no answer".into());
        assert!(retry::retry_delay_for_error(&post, &refused, 0).is_some());
        for e in [&reset, &timeout] {
            assert!(retry::retry_delay_for_error(&post, e, 0).is_none(), "{e}");
            assert!(retry::retry_delay_for_error(&get, e, 0).is_some(), "{e}");
        }
        assert_eq!(told::failure_kind(&refused), "connect");
        assert_eq!(told::failure_kind(&reset), "transport");
        assert_eq!(
            refused.to_string(),
            "transport error: connect: connection refused"
        );
    }
}
