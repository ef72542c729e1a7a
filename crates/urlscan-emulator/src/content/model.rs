//! The scan model: one scan worked out from its [`ScanSpec`] (where the URL
//! leads, which site and hosts are involved, the requests made) that every
//! output is rendered from.

use rand::Rng;
use serde_json::Value;

use super::facts::{Facts, NO_FACTS};
use super::helpers::{chacha_of, h64, pick, pick_w, rhex, rng_of, round_to, DAY_MS};
use super::sites::{provider, Host, Site, SiteKind};
use super::spec::ScanSpec;
use super::urls::{apex_of, Target};
use super::verdicts::classify;
use super::words::{self, Brand, Kind, Provider, ThirdParty};

pub(super) struct Redirect {
    pub(super) from: String,
    pub(super) to: String,
    pub(super) status: u16,
    pub(super) host: usize,
}

pub(super) struct Req {
    pub(super) url: String,
    pub(super) host: usize,
    pub(super) kind: Kind,
    pub(super) method: &'static str,
    pub(super) status: u16,
    pub(super) mime: &'static str,
    pub(super) body: super::shared::Body,
    pub(super) hash: String,
    /// Encoded (on-the-wire) body bytes and response header bytes.
    pub(super) enc_body: u64,
    pub(super) hdr_len: u64,
    pub(super) compressed: bool,
    pub(super) init_type: &'static str,
    pub(super) init_url: Option<String>,
    pub(super) init_line: Option<i64>,
    /// Index of the request whose script issued this one.
    pub(super) injected_by: Option<usize>,
    pub(super) tracker: bool,
    pub(super) body_seed: String,
    pub(super) label: String,
    pub(super) tp: Option<&'static ThirdParty>,
    pub(super) start: f64,
    pub(super) ttfb: f64,
    pub(super) end: f64,
    pub(super) conn: Option<(f64, f64, f64, f64)>,
    pub(super) id: String,
    pub(super) priority: &'static str,
}

