//! Facts a test states about a generated scan (`urlscan_rs.testing.result`):
//! the verdict, the brands, where the page was hosted, its title, status and
//! outcome, the files it downloaded and the task's tags.
//!
//! This module holds what was stated and checks it; `apply` applies it to the
//! scan model while it is built. A fact left unset keeps what the generator
//! makes, and with no facts at all the model is exactly the generator's
//! (`Model::build`).

use std::net::IpAddr;

use serde_json::{json, Map, Value};

use super::spec::ScanSpec;
use super::urls::Target;
use super::words::{self, Brand};

/// How a page loaded (the host's first label chooses it for generated scans:
/// `outcome.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Outcome {
    Loaded,
    Failed(Option<&'static str>),
    Empty,
    Download,
}

impl Outcome {
    pub(super) fn of(host: &str) -> Outcome {
        match host.split('.').next().unwrap_or("") {
            "unreachable" => Outcome::Failed(Some("net::ERR_CONNECTION_REFUSED")),
            "unresolved" => Outcome::Failed(None),
            "denied" => Outcome::Failed(Some("net::ERR_BLOCKED_BY_ADMINISTRATOR")),
            "empty" => Outcome::Empty,
            "download" => Outcome::Download,
            _ => Outcome::Loaded,
        }
    }
}

/// The page outcomes a fact may choose, with what each records: the names a
/// caller gives `outcome`.
pub const OUTCOMES: &[(&str, &str)] = &[
    ("ok", "the page loaded"),
    (
        "unreachable",
        "the connection was refused (net::ERR_CONNECTION_REFUSED)",
    ),
    ("unresolved", "the host did not resolve: no answer at all"),
    (
        "blocked",
        "the browser's policy blocked it (net::ERR_BLOCKED_BY_ADMINISTRATOR)",
    ),
    ("empty", "a 200 of no bytes, nothing else loaded"),
    ("download", "the page is a file the browser saved"),
];

const KEYS: &[&str] = &[
    "malicious",
    "score",
    "brands",
    "ip",
    "asn",
    "country",
    "title",
    "status",
    "outcome",
    "downloads",
    "tags",
];

/// What a download object may say; the rest is generated.
const DOWNLOAD_KEYS: &[&str] = &[
    "filename",
    "sha256",
    "filesize",
    "mimeType",
    "mimeDescription",
    "url",
];

/// Facts about one scan; `None` (or empty) keeps the generator's.
pub struct Facts {
    pub(super) malicious: Option<bool>,
    pub(super) score: Option<i64>,
    /// `Some(vec![])`: no brand (a phishing-looking URL left unbranded).
    pub(super) brands: Option<Vec<&'static Brand>>,
    pub(super) ip: Option<IpAddr>,
    pub(super) asn: Option<u32>,
    /// Upper case.
    pub(super) country: Option<String>,
    pub(super) title: Option<String>,
    pub(super) status: Option<u16>,
    pub(super) outcome: Option<Outcome>,
    /// Download objects as given (checked; the missing keys are generated).
    pub(super) downloads: Vec<Map<String, Value>>,
    pub(super) tags: Option<Vec<String>>,
}

/// No facts: the generator's scan.
pub(super) static NO_FACTS: Facts = Facts::NONE;

impl Default for Facts {
    fn default() -> Self {
        Facts::NONE
    }
}

impl Facts {
    pub const NONE: Facts = Facts {
        malicious: None,
        score: None,
        brands: None,
        ip: None,
        asn: None,
        country: None,
        title: None,
        status: None,
        outcome: None,
        downloads: Vec::new(),
        tags: None,
    };

