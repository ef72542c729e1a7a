//! TLS: the certificate each host serves (issuer, names, validity that ages
//! with time); a request's security details are rendered in `requests`.

use rand::Rng;

use super::helpers::{pick, push_unique, rng_of, DAY_MS};

#[derive(Clone)]
pub(super) struct Tls {
    pub(super) issuer: String,
    pub(super) subject: String,
    pub(super) san: Vec<String>,
    pub(super) from_s: i64,
    pub(super) to_s: i64,
    pub(super) valid_days: i64,
    pub(super) age_days: i64,
    pub(super) version: &'static str,
    pub(super) kx: &'static str,
    pub(super) group: &'static str,
    pub(super) cipher: &'static str,
    /// Where the host is in its renewal cycle: what dates the certificate
    /// at a given time (`at`).
    phase: Phase,
}

#[derive(Clone, Copy)]
struct Phase {
    validity: i64,
    cycle: i64,
    offset: i64,
    sec_of_day: i64,
}

impl Tls {
    /// The host's certificate as of `time_ms`: the one its renewal cycle
    /// had issued by then (only the dates change with the time).
    pub(super) fn at(&mut self, time_ms: i64) {
        let Phase {
            validity,
            cycle,
            offset,
            sec_of_day,
        } = self.phase;
        let day = time_ms.div_euclid(DAY_MS);
        let age = (day + offset).rem_euclid(cycle);
        let now_s = time_ms.div_euclid(1000);
        let mut from_s = (day - age) * 86_400 + sec_of_day - 3_600;
        if from_s > now_s {
            from_s -= 86_400;
        }
        let to_s = from_s + validity * 86_400 - 1;
        self.from_s = from_s;
        self.to_s = to_s;
        self.valid_days = (to_s - from_s) / 86_400;
        self.age_days = (now_s - from_s).max(0) / 86_400;
    }
}

fn cert_validity_days(issuer: &str) -> i64 {
    let short = issuer.len() <= 3
        || issuer.starts_with("GTS")
        || issuer.starts_with("WE")
        || issuer.starts_with("WR");
    if short {
        90
    } else if issuer.starts_with("Amazon") {
        395
    } else if issuer.starts_with("Microsoft") {
        180
    } else if issuer.starts_with("Apple") {
        200
    } else {
        365
    }
}

pub(super) fn make_tls(
    name: &str,
    apex: &str,
    issuer: &str,
    tls12_share: f64,
    time_ms: i64,
) -> Tls {
    let mut r = rng_of(&["tls", name]);
    let validity = cert_validity_days(issuer);
    // Certificates are renewed well before expiry; the phase is per host so
    // consecutive scans of a host see the same certificate ageing.
    let cycle = if validity == 90 { 60 } else { validity - 30 };
    let offset = r.random_range(0..cycle);
    let sec_of_day = r.random_range(0..86_400);
    let phase = Phase {
        validity,
        cycle,
        offset,
        sec_of_day,
    };
    let wildcard = validity != 90 && name != apex && r.random_bool(0.5);
    let subject = if wildcard {
        format!("*.{apex}")
    } else {
        name.to_string()
    };
    let mut san = vec![subject.clone()];
    if name != apex {
        push_unique(&mut san, apex);
    } else {
        push_unique(&mut san, &format!("www.{apex}"));
    }
    let tls12 = r.random_bool(tls12_share);
    let (version, kx, cipher) = if tls12 {
        (
            "TLS 1.2",
            "ECDHE_RSA",
            *pick(&mut r, &["AES_128_GCM", "AES_256_GCM"]),
        )
    } else {
        (
            "TLS 1.3",
            "",
            *pick(
                &mut r,
                &[
                    "AES_128_GCM",
                    "AES_128_GCM",
                    "AES_256_GCM",
                    "CHACHA20_POLY1305",
                ],
            ),
        )
    };
    let mut tls = Tls {
        issuer: issuer.to_string(),
        subject,
        san,
        from_s: 0,
        to_s: 0,
        valid_days: 0,
        age_days: 0,
        version,
        kx,
        group: "X25519",
        cipher,
        phase,
    };
    tls.at(time_ms);
    tls
}
