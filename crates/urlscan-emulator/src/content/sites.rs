//! Sites and hosts: what a site is (well-known, phishing kit or generic),
//! how it is built, where it is hosted (provider, address, location,
//! reverse DNS) and which third-party services it pulls in. Site-level facts
//! are seeded by the host name, so every scan of a site agrees.

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};

use super::helpers::{capitalize, chacha_of, h64, hsl, mix, pick, pick_w, ralnum, rng_of, DAY_MS};
use super::shared;
use super::tls::{make_tls, Tls};
use super::urls::{apex_of, has_suffix, is_ip_literal};
use super::words::{self, Brand, KnownSite, Loc, Provider, ThirdParty};

/// Registration dates of well-known and generated benign domains are fixed
/// relative to this instant (2025-01-01T00:00:00Z) so ages grow with time.
const AGE_ANCHOR_MS: i64 = 1_735_689_600_000;

pub(super) fn provider(key: &str) -> &'static Provider {
    words::PROVIDERS
        .iter()
        .find(|p| p.key == key)
        .unwrap_or(&words::PROVIDERS[0])
}

pub(super) fn third_party(key: &str) -> Option<&'static ThirdParty> {
    words::THIRD_PARTIES.iter().find(|t| t.key == key)
}

/// Splits a concatenated label into dictionary words ("bluecanyon" ->
/// ["blue", "canyon"]); `None` when it cannot.
fn segment_label(label: &str) -> Option<Vec<String>> {
    fn go(s: &str, depth: usize) -> Option<Vec<String>> {
        if s.is_empty() {
            return Some(Vec::new());
        }
        if depth == 0 {
            return None;
        }
        let dicts: [&[&str]; 4] = [
            &words::ADJECTIVES,
            &words::NOUNS,
            &words::SURNAMES,
            &words::BUSINESS_SUFFIXES,
        ];
        let mut cands: Vec<&str> = dicts
            .iter()
            .flat_map(|d| d.iter().copied())
            .filter(|w| s.starts_with(w))
            .collect();
        cands.extend(
            ["the", "get", "my", "s"]
                .iter()
                .filter(|w| s.starts_with(**w)),
        );
        cands.sort_by_key(|w| std::cmp::Reverse(w.len()));
        for w in cands {
            if let Some(mut rest) = go(&s[w.len()..], depth - 1) {
                rest.insert(0, w.to_string());
                return Some(rest);
            }
        }
        None
    }
    go(label, 4)
}

fn display_name(apex: &str) -> String {
    let label = apex.split('.').next().unwrap_or(apex);
    if label.starts_with("xn--") {
        // Punycode labels read best as they are.
        return label.to_string();
    }
    let parts: Vec<String> = if label.contains('-') {
        label
            .split('-')
            .filter(|s| !s.is_empty())
            .map(|s| s.to_string())
            .collect()
    } else {
        segment_label(label).unwrap_or_else(|| vec![label.to_string()])
    };
    let mut out: Vec<String> = Vec::new();
    for p in parts {
        if p == "s" {
            // Possessive: "linda" + "s" + "kitchen" -> "Linda's Kitchen".
            if let Some(last) = out.last_mut() {
                last.push_str("'s");
                continue;
            }
        }
        out.push(capitalize(&p));
    }
    out.join(" ")
}