    /// The facts of a JSON object keyed by the keyword names (`malicious`,
    /// `score`, `brands`, `ip`, `asn`, `country`, `title`, `status`,
    /// `outcome`, `downloads`, `tags`); null is unset. The error names the
    /// keyword and what it takes.
    pub fn from_json(v: &Value) -> Result<Facts, String> {
        let Some(obj) = v.as_object() else {
            return Err("facts must be an object of keywords".into());
        };
        let mut f = Facts::NONE;
        for (k, v) in obj {
            if v.is_null() {
                continue;
            }
            match k.as_str() {
                "malicious" => {
                    f.malicious = Some(v.as_bool().ok_or_else(|| {
                        format!("malicious must be True or False, got {}", shown(v))
                    })?)
                }
                "score" => {
                    f.score = Some(v.as_i64().filter(|s| (-100..=100).contains(s)).ok_or_else(
                        || {
                            format!(
                                "score must be an integer from -100 (legitimate) to 100 \
                                     (malicious), got {}",
                                shown(v)
                            )
                        },
                    )?)
                }
                "brands" => f.brands = Some(brands_of(v)?),
                "ip" => {
                    let s = v.as_str().unwrap_or_default();
                    f.ip = Some(s.trim().parse::<IpAddr>().map_err(|_| {
                        format!(
                            "ip must be an IPv4 or IPv6 address (203.0.113.7), got {}",
                            shown(v)
                        )
                    })?)
                }
                "asn" => f.asn = Some(asn_of(v)?),
                "country" => {
                    let c = v.as_str().unwrap_or_default();
                    if !urlscan_rules::country(c) {
                        return Err(format!(
                            "country must be a two-letter ISO 3166-1 code (NL), got {}",
                            shown(v)
                        ));
                    }
                    f.country = Some(c.to_ascii_uppercase())
                }
                "title" => {
                    f.title = Some(
                        v.as_str()
                            .ok_or_else(|| format!("title must be a string, got {}", shown(v)))?
                            .to_string(),
                    )
                }
                "status" => {
                    f.status = Some(
                        v.as_u64()
                            .filter(|s| (100..=599).contains(s))
                            .map(|s| s as u16)
                            .ok_or_else(|| {
                                format!(
                                    "status must be an HTTP status from 100 to 599, got {}",
                                    shown(v)
                                )
                            })?,
                    )
                }
                "outcome" => f.outcome = Some(outcome_of(v)?),
                "downloads" => f.downloads = downloads_of(v)?,
                "tags" => f.tags = Some(tags_of(v)?),
                _ => {
                    return Err(format!(
                        "unknown fact {k:?}; the facts are {}",
                        KEYS.join(", ")
                    ))
                }
            }
        }
        if f.malicious == Some(false) && f.brands.as_ref().is_some_and(|b| !b.is_empty()) {
            // The service names brands only on the pages it found impersonating them.
            return Err(
                "brands are the brands a malicious page impersonates: give malicious=True \
                 (or leave it unset) with brands"
                    .into(),
            );
        }
        if let Some(o @ Outcome::Failed(_)) = f.outcome {
            let name = outcome_name(o);
            let page_facts = [
                ("ip", f.ip.is_some()),
                ("asn", f.asn.is_some()),
                ("country", f.country.is_some()),
                ("title", f.title.is_some()),
                ("status", f.status.is_some()),
            ];
            if let Some((k, _)) = page_facts.iter().find(|(_, given)| *given) {
                return Err(format!(
                    "{k} is a fact of a page that loaded; with outcome={name:?} the service \
                     records none (only the page's URL and domain)"
                ));
            }
        }
        Ok(f)
    }

    /// The brand the page is built around: `Some(choice)` when the facts
    /// decide it (the first brand given, or none), `None` to classify the URL.
    pub(super) fn brand(&self) -> Option<Option<&'static Brand>> {
        match &self.brands {
            Some(b) => Some(b.first().copied()),
            None if self.malicious == Some(false) => Some(None),
            None => None,
        }
    }
}

fn shown(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 40 {
        format!("{}...", s.chars().take(40).collect::<String>())
    } else {
        s
    }
}

fn brands_of(v: &Value) -> Result<Vec<&'static Brand>, String> {
    let Some(items) = v.as_array() else {
        return Err(format!(
            "brands must be a list of brand keys (\"paypal\"), got {}",
            shown(v)
        ));
    };
    let keys: Vec<&str> = words::BRANDS.iter().map(|b| b.key).collect();
    let mut out: Vec<&'static Brand> = Vec::new();
    for item in items {
        let given = item.as_str().unwrap_or_default().trim();
        let found = words::BRANDS.iter().find(|b| {
            b.key.eq_ignore_ascii_case(given)
                || (!given.is_empty() && b.name.eq_ignore_ascii_case(given))
        });
        match found {
            Some(b) if !out.iter().any(|o| o.key == b.key) => out.push(b),
            Some(_) => {}
            None => {
                let lower = given.to_ascii_lowercase();
                let close: Vec<&str> = keys
                    .iter()
                    .copied()
                    .filter(|k| {
                        strsim::jaro_winkler(&lower, k) >= 0.8
                            || (lower.len() >= 3 && (k.contains(&*lower) || lower.contains(k)))
                    })
                    .collect();
                let hint = if close.is_empty() {
                    String::new()
                } else {
                    format!(" (did you mean {}?)", close.join(" or "))
                };
                return Err(format!(
                    "brands: unknown brand {}{hint}; the brands the emulator knows are {}",
                    shown(item),
                    keys.join(", ")
                ));
            }
        }
    }
    Ok(out)
}

