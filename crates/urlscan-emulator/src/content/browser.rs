//! What the browser observed while the page ran: cookies, console
//! messages, JavaScript globals and detected technologies.

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Map, Value};

use super::helpers::{http_date, ralnum, round_to};
use super::model::Model;
use super::sites::{SiteKind, Style};
use super::words::{self, Kind};

/// A message a site's own script sometimes logs once it has loaded.
struct ScriptMessage {
    /// Label of the request that loads the script.
    label: &'static str,
    chance: f64,
    level: &'static str,
    source: &'static str,
    text: &'static str,
    /// The source line; any draw it makes follows the chance's.
    line: fn(&mut ChaCha8Rng) -> i64,
    delay_ms: f64,
}

const SCRIPT_MESSAGES: [ScriptMessage; 2] = [
    ScriptMessage {
        label: "jquery",
        chance: 0.7,
        level: "log",
        source: "console-api",
        text: "JQMIGRATE: Migrate is installed, version 3.4.1",
        line: |_| 2,
        delay_ms: 3.0,
    },
    ScriptMessage {
        label: "app",
        chance: 0.25,
        level: "error",
        source: "javascript",
        text: "Uncaught TypeError: Cannot read properties of null (reading 'addEventListener')",
        line: |r| r.random_range(1..400),
        delay_ms: 2.0,
    },
];

impl<'a> Model<'a> {
    pub(super) fn make_cookies(&mut self, sr: &mut ChaCha8Rng) {
        let secure = self.page.scheme == "https";
        let apex = format!(".{}", self.site.apex);
        let now_s = self.nav0 as f64 / 1000.0;
        let mut add = |name: String,
                       value: String,
                       domain: String,
                       expires: Option<f64>,
                       http_only: bool,
                       same_site: Option<&str>| {
            let mut c = Map::new();
            c.insert("name".into(), json!(name));
            c.insert("size".into(), json!(name.len() + value.len()));
            c.insert("value".into(), json!(value));
            c.insert("domain".into(), json!(domain));
            c.insert("path".into(), json!("/"));
            c.insert(
                "expires".into(),
                json!(expires.map(|e| round_to(e, 6)).unwrap_or(-1.0)),
            );
            c.insert("httpOnly".into(), json!(http_only));
            c.insert(
                "secure".into(),
                json!(secure && (same_site == Some("None") || http_only)),
            );
            c.insert("session".into(), json!(expires.is_none()));
            if let Some(s) = same_site {
                c.insert("sameSite".into(), json!(s));
            }
            c.insert("priority".into(), json!("Medium"));
            c.insert("sameParty".into(), json!(false));
            c.insert(
                "sourceScheme".into(),
                json!(if secure { "Secure" } else { "NonSecure" }),
            );
            c.insert("sourcePort".into(), json!(if secure { 443 } else { 80 }));
            self.cookies.push(Value::Object(c));
        };
        let page_host = &self.hosts[self.page_host];
        if page_host.prov.key == "cloudflare" && secure && sr.random_bool(0.6) {
            let v = format!(
                "{}-{}-1.0.1.1-{}",
                ralnum(sr, 43, false),
                self.nav0 / 1000,
                ralnum(sr, 60, false)
            );
            add(
                "__cf_bm".into(),
                v,
                apex.clone(),
                Some(now_s + 1800.0),
                true,
                Some("None"),
            );
        }
        if let SiteKind::Known(k) = self.site.kind {
            let name = match k.apex {
                "google.com" | "youtube.com" => "NID",
                "facebook.com" | "instagram.com" => "datr",
                "github.com" => "_gh_sess",
                "microsoft.com" | "bing.com" | "linkedin.com" => "MUID",
                "amazon.com" => "session-id",
                "netflix.com" => "nfvdid",
                _ => "session",
            };
            let v = ralnum(sr, 32, true);
            add(
                name.into(),
                v,
                apex.clone(),
                Some(now_s + 180.0 * 86_400.0),
                true,
                Some("Lax"),
            );
        }
        if self.site.php.is_some() && matches!(self.site.style, Style::Kit) {
            add(
                "PHPSESSID".into(),
                ralnum(sr, 26, false),
                self.page.host.clone(),
                None,
                false,
                None,
            );
        }
        let has = |k: &str| self.site.third.iter().any(|t| t.key == k);
        let (ga, fb, hj, ot) = (has("gtm"), has("fb-pixel"), has("hotjar"), has("onetrust"));
        let ts = self.nav0 / 1000;
        if ga {
            add(
                "_ga".into(),
                format!(
                    "GA1.1.{}.{}",
                    sr.random_range(100_000_000..2_000_000_000u32),
                    ts
                ),
                apex.clone(),
                Some(now_s + 400.0 * 86_400.0),
                false,
                None,
            );
            let id = self.site.ga_id.trim_start_matches("G-").to_string();
            add(
                format!("_ga_{id}"),
                format!("GS2.1.s{ts}$o1$g0$t{ts}$j60$l0$h0"),
                apex.clone(),
                Some(now_s + 400.0 * 86_400.0),
                false,
                None,
            );
        }
        if fb {
            add(
                "_fbp".into(),
                format!(
                    "fb.1.{}.{}",
                    self.nav0,
                    sr.random_range(100_000_000..999_999_999u32)
                ),
                apex.clone(),
                Some(now_s + 90.0 * 86_400.0),
                false,
                Some("Lax"),
            );
        }
        if hj {
            let id = sr.random_range(1_000_000..9_999_999u32);
            add(
                format!("_hjSessionUser_{id}"),
                format!("eyJpZCI6Ij{}", ralnum(sr, 40, false)),
                apex.clone(),
                Some(now_s + 365.0 * 86_400.0),
                false,
                Some("None"),
            );
        }
        if ot {
            let v = format!(
                "isGpcEnabled=0&datestamp={}&version=202401.1.0&hosts=&landingPath={}",
                http_date(self.nav0).replace(' ', "+"),
                self.page_url.replace(':', "%3A").replace('/', "%2F")
            );
            add(
                "OptanonConsent".into(),
                v,
                apex.clone(),
                Some(now_s + 365.0 * 86_400.0),
                false,
                Some("Lax"),
            );
        }
    }