#[derive(Clone, Copy)]
pub(super) enum SiteKind {
    Known(&'static KnownSite),
    Phish(&'static Brand),
    Generic,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Style {
    WordPress,
    Static,
    Vite,
    NextJs,
    Shopify,
    Kit,
    Known,
}

#[derive(Clone)]
pub(super) struct Site {
    pub(super) kind: SiteKind,
    pub(super) style: Style,
    pub(super) apex: String,
    pub(super) name: String,
    pub(super) lang: &'static str,
    pub(super) provider: &'static Provider,
    pub(super) server: String,
    pub(super) https: bool,
    pub(super) www_canonical: bool,
    pub(super) third: Vec<&'static ThirdParty>,
    pub(super) color: (u8, u8, u8),
    pub(super) accent: (u8, u8, u8),
    pub(super) rank: Option<i64>,
    pub(super) reg_ms: i64,
    pub(super) ga_id: String,
    pub(super) font: &'static str,
    pub(super) hsts: bool,
    pub(super) php: Option<String>,
    pub(super) wp_version: String,
    pub(super) theme: &'static str,
    pub(super) plugin: &'static str,
    pub(super) kit_dir: &'static str,
    /// Seed scope for per-site third-party ids; phishing kits share theirs.
    pub(super) scope: String,
    pub(super) issuer: Option<&'static str>,
}

const PHISH_PROVIDERS: &[(&str, u32)] = &[
    ("cloudflare", 30),
    ("namecheap", 18),
    ("hostinger", 14),
    ("digitalocean", 10),
    ("ovh", 5),
    ("contabo", 5),
    ("vultr", 5),
    ("alibaba", 4),
    ("tencent", 3),
    ("linode", 3),
    ("hetzner", 3),
];

/// Networks bare-IP sites are usually found on.
const IP_PROVIDERS: &[(&str, u32)] = &[
    ("digitalocean", 25),
    ("hetzner", 20),
    ("ovh", 15),
    ("vultr", 10),
    ("contabo", 10),
    ("linode", 10),
    ("aws-us", 10),
];

const GENERIC_PROVIDERS: &[(&str, u32)] = &[
    ("cloudflare", 30),
    ("aws-us", 12),
    ("aws-eu", 5),
    ("cloudfront", 5),
    ("gcp", 6),
    ("digitalocean", 8),
    ("godaddy", 7),
    ("namecheap", 5),
    ("hostinger", 5),
    ("akamai", 3),
    ("fastly", 3),
    ("automattic", 3),
    ("ovh", 3),
    ("hetzner", 3),
    ("linode", 2),
    ("vultr", 2),
    ("microsoft", 3),
];

fn providers_for_tld(apex: &str) -> &'static [(&'static str, u32)] {
    const DE: &[(&str, u32)] = &[
        ("hetzner", 25),
        ("ionos", 20),
        ("cloudflare", 25),
        ("contabo", 10),
        ("aws-eu", 10),
        ("ovh", 5),
    ];
    const FR: &[(&str, u32)] = &[
        ("ovh", 50),
        ("cloudflare", 30),
        ("aws-eu", 10),
        ("ionos", 10),
    ];
    const NL: &[(&str, u32)] = &[
        ("leaseweb", 30),
        ("cloudflare", 30),
        ("digitalocean", 20),
        ("aws-eu", 20),
    ];
    const JP: &[(&str, u32)] = &[("sakura", 50), ("aws-us", 20), ("cloudflare", 30)];
    let tld = apex.rsplit('.').next().unwrap_or("");
    match tld {
        "de" | "ch" | "at" | "pl" => DE,
        "fr" | "es" | "it" => FR,
        "nl" => NL,
        "jp" => JP,
        _ => GENERIC_PROVIDERS,
    }
}

impl Site {
    pub(super) fn new(apex: &str, brand: Option<&'static Brand>, time_ms: i64) -> Site {
        // Only a phishing site's registration depends on the time (it is registered days
        // before the scan): the rest is the site's own, kept while `shared::keeping`.
        let mut site = shared::site(apex, brand, || Site::at_epoch(apex, brand));
        if matches!(site.kind, SiteKind::Phish(_)) {
            site.reg_ms += time_ms;
        }
        site
    }