fn asn_of(v: &Value) -> Result<u32, String> {
    let bad = || {
        format!(
            "asn must be \"AS\" and the number of an autonomous system (AS64500), got {}",
            shown(v)
        )
    };
    let s = v.as_str().ok_or_else(bad)?.trim();
    let digits = s
        .strip_prefix("AS")
        .or_else(|| s.strip_prefix("as"))
        .ok_or_else(bad)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    // AS0 is reserved (RFC 7607): no network announces it.
    digits
        .parse::<u32>()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(bad)
}

fn outcome_of(v: &Value) -> Result<Outcome, String> {
    let known = || {
        OUTCOMES
            .iter()
            .map(|(n, what)| format!("{n} ({what})"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match v.as_str().map(str::trim) {
        Some("ok") => Ok(Outcome::Loaded),
        Some("unreachable") => Ok(Outcome::Failed(Some("net::ERR_CONNECTION_REFUSED"))),
        Some("unresolved") => Ok(Outcome::Failed(None)),
        Some("blocked") => Ok(Outcome::Failed(Some("net::ERR_BLOCKED_BY_ADMINISTRATOR"))),
        Some("empty") => Ok(Outcome::Empty),
        Some("download") => Ok(Outcome::Download),
        _ => Err(format!(
            "outcome must be one of {}; got {}",
            known(),
            shown(v)
        )),
    }
}

fn outcome_name(o: Outcome) -> &'static str {
    match o {
        Outcome::Loaded => "ok",
        Outcome::Failed(Some(e)) if e.contains("BLOCKED") => "blocked",
        Outcome::Failed(Some(_)) => "unreachable",
        Outcome::Failed(None) => "unresolved",
        Outcome::Empty => "empty",
        Outcome::Download => "download",
    }
}

fn downloads_of(v: &Value) -> Result<Vec<Map<String, Value>>, String> {
    let Some(items) = v.as_array() else {
        return Err(format!(
            "downloads must be a list of files (a file name, or a dict of {}), got {}",
            DOWNLOAD_KEYS.join(", "),
            shown(v)
        ));
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let at = format!("downloads[{i}]");
        let mut d = match item {
            Value::String(name) => {
                let mut m = Map::new();
                m.insert("filename".into(), json!(name));
                m
            }
            Value::Object(m) => m.clone(),
            other => {
                return Err(format!(
                    "{at} must be a file name or a dict of {}, got {}",
                    DOWNLOAD_KEYS.join(", "),
                    shown(other)
                ))
            }
        };
        for (k, val) in d.iter_mut() {
            let ok = match k.as_str() {
                "filename" => val
                    .as_str()
                    .is_some_and(|s| !s.trim().is_empty() && !s.contains(['/', '\\'])),
                "sha256" => match val.as_str().filter(|s| urlscan_rules::sha256(s)) {
                    Some(s) => {
                        *val = json!(s.to_ascii_lowercase());
                        true
                    }
                    None => false,
                },
                "filesize" => val.as_u64().is_some(),
                "mimeType" | "mimeDescription" => val.as_str().is_some_and(|s| !s.is_empty()),
                "url" => val.as_str().is_some_and(|s| {
                    url::Url::parse(s)
                        .is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some())
                }),
                _ => {
                    return Err(format!(
                        "{at}: unknown key {k:?}; a download may give {}",
                        DOWNLOAD_KEYS.join(", ")
                    ))
                }
            };
            if !ok {
                let what = match k.as_str() {
                    "filename" => "a file name (no slashes)",
                    "sha256" => "64 hexadecimal characters",
                    "filesize" => "a size in bytes (an integer from 0)",
                    "url" => "an http(s) URL",
                    _ => "a non-empty string",
                };
                return Err(format!("{at}.{k} must be {what}, got {}", shown(val)));
            }
        }
        d.retain(|_, v| !v.is_null());
        out.push(d);
    }
    Ok(out)
}

fn tags_of(v: &Value) -> Result<Vec<String>, String> {
    let max = urlscan_rules::MAX_TAGS;
    match v.as_array() {
        Some(a) if a.len() > max => Err(format!(
            "tags: the service keeps at most {max} tags on a scan, got {}",
            a.len()
        )),
        Some(a) => a
            .iter()
            .map(|t| match t.as_str() {
                Some(s) if !s.trim().is_empty() => Ok(s.to_string()),
                _ => Err(format!("tags must be non-empty strings, got {}", shown(t))),
            })
            .collect(),
        None => Err(format!("tags must be a list of strings, got {}", shown(v))),
    }
}

/// The spec of a scan a test builds: `url` (http or https; no scheme means
/// http, as a submission), submitted by the API at `time_ms`.
pub fn scenario_spec(
    url: &str,
    uuid: &str,
    time_ms: i64,
    visibility: &str,
) -> Result<ScanSpec, String> {
    urlscan_rules::scan_url(url).map_err(|e| format!("url {e}, got {url:?}"))?;
    let raw = url.trim();
    let with_scheme = if raw.contains("://") {
        raw.to_string()
    } else {
        format!("http://{raw}")
    };
    let parsed = url::Url::parse(&with_scheme)
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some())
        .ok_or_else(|| format!("url must be an http or https URL with a host, got {url:?}"))?;
    let uuid = uuid::Uuid::try_parse(uuid)
        .map_err(|_| format!("uuid must be a UUID (8-4-4-4-12 hex digits), got {uuid:?}"))?;
    if !["public", "unlisted", "private"].contains(&visibility) {
        return Err(format!(
            "visibility must be one of public, unlisted, private, got {visibility:?}"
        ));
    }
    // The generator reasons about instants from 1970 to 2100.
    if !(0..=4_102_444_800_000).contains(&time_ms) {
        return Err("time must be from 1970 to 2100".into());
    }
    Ok(ScanSpec::api(
        uuid.hyphenated().to_string(),
        parsed.to_string(),
        time_ms,
        visibility.to_string(),
    ))
}

