//! Fault injection: a scriptable plan of failures the emulator applies to
//! matching requests before (or around) the normal handlers, to test how a
//! client copes with a misbehaving service or network.
//!
//! A fault matches a request when the path starts with its `path` and the
//! method equals its `method` (either may be left open). Among the queued
//! faults the first that matches *and* selects the request applies; `every`
//! and `probability` decide the selection, `count` how many requests a fault
//! affects before it leaves the plan (`None`: until cleared).
use axum::http::{HeaderValue, Method};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::names::{unknown_name, Closest};

/// What a fault does to a request it affects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultKind {
    /// An error status with the service's JSON envelope; the handler does not run.
    Status,
    /// A 429 with the full `X-Rate-Limit-*` headers; the handler does not run.
    RateLimit,
    /// The connection is dropped without an answer.
    Reset,
    /// A pause of `seconds` before the handler runs.
    Stall,
    /// The handler's answer, its body streamed over `seconds`.
    Slow,
    /// The handler's answer, cut after half of its body (the connection then closes).
    Truncate,
    /// 200 `application/json` with a body that is not JSON.
    Malformed,
    /// An error status with an HTML page as body, like a proxy's.
    HtmlError,
    /// A redirect to `location`.
    Redirect,
}

impl FaultKind {
    pub const ALL: [FaultKind; 9] = [
        FaultKind::Status,
        FaultKind::RateLimit,
        FaultKind::Reset,
        FaultKind::Stall,
        FaultKind::Slow,
        FaultKind::Truncate,
        FaultKind::Malformed,
        FaultKind::HtmlError,
        FaultKind::Redirect,
    ];

    pub fn name(self) -> &'static str {
        match self {
            FaultKind::Status => "status",
            FaultKind::RateLimit => "rate_limit",
            FaultKind::Reset => "reset",
            FaultKind::Stall => "stall",
            FaultKind::Slow => "slow",
            FaultKind::Truncate => "truncate",
            FaultKind::Malformed => "malformed",
            FaultKind::HtmlError => "html_error",
            FaultKind::Redirect => "redirect",
        }
    }

    pub fn parse(s: &str) -> Result<FaultKind, String> {
        FaultKind::parse_with(s, |_, _| None)
    }

    /// `parse`, with `closest` suggesting the kind a misspelt one most likely meant.
    pub fn parse_with(s: &str, closest: Closest) -> Result<FaultKind, String> {
        FaultKind::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| {
                let names = FaultKind::ALL.map(FaultKind::name);
                unknown_name("fault kind", s, &names, closest)
            })
    }
}

/// One fault of the plan, as the user describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct FaultSpec {
    pub kind: FaultKind,
    /// How many requests it affects; `None` until cleared.
    pub count: Option<u64>,
    /// Path prefix; `None` matches any path.
    pub path: Option<String>,
    /// HTTP method; `None` matches any method.
    pub method: Option<String>,
    pub status: Option<u16>,
    pub seconds: Option<f64>,
    /// Affect every Nth matching request.
    pub every: Option<u64>,
    /// Affect a pseudo-random fraction of matching requests (seeded by `seed`).
    pub probability: Option<f64>,
    pub location: Option<String>,
    pub seed: Option<u64>,
}

/// Longest pause a fault may ask for (a day).
const MAX_SECONDS: f64 = 86_400.0;

impl FaultSpec {
    /// A fault of this kind affecting one request of any path and method.
    pub fn new(kind: FaultKind) -> FaultSpec {
        FaultSpec {
            kind,
            count: Some(1),
            path: None,
            method: None,
            status: None,
            seconds: None,
            every: None,
            probability: None,
            location: None,
            seed: None,
        }
    }