    pub(super) fn make_console(&mut self, sr: &mut ChaCha8Rng) {
        let ts0 = self.nav0 as f64;
        let mut out: Vec<Value> = Vec::new();
        let mut msg =
            |level: &str, source: &str, text: String, url: &str, line: Option<i64>, at: f64| {
                let mut m = Map::new();
                m.insert("source".into(), json!(source));
                m.insert("level".into(), json!(level));
                m.insert("text".into(), json!(text));
                m.insert("timestamp".into(), json!(round_to(ts0 + at, 3)));
                m.insert("url".into(), json!(url));
                if let Some(l) = line {
                    m.insert("line".into(), json!(l));
                }
                out.push(json!({ "message": Value::Object(m) }));
            };
        if self.status == 404 {
            msg(
                "error",
                "network",
                "Failed to load resource: the server responded with a status of 404 ()".into(),
                &self.page_url,
                None,
                self.reqs[0].end,
            );
        }
        for m in &SCRIPT_MESSAGES {
            if let Some(q) = self.reqs.iter().find(|q| q.label == m.label) {
                if sr.random_bool(m.chance) {
                    let line = (m.line)(sr);
                    msg(
                        m.level,
                        m.source,
                        m.text.into(),
                        &q.url,
                        Some(line),
                        q.end + m.delay_ms,
                    );
                }
            }
        }
        if let Some(q) = self
            .reqs
            .iter()
            .find(|q| q.kind == Kind::Stylesheet && q.tp.is_some())
        {
            if sr.random_bool(0.2) {
                msg(
                    "warning",
                    "other",
                    format!("The resource {} was preloaded using link preload but not used within a few seconds from the window's load event. Please make sure it has an appropriate `as` value and it is preloaded intentionally.", q.url),
                    &self.page_url,
                    None,
                    self.load + 3000.0,
                );
            }
        }
        if self.site.is_phish() && sr.random_bool(0.3) {
            let u = self
                .reqs
                .iter()
                .find(|q| q.label == "app")
                .map(|q| q.url.clone())
                .unwrap_or_else(|| self.page_url.clone());
            msg("log", "console-api", "loaded".into(), &u, Some(1), self.dcl);
        }
        self.console = out;
    }