    /// The site as scanned at the epoch (`new`).
    fn at_epoch(apex: &str, brand: Option<&'static Brand>) -> Site {
        let time_ms = 0;
        let mut r = chacha_of(&["site", apex]);
        let known = words::KNOWN_SITES.iter().find(|k| k.apex == apex);
        let hosting = words::HOSTING_SUFFIXES
            .iter()
            .find(|s| has_suffix(apex, s.0));
        let is_ip = is_ip_literal(apex);
        let kind = match (brand, known) {
            (Some(b), _) => SiteKind::Phish(b),
            (None, Some(k)) => SiteKind::Known(k),
            _ => SiteKind::Generic,
        };
        let lang = match kind {
            SiteKind::Generic => words::TLDS
                .iter()
                .filter(|t| has_suffix(apex, t.0))
                .max_by_key(|t| t.0.len())
                .map(|t| t.2)
                .unwrap_or("en"),
            _ => "en",
        };
        let prov_key: &str = match kind {
            SiteKind::Known(k) => k.provider,
            SiteKind::Phish(_) => hosting
                .map(|h| h.1)
                .unwrap_or_else(|| *pick_w(&mut r, PHISH_PROVIDERS)),
            SiteKind::Generic if is_ip => pick_w::<&str, _>(&mut r, IP_PROVIDERS),
            SiteKind::Generic => hosting
                .map(|h| h.1)
                .unwrap_or_else(|| *pick_w(&mut r, providers_for_tld(apex))),
        };
        let prov = provider(prov_key);
        let style = match kind {
            SiteKind::Known(_) => Style::Known,
            SiteKind::Phish(_) => Style::Kit,
            SiteKind::Generic if hosting.is_some() || is_ip => {
                *pick(&mut r, &[Style::Static, Style::Vite, Style::NextJs])
            }
            SiteKind::Generic => *pick_w(
                &mut r,
                &[
                    (Style::WordPress, 35),
                    (Style::Static, 20),
                    (Style::Vite, 10),
                    (Style::NextJs, 15),
                    (Style::Shopify, 8),
                ],
            ),
        };
        let server = match (kind, hosting) {
            (SiteKind::Known(k), _) => k.server.to_string(),
            (_, Some(h)) => h.2.to_string(),
            _ if prov.key == "cloudflare" => "cloudflare".to_string(),
            _ if style == Style::Shopify => "cloudflare".to_string(),
            _ => pick(&mut r, &prov.servers).to_string(),
        };
        let https = match kind {
            SiteKind::Known(_) => true,
            SiteKind::Phish(_) => hosting.is_some() || r.random_bool(0.85),
            SiteKind::Generic => hosting.is_some() || r.random_bool(0.92),
        };
        let www_canonical = match kind {
            SiteKind::Known(k) => k.host.starts_with("www."),
            SiteKind::Phish(_) => false,
            SiteKind::Generic => hosting.is_none() && !is_ip && r.random_bool(0.5),
        };
        let color = match kind {
            SiteKind::Known(k) => k.color,
            SiteKind::Phish(b) => b.color,
            SiteKind::Generic => hsl(r.random_range(0.0..360.0), 0.55, r.random_range(0.3..0.5)),
        };
        // A brand's own secondary domains look like the brand.
        let owner = words::BRANDS.iter().find(|b| b.legit.contains(&apex));
        let color = owner.map(|b| b.color).unwrap_or(color);
        let accent = mix(color, (255, 255, 255), 0.82);
        let rank = match kind {
            SiteKind::Known(k) => Some(k.rank),
            SiteKind::Phish(_) => None,
            SiteKind::Generic => {
                let u: f64 = r.random();
                (u < 0.35 && !is_ip).then(|| 1_000 + (r.random::<f64>().powi(3) * 999_000.0) as i64)
            }
        };
        let reg_ms = match kind {
            SiteKind::Known(k) => AGE_ANCHOR_MS - k.age_days * DAY_MS,
            SiteKind::Phish(_) => {
                time_ms - r.random_range(1..45) * DAY_MS - r.random_range(0..DAY_MS)
            }
            SiteKind::Generic => AGE_ANCHOR_MS - r.random_range(60..9_000) * DAY_MS,
        };
        let ga_id = format!("G-{}", ralnum(&mut r, 10, true));
        let font = *pick(&mut r, &words::FONTS);
        let hsts = match kind {
            SiteKind::Known(_) => true,
            _ => https && r.random_bool(0.4),
        };
        let php = (matches!(style, Style::WordPress | Style::Kit) && r.random_bool(0.5))
            .then(|| format!("PHP/8.{}.{}", r.random_range(1..4), r.random_range(0..29)));
        let wp_version = format!("6.{}.{}", r.random_range(3..8), r.random_range(0..4));
        let theme = *pick(&mut r, &words::WP_THEMES);
        let plugin = *pick(&mut r, &words::WP_PLUGINS);
        let kit_dir = *pick(
            &mut r,
            &["assets", "files", "app", "auth", "secure", "login"],
        );
        let kit_variant = r.random_range(1..4);
        let scope = match kind {
            SiteKind::Phish(b) => format!("kit:{}:{}", b.key, kit_variant),
            _ => apex.to_string(),
        };
        let name = match kind {
            SiteKind::Known(k) => k.name.to_string(),
            SiteKind::Phish(b) => b.name.to_string(),
            SiteKind::Generic if is_ip => apex.to_string(),
            SiteKind::Generic => owner
                .map(|b| b.name.to_string())
                .unwrap_or_else(|| display_name(apex)),
        };
        let third = choose_third(&mut r, kind, style);
        Site {
            kind,
            style,
            apex: apex.to_string(),
            name,
            lang,
            provider: prov,
            server,
            https,
            www_canonical,
            third,
            color,
            accent,
            rank,
            reg_ms,
            ga_id,
            font,
            hsts,
            php,
            wp_version,
            theme,
            plugin,
            kit_dir,
            scope,
            issuer: None,
        }
    }

