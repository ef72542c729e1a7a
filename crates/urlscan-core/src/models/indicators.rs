//! The indicators of a scan, read from a result's (or a search hit's) bytes:
//! what a playbook hands to the next tool. Each list is deduplicated and
//! keeps the order of first appearance, so the same document always gives
//! the same indicators.
//!
//! Reading follows the models' rule: a missing or null part is empty, `{}`
//! where a list belongs is an empty list, and a value of the wrong type is a
//! `Decode` error naming its path.
use std::collections::HashSet;
use std::fmt;
use std::net::IpAddr;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

use super::index::DocIndex;
use crate::{Error, Result};

/// A certificate the page's connections presented.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Certificate {
    pub subject: Option<String>,
    pub issuer: Option<String>,
    /// Epoch seconds.
    pub valid_from: Option<i64>,
    pub valid_to: Option<i64>,
    pub san: Vec<String>,
    /// Where the service gives it.
    pub sha256: Option<String>,
}

/// Everything `Indicators` holds; see the module's documentation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Indicators {
    pub urls: Vec<String>,
    pub domains: Vec<String>,
    pub apex_domains: Vec<String>,
    pub ipv4: Vec<String>,
    pub ipv6: Vec<String>,
    /// `AS15169`.
    pub asns: Vec<String>,
    /// SHA-256 of responses.
    pub hashes: Vec<String>,
    pub certificates: Vec<Certificate>,
    /// From the submitted URL to the final page, in order; empty without a redirect.
    pub redirects: Vec<String>,
    pub links: Vec<String>,
}

/// A list that may be missing, null or `{}` (all empty).
struct List<T>(Vec<T>);

impl<T> Default for List<T> {
    fn default() -> Self {
        List(Vec::new())
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for List<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = List<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a list")
            }
            fn visit_unit<E: de::Error>(self) -> std::result::Result<Self::Value, E> {
                Ok(List::default())
            }
            fn visit_none<E: de::Error>(self) -> std::result::Result<Self::Value, E> {
                Ok(List::default())
            }
            fn visit_some<D: Deserializer<'de>>(
                self,
                d: D,
            ) -> std::result::Result<Self::Value, D::Error> {
                d.deserialize_any(self)
            }
            fn visit_seq<A: SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(v) = seq.next_element()? {
                    out.push(v);
                }
                Ok(List(out))
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut map: A,
            ) -> std::result::Result<Self::Value, A::Error> {
                // The service writes an empty list as `{}` in places.
                match map.next_key::<de::IgnoredAny>()? {
                    None => Ok(List::default()),
                    Some(_) => Err(de::Error::invalid_type(
                        de::Unexpected::Map,
                        &"a list (or {})",
                    )),
                }
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// An AS number as the service writes it: `"15169"`, `"AS15169"` or 15169.
struct Asn(Option<String>);

impl<'de> Deserialize<'de> for Asn {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Asn;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an AS number (a string or a whole number)")
            }
            fn visit_unit<E: de::Error>(self) -> std::result::Result<Asn, E> {
                Ok(Asn(None))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<Asn, E> {
                Ok(Asn(Some(format!("AS{v}"))))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Asn, E> {
                let v = v.trim();
                if v.is_empty() {
                    return Ok(Asn(None));
                }
                let digits = v
                    .strip_prefix("AS")
                    .or_else(|| v.strip_prefix("as"))
                    .unwrap_or(v);
                Ok(Asn(Some(if digits.bytes().all(|b| b.is_ascii_digit()) {
                    format!("AS{digits}")
                } else {
                    v.to_string()
                })))
            }
        }
        d.deserialize_any(V)
    }
}

/// A number of seconds that may be written as a float.
struct Seconds(Option<i64>);

