//! URLs and domain names: parsing a submitted URL into a [`Target`] and
//! finding a host's registrable (apex) domain and public suffix.

use super::words;

#[derive(Clone, Debug)]
pub(super) struct Target {
    pub(super) scheme: String,
    pub(super) host: String,
    pub(super) port: Option<u16>,
    /// Path plus `?query` when present.
    pub(super) path_query: String,
    pub(super) is_ip: bool,
    pub(super) v6_literal: bool,
}

impl Target {
    pub(super) fn parse(raw: &str) -> Target {
        let raw = raw.trim();
        let ok = |u: &url::Url| matches!(u.scheme(), "http" | "https") && u.host().is_some();
        let parsed = url::Url::parse(raw)
            .ok()
            .filter(ok)
            .or_else(|| url::Url::parse(&format!("http://{raw}")).ok().filter(ok));
        let Some(u) = parsed else {
            return Target {
                scheme: "http".into(),
                host: "invalid.invalid".into(),
                port: None,
                path_query: "/".into(),
                is_ip: false,
                v6_literal: false,
            };
        };
        let (host, is_ip, v6) = match u.host() {
            Some(url::Host::Domain(d)) => {
                (d.trim_end_matches('.').to_ascii_lowercase(), false, false)
            }
            Some(url::Host::Ipv4(a)) => (a.to_string(), true, false),
            Some(url::Host::Ipv6(a)) => (a.to_string(), true, true),
            None => ("invalid.invalid".to_string(), false, false),
        };
        let mut path_query = u.path().to_string();
        if let Some(q) = u.query() {
            path_query.push('?');
            path_query.push_str(q);
        }
        Target {
            scheme: u.scheme().to_string(),
            host,
            port: u.port(),
            path_query,
            is_ip,
            v6_literal: v6,
        }
    }

    pub(super) fn new(scheme: &str, host: &str, path_query: &str) -> Target {
        Target {
            scheme: scheme.into(),
            host: host.into(),
            port: None,
            path_query: if path_query.starts_with('/') {
                path_query.into()
            } else {
                format!("/{path_query}")
            },
            is_ip: false,
            v6_literal: false,
        }
    }

    pub(super) fn origin(&self) -> String {
        let host = if self.v6_literal {
            format!("[{}]", self.host)
        } else {
            self.host.clone()
        };
        match self.port {
            Some(p) => format!("{}://{}:{}", self.scheme, host, p),
            None => format!("{}://{}", self.scheme, host),
        }
    }

    pub(super) fn url(&self) -> String {
        format!("{}{}", self.origin(), self.path_query)
    }

    pub(super) fn path(&self) -> &str {
        self.path_query.split('?').next().unwrap_or("/")
    }

    pub(super) fn port_num(&self) -> u16 {
        self.port
            .unwrap_or(if self.scheme == "https" { 443 } else { 80 })
    }
}

/// The last segment of the path of `url` as [`Target::parse`] finds it
/// (the index's `filename`), read off the text where parsing could change
/// nothing: an `http(s)` URL of a plain domain name (letters, digits and
/// hyphens, a top-level label that starts with a letter, no `xn--`) whose
/// path holds only characters a URL keeps as they are, and no dot segment.
/// Request URLs are such (parsing them was a tenth of an index's cost);
/// others are parsed.
pub(super) fn file_name(url: &str) -> String {
    let plain_path = |c: u8| c.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/%".contains(&c);
    let plain_host = |host: &str| {
        let labels: Vec<&str> = host.split('.').collect();
        labels.iter().all(|l| {
            !l.is_empty()
                && l.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-')
                && !l.get(..4).is_some_and(|p| p.eq_ignore_ascii_case("xn--"))
        }) && labels
            .last()
            .is_some_and(|l| l.starts_with(|c: char| c.is_ascii_alphabetic()))
    };
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"));
    let path = rest.and_then(|r| {
        let (host, tail) = r.split_at(r.find(['/', '?', '#', '\\'])?);
        let path = tail.split(['?', '#']).next().unwrap_or(tail);
        let easy = plain_host(host)
            && path.starts_with('/')
            && path.bytes().all(plain_path)
            && !path
                .as_bytes()
                .windows(3)
                .any(|w| w[0] == b'%' && w[1] == b'2' && w[2].eq_ignore_ascii_case(&b'e'))
            && !path.split('/').any(|s| s == "." || s == "..");
        easy.then_some(path)
    });
    let path = match path {
        Some(p) => p.to_string(),
        None => Target::parse(url).path().to_string(),
    };
    path.rsplit('/').next().unwrap_or_default().to_string()
}

pub(super) fn is_ip_literal(host: &str) -> bool {
    host.parse::<std::net::IpAddr>().is_ok()
}

/// Whether `host` is `suffix` or ends with `.suffix`.
pub(super) fn has_suffix(host: &str, suffix: &str) -> bool {
    host.len() > suffix.len()
        && host.ends_with(suffix)
        && host.as_bytes()[host.len() - suffix.len() - 1] == b'.'
}

/// Registrable ("apex") domain, honouring multi-label and hosting suffixes.
pub(super) fn apex_of(host: &str) -> String {
    if is_ip_literal(host) {
        return host.to_string();
    }
    let labels: Vec<&str> = host.split('.').collect();
    if labels.len() <= 2 {
        return host.to_string();
    }
    let suffixes = words::HOSTING_SUFFIXES
        .iter()
        .map(|s| s.0)
        .chain(words::MULTI_SUFFIXES.iter().copied());
    let mut best = 1usize;
    for s in suffixes {
        if has_suffix(host, s) {
            best = best.max(s.split('.').count());
        }
    }
    let keep = (best + 1).min(labels.len());
    labels[labels.len() - keep..].join(".")
}

/// The public-suffix part of an apex (`co.uk`, `web.app`, `com`).
pub(super) fn suffix_of(apex: &str) -> &str {
    match apex.find('.') {
        Some(i) => &apex[i + 1..],
        None => "",
    }
}