    pub(super) fn is_phish(&self) -> bool {
        matches!(self.kind, SiteKind::Phish(_))
    }
}

fn choose_third(r: &mut ChaCha8Rng, kind: SiteKind, style: Style) -> Vec<&'static ThirdParty> {
    let mut keys: Vec<&'static str> = Vec::new();
    let add_generic = |r: &mut ChaCha8Rng, keys: &mut Vec<&'static str>, n: usize| {
        let mut pool: Vec<(&'static str, u32)> = words::GENERIC_THIRD_PARTIES
            .iter()
            .filter(|(k, _)| !keys.contains(k))
            .copied()
            .collect();
        for _ in 0..n {
            if pool.is_empty() {
                break;
            }
            let k = *pick_w(r, &pool);
            pool.retain(|(x, _)| *x != k);
            keys.push(k);
        }
    };
    match (kind, style) {
        (SiteKind::Known(k), _) => keys.extend(k.third.iter().copied()),
        (SiteKind::Phish(b), _) => {
            if let Some(a) = b.assets {
                if r.random_bool(0.8) {
                    keys.push(a);
                }
            }
            if r.random_bool(0.5) {
                keys.push(*pick(r, &["jquery-cdn", "cdnjs", "google-ajax"]));
            }
            if r.random_bool(0.35) {
                keys.push("ipapi");
            }
            if r.random_bool(0.25) {
                keys.push("telegram");
            }
            if keys.is_empty() {
                keys.push("jquery-cdn");
            }
        }
        (_, Style::WordPress) => {
            if r.random_bool(0.7) {
                keys.push("wp-emoji");
            }
            let n = r.random_range(1..4);
            add_generic(r, &mut keys, n);
        }
        (_, Style::Shopify) => {
            keys.push("shopify");
            for k in ["fb-pixel", "gtm", "hotjar"] {
                if r.random_bool(0.4) {
                    keys.push(k);
                }
            }
        }
        _ => {
            let n = r.random_range(1..5);
            add_generic(r, &mut keys, n);
        }
    }
    if keys.contains(&"gtm") && !keys.contains(&"ga") && r.random_bool(0.6) {
        keys.push("ga");
    }
    let mut out: Vec<&'static ThirdParty> = Vec::new();
    for k in keys {
        if let Some(t) = third_party(k) {
            if !out.iter().any(|x| x.key == t.key) {
                out.push(t);
            }
        }
    }
    out
}

#[derive(Clone)]
pub(super) struct Host {
    pub(super) name: String,
    pub(super) apex: String,
    pub(super) prov: &'static Provider,
    pub(super) ip: String,
    pub(super) v6: bool,
    pub(super) loc: &'static Loc,
    pub(super) ptr: String,
    pub(super) route: String,
    pub(super) server: String,
    pub(super) protocol: &'static str,
    pub(super) tls: Tls,
    pub(super) rank: Option<i64>,
}

fn fill_v6<R: Rng>(tpl: &str, r: &mut R) -> String {
    let mut out = String::new();
    let mut rest = tpl;
    while let Some(i) = rest.find('{') {
        out.push_str(&rest[..i]);
        let end = rest[i..].find('}').map(|e| i + e).unwrap_or(rest.len() - 1);
        match &rest[i + 1..end] {
            "1" => out.push_str(&format!("{:x}", r.random_range(0..16u32))),
            "2" => out.push_str(&format!("{:02x}", r.random_range(0..256u32))),
            _ => out.push_str(&format!("{:x}", r.random_range(1..0x10000u32))),
        }
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    out
}

fn fill_ptr<R: Rng>(tpl: &str, ip: &str, v6: bool, r: &mut R) -> String {
    if tpl.is_empty() || (v6 && tpl.contains("{a}")) {
        return String::new();
    }
    let o: Vec<&str> = ip.split('.').collect();
    let oct = |i: usize| o.get(i).copied().unwrap_or("0");
    let mut out = tpl
        .replace("{a}", oct(0))
        .replace("{b}", oct(1))
        .replace("{c}", oct(2))
        .replace("{d}", oct(3));
    while out.contains("{n}") {
        out = out.replacen("{n}", &r.random_range(1..30).to_string(), 1);
    }
    out.replace("{N}", &r.random_range(100_000..999_999).to_string())
}

#[derive(Clone, Copy)]
pub(super) struct HostOpts<'a> {
    pub(super) name: &'a str,
    pub(super) prov: &'static Provider,
    pub(super) server: &'a str,
    pub(super) issuer: Option<&'a str>,
    pub(super) use_v6: bool,
    pub(super) time_ms: i64,
}

