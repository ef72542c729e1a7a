//! Fixed-window rate limits per subject and action, as the service documents
//! them: minute, hour and day windows on the emulator clock; only HTTP 200
//! answers count; the headers report the window closest to being exceeded.
use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

pub const WINDOWS: [(&str, i64); 3] =
    [("minute", 60_000), ("hour", 3_600_000), ("day", 86_400_000)];

/// Limits of one action; `None` means unlimited in that window.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Limits {
    pub minute: Option<u64>,
    pub hour: Option<u64>,
    pub day: Option<u64>,
}

impl Limits {
    pub const fn new(minute: u64, hour: u64, day: u64) -> Limits {
        Limits {
            minute: Some(minute),
            hour: Some(hour),
            day: Some(day),
        }
    }
    fn get(&self, window: &str) -> Option<u64> {
        match window {
            "minute" => self.minute,
            "hour" => self.hour,
            _ => self.day,
        }
    }
}

/// The actions the service limits, with the emulator's default quotas for a
/// user key (anonymous callers get a tenth).
pub fn default_limits() -> HashMap<String, Limits> {
    [
        ("public", Limits::new(500, 5_000, 50_000)),
        ("unlisted", Limits::new(500, 5_000, 50_000)),
        ("private", Limits::new(500, 5_000, 50_000)),
        ("retrieve", Limits::new(5_000, 50_000, 500_000)),
        ("search", Limits::new(5_000, 50_000, 500_000)),
        ("livescan", Limits::new(100, 1_000, 10_000)),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
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
    used: HashMap<(String, String, &'static str), (i64, u64)>,
}

impl RateLimiter {
    pub fn new(limits: HashMap<String, Limits>) -> RateLimiter {
        RateLimiter {
            limits,
            used: HashMap::new(),
        }
    }

    fn limits_for(&self, action: &str, anonymous: bool) -> Limits {
        let l = self.limits.get(action).copied().unwrap_or_default();
        if !anonymous {
            return l;
        }
        let tenth = |v: Option<u64>| v.map(|n| (n / 10).max(1));
        Limits {
            minute: tenth(l.minute),
            hour: tenth(l.hour),
            day: tenth(l.day),
        }
    }

    fn count(&self, subject: &str, action: &str, window: &'static str, start: i64) -> u64 {
        match self
            .used
            .get(&(subject.to_string(), action.to_string(), window))
        {
            Some((s, n)) if *s == start => *n,
            _ => 0,
        }
    }

    /// Use of every window of an action (windows without a limit are left out).
    pub fn usage(
        &self,
        subject: &str,
        action: &str,
        anonymous: bool,
        now: i64,
    ) -> Vec<(&'static str, WindowUse)> {
        let limits = self.limits_for(action, anonymous);
        WINDOWS
            .iter()
            .filter_map(|(w, len)| {
                let limit = limits.get(w)?;
                let start = now - now.rem_euclid(*len);
                let used = self.count(subject, action, w, start);
                Some((
                    *w,
                    WindowUse {
                        limit,
                        used,
                        remaining: limit.saturating_sub(used),
                        percent: if limit == 0 {
                            100.0
                        } else {
                            (used as f64 * 100.0 / limit as f64 * 100.0).round() / 100.0
                        },
                        reset: iso_ms(start + len),
                    },
                ))
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
        let limits = self.limits_for(action, anonymous);
        WINDOWS
            .iter()
            .filter_map(|(w, len)| {
                let limit = limits.get(w)?;
                let start = now - now.rem_euclid(*len);
                let used = self.count(subject, action, w, start);
                let reset = start + len;
                Some(Snapshot {
                    scope: if anonymous { "ip-address" } else { "user" }.to_string(),
                    action: action.to_string(),
                    window: w.to_string(),
                    limit,
                    remaining: limit.saturating_sub(used),
                    reset_ms: reset,
                    reset_after_s: ((reset - now) as f64 / 1000.0).ceil() as i64,
                })
            })
            .min_by_key(|s| (s.remaining, s.reset_ms))
    }

    /// Count one successful request in every window.
    pub fn commit(&mut self, subject: &str, action: &str, now: i64) {
        for (w, len) in WINDOWS {
            let start = now - now.rem_euclid(len);
            let e = self
                .used
                .entry((subject.to_string(), action.to_string(), w))
                .or_insert((start, 0));
            if e.0 != start {
                *e = (start, 0);
            }
            e.1 += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_fill_and_reset() {
        let mut limits = HashMap::new();
        limits.insert(
            "search".to_string(),
            Limits {
                minute: Some(2),
                hour: Some(100),
                day: None,
            },
        );
        let mut rl = RateLimiter::new(limits);
        let t0 = 1_700_000_000_000 - 1_700_000_000_000 % 60_000 + 1_000;
        let s = rl.snapshot("u", "search", false, t0).unwrap();
        assert_eq!(
            (s.window.as_str(), s.remaining, s.reset_after_s),
            ("minute", 2, 59)
        );
        rl.commit("u", "search", t0);
        rl.commit("u", "search", t0 + 10);
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
        assert_eq!(usage.iter().find(|(w, _)| *w == "hour").unwrap().1.used, 2);
        // anonymous callers get a tenth, at least one
        assert_eq!(rl.snapshot("ip", "search", true, t0).unwrap().limit, 1);
    }
}