    /// Check the options against the kind and fill in defaults.
    fn checked(mut self) -> Result<FaultSpec, String> {
        use FaultKind as K;
        let kind = self.kind.name();
        if self.count == Some(0) {
            return Err("count must be 1 or more (or None for unlimited)".into());
        }
        if self.every == Some(0) {
            return Err("every must be 1 or more".into());
        }
        if let Some(p) = self.probability {
            if !(0.0..=1.0).contains(&p) {
                return Err(format!("probability must be between 0 and 1, got {p}"));
            }
        }
        if let Some(p) = &self.path {
            if !p.starts_with('/') {
                return Err(format!("path must start with '/', got {p:?}"));
            }
        }
        if let Some(m) = self.method.take() {
            let m = m.trim().to_ascii_uppercase();
            if Method::from_bytes(m.as_bytes()).is_err() || m.is_empty() {
                return Err(format!("invalid HTTP method {m:?}"));
            }
            self.method = Some(m);
        }
        match self.seconds {
            Some(s) if !(s.is_finite() && (0.0..=MAX_SECONDS).contains(&s)) => {
                return Err(format!(
                    "seconds must be between 0 and {MAX_SECONDS}, got {s}"
                ))
            }
            None if matches!(self.kind, K::Stall | K::Slow) => {
                return Err(format!("a {kind:?} fault needs seconds"))
            }
            Some(_)
                if !matches!(
                    self.kind,
                    K::Status | K::RateLimit | K::Stall | K::Slow | K::HtmlError
                ) =>
            {
                return Err(format!("a {kind:?} fault takes no seconds"))
            }
            _ => {}
        }
        let (default, range) = match self.kind {
            K::Status => (500, 400..=599),
            K::HtmlError => (502, 400..=599),
            K::Redirect => (302, 300..=399),
            _ => {
                if self.status.is_some() {
                    return Err(format!("a {kind:?} fault takes no status"));
                }
                (0, 0..=0)
            }
        };
        if default != 0 {
            let s = *self.status.get_or_insert(default);
            if !range.contains(&s) {
                return Err(format!(
                    "a {kind:?} fault's status must be {}-{}, got {s}",
                    range.start(),
                    range.end()
                ));
            }
        }
        match (&self.location, self.kind) {
            (None, K::Redirect) => return Err("a \"redirect\" fault needs a location".into()),
            (Some(l), K::Redirect) if HeaderValue::from_str(l).is_err() || l.is_empty() => {
                return Err(format!("invalid location {l:?}"))
            }
            (Some(_), k) if k != K::Redirect => {
                return Err(format!("a {kind:?} fault takes no location"))
            }
            _ => {}
        }
        Ok(self)
    }

    fn matches(&self, method: &str, path: &str) -> bool {
        self.path.as_deref().is_none_or(|p| path.starts_with(p))
            && self.method.as_deref().is_none_or(|m| m == method)
    }
}

#[derive(Debug)]
struct Queued {
    spec: FaultSpec,
    /// Requests it will still affect; `None` without end.
    left: Option<u64>,
    /// Matching requests seen so far (for `every`).
    seen: u64,
    rng: ChaCha8Rng,
}

/// The queued faults, and how many requests they affected.
#[derive(Debug, Default)]
pub struct FaultPlan {
    queue: Vec<Queued>,
    affected: u64,
}

impl FaultPlan {
    /// Queue a fault behind the others.
    pub fn push(&mut self, spec: FaultSpec) -> Result<(), String> {
        let spec = spec.checked()?;
        self.queue.push(Queued {
            left: spec.count,
            seen: 0,
            rng: ChaCha8Rng::seed_from_u64(spec.seed.unwrap_or(0)),
            spec,
        });
        Ok(())
    }

    /// Drop every queued fault (the count of affected requests stays).
    pub fn clear(&mut self) {
        self.queue.clear();
    }

    /// How many more requests the plan will affect: the sum of the faults'
    /// counts left, an unlimited fault counting as one. 0: the plan is spent.
    pub fn remaining(&self) -> u64 {
        self.queue.iter().map(|q| q.left.unwrap_or(1)).sum()
    }

    /// Requests affected by a fault so far.
    pub fn affected(&self) -> u64 {
        self.affected
    }