/// Checks of the facts against the scan they are about.
pub(super) fn check_against(spec: &ScanSpec, f: &Facts) -> Result<(), String> {
    let t = Target::parse(&spec.url);
    if let (Some(ip), true) = (f.ip, t.is_ip) {
        if t.host.parse::<IpAddr>().ok() != Some(ip) {
            return Err(format!(
                "ip: the page's host is the address {}, so that is its IP (got {ip})",
                t.host
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::{built_dom, built_result, result_json};
    use super::*;

    fn spec(url: &str) -> ScanSpec {
        scenario_spec(
            url,
            "6c4b1e5e-0a52-4b57-9d4a-1f0c3a7e2b10",
            1_735_689_600_000,
            "public",
        )
        .expect("a valid spec")
    }

    fn facts(v: Value) -> Facts {
        Facts::from_json(&v).expect("valid facts")
    }

    #[test]
    fn no_facts_is_the_generators_result() {
        for url in [
            "https://evil.example/login",
            "https://paypal-secure-login.xyz/signin",
            "http://unreachable.example.org/",
            "https://download.example.net/invoice.zip",
            "https://www.wikipedia.org/",
            "http://203.0.113.9/admin.php",
        ] {
            let s = spec(url);
            let plain = result_json(&s, "https://urlscan.io");
            let built = built_result(&s, &Facts::NONE, "https://urlscan.io").unwrap();
            assert_eq!(plain, built, "{url}");
            let empty = built_result(&s, &facts(json!({})), "https://urlscan.io").unwrap();
            assert_eq!(plain, empty, "{url}");
            assert_eq!(super::super::dom(&s), built_dom(&s, &Facts::NONE), "{url}");
        }
    }

    #[test]
    fn each_fact_is_shown_everywhere() {
        let s = spec("https://evil.example/login");
        let f = facts(json!({
            "malicious": true, "score": 90, "brands": ["paypal", "Microsoft"],
            "ip": "203.0.113.7", "asn": "AS64500", "country": "nl", "title": "Log in",
            "status": 200, "downloads": ["invoice.zip"], "tags": ["phish", "case-7"],
        }));
        let d = built_result(&s, &f, "https://urlscan.io").unwrap();
        assert_eq!(d["page"]["ip"], "203.0.113.7");
        assert_eq!(d["page"]["asn"], "AS64500");
        assert_eq!(d["page"]["country"], "NL");
        assert_eq!(d["page"]["title"], "Log in");
        assert_eq!(d["page"]["status"], "200");
        assert!(d["lists"]["ips"]
            .as_array()
            .unwrap()
            .contains(&json!("203.0.113.7")));
        assert!(d["lists"]["asns"]
            .as_array()
            .unwrap()
            .contains(&json!("64500")));
        assert!(d["lists"]["countries"]
            .as_array()
            .unwrap()
            .contains(&json!("NL")));
        let page_req = d["data"]["requests"][0]["response"].clone();
        assert_eq!(page_req["response"]["remoteIPAddress"], "203.0.113.7");
        assert_eq!(page_req["asn"]["asn"], "64500");
        assert_eq!(page_req["geoip"]["country"], "NL");
        let ip_stat = d["stats"]["ipStats"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["ip"] == "203.0.113.7")
            .expect("the page's IP in ipStats")
            .clone();
        assert_eq!(ip_stat["asn"]["asn"], "64500");
        assert!(ip_stat["domains"]
            .as_array()
            .unwrap()
            .contains(&json!("evil.example")));
        for v in ["overall", "urlscan"] {
            assert_eq!(d["verdicts"][v]["malicious"], true);
            assert_eq!(d["verdicts"][v]["score"], 90);
        }
        assert_eq!(
            d["verdicts"]["overall"]["brands"],
            json!(["paypal", "microsoft"])
        );
        assert_eq!(d["verdicts"]["urlscan"]["brands"][1]["name"], "Microsoft");
        assert_eq!(d["labels"], json!(["visual.brandai"]));
        assert_eq!(d["visible"]["brandname"], "PayPal");
        assert_eq!(d["stats"]["malicious"], 1);
        assert_eq!(d["task"]["tags"], json!(["phish", "case-7"]));
        let files = &d["meta"]["processors"]["download"]["data"];
        assert_eq!(files[0]["filename"], "invoice.zip");
        assert_eq!(files[0]["url"], "https://evil.example/invoice.zip");
        assert_eq!(files[0]["mimeType"], "application/zip");
        let dom = built_dom(&s, &f);
        assert!(dom.contains("<title>Log in</title>"), "{dom}");
    }

    #[test]
    fn malicious_false_clears_what_the_url_suggested() {
        let s = spec("https://paypal-secure-login.xyz/signin");
        assert_eq!(
            result_json(&s, "")["verdicts"]["overall"]["malicious"],
            true
        );
        let d = built_result(&s, &facts(json!({"malicious": false})), "").unwrap();
        assert_eq!(d["verdicts"]["overall"]["malicious"], false);
        assert_eq!(d["verdicts"]["overall"]["brands"], json!([]));
        assert_eq!(d["verdicts"]["overall"]["score"], 0);
        assert_eq!(d["labels"], json!([]));
        assert!(d.get("visible").is_none());
    }

    #[test]
    fn outcomes_shape_the_page() {
        let s = spec("https://evil.example/");
        let d = built_result(&s, &facts(json!({"outcome": "unresolved"})), "").unwrap();
        assert_eq!(
            d["page"],
            json!({"url": "https://evil.example/", "domain": "evil.example"})
        );
        let d = built_result(&s, &facts(json!({"outcome": "blocked"})), "").unwrap();
        let failed = &d["data"]["requests"][0]["response"]["failed"]["errorText"];
        assert_eq!(failed, "net::ERR_BLOCKED_BY_ADMINISTRATOR");
        let d = built_result(&s, &facts(json!({"outcome": "download"})), "").unwrap();
        assert_eq!(
            d["meta"]["processors"]["download"]["data"]
                .as_array()
                .unwrap()
                .len(),
            1
        );
        let u = spec("https://unreachable.example.org/");
        let d = built_result(&u, &facts(json!({"outcome": "ok"})), "").unwrap();
        assert!(d["page"]["ip"].is_string());
    }

    #[test]
    fn bad_facts_name_their_keyword() {
        let err = |v: Value| Facts::from_json(&v).err().expect("refused");
        assert!(err(json!({"score": 101})).starts_with("score"));
        assert!(err(json!({"score": true})).starts_with("score"));
        assert!(err(json!({"ip": "300.1.1.1"})).starts_with("ip"));
        assert!(err(json!({"asn": "64500"})).starts_with("asn"));
        assert!(err(json!({"asn": "AS"})).starts_with("asn"));
        assert!(err(json!({"country": "NLD"})).starts_with("country"));
        assert!(err(json!({"status": 99})).starts_with("status"));
        let e = err(json!({"brands": ["paypall"]}));
        assert!(e.contains("did you mean paypal?"), "{e}");
        let e = err(json!({"outcome": "gone"}));
        assert!(e.contains("unresolved") && e.contains("download"), "{e}");
        assert!(err(json!({"malicious": false, "brands": ["paypal"]})).contains("brands"));
        assert!(err(json!({"outcome": "unreachable", "ip": "203.0.113.7"})).starts_with("ip"));
        assert!(err(json!({"downloads": [{"sha256": "xyz"}]})).starts_with("downloads[0].sha256"));
        assert!(err(json!({"downloads": [{"size": 1}]})).contains("unknown key"));
        assert!(err(json!({"tags": vec!["a"; 11]})).starts_with("tags"));
        assert!(err(json!({"colour": "red"})).contains("unknown fact"));
        let s = spec("http://203.0.113.9/");
        let f = facts(json!({"ip": "203.0.113.7"}));
        assert!(built_result(&s, &f, "").unwrap_err().starts_with("ip"));
    }
}