impl<'de> Deserialize<'de> for Seconds {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Seconds;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("epoch seconds (a number)")
            }
            fn visit_unit<E: de::Error>(self) -> std::result::Result<Seconds, E> {
                Ok(Seconds(None))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<Seconds, E> {
                Ok(Seconds(Some(v)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<Seconds, E> {
                Ok(Seconds(i64::try_from(v).ok()))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> std::result::Result<Seconds, E> {
                Ok(Seconds(Some(v as i64)))
            }
        }
        d.deserialize_any(V)
    }
}

/// The members indicators come from.
struct Doc {
    task: Task,
    page: Page,
    lists: Lists,
    data: Data,
    stats: Stats,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Task {
    url: Option<String>,
    domain: Option<String>,
    #[serde(rename = "apexDomain")]
    apex_domain: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Page {
    url: Option<String>,
    domain: Option<String>,
    #[serde(rename = "apexDomain")]
    apex_domain: Option<String>,
    ip: Option<String>,
    asn: Option<Asn>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Lists {
    urls: List<Option<String>>,
    domains: List<Option<String>>,
    ips: List<Option<String>>,
    asns: List<Asn>,
    hashes: List<Option<String>>,
    certificates: List<Cert>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Cert {
    #[serde(rename = "subjectName")]
    subject_name: Option<String>,
    issuer: Option<String>,
    #[serde(rename = "validFrom")]
    valid_from: Option<Seconds>,
    #[serde(rename = "validTo")]
    valid_to: Option<Seconds>,
    #[serde(rename = "sanList")]
    san_list: List<Option<String>>,
    sha256: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Data {
    links: List<Link>,
    redirects: List<Redirect>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Link {
    href: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Redirect {
    from: Option<String>,
    to: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Stats {
    #[serde(rename = "regDomainStats")]
    reg_domain_stats: List<RegDomain>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RegDomain {
    #[serde(rename = "regDomain")]
    reg_domain: Option<String>,
}

/// Values in order of first appearance, each once (blank ones left out).
#[derive(Default)]
struct Ordered {
    seen: HashSet<String>,
    out: Vec<String>,
}

impl Ordered {
    fn push(&mut self, v: Option<&str>) {
        if let Some(v) = v.map(str::trim).filter(|v| !v.is_empty()) {
            if self.seen.insert(v.to_string()) {
                self.out.push(v.to_string());
            }
        }
    }
}

fn strings(v: &List<Option<String>>) -> impl Iterator<Item = Option<&str>> {
    v.0.iter().map(|s| s.as_deref())
}

/// The indicators of a result or search hit (the JSON object's bytes).
pub fn indicators(json: &[u8]) -> Result<Indicators> {
    let index = super::index::object_index(json)?;
    indicators_in(json, &index)
}

/// The indicators of the object whose top-level members `index` locates in
/// `body` (a hit's index points into its page's bytes): only the members
/// they come from are read.
pub fn indicators_in(body: &[u8], index: &DocIndex) -> Result<Indicators> {
    fn member<T: for<'de> Deserialize<'de> + Default>(
        body: &[u8],
        index: &DocIndex,
        key: &str,
    ) -> Result<T> {
        let Some(e) = index.iter().find(|e| e.key_is(body, key)) else {
            return Ok(T::default());
        };
        let de = &mut serde_json::Deserializer::from_slice(&body[e.start..e.end]);
        serde_path_to_error::deserialize::<_, Option<T>>(de)
            .map(Option::unwrap_or_default)
            .map_err(|err| {
                let path = err.path().to_string();
                let at = if matches!(path.as_str(), "" | "." | "?") {
                    key.to_string()
                } else {
                    format!("{key}.{path}")
                };
                Error::Decode(format!("{at}: {}", err.into_inner()))
            })
    }
    let doc = Doc {
        task: member(body, index, "task")?,
        page: member(body, index, "page")?,
        lists: member(body, index, "lists")?,
        data: member(body, index, "data")?,
        stats: member(body, index, "stats")?,
    };

    let mut urls = Ordered::default();
    urls.push(doc.task.url.as_deref());
    urls.push(doc.page.url.as_deref());
    strings(&doc.lists.urls).for_each(|u| urls.push(u));

    let mut domains = Ordered::default();
    domains.push(doc.page.domain.as_deref());
    domains.push(doc.task.domain.as_deref());
    strings(&doc.lists.domains).for_each(|d| domains.push(d));

    let mut apex = Ordered::default();
    apex.push(doc.page.apex_domain.as_deref());
    apex.push(doc.task.apex_domain.as_deref());
    for r in &doc.stats.reg_domain_stats.0 {
        apex.push(r.reg_domain.as_deref());
    }

    let (mut v4, mut v6) = (Ordered::default(), Ordered::default());
    for ip in std::iter::once(doc.page.ip.as_deref()).chain(strings(&doc.lists.ips)) {
        match ip.map(str::trim).and_then(|s| s.parse::<IpAddr>().ok()) {
            Some(IpAddr::V4(a)) => v4.push(Some(&a.to_string())),
            Some(IpAddr::V6(a)) => v6.push(Some(&a.to_string())),
            None => {}
        }
    }

    let mut asns = Ordered::default();
    asns.push(doc.page.asn.as_ref().and_then(|a| a.0.as_deref()));
    for a in &doc.lists.asns.0 {
        asns.push(a.0.as_deref());
    }

    let mut hashes = Ordered::default();
    strings(&doc.lists.hashes).for_each(|h| hashes.push(h.map(|h| h.trim())));

    let mut seen = HashSet::new();
    let mut certificates = Vec::new();
    for c in doc.lists.certificates.0 {
        let cert = Certificate {
            subject: c.subject_name,
            issuer: c.issuer,
            valid_from: c.valid_from.and_then(|s| s.0),
            valid_to: c.valid_to.and_then(|s| s.0),
            san: c.san_list.0.into_iter().flatten().collect(),
            sha256: c.sha256,
        };
        if seen.insert(cert.clone()) {
            certificates.push(cert);
        }
    }

    let mut links = Ordered::default();
    for l in &doc.data.links.0 {
        links.push(l.href.as_deref());
    }

    Ok(Indicators {
        urls: urls.out,
        domains: domains.out,
        apex_domains: apex.out,
        ipv4: v4.out,
        ipv6: v6.out,
        asns: asns.out,
        hashes: hashes.out,
        certificates,
        redirects: chain(
            doc.task.url.as_deref(),
            doc.page.url.as_deref(),
            &doc.data.redirects.0,
        ),
        links: links.out,
    })
}

/// The redirect chain: the hops recorded from the submitted URL on, ending at
/// the final page; the two ends alone when the hops are not recorded (as in
/// older results) but the page is elsewhere; empty without a redirect.
fn chain(start: Option<&str>, end: Option<&str>, hops: &[Redirect]) -> Vec<String> {
    // A URL may come back (a→b→a): only a hop to the address already reached is left out.
    fn step(out: &mut Vec<String>, u: Option<&str>) {
        if let Some(u) = u.map(str::trim).filter(|u| !u.is_empty()) {
            if !same_url(out.last().map(String::as_str), Some(u)) {
                out.push(u.to_string());
            }
        }
    }
    let mut out: Vec<String> = Vec::new();
    step(&mut out, start);
    let mut at = start.map(str::to_string);
    let mut used = vec![false; hops.len()];
    // Follow from→to edges from the submitted URL; each edge once, so a loop ends.
    while let Some(cur) = at.take() {
        let next = hops
            .iter()
            .enumerate()
            .find(|(i, h)| !used[*i] && same_url(h.from.as_deref(), Some(&cur)));
        if let Some((i, h)) = next {
            used[i] = true;
            step(&mut out, h.to.as_deref());
            at = h.to.clone();
        }
    }
    if start.is_some() && out.len() == 1 && !hops.is_empty() {
        // The hops do not start at the submitted URL (it was normalised): take them in order.
        for h in hops {
            step(&mut out, h.from.as_deref());
            step(&mut out, h.to.as_deref());
        }
    }
    step(&mut out, end);
    if out.len() < 2 {
        return Vec::new();
    }
    out
}

/// Whether two URLs are the same address (`https://a.example` is `https://a.example/`).
fn same_url(a: Option<&str>, b: Option<&str>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => {
            // The fragment is not part of what is fetched (`#:~:text=` links are common).
            let address = |u: &str| {
                url::Url::parse(u).ok().map(|mut u| {
                    u.set_fragment(None);
                    u
                })
            };
            a == b || matches!((address(a), address(b)), (Some(x), Some(y)) if x == y)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_deduplicated_in_order_and_ips_kept_apart() {
        let doc = br#"{
            "task": {"url": "http://a.example/", "domain": "a.example", "apexDomain": "a.example"},
            "page": {"url": "https://b.example/x", "domain": "b.example", "apexDomain": "b.example",
                     "ip": "203.0.113.7", "asn": "AS64500"},
            "lists": {"urls": ["https://b.example/x", "https://c.example/s.js"],
                      "domains": ["b.example", "c.example", "b.example"],
                      "ips": ["2001:db8::1", "203.0.113.7", "198.51.100.2"],
                      "asns": ["64500", 64501, "AS64502"],
                      "hashes": ["aa", "bb", "aa"], "certificates": {},
                      "linkDomains": null},
            "data": {"links": [{"href": "https://d.example/"}, {"href": null}],
                     "redirects": [{"from": "http://a.example/", "to": "https://a.example/"},
                                   {"from": "https://a.example/", "to": "https://b.example/x"}]},
            "stats": {"regDomainStats": [{"regDomain": "c.example"}]}
        }"#;
        let i = indicators(doc).unwrap();
        assert_eq!(
            i.urls,
            [
                "http://a.example/",
                "https://b.example/x",
                "https://c.example/s.js"
            ]
        );
        assert_eq!(i.domains, ["b.example", "a.example", "c.example"]);
        assert_eq!(i.apex_domains, ["b.example", "a.example", "c.example"]);
        assert_eq!(i.ipv4, ["203.0.113.7", "198.51.100.2"]);
        assert_eq!(i.ipv6, ["2001:db8::1"]);
        assert_eq!(i.asns, ["AS64500", "AS64501", "AS64502"]);
        assert_eq!(i.hashes, ["aa", "bb"]);
        assert!(i.certificates.is_empty());
        assert_eq!(
            i.redirects,
            [
                "http://a.example/",
                "https://a.example/",
                "https://b.example/x"
            ]
        );
        assert_eq!(i.links, ["https://d.example/"]);
    }

    #[test]
    fn missing_parts_are_empty_and_a_wrong_type_names_its_path() {
        assert_eq!(indicators(b"{}").unwrap(), Indicators::default());
        let same =
            br#"{"task": {"url": "https://a.example/"}, "page": {"url": "https://a.example/"}}"#;
        assert!(indicators(same).unwrap().redirects.is_empty());
        // One address written two ways is no redirect: a missing path, the host's case, a fragment.
        let slash =
            br#"{"task": {"url": "https://A.example#x"}, "page": {"url": "https://a.example/"}}"#;
        assert!(indicators(slash).unwrap().redirects.is_empty());
        let moved =
            br#"{"task": {"url": "https://a.example/"}, "page": {"url": "https://b.example/"}}"#;
        assert_eq!(
            indicators(moved).unwrap().redirects,
            ["https://a.example/", "https://b.example/"]
        );
        let err = indicators(br#"{"lists": {"ips": ["1.2.3.4", 5]}}"#).unwrap_err();
        assert!(err.to_string().contains("lists.ips[1]"), "{err}");
        let err = indicators(br#"{"lists": {"urls": {"a": 1}}}"#).unwrap_err();
        assert!(err.to_string().contains("lists.urls"), "{err}");
        let err = indicators(br#"{"page": "x"}"#).unwrap_err();
        assert!(err.to_string().contains(" page: invalid type"), "{err}");
        assert_eq!(
            indicators(br#"{"page": null}"#).unwrap(),
            Indicators::default()
        );
        let err =
            indicators(br#"{"lists": {"certificates": [{"validFrom": "soon"}]}}"#).unwrap_err();
        assert!(
            err.to_string().contains("lists.certificates[0].validFrom"),
            "{err}"
        );
    }

    #[test]
    fn a_redirect_loop_ends_at_the_final_page() {
        let doc =
            br#"{"task": {"url": "https://a.example/"}, "page": {"url": "https://a.example/"},
            "data": {"redirects": [{"from": "https://a.example/", "to": "https://b.example/"},
                                   {"from": "https://b.example/", "to": "https://a.example/"}]}}"#;
        assert_eq!(
            indicators(doc).unwrap().redirects,
            [
                "https://a.example/",
                "https://b.example/",
                "https://a.example/"
            ]
        );
    }
}