    /// The fault to apply to this request, if any; counts it as used.
    pub fn next(&mut self, method: &str, path: &str) -> Option<FaultSpec> {
        let i = self.queue.iter_mut().position(|q| {
            if !q.spec.matches(method, path) {
                return false;
            }
            q.seen += 1;
            if q.spec.every.is_some_and(|n| q.seen % n != 0) {
                return false;
            }
            match q.spec.probability {
                Some(p) => q.rng.random::<f64>() < p,
                None => true,
            }
        })?;
        self.affected += 1;
        let q = &mut self.queue[i];
        let spec = q.spec.clone();
        if let Some(n) = q.left.as_mut() {
            *n -= 1;
            if *n == 0 {
                self.queue.remove(i);
            }
        }
        Some(spec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(kind: FaultKind) -> FaultSpec {
        FaultSpec::new(kind)
    }

    #[test]
    fn path_prefix_and_method() {
        let mut plan = FaultPlan::default();
        plan.push(FaultSpec {
            path: Some("/api/v1/search".into()),
            method: Some("get".into()),
            count: None,
            ..spec(FaultKind::Status)
        })
        .unwrap();
        assert!(plan.next("GET", "/api/v1/quotas").is_none());
        assert!(plan.next("POST", "/api/v1/search/").is_none());
        let f = plan.next("GET", "/api/v1/search/").unwrap();
        assert_eq!((f.kind, f.status), (FaultKind::Status, Some(500)));
        assert!(plan.next("GET", "/api/v1/search?q=x").is_some());
        assert_eq!(plan.affected(), 2);
        // unlimited: stays until cleared
        assert_eq!(plan.remaining(), 1);
        plan.clear();
        assert_eq!(plan.remaining(), 0);
        assert!(plan.next("GET", "/api/v1/search").is_none());
        assert_eq!(plan.affected(), 2);
    }

    #[test]
    fn count_then_the_next_fault() {
        let mut plan = FaultPlan::default();
        plan.push(FaultSpec {
            count: Some(2),
            ..spec(FaultKind::Reset)
        })
        .unwrap();
        plan.push(spec(FaultKind::Malformed)).unwrap();
        assert_eq!(plan.remaining(), 3);
        let kinds: Vec<_> = (0..4)
            .map(|_| plan.next("GET", "/x").map(|f| f.kind))
            .collect();
        assert_eq!(
            kinds,
            [
                Some(FaultKind::Reset),
                Some(FaultKind::Reset),
                Some(FaultKind::Malformed),
                None
            ]
        );
        assert_eq!((plan.remaining(), plan.affected()), (0, 3));
    }

    #[test]
    fn every_nth_matching_request() {
        let mut plan = FaultPlan::default();
        plan.push(FaultSpec {
            every: Some(3),
            count: Some(2),
            path: Some("/api/v1/result/".into()),
            ..spec(FaultKind::Stall)
        })
        .unwrap_err(); // a stall needs seconds
        plan.push(FaultSpec {
            every: Some(3),
            count: Some(2),
            path: Some("/api/v1/result/".into()),
            ..spec(FaultKind::Truncate)
        })
        .unwrap();
        let hits: Vec<bool> = (0..10)
            .map(|i| {
                // requests to other paths do not advance the counter
                assert!(plan.next("GET", "/api/v1/search").is_none());
                plan.next("GET", &format!("/api/v1/result/{i}/")).is_some()
            })
            .collect();
        let at: Vec<usize> = (0..10).filter(|&i| hits[i]).collect();
        assert_eq!(at, [2, 5]); // the 3rd and 6th, then the count is spent
    }

    #[test]
    fn a_skipping_fault_lets_the_next_one_apply() {
        let mut plan = FaultPlan::default();
        plan.push(FaultSpec {
            every: Some(2),
            count: None,
            ..spec(FaultKind::Reset)
        })
        .unwrap();
        plan.push(FaultSpec {
            count: None,
            ..spec(FaultKind::Malformed)
        })
        .unwrap();
        let kinds: Vec<_> = (0..4)
            .map(|_| plan.next("GET", "/").unwrap().kind)
            .collect();
        use FaultKind::*;
        assert_eq!(kinds, [Malformed, Reset, Malformed, Reset]);
    }

    #[test]
    fn probability_is_deterministic_per_seed() {
        let run = |seed| {
            let mut plan = FaultPlan::default();
            plan.push(FaultSpec {
                probability: Some(0.3),
                seed: Some(seed),
                count: None,
                ..spec(FaultKind::Malformed)
            })
            .unwrap();
            (0..1000)
                .map(|_| plan.next("GET", "/").is_some())
                .collect::<Vec<_>>()
        };
        assert_eq!(run(7), run(7));
        assert_ne!(run(7), run(8));
        let n = run(7).iter().filter(|b| **b).count();
        assert!((200..400).contains(&n), "{n}");
    }

    #[test]
    fn options_are_checked() {
        let with = |kind, set: fn(&mut FaultSpec)| {
            let mut s = spec(kind);
            set(&mut s);
            s
        };
        let bad = [
            with(FaultKind::Reset, |s| s.count = Some(0)),
            with(FaultKind::Reset, |s| s.every = Some(0)),
            with(FaultKind::Reset, |s| s.probability = Some(1.5)),
            with(FaultKind::Reset, |s| s.path = Some("api".into())),
            with(FaultKind::Status, |s| s.status = Some(200)),
            with(FaultKind::Reset, |s| s.status = Some(500)),
            spec(FaultKind::Redirect),
            with(FaultKind::Status, |s| s.location = Some("http://x".into())),
            with(FaultKind::Stall, |s| s.seconds = Some(-1.0)),
            with(FaultKind::Truncate, |s| s.seconds = Some(1.0)),
            with(FaultKind::Reset, |s| s.method = Some("GE T".into())),
        ];
        for s in bad {
            assert!(FaultPlan::default().push(s.clone()).is_err(), "{s:?}");
        }
        assert_eq!(FaultKind::parse("html_error"), Ok(FaultKind::HtmlError));
        assert!(FaultKind::parse("explode").is_err());
        assert_eq!(
            FaultKind::parse_with("stal", |_, names| names.iter().copied().find(|n| *n == "stall")),
            Err("unknown fault kind \"stal\"; did you mean \"stall\"? (one of status, rate_limit, reset, stall, slow, truncate, malformed, html_error, redirect)".into())
        );
    }
}
