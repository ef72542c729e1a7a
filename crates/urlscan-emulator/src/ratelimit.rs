//! Fixed-window rate limits per subject and action, as the service documents
//! them: minute, hour and day windows on the emulator clock; only HTTP 200
//! answers count; the headers report the window closest to being exceeded.
use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde::Serialize;

/// The service's windows. Tests may add short ones ("2s", "10s") so that
/// pacing can be exercised in seconds.
pub const WINDOWS: [(&str, i64); 3] =
    [("minute", 60_000), ("hour", 3_600_000), ("day", 86_400_000)];

/// Length in milliseconds of a window name: minute, hour, day or `<N>s`.
pub fn window_len(name: &str) -> Option<i64> {
    if let Some((_, len)) = WINDOWS.iter().find(|(w, _)| *w == name) {
        return Some(*len);
    }
    let secs: f64 = name.strip_suffix('s')?.parse().ok()?;
    (0.1..=86_400.0)
        .contains(&secs)
        .then(|| (secs * 1000.0).round() as i64)
}

/// Limits of one action: per window, `None` meaning unlimited.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Limits {
    windows: Vec<(String, i64, Option<u64>)>,
}

impl Limits {
    pub fn new(minute: u64, hour: u64, day: u64) -> Limits {
        let mut l = Limits::default();
        for (w, n) in [("minute", minute), ("hour", hour), ("day", day)] {
            l.set(w, Some(n)).expect("known window");
        }
        l
    }
    /// Set one window's limit; the name is minute, hour, day or `<N>s`.
    pub fn set(&mut self, window: &str, limit: Option<u64>) -> Result<(), String> {
        let len = window_len(window).ok_or_else(|| {
            format!("rate limit windows are minute, hour, day or a number of seconds like \"10s\", got {window:?}")
        })?;
        match self.windows.iter_mut().find(|(w, _, _)| w == window) {
            Some(e) => e.2 = limit,
            None => self.windows.push((window.to_string(), len, limit)),
        }
        self.windows.sort_by_key(|(_, len, _)| *len);
        Ok(())
    }
    pub fn get(&self, window: &str) -> Option<u64> {
        self.windows
            .iter()
            .find(|(w, _, _)| w == window)
            .and_then(|(_, _, n)| *n)
    }
    /// (name, length ms, limit) of every window with a limit.
    fn limited(&self) -> impl Iterator<Item = (&str, i64, u64)> + '_ {
        self.windows
            .iter()
            .filter_map(|(w, len, n)| n.map(|n| (w.as_str(), *len, n)))
    }
}

/// The actions the service limits, with the emulator's default quotas for a
/// user key per minute, hour and day (anonymous callers get a tenth).
const DEFAULT_QUOTAS: [(&str, [u64; 3]); 6] = [
    ("public", [500, 5_000, 50_000]),
    ("unlisted", [500, 5_000, 50_000]),
    ("private", [500, 5_000, 50_000]),
    ("retrieve", [5_000, 50_000, 500_000]),
    ("search", [5_000, 50_000, 500_000]),
    ("livescan", [100, 1_000, 10_000]),
];

/// Searches a day for a caller without a key, per IP address: what third
/// parties observed of the service (the reference: "500 searches per day for
/// anonymous callers"). Other anonymous windows are a tenth of a key's.
pub const ANONYMOUS_SEARCHES_PER_DAY: u64 = 500;

/// The actions the service limits: the names `EmulatorConfig::rate_limits` takes.
pub const ACTIONS: [&str; DEFAULT_QUOTAS.len()] = {
    let mut names = [""; DEFAULT_QUOTAS.len()];
    let mut i = 0;
    while i < names.len() {
        names[i] = DEFAULT_QUOTAS[i].0;
        i += 1;
    }
    names
};

/// Every action with its default quotas.
pub fn default_limits() -> HashMap<String, Limits> {
    DEFAULT_QUOTAS
        .into_iter()
        .map(|(k, [m, h, d])| (k.to_string(), Limits::new(m, h, d)))
        .collect()
}

/// What goes into the X-Rate-Limit-* headers.
#[derive(Debug, Clone)]
pub struct Snapshot {
    pub scope: String,
    pub action: String,
    pub window: String,
    pub limit: u64,
    pub remaining: u64,
    pub reset_ms: i64,
    pub reset_after_s: i64,
}