impl Host {
    pub(super) fn new(o: HostOpts) -> Host {
        // Only the certificate's dates depend on the time: the rest is the
        // host's own, kept while `shared::keeping`.
        let key = (o.name, o.prov, o.server, o.issuer, o.use_v6);
        let mut host = shared::host(key, || Host::made(o));
        host.tls.at(o.time_ms);
        host
    }

    fn made(o: HostOpts) -> Host {
        let name = o.name;
        let apex = apex_of(name);
        let prov = o.prov;
        // Separate streams per field keep values stable whichever branch
        // (IPv4 or IPv6) a scan takes.
        let mut r4 = rng_of(&["ip4", name]);
        let &(a, b, c, d, len) = pick(&mut r4, &prov.v4);
        let base = u32::from_be_bytes([a, b, c, d]);
        let size = 1u64 << (32 - len as u32);
        let mut ipn = base.wrapping_add(r4.random_range(1..size.max(3) - 1) as u32);
        if ipn & 0xff == 0 || ipn & 0xff == 255 {
            ipn ^= 1;
        }
        let v4 = std::net::Ipv4Addr::from(ipn).to_string();
        let v4_route = format!("{a}.{b}.{c}.{d}/{len}");
        let mut r6 = rng_of(&["ip6", name]);
        let (ip, v6, route) = if is_ip_literal(name) {
            let v6 = name.contains(':');
            let route = if v6 {
                format!("{name}/128")
            } else {
                format!("{}.0/24", name.rsplitn(2, '.').last().unwrap_or(name))
            };
            (name.to_string(), v6, route)
        } else {
            match prov.v6 {
                Some((tpl, route)) if o.use_v6 => (fill_v6(tpl, &mut r6), true, route.to_string()),
                _ => (v4, false, v4_route),
            }
        };
        let mut r = rng_of(&["host", name]);
        let loc = *pick(&mut r, &prov.locs);
        let ptr = fill_ptr(prov.ptr, &ip, v6, &mut r);
        let protocol = if r.random_bool(0.7) {
            prov.protocols[0]
        } else {
            *pick(&mut r, &prov.protocols)
        };
        let issuer = o
            .issuer
            .map(|s| s.to_string())
            .unwrap_or_else(|| pick(&mut r, &prov.issuers).to_string());
        let tls12_share = match prov.key {
            "godaddy" | "sakura" | "alibaba" | "tencent" | "ionos" => 0.5,
            _ => 0.1,
        };
        let tls = make_tls(name, &apex, &issuer, tls12_share, o.time_ms);
        let rank = words::KNOWN_SITES
            .iter()
            .find(|k| k.apex == apex)
            .map(|k| k.rank)
            .or_else(|| {
                words::THIRD_PARTIES
                    .iter()
                    .any(|t| t.host == name)
                    .then(|| 5 + (h64(&["rank", name]) % 3_000) as i64)
            });
        Host {
            name: name.to_string(),
            apex,
            prov,
            ip,
            v6,
            loc,
            ptr,
            route,
            server: o.server.to_string(),
            protocol,
            tls,
            rank,
        }
    }

    pub(super) fn asn_json(&self) -> Value {
        json!({
            "ip": self.ip,
            "asn": self.prov.asn.to_string(),
            "country": self.prov.reg_country,
            "registrar": registrar(self.prov.reg_country),
            "description": self.prov.asnname,
            "route": self.route,
            "name": self.prov.org,
        })
    }

    pub(super) fn geoip_json(&self) -> Value {
        let l = self.loc;
        json!({
            "country": l.country,
            "region": l.region,
            "timezone": l.timezone,
            "city": l.city,
            "ll": [l.lat, l.lon],
            "metro": l.metro,
            "country_name": l.country_name,
        })
    }
}

fn registrar(cc: &str) -> &'static str {
    match cc {
        "US" | "CA" => "arin",
        "SG" | "CN" | "JP" | "HK" | "AU" | "IN" => "apnic",
        _ => "ripencc",
    }
}
