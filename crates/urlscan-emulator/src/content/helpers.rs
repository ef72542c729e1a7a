//! Small shared pieces of the content generator: the seeded random
//! streams every value is drawn from, picking from tables, hex and
//! alphanumeric strings, dates, escaping and colours.

use chrono::{DateTime, Datelike, Timelike, Utc};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sha2::{Digest, Sha256};

pub(super) const DAY_MS: i64 = 86_400_000;

fn seed_of(parts: &[&str]) -> [u8; 32] {
    let mut h = Sha256::new();
    for p in parts {
        h.update(p.as_bytes());
        // Separator so ("ab","c") and ("a","bc") seed differently.
        h.update([0u8]);
    }
    h.finalize().into()
}

/// The scan-, site- and corpus-level generators: ChaCha8 seeded with SHA-256.
pub(super) fn chacha_of(parts: &[&str]) -> ChaCha8Rng {
    ChaCha8Rng::from_seed(seed_of(parts))
}

/// SplitMix64, seeded with SHA-256: a tiny deterministic stream for the many
/// per-entity draws (hosts, bodies, headers), far cheaper to create than
/// ChaCha, which matters when a corpus of thousands of scans is indexed.
pub(super) struct Stream(u64);

impl rand::RngCore for Stream {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }

    fn fill_bytes(&mut self, dst: &mut [u8]) {
        for chunk in dst.chunks_mut(8) {
            let v = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
    }
}

pub(super) fn rng_of(parts: &[&str]) -> Stream {
    Stream(h64(parts))
}

pub(super) fn h64(parts: &[&str]) -> u64 {
    let s = seed_of(parts);
    u64::from_le_bytes([s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]])
}

pub(super) fn sha256_hex(data: &[u8]) -> String {
    hex::encode(Sha256::digest(data))
}

pub(super) fn pick<'a, T, R: Rng>(r: &mut R, xs: &'a [T]) -> &'a T {
    &xs[r.random_range(0..xs.len())]
}

pub(super) fn pick_w<'a, T, R: Rng>(r: &mut R, xs: &'a [(T, u32)]) -> &'a T {
    let total: u32 = xs.iter().map(|x| x.1).sum();
    let mut v = r.random_range(0..total.max(1));
    for (x, w) in xs {
        if v < *w {
            return x;
        }
        v -= w;
    }
    &xs[0].0
}

pub(super) fn rhex<R: Rng>(r: &mut R, n: usize) -> String {
    const HEX: &[u8] = b"0123456789abcdef";
    (0..n).map(|_| HEX[r.random_range(0..16)] as char).collect()
}

pub(super) fn ralnum<R: Rng>(r: &mut R, n: usize, upper: bool) -> String {
    const LOWER: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    const UPPER: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    let set = if upper { UPPER } else { LOWER };
    (0..n)
        .map(|_| set[r.random_range(0..set.len())] as char)
        .collect()
}

pub(super) fn round_to(x: f64, decimals: i32) -> f64 {
    let f = 10f64.powi(decimals);
    (x * f).round() / f
}

pub(super) fn dt(ms: i64) -> DateTime<Utc> {
    DateTime::<Utc>::from_timestamp_millis(ms).unwrap_or_default()
}

/// `2026-01-01T00:00:00.000Z`: chrono's `%Y-%m-%dT%H:%M:%S%.3fZ`, written
/// out for the years of four digits (chrono interprets its format string on
/// every call, and a scan formats dozens of dates).
pub(super) fn iso(ms: i64) -> String {
    let t = dt(ms);
    if !(0..=9999).contains(&t.year()) {
        return t.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string();
    }
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        t.year(),
        t.month(),
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
        t.timestamp_subsec_millis()
    )
}

/// `Thu, 01 Jan 2026 00:00:00 GMT`: chrono's `%a, %d %b %Y %H:%M:%S GMT`,
/// written out as [`iso`] is.
pub(super) fn http_date(ms: i64) -> String {
    const DAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let t = dt(ms);
    if !(0..=9999).contains(&t.year()) {
        return t.format("%a, %d %b %Y %H:%M:%S GMT").to_string();
    }
    format!(
        "{}, {:02} {} {:04} {:02}:{:02}:{:02} GMT",
        DAYS[t.weekday().num_days_from_monday() as usize],
        t.day(),
        MONTHS[t.month0() as usize],
        t.year(),
        t.hour(),
        t.minute(),
        t.second()
    )
}

pub(super) fn capitalize(w: &str) -> String {
    let mut c = w.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

/// `&`, `<`, `>` and `"` as entities, in one pass.
pub(super) fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

pub(super) fn push_unique(v: &mut Vec<String>, s: &str) {
    if !s.is_empty() && !v.iter().any(|x| x == s) {
        v.push(s.to_string());
    }
}

pub(super) fn hsl(h: f64, s: f64, l: f64) -> (u8, u8, u8) {
    let c = (1.0 - (2.0 * l - 1.0).abs()) * s;
    let hp = (h % 360.0) / 60.0;
    let x = c * (1.0 - (hp % 2.0 - 1.0).abs());
    let (r1, g1, b1) = match hp as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = l - c / 2.0;
    let to = |v: f64| ((v + m) * 255.0).round().clamp(0.0, 255.0) as u8;
    (to(r1), to(g1), to(b1))
}

pub(super) fn mix(a: (u8, u8, u8), b: (u8, u8, u8), t: f64) -> (u8, u8, u8) {
    let f = |x: u8, y: u8| (x as f64 + (y as f64 - x as f64) * t).round() as u8;
    (f(a.0, b.0), f(a.1, b.1), f(a.2, b.2))
}

pub(super) fn css_color(c: (u8, u8, u8)) -> String {
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}