impl Snapshot {
    pub fn headers(&self) -> Vec<(&'static str, String)> {
        vec![
            ("x-rate-limit-scope", self.scope.clone()),
            ("x-rate-limit-action", self.action.clone()),
            ("x-rate-limit-window", self.window.clone()),
            ("x-rate-limit-limit", self.limit.to_string()),
            ("x-rate-limit-remaining", self.remaining.to_string()),
            ("x-rate-limit-reset", iso_ms(self.reset_ms)),
            ("x-rate-limit-reset-after", self.reset_after_s.to_string()),
        ]
    }
}

pub fn iso_ms(ms: i64) -> String {
    DateTime::<Utc>::from_timestamp_millis(ms)
        .unwrap_or_default()
        .format("%Y-%m-%dT%H:%M:%S%.3fZ")
        .to_string()
}

/// One window's use, as the quotas endpoint reports it.
#[derive(Debug, Clone, Serialize)]
pub struct WindowUse {
    pub limit: u64,
    pub used: u64,
    pub remaining: u64,
    pub percent: f64,
    pub reset: String,
}

#[derive(Debug, Default)]
pub struct RateLimiter {
    pub limits: HashMap<String, Limits>,
    /// (subject, action, window) -> (window start ms, count)
    used: HashMap<(String, String, String), (i64, u64)>,
}

impl RateLimiter {
    pub fn new(limits: HashMap<String, Limits>) -> RateLimiter {
        RateLimiter {
            limits,
            used: HashMap::new(),
        }
    }

    fn limits_for(&self, action: &str, anonymous: bool) -> Limits {
        let mut l = self.limits.get(action).cloned().unwrap_or_default();
        if anonymous {
            for w in &mut l.windows {
                w.2 = w.2.map(|n| (n / 10).max(1));
                if action == "search" && w.0 == "day" {
                    w.2 = w.2.map(|n| n.min(ANONYMOUS_SEARCHES_PER_DAY));
                }
            }
        }
        l
    }

    fn count(&self, subject: &str, action: &str, window: &str, start: i64) -> u64 {
        match self
            .used
            .get(&(subject.to_string(), action.to_string(), window.to_string()))
        {
            Some((s, n)) if *s == start => *n,
            _ => 0,
        }
    }

    /// Every limited window of an action as it stands at `now`.
    fn windows_at(
        &self,
        subject: &str,
        action: &str,
        anonymous: bool,
        now: i64,
    ) -> Vec<CurrentWindow> {
        self.limits_for(action, anonymous)
            .limited()
            .map(|(w, len, limit)| {
                let start = now - now.rem_euclid(len);
                CurrentWindow {
                    name: w.to_string(),
                    limit,
                    used: self.count(subject, action, w, start),
                    reset_ms: start + len,
                }
            })
            .collect()
    }

    /// Use of every window of an action (windows without a limit are left out).
    pub fn usage(
        &self,
        subject: &str,
        action: &str,
        anonymous: bool,
        now: i64,
    ) -> Vec<(String, WindowUse)> {
        self.windows_at(subject, action, anonymous, now)
            .into_iter()
            .map(|w| {
                let use_ = WindowUse {
                    limit: w.limit,
                    used: w.used,
                    remaining: w.limit.saturating_sub(w.used),
                    percent: if w.limit == 0 {
                        100.0
                    } else {
                        (w.used as f64 * 100.0 / w.limit as f64 * 100.0).round() / 100.0
                    },
                    reset: iso_ms(w.reset_ms),
                };
                (w.name, use_)
            })
            .collect()
    }

    /// The window closest to being exceeded (fewest remaining).
    pub fn snapshot(
        &self,
        subject: &str,
        action: &str,
        anonymous: bool,
        now: i64,
    ) -> Option<Snapshot> {
        self.windows_at(subject, action, anonymous, now)
            .into_iter()
            .map(|w| Snapshot {
                scope: if anonymous { "ip-address" } else { "user" }.to_string(),
                action: action.to_string(),
                window: w.name,
                limit: w.limit,
                remaining: w.limit.saturating_sub(w.used),
                reset_ms: w.reset_ms,
                reset_after_s: ((w.reset_ms - now) as f64 / 1000.0).ceil() as i64,
            })
            .min_by_key(|s| (s.remaining, s.reset_ms))
    }

    /// Count one request in every window, or refuse it with the spent window's
    /// snapshot. Checking and counting under one lock keeps concurrent
    /// requests from overshooting; `refund` takes back one that did not end in 200.
    pub fn reserve(
        &mut self,
        subject: &str,
        action: &str,
        anonymous: bool,
        now: i64,
    ) -> Result<(), Snapshot> {
        if let Some(s) = self.snapshot(subject, action, anonymous, now) {
            if s.remaining == 0 {
                return Err(s);
            }
        }
        self.add(subject, action, now, 1);
        Ok(())
    }