    pub(super) fn make_globals_and_apps(&mut self) {
        let mut g: Vec<(String, &'static str)> = Vec::new();
        let add_g = |p: &str, t: &'static str, g: &mut Vec<(String, &'static str)>| {
            if !g.iter().any(|x| x.0 == p) {
                g.push((p.to_string(), t));
            }
        };
        let mut apps: Vec<(&'static str, String)> = Vec::new();
        let add_app = |a: &'static str, pattern: String, apps: &mut Vec<(&'static str, String)>| {
            if !apps.iter().any(|x| x.0 == a) && words::APPS.iter().any(|x| x.0 == a) {
                apps.push((a, pattern));
            }
        };
        let server = self.hosts[self.page_host].server.clone();
        let sl = server.to_ascii_lowercase();
        let by_server: &[(&str, &'static str)] = &[
            ("nginx", "Nginx"),
            ("apache", "Apache HTTP Server"),
            ("litespeed", "LiteSpeed"),
            ("iis", "IIS"),
            ("cloudflare", "Cloudflare"),
            ("amazons3", "Amazon S3"),
            ("cloudfront", "Amazon CloudFront"),
            ("akamai", "Akamai"),
            ("varnish", "Varnish"),
            ("gws", "Google Web Server"),
            ("caddy", "Caddy"),
        ];
        for (needle, app) in by_server {
            if sl.contains(needle) {
                add_app(app, format!("headers server /{needle}/i"), &mut apps);
            }
        }
        if let SiteKind::Known(k) = self.site.kind {
            for a in &k.apps {
                add_app(a, format!("dom /{}/i", a.to_ascii_lowercase()), &mut apps);
            }
        }
        match self.site.style {
            Style::WordPress => {
                add_app(
                    "WordPress",
                    "meta generator /^WordPress ?([\\d.]+)?/i".into(),
                    &mut apps,
                );
                add_g("wp", "object", &mut g);
                add_g("jQuery", "function", &mut g);
                add_g("$", "function", &mut g);
                add_app(
                    "jQuery",
                    "scriptSrc /jquery(?:\\.min)?\\.js(?:\\?ver=([\\d.]+))?/i".into(),
                    &mut apps,
                );
            }
            Style::NextJs => {
                add_app("Next.js", "js __NEXT_DATA__".into(), &mut apps);
                add_app("React", "js React".into(), &mut apps);
                add_g("__NEXT_DATA__", "object", &mut g);
                add_g("next", "object", &mut g);
                add_g("__next_f", "object", &mut g);
            }
            Style::Vite => {
                add_g(
                    "__vite_plugin_react_preamble_installed__",
                    "boolean",
                    &mut g,
                );
            }
            Style::Shopify => {
                add_app("Shopify", "js Shopify.shop".into(), &mut apps);
                add_g("Shopify", "object", &mut g);
                add_g("ShopifyAnalytics", "object", &mut g);
            }
            Style::Kit => {
                add_g("validateForm", "function", &mut g);
                add_g("sendData", "function", &mut g);
            }
            Style::Static | Style::Known => {
                add_g("app", "object", &mut g);
            }
        }
        if self.site.php.is_some() {
            add_app(
                "PHP",
                "headers x-powered-by /^php\\/?([\\d.]+)?/i".into(),
                &mut apps,
            );
        }
        for q in &self.reqs {
            if let Some(tp) = q.tp {
                for a in &tp.apps {
                    add_app(
                        a,
                        format!("scriptSrc /{}/i", tp.host.replace('.', "\\.")),
                        &mut apps,
                    );
                }
                for (p, t) in &tp.globals {
                    add_g(p, t, &mut g);
                }
            }
        }
        if self.site.hsts && self.page.scheme == "https" {
            add_app(
                "HSTS",
                "headers strict-transport-security".into(),
                &mut apps,
            );
        }
        if self.protocol_of(0) == "h3" {
            add_app("HTTP/3", "headers alt-svc /h3/i".into(), &mut apps);
        }
        self.globals = g;
        self.apps = apps;
    }

    // -----------------------------------------------------------------------
    // JSON rendering
    // -----------------------------------------------------------------------
}
