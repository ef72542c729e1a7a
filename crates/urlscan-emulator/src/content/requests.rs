//! The request list: which resources a page loads and from where, when
//! each one starts and ends, its response headers and its JSON form in
//! `data.requests`.

use std::borrow::Cow;

use chrono::Datelike;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Map, Value};

use super::helpers::{capitalize, dt, h64, http_date, pick, rhex, rng_of, round_to, DAY_MS};
use super::model::{chrome_major, Model, Req};
use super::sites::{provider, third_party, Host, HostOpts, Style};
use super::urls::Target;
use super::words::{self, Kind, Provider, ThirdParty};

const MAX_REQUESTS: usize = 15;

const MAX_OTHER_DOMAINS: usize = 5;

impl Req {
    pub(super) fn new(url: String, host: usize, kind: Kind) -> Req {
        let (method, status, mime) = match kind {
            Kind::Document => ("GET", 200, "text/html"),
            Kind::Stylesheet => ("GET", 200, "text/css"),
            Kind::Script => ("GET", 200, "application/javascript"),
            Kind::Image => ("GET", 200, "image/svg+xml"),
            Kind::Xhr => ("GET", 200, "application/json"),
            Kind::Fetch => ("POST", 200, "application/json"),
            Kind::Ping if url.contains("generate_204") => ("GET", 204, "text/plain"),
            Kind::Ping => ("POST", 204, "text/plain"),
        };
        let priority = match kind {
            Kind::Document => "VeryHigh",
            Kind::Stylesheet => "VeryHigh",
            Kind::Script => "High",
            Kind::Image | Kind::Ping => "Low",
            Kind::Xhr | Kind::Fetch => "High",
        };
        Req {
            body_seed: url.clone(),
            url,
            host,
            kind,
            method,
            status,
            mime,
            body: "".into(),
            hash: String::new(),
            enc_body: 0,
            hdr_len: 0,
            compressed: false,
            init_type: "parser",
            init_url: None,
            init_line: None,
            injected_by: None,
            tracker: false,
            label: String::new(),
            tp: None,
            start: 0.0,
            ttfb: 0.0,
            end: 0.0,
            conn: None,
            id: String::new(),
            priority,
        }
    }
}

pub(super) fn cdp_type(k: Kind) -> &'static str {
    match k {
        Kind::Document => "Document",
        Kind::Stylesheet => "Stylesheet",
        Kind::Script => "Script",
        Kind::Image => "Image",
        Kind::Xhr => "XHR",
        Kind::Fetch => "Fetch",
        Kind::Ping => "Ping",
    }
}

fn status_text(code: u16, protocol: &str) -> &'static str {
    if protocol != "http/1.1" {
        return "";
    }
    match code {
        200 => "OK",
        204 => "No Content",
        301 => "Moved Permanently",
        302 => "Found",
        404 => "Not Found",
        _ => "",
    }
}