    pub fn refund(&mut self, subject: &str, action: &str, now: i64) {
        self.add(subject, action, now, -1);
    }

    fn add(&mut self, subject: &str, action: &str, now: i64, n: i64) {
        let windows: Vec<(String, i64)> = self
            .limits
            .get(action)
            .map(|l| {
                l.windows
                    .iter()
                    .map(|(w, len, _)| (w.clone(), *len))
                    .collect()
            })
            .unwrap_or_default();
        for (w, len) in windows {
            let start = now - now.rem_euclid(len);
            let e = self
                .used
                .entry((subject.to_string(), action.to_string(), w))
                .or_insert((start, 0));
            if e.0 != start {
                *e = (start, 0);
            }
            e.1 = e.1.saturating_add_signed(n);
        }
    }
}

/// A limited window of an action at some time: its requests so far and when
/// it starts over.
struct CurrentWindow {
    name: String,
    limit: u64,
    used: u64,
    reset_ms: i64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_anonymous_caller_has_the_observed_500_searches_a_day() {
        let rl = RateLimiter::new(default_limits());
        let now = 1_700_000_000_000;
        let day = |anonymous| {
            rl.usage("ip:127.0.0.1", "search", anonymous, now)
                .into_iter()
                .find(|(w, _)| w == "day")
                .map(|(_, u)| u.limit)
        };
        assert_eq!(day(true), Some(ANONYMOUS_SEARCHES_PER_DAY));
        assert_eq!(day(false), Some(500_000));
    }

    #[test]
    fn the_actions_are_those_with_default_limits() {
        let mut defaults: Vec<String> = default_limits().into_keys().collect();
        defaults.sort();
        let mut actions = ACTIONS.map(String::from).to_vec();
        actions.sort();
        assert_eq!(defaults, actions);
    }

    #[test]
    fn windows_fill_and_reset() {
        let mut limits = HashMap::new();
        let mut l = Limits::default();
        l.set("minute", Some(2)).unwrap();
        l.set("hour", Some(100)).unwrap();
        limits.insert("search".to_string(), l);
        let mut rl = RateLimiter::new(limits);
        let t0 = 1_700_000_000_000 - 1_700_000_000_000 % 60_000 + 1_000;
        let s = rl.snapshot("u", "search", false, t0).unwrap();
        assert_eq!(
            (s.window.as_str(), s.remaining, s.reset_after_s),
            ("minute", 2, 59)
        );
        rl.reserve("u", "search", false, t0).unwrap();
        rl.reserve("u", "search", false, t0 + 10).unwrap();
        assert!(rl.reserve("u", "search", false, t0 + 15).is_err());
        rl.refund("u", "search", t0 + 16);
        rl.reserve("u", "search", false, t0 + 17).unwrap();
        assert_eq!(
            rl.snapshot("u", "search", false, t0 + 20)
                .unwrap()
                .remaining,
            0
        );
        // a new minute: the minute window is fresh, the hour keeps counting
        let s = rl.snapshot("u", "search", false, t0 + 60_000).unwrap();
        assert_eq!(s.remaining, 2);
        let usage = rl.usage("u", "search", false, t0 + 60_000);
        assert_eq!(usage.iter().find(|(w, _)| w == "hour").unwrap().1.used, 2);
        // anonymous callers get a tenth, at least one
        assert_eq!(rl.snapshot("ip", "search", true, t0).unwrap().limit, 1);
    }

    #[test]
    fn short_windows_for_tests() {
        assert_eq!(window_len("10s"), Some(10_000));
        assert_eq!(window_len("0.5s"), Some(500));
        assert_eq!(window_len("minute"), Some(60_000));
        assert_eq!(window_len("week"), None);
        assert_eq!(window_len("0s"), None);
        let mut l = Limits::default();
        l.set("2s", Some(3)).unwrap();
        assert!(l.set("fortnight", Some(3)).is_err());
        let mut rl = RateLimiter::new([("public".to_string(), l)].into());
        let t0 = 1_700_000_000_000;
        for i in 0..3 {
            rl.reserve("u", "public", false, t0 + i).unwrap();
        }
        let spent = rl.reserve("u", "public", false, t0 + 5).unwrap_err();
        assert_eq!((spent.window.as_str(), spent.reset_after_s), ("2s", 2));
        rl.reserve("u", "public", false, t0 + 2_000).unwrap();
    }
}