pub(super) struct Model<'a> {
    pub(super) spec: &'a ScanSpec,
    /// What a test said of the scan (`facts.rs`); none for generated scans.
    pub(super) facts: &'a Facts,
    pub(super) submitted: Target,
    pub(super) page: Target,
    pub(super) page_url: String,
    pub(super) page_host: usize,
    pub(super) hosts: Vec<Host>,
    pub(super) reqs: Vec<Req>,
    pub(super) redirect: Option<Redirect>,
    pub(super) site: Site,
    pub(super) brand: Option<&'static Brand>,
    pub(super) title: String,
    pub(super) status: u16,
    pub(super) links: Vec<(String, String)>,
    pub(super) dom: String,
    pub(super) cookies: Vec<Value>,
    pub(super) console: Vec<Value>,
    pub(super) globals: Vec<(String, &'static str)>,
    pub(super) apps: Vec<(&'static str, String)>,
    pub(super) scanner_country: String,
    pub(super) submitter_country: String,
    pub(super) ua: String,
    pub(super) accept_language: String,
    pub(super) nav0: i64,
    /// Submission time clamped to a sane range, for internal arithmetic.
    pub(super) t_ms: i64,
    pub(super) mono: f64,
    pub(super) loader_id: String,
    pub(super) frame_id: String,
    pub(super) dcl: f64,
    pub(super) load: f64,
    pub(super) score: i64,
    pub(super) community_votes: i64,
}

fn default_user_agent(time_ms: i64) -> String {
    // Chrome 100 shipped on 2022-03-29; a new major appears roughly monthly.
    let days = time_ms.saturating_sub(1_648_512_000_000).div_euclid(DAY_MS);
    let v = (100 + days.div_euclid(31)).clamp(70, 400);
    format!(
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/{v}.0.0.0 Safari/537.36"
    )
}

pub(super) fn chrome_major(ua: &str) -> Option<&str> {
    let i = ua.find("Chrome/")? + 7;
    let rest = &ua[i..];
    Some(rest.split('.').next().unwrap_or(rest))
}

/// Where the submitted URL ends up, and with which redirect status.
fn resolve(sub: &Target) -> (Target, Option<u16>) {
    let host = sub.host.as_str();
    if let Some((_, dest)) = words::REDIRECTORS.iter().find(|(h, _)| *h == host) {
        let k = if dest.is_empty() {
            let n = words::KNOWN_SITES.len() as u64;
            &words::KNOWN_SITES[(h64(&["short", &sub.url()]) % n) as usize]
        } else {
            words::KNOWN_SITES
                .iter()
                .find(|k| k.apex == *dest)
                .unwrap_or(&words::KNOWN_SITES[0])
        };
        let path = if dest.is_empty() {
            let mut r = rng_of(&["short-path", &sub.url()]);
            let n = r.random_range(2..5);
            let slug: Vec<&str> = (0..n).map(|_| *pick(&mut r, &words::SLUG_WORDS)).collect();
            format!("/{}", slug.join("-"))
        } else {
            sub.path_query.clone()
        };
        return (Target::new("https", k.host, &path), Some(301));
    }
    if sub.is_ip || sub.port.is_some() {
        return (sub.clone(), None);
    }
    if classify(&sub.host, sub.path()).is_some() {
        return (sub.clone(), None);
    }
    let apex = apex_of(host);
    let site = Site::new(&apex, None, 0);
    let mut t = sub.clone();
    if let SiteKind::Known(k) = site.kind {
        if host == k.apex && k.host != k.apex {
            t.host = k.host.to_string();
        }
        t.scheme = "https".into();
    } else {
        if site.https && t.scheme == "http" {
            t.scheme = "https".into();
        }
        if site.www_canonical && host == apex {
            t.host = format!("www.{apex}");
        }
    }
    if t.url() == sub.url() {
        return (t, None);
    }
    let status = if matches!(h64(&["redir", &apex]) % 4, 0) {
        302
    } else {
        301
    };
    (t, Some(status))
}

fn redirector_provider(host: &str) -> (&'static Provider, &'static str) {
    match host {
        "twitter.com" | "www.twitter.com" | "t.co" => (provider("twitter"), "envoy"),
        "fb.com" => (provider("facebook"), "proxygen-bolt"),
        "youtu.be" => (provider("google"), "ESF"),
        "bit.ly" => (provider("gcp"), "nginx"),
        _ => (provider("cloudflare"), "cloudflare"),
    }
}

impl<'a> Model<'a> {
    pub(super) fn build(spec: &'a ScanSpec) -> Model<'a> {
        Self::build_with(spec, &NO_FACTS)
    }

    /// The scan, with the facts a test gave applied where they belong.
    pub(super) fn build_with(spec: &'a ScanSpec, facts: &'a Facts) -> Model<'a> {
        let submitted = Target::parse(&spec.url);
        // Internal arithmetic uses a sane instant (1970..2100) so odd inputs cannot overflow.
        let t_ms = spec.time_ms.clamp(0, 4_102_444_800_000);
        let mut sr = chacha_of(&["scan", &spec.uuid, &spec.url]);
        let (page, redirect_status) = resolve(&submitted);
        let brand = facts.brand().unwrap_or_else(|| {
            classify(&page.host, page.path())
                .or_else(|| classify(&submitted.host, submitted.path()))
        });
        let page_apex = apex_of(&page.host);
        let mut site = Site::new(&page_apex, brand, t_ms);
        if brand.is_some() && classify(&page.host, "/").is_none() {
            // A kit uploaded to someone else's site: the site keeps its own
            // hosting, age and rank; only the page content is the kit's.
            let kit = site;
            site = Site::new(&page_apex, None, t_ms);
            site.kind = kit.kind;
            site.style = kit.style;
            site.name = kit.name;
            site.color = kit.color;
            site.accent = kit.accent;
            site.third = kit.third;
            site.scope = kit.scope;
            site.kit_dir = kit.kit_dir;
            site.php = kit.php;
            site.www_canonical = false;
        }
        if page.is_ip {
            site.issuer = Some("R11");
        }
        let page_url = page.url();

        let scanner_country = match &spec.country {
            Some(c) if c.len() == 2 => c.to_ascii_uppercase(),
            _ => pick_w(&mut sr, &words::SCAN_COUNTRIES).to_ascii_uppercase(),
        };
        let submitter_country = {
            let mut r = rng_of(&["submitter", &spec.source]);
            pick_w(&mut r, &words::SCAN_COUNTRIES).to_ascii_uppercase()
        };
        let ua = spec
            .user_agent
            .clone()
            .filter(|s| !s.trim().is_empty())
            .unwrap_or_else(|| default_user_agent(t_ms));
        let accept_language = words::ACCEPT_LANGUAGES
            .iter()
            .find(|(c, _)| c.eq_ignore_ascii_case(&scanner_country))
            .map(|(_, l)| l.to_string())
            .unwrap_or_else(|| "en-US,en;q=0.9".to_string());
        let use_v6 = sr.random_bool(0.3);

        // Status: deep generic paths occasionally 404.
        let status = {
            let depth = page.path().split('/').filter(|s| !s.is_empty()).count();
            let mut pr = rng_of(&["status", &page_url]);
            if matches!(site.kind, SiteKind::Generic) && depth >= 2 && pr.random_bool(0.06) {
                404
            } else {
                200
            }
        };
        let status = facts.status.unwrap_or(status);

        let mut m = Model {
            spec,
            facts,
            submitted: submitted.clone(),
            page: page.clone(),
            page_url: page_url.clone(),
            page_host: 0,
            hosts: Vec::new(),
            reqs: Vec::new(),
            redirect: None,
            title: String::new(),
            status,
            links: Vec::new(),
            dom: String::new(),
            cookies: Vec::new(),
            console: Vec::new(),
            globals: Vec::new(),
            apps: Vec::new(),
            scanner_country,
            submitter_country,
            ua,
            accept_language,
            nav0: t_ms + sr.random_range(1_500..6_000),
            t_ms,
            mono: round_to(sr.random_range(80_000.0..9_000_000.0), 6),
            loader_id: rhex(&mut sr, 32).to_ascii_uppercase(),
            frame_id: rhex(&mut sr, 32).to_ascii_uppercase(),
            dcl: 0.0,
            load: 0.0,
            score: 0,
            community_votes: 0,
            site,
            brand,
        };

        // Hosts: the redirect origin first (it was contacted first).
        if let Some(st) = redirect_status {
            let h = if submitted.host == page.host {
                None
            } else {
                let (prov, server) = if words::REDIRECTORS.iter().any(|r| r.0 == submitted.host) {
                    redirector_provider(&submitted.host)
                } else {
                    (m.site.provider, "")
                };
                let server = if server.is_empty() {
                    m.site.server.clone()
                } else {
                    server.to_string()
                };
                Some(m.host_index(&submitted.host, prov, &server, use_v6))
            };
            let page_host =
                m.host_index(&page.host, m.site.provider, &m.site.server.clone(), use_v6);
            m.redirect = Some(Redirect {
                from: submitted.url(),
                to: page_url.clone(),
                status: st,
                host: h.unwrap_or(page_host),
            });
            m.page_host = page_host;
        } else {
            let server = m.site.server.clone();
            m.page_host = m.host_index(&page.host, m.site.provider, &server, use_v6);
        }

        m.apply_host_facts();
        m.plan_requests(use_v6);
        m.title = facts.title.clone().unwrap_or_else(|| m.make_title());
        m.links = m.make_links();
        m.render_bodies();
        m.schedule(&mut sr);
        m.make_cookies(&mut sr);
        m.make_console(&mut sr);
        m.make_globals_and_apps();
        if m.brand.is_some() {
            m.score = 100 - (h64(&["score", &m.page_url]) % 4) as i64 * 10;
            m.community_votes = sr.random_range(0..4);
        }
        m.apply_verdict_facts();
        m
    }
}