impl Model<'_> {
    pub(super) fn host_index(
        &mut self,
        name: &str,
        prov: &'static Provider,
        server: &str,
        use_v6: bool,
    ) -> usize {
        if let Some(i) = self.hosts.iter().position(|h| h.name == name) {
            return i;
        }
        let issuer = if name == self.page.host {
            self.site.issuer
        } else {
            None
        };
        let mut host = Host::new(HostOpts {
            name,
            prov,
            server,
            issuer,
            use_v6,
            time_ms: self.t_ms,
        });
        if name == self.page.host && host.tls.from_s * 1000 < self.site.reg_ms {
            // A certificate cannot predate the domain: freshly registered
            // (phishing) domains get one issued shortly after registration.
            let t = &mut host.tls;
            let span = t.to_s - t.from_s;
            let now_s = self.t_ms / 1000;
            let from = self.site.reg_ms / 1000 + (h64(&["tls-reg", name]) % 43_200) as i64;
            t.from_s = from.min(now_s);
            t.to_s = t.from_s + span;
            t.age_days = (now_s - t.from_s).max(0) / 86_400;
        }
        self.hosts.push(host);
        self.hosts.len() - 1
    }

    fn other_domains(&self) -> usize {
        self.hosts.len() - 1
    }

    /// Decides every request of the page (without bodies or timing).
    pub(super) fn plan_requests(&mut self, use_v6: bool) {
        self.reqs.reserve(MAX_REQUESTS);
        let origin = self.page.origin();
        let mut doc = Req::new(self.page_url.clone(), self.page_host, Kind::Document);
        doc.status = self.status;
        doc.init_type = "other";
        doc.label = "document".into();
        self.reqs.push(doc);

        // Site's own assets.
        let assets = self.site_assets();
        let mut main_script: Option<usize> = None;
        for (path, kind, label, seed) in assets {
            let mut q = Req::new(format!("{origin}{path}"), self.page_host, kind);
            q.label = label;
            if let Some(s) = seed {
                q.body_seed = s;
            }
            if kind == Kind::Script && main_script.is_none() {
                main_script = Some(self.reqs.len());
            }
            if matches!(kind, Kind::Xhr | Kind::Fetch) {
                q.injected_by = main_script;
            }
            self.reqs.push(q);
        }

        // Third parties, within the request and domain budgets.
        let third = self.site.third.clone();
        for tp in third {
            if self.reqs.len() >= MAX_REQUESTS {
                break;
            }
            let known_host = self.hosts.iter().any(|h| h.name == tp.host);
            if !known_host && self.other_domains() >= MAX_OTHER_DOMAINS {
                continue;
            }
            self.push_third(tp, use_v6, main_script);
        }
        // Every page pulls in at least one outside resource.
        if self.other_domains() == 0 {
            let fallback = ["google-fonts", "cdnjs"]
                .iter()
                .filter_map(|k| third_party(k))
                .find(|t| t.host != self.page.host);
            if let Some(tp) = fallback {
                self.reqs.truncate(MAX_REQUESTS - tp.resources.len());
                self.push_third(tp, use_v6, main_script);
            }
        }
    }

    fn push_third(&mut self, tp: &'static ThirdParty, use_v6: bool, main_script: Option<usize>) {
        let hi = self.host_index(tp.host, provider(tp.provider), tp.server, use_v6);
        let mut first_script: Option<usize> = None;
        for (i, (path, kind)) in tp.resources.iter().enumerate() {
            if self.reqs.len() >= MAX_REQUESTS {
                break;
            }
            let filled = self.fill_tp_path(tp, path, i);
            let mut q = Req::new(format!("https://{}{}", tp.host, filled), hi, *kind);
            q.tp = Some(tp);
            q.tracker = tp.tracker;
            q.label = tp.key.to_string();
            if *kind == Kind::Script && first_script.is_none() {
                first_script = Some(self.reqs.len());
            }
            match kind {
                Kind::Ping | Kind::Xhr | Kind::Fetch => {
                    // Beacons come from the tag manager; kit calls from the kit's script.
                    let gtm = self.reqs.iter().position(|r| r.label == "gtm");
                    q.injected_by = match tp.key {
                        "ga" => gtm.or(main_script),
                        "ipapi" | "telegram" => main_script,
                        _ => first_script.or(main_script),
                    };
                }
                Kind::Script if tp.key == "fb-pixel" || tp.key == "cf-insights" => {
                    // Loaded by an inline snippet in the document.
                    q.init_type = "script";
                }
                _ => {}
            }
            self.reqs.push(q);
        }
    }

    fn fill_tp_path(&self, tp: &ThirdParty, path: &str, idx: usize) -> String {
        const SITE_SCOPED: &[&str] = &[
            "gtm",
            "ga",
            "hotjar",
            "onetrust",
            "shopify",
            "telegram",
            "doubleclick",
        ];
        let scope = if SITE_SCOPED.contains(&tp.key) {
            self.site.scope.as_str()
        } else {
            ""
        };
        let mut r = rng_of(&["tp", tp.key, scope]);
        let hexv = rhex(&mut r, 16);
        let hex3 = rhex(&mut r, 3);
        let uuid = format!(
            "{}-{}-{}-{}-{}",
            rhex(&mut r, 8),
            rhex(&mut r, 4),
            rhex(&mut r, 4),
            rhex(&mut r, 4),
            rhex(&mut r, 12)
        );
        let mut out = path
            .replace("{ga}", &self.site.ga_id)
            .replace("{font}", self.site.font)
            .replace("{hex}", &hexv)
            .replace("{hex3}", &hex3)
            .replace("{uuid}", &uuid);
        if out.contains("{cid}") {
            let mut sr = rng_of(&["cid", &self.spec.uuid]);
            let cid = format!(
                "{}.{}",
                sr.random_range(100_000_000..999_999_999u32),
                self.t_ms / 1000
            );
            out = out.replace("{cid}", &cid);
        }
        let mut k = 0;
        while out.contains("{num}") {
            let mut nr = rng_of(&["num", tp.key, scope, &idx.to_string(), &k.to_string()]);
            out = out.replacen("{num}", &nr.random_range(1_000..9_999_999).to_string(), 1);
            k += 1;
        }
        out
    }

    /// Assigns request ids, start/end times, connection setup and sizes.
    pub(super) fn schedule(&mut self, sr: &mut ChaCha8Rng) {
        let pid = sr.random_range(1_000..60_000);
        let mut seen_hosts: Vec<usize> = Vec::new();
        let n = self.reqs.len();
        let mut parser_end: f64 = 0.0;
        for i in 0..n {
            let host = self.reqs[i].host;
            let fresh = !seen_hosts.contains(&host);
            if fresh {
                seen_hosts.push(host);
            }
            let kind = self.reqs[i].kind;
            let start = if i == 0 {
                round_to(sr.random_range(2.0..12.0), 3)
            } else if let Some(j) = self.reqs[i].injected_by {
                self.reqs[j].end + sr.random_range(5.0..60.0)
            } else if self.reqs[i].init_type == "script" {
                self.reqs[0].end + sr.random_range(20.0..120.0)
            } else {
                self.reqs[0].ttfb
                    + self.reqs[0].start
                    + sr.random_range(3.0..25.0)
                    + i as f64 * sr.random_range(0.5..3.0)
            };
            let conn = if fresh {
                let dns = sr.random_range(0.3..25.0);
                let connect = sr.random_range(5.0..45.0);
                let ssl = if self.reqs[i].url.starts_with("https") {
                    connect * sr.random_range(0.4..0.7)
                } else {
                    0.0
                };
                Some((dns, connect, ssl, sr.random_range(0.05..0.4)))
            } else {
                None
            };
            let setup = conn.map(|c| c.0 + c.1).unwrap_or(0.0);
            let ttfb = setup
                + match kind {
                    Kind::Document => sr.random_range(60.0..450.0),
                    Kind::Ping => sr.random_range(15.0..90.0),
                    _ => sr.random_range(8.0..160.0),
                };
            let body_len = self.reqs[i].body.len() as f64;
            let transfer = body_len / sr.random_range(400.0..6_000.0) + sr.random_range(0.5..8.0);
            let q = &mut self.reqs[i];
            q.id = if i == 0 {
                self.loader_id.clone()
            } else {
                format!("{pid}.{}", 10 + i * 3 + sr.random_range(0..3))
            };
            q.start = round_to(start, 3);
            q.ttfb = round_to(ttfb, 3);
            q.end = round_to(start + ttfb + transfer, 3);
            q.conn = conn;
            if q.injected_by.is_none()
                && q.init_type == "parser"
                && i > 0
                && matches!(kind, Kind::Script | Kind::Stylesheet)
            {
                parser_end = parser_end.max(q.end);
            }
            // Compression and header sizes.
            let compressible = matches!(
                kind,
                Kind::Document
                    | Kind::Stylesheet
                    | Kind::Script
                    | Kind::Image
                    | Kind::Xhr
                    | Kind::Fetch
            ) && body_len >= 1024.0;
            q.compressed = compressible;
            let ratio = match kind {
                Kind::Image => sr.random_range(0.4..0.55),
                Kind::Xhr | Kind::Fetch => sr.random_range(0.5..0.7),
                _ => sr.random_range(0.22..0.36),
            };
            q.enc_body = if compressible {
                (body_len * ratio) as u64
            } else {
                body_len as u64
            };
        }
        let first_end = self.reqs[0].end;
        self.dcl = round_to(parser_end.max(first_end) + sr.random_range(8.0..60.0), 3);
        let last = self.reqs.iter().map(|q| q.end).fold(0.0, f64::max);
        self.load = round_to(last.max(self.dcl) + sr.random_range(5.0..80.0), 3);
        for i in 0..n {
            let hdrs = self.lowercase_response_headers(i);
            let len: usize = hdrs
                .iter()
                .map(|(k, v)| k.len() + v.len() + 4)
                .sum::<usize>()
                + 17;
            self.reqs[i].hdr_len = len as u64;
        }
    }

    /// The response headers of request `i`, named as its protocol writes
    /// them (`Content-Type` in HTTP/1.1, `content-type` in h2 and h3).
    fn response_headers(&self, i: usize) -> Vec<(String, String)> {
        let title_case = self.protocol_of(i) == "http/1.1";
        self.lowercase_response_headers(i)
            .into_iter()
            .map(|(k, val)| {
                let key = if title_case {
                    k.split('-').map(capitalize).collect::<Vec<_>>().join("-")
                } else {
                    k.to_string()
                };
                (key, val.into_owned())
            })
            .collect()
    }

    /// [`Self::response_headers`], every name in lowercase (the same length
    /// as in title case: what their sizes need).
    fn lowercase_response_headers(&self, i: usize) -> Vec<(&'static str, Cow<'_, str>)> {
        let q = &self.reqs[i];
        let h = &self.hosts[q.host];
        let protocol = self.protocol_of(i);
        let mut r = rng_of(&["hdr", &q.url]);
        let mut v: Vec<(&'static str, Cow<'_, str>)> = Vec::with_capacity(16);
        let date = http_date(self.nav0 + (q.start + q.ttfb) as i64);
        v.push(("date", date.into()));
        if q.status != 204 {
            let ct = match q.kind {
                Kind::Document | Kind::Stylesheet | Kind::Script => {
                    format!("{}; charset=utf-8", q.mime).into()
                }
                Kind::Xhr | Kind::Fetch => "application/json".into(),
                _ => q.mime.into(),
            };
            v.push(("content-type", ct));
        }
        if q.compressed {
            v.push((
                "content-encoding",
                if protocol == "http/1.1" {
                    "gzip".into()
                } else {
                    (*pick(&mut r, &["gzip", "br"])).into()
                },
            ));
            v.push(("vary", "Accept-Encoding".into()));
        } else {
            v.push(("content-length", q.body.len().to_string().into()));
        }
        if !h.server.is_empty() {
            v.push(("server", h.server.as_str().into()));
        }
        match q.kind {
            Kind::Document => {
                v.push((
                    "cache-control",
                    if self.site.style == Style::WordPress {
                        "max-age=0, must-revalidate".into()
                    } else {
                        "private, no-cache".into()
                    },
                ));
                if self.site.hsts && q.url.starts_with("https") && i == 0 {
                    v.push((
                        "strict-transport-security",
                        "max-age=31536000; includeSubDomains".into(),
                    ));
                }
                if r.random_bool(0.5) {
                    v.push(("x-frame-options", "SAMEORIGIN".into()));
                }
                if r.random_bool(0.5) {
                    v.push(("x-content-type-options", "nosniff".into()));
                }
                if let Some(p) = &self.site.php {
                    v.push(("x-powered-by", p.as_str().into()));
                }
                if self.site.style == Style::WordPress {
                    let origin = self.page.origin();
                    v.push((
                        "link",
                        format!("<{origin}/wp-json/>; rel=\"https://api.w.org/\"").into(),
                    ));
                }
            }
            Kind::Ping => {
                v.push((
                    "cache-control",
                    "no-cache, no-store, must-revalidate".into(),
                ));
            }
            _ => {
                v.push((
                    "cache-control",
                    "public, max-age=31536000, immutable".into(),
                ));
                v.push(("etag", format!("W/\"{}\"", &q.hash[..16]).into()));
                v.push((
                    "last-modified",
                    http_date(self.t_ms - (h64(&["lm", &q.url]) % (400 * DAY_MS as u64)) as i64)
                        .into(),
                ));
            }
        }
        match h.prov.key {
            "cloudflare" => {
                v.push((
                    "cf-ray",
                    format!(
                        "{}-{}",
                        rhex(&mut r, 16),
                        pick(&mut r, &["FRA", "AMS", "IAD", "LHR", "SJC", "NRT"])
                    )
                    .into(),
                ));
                v.push((
                    "cf-cache-status",
                    if q.kind == Kind::Document {
                        "DYNAMIC".into()
                    } else {
                        "HIT".into()
                    },
                ));
            }
            "fastly" => {
                v.push((
                    "x-served-by",
                    format!("cache-fra-eddf82{:05}-FRA", r.random_range(0..99_999)).into(),
                ));
                v.push(("x-cache", "HIT".into()));
            }
            "cloudfront" => {
                v.push(("x-cache", "Hit from cloudfront".into()));
                v.push((
                    "via",
                    format!("1.1 {}.cloudfront.net (CloudFront)", rhex(&mut r, 32)).into(),
                ));
                v.push(("x-amz-cf-pop", "FRA56-P5".into()));
            }
            _ => {}
        }
        if protocol == "h3" || (protocol == "h2" && h.prov.protocols.contains(&"h3")) {
            v.push(("alt-svc", "h3=\":443\"; ma=86400".into()));
        }
        v
    }

    pub(super) fn protocol_of(&self, i: usize) -> &'static str {
        let q = &self.reqs[i];
        if q.url.starts_with("https") {
            self.hosts[q.host].protocol
        } else {
            "http/1.1"
        }
    }

    pub(super) fn request_json(&self, i: usize) -> Value {
        let q = &self.reqs[i];
        let h = &self.hosts[q.host];
        let secure = q.url.starts_with("https");
        let protocol = self.protocol_of(i);
        let same_site = h.apex == self.site.apex;

        let mut rh = Map::new();
        if i == 0 {
            rh.insert("Upgrade-Insecure-Requests".into(), json!("1"));
        } else if let Some(u) = &q.init_url {
            if !self.site.is_phish() || same_site {
                rh.insert(
                    "Referer".into(),
                    json!(format!("{}/", Target::parse(u).origin())),
                );
            }
        }
        rh.insert("User-Agent".into(), json!(self.ua));
        if i == 0 {
            rh.insert("Accept-Language".into(), json!(self.accept_language));
            if let Some(v) = chrome_major(&self.ua) {
                rh.insert("sec-ch-ua".into(), json!(format!("\"Chromium\";v=\"{v}\", \"Not:A-Brand\";v=\"24\", \"Google Chrome\";v=\"{v}\"")));
                rh.insert("sec-ch-ua-mobile".into(), json!("?0"));
                rh.insert("sec-ch-ua-platform".into(), json!("\"Windows\""));
            }
            if let Some(r) = &self.spec.referer {
                rh.insert("Referer".into(), json!(r));
            }
        }
        let mut inner = Map::new();
        inner.insert("url".into(), json!(q.url));
        inner.insert("method".into(), json!(q.method));
        inner.insert("headers".into(), Value::Object(rh));
        inner.insert("mixedContentType".into(), json!("none"));
        inner.insert("initialPriority".into(), json!(q.priority));
        inner.insert(
            "referrerPolicy".into(),
            json!("strict-origin-when-cross-origin"),
        );
        if q.method == "POST" {
            inner.insert("hasPostData".into(), json!(true));
        }
        inner.insert("isSameSite".into(), json!(same_site));

        let mut initiator = Map::new();
        initiator.insert("type".into(), json!(q.init_type));
        if i > 0 {
            if let Some(u) = &q.init_url {
                initiator.insert("url".into(), json!(u));
            }
            if let Some(l) = q.init_line {
                initiator.insert("lineNumber".into(), json!(l));
            }
            if q.init_type == "script" {
                initiator.insert(
                    "columnNumber".into(),
                    json!((h64(&["col", &q.url]) % 4000) as i64),
                );
            }
        }

        let ts = round_to(self.mono + q.start / 1000.0, 6);
        let mut req = Map::new();
        req.insert("requestId".into(), json!(q.id));
        req.insert("loaderId".into(), json!(self.loader_id));
        req.insert("documentURL".into(), json!(self.page_url));
        req.insert("request".into(), Value::Object(inner));
        req.insert("timestamp".into(), json!(ts));
        req.insert(
            "wallTime".into(),
            json!(round_to((self.nav0 as f64 + q.start) / 1000.0, 5)),
        );
        req.insert("initiator".into(), Value::Object(initiator));
        req.insert(
            "redirectHasExtraInfo".into(),
            json!(i == 0 && self.redirect.is_some()),
        );
        req.insert("type".into(), json!(cdp_type(q.kind)));
        req.insert("frameId".into(), json!(self.frame_id));
        req.insert("hasUserGesture".into(), json!(false));
        if i == 0 {
            req.insert("primaryRequest".into(), json!(true));
        }

        // Response.
        let hdrs = self.response_headers(i);
        let mut hm = Map::new();
        for (k, v) in &hdrs {
            hm.insert(k.clone(), json!(v));
        }
        let (dns, connect, ssl, send) = q.conn.unwrap_or((0.0, 0.0, 0.0, 0.1));
        let fresh = q.conn.is_some();
        // A phase of setting up the connection: its offset when this request
        // went through it, -1 when it reused a connection (or has no TLS).
        let phase = |happened: bool, ms: f64| {
            if happened {
                json!(round_to(ms, 3))
            } else {
                json!(-1)
            }
        };
        let send_start = round_to(if fresh { 0.3 + dns + connect } else { 0.4 }, 3);
        let timing: Map<String, Value> = [
            ("requestTime", json!(ts)),
            ("proxyStart", json!(-1)),
            ("proxyEnd", json!(-1)),
            ("dnsStart", phase(fresh, 0.2)),
            ("dnsEnd", phase(fresh, 0.2 + dns)),
            ("connectStart", phase(fresh, 0.2 + dns)),
            ("connectEnd", phase(fresh, 0.2 + dns + connect)),
            (
                "sslStart",
                phase(fresh && secure, 0.2 + dns + connect - ssl),
            ),
            ("sslEnd", phase(fresh && secure, 0.2 + dns + connect)),
            ("workerStart", json!(-1)),
            ("workerReady", json!(-1)),
            ("workerFetchStart", json!(-1)),
            ("workerRespondWithSettled", json!(-1)),
            ("sendStart", json!(send_start)),
            ("sendEnd", json!(round_to(send_start + send, 3))),
            ("pushStart", json!(0)),
            ("pushEnd", json!(0)),
            ("receiveHeadersStart", json!(round_to(q.ttfb - 0.5, 3))),
            ("receiveHeadersEnd", json!(round_to(q.ttfb, 3))),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();

        let mut resp = Map::new();
        resp.insert("url".into(), json!(q.url));
        resp.insert("status".into(), json!(q.status));
        resp.insert("statusText".into(), json!(status_text(q.status, protocol)));
        resp.insert("headers".into(), Value::Object(hm));
        resp.insert("mimeType".into(), json!(q.mime));
        let remote = if h.v6 {
            format!("[{}]", h.ip)
        } else {
            h.ip.clone()
        };
        resp.insert("remoteIPAddress".into(), json!(remote));
        let port = if i == 0 {
            self.page.port_num()
        } else if secure {
            443
        } else {
            80
        };
        resp.insert("remotePort".into(), json!(port));
        resp.insert("encodedDataLength".into(), json!(q.hdr_len));
        resp.insert("timing".into(), Value::Object(timing));
        resp.insert(
            "responseTime".into(),
            json!(round_to(self.nav0 as f64 + q.start + q.ttfb, 3)),
        );
        resp.insert("protocol".into(), json!(protocol));
        if protocol == "h3" {
            resp.insert(
                "alternateProtocolUsage".into(),
                json!("alternativeJobWonWithoutRace"),
            );
        }
        resp.insert(
            "securityState".into(),
            json!(if secure { "secure" } else { "insecure" }),
        );
        if secure {
            resp.insert(
                "securityDetails".into(),
                self.security_details(h, q.conn.is_some()),
            );
            let sec: Vec<Value> = hdrs
                .iter()
                .filter(|(k, _)| {
                    let k = k.to_ascii_lowercase();
                    k == "strict-transport-security" || k == "x-frame-options" || k == "x-content-type-options" || k == "content-security-policy"
                })
                .map(|(k, v)| json!({"name": k.split('-').map(capitalize).collect::<Vec<_>>().join("-"), "value": v}))
                .collect();
            if !sec.is_empty() {
                resp.insert("securityHeaders".into(), Value::Array(sec));
            }
        }

        let mut outer = Map::new();
        outer.insert("encodedDataLength".into(), json!(q.hdr_len + q.enc_body));
        outer.insert("dataLength".into(), json!(q.body.len()));
        outer.insert("requestId".into(), json!(q.id));
        outer.insert("type".into(), json!(cdp_type(q.kind)));
        outer.insert("response".into(), Value::Object(resp));
        outer.insert("hasExtraInfo".into(), json!(false));
        outer.insert("hash".into(), json!(q.hash));
        outer.insert("size".into(), json!(q.body.len()));
        outer.insert("asn".into(), h.asn_json());
        outer.insert("geoip".into(), h.geoip_json());
        if !h.ptr.is_empty() {
            outer.insert("rdns".into(), json!({"ip": h.ip, "ptr": h.ptr}));
        }

        let mut entry = Map::new();
        entry.insert("request".into(), Value::Object(req));
        entry.insert("response".into(), Value::Object(outer));
        if i > 0 {
            if let Some(u) = &q.init_url {
                let ih = Target::parse(u).host;
                entry.insert(
                    "initiatorInfo".into(),
                    json!({"url": u, "host": ih, "type": q.init_type}),
                );
            }
        }
        Value::Object(entry)
    }

    /// TLS details of a response; the SCT list is spelled out only for the
    /// response that opened the connection, which keeps documents compact.
    pub(super) fn security_details(&self, h: &Host, with_scts: bool) -> Value {
        let t = &h.tls;
        let year = dt(t.from_s * 1000).year();
        let mut r = rng_of(&["sct", &h.name, &t.from_s.to_string()]);
        let mut scts = Vec::new();
        for _ in 0..if with_scts { 2 } else { 0 } {
            let log = pick(&mut r, &words::CT_LOGS).replace("{y}", &year.to_string());
            scts.push(json!({
                "status": "Verified",
                "origin": "Embedded in certificate",
                "logDescription": log,
                "logId": rhex(&mut r, 64).to_ascii_uppercase(),
                "timestamp": t.from_s * 1000 + 3_600_000 + r.random_range(0..900_000i64),
                "hashAlgorithm": "SHA-256",
                "signatureAlgorithm": "ECDSA",
                "signatureData": rhex(&mut r, 142).to_ascii_uppercase(),
            }));
        }
        json!({
            "protocol": t.version,
            "keyExchange": t.kx,
            "keyExchangeGroup": t.group,
            "cipher": t.cipher,
            "certificateId": 0,
            "subjectName": t.subject,
            "sanList": t.san,
            "issuer": t.issuer,
            "validFrom": t.from_s,
            "validTo": t.to_s,
            "signedCertificateTimestampList": scts,
            "certificateTransparencyCompliance": "compliant",
            "serverSignatureAlgorithm": if t.issuer.starts_with('E') || t.issuer.starts_with("WE") { 1027 } else { 2052 },
            "encryptedClientHello": false,
        })
    }
}
