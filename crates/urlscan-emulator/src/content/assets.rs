//! Response bodies other than the page: the site's own stylesheets,
//! scripts, images and JSON, generated deterministically per site so their
//! hashes repeat across scans.

use rand::Rng;
use serde_json::json;

use super::helpers::{css_color, h64, hsl, html_escape, pick, ralnum, rhex, rng_of, sha256_hex};
use super::model::Model;
use super::shared;
use super::sites::Style;
use super::words::{self, Kind};

/// A bundled front end's main stylesheet, script and logo, in that order.
fn add_bundle(add: &mut impl FnMut(String, Kind, &str), css: String, js: String, logo: &str) {
    add(css, Kind::Stylesheet, "main-css");
    add(js, Kind::Script, "app");
    add(logo.to_string(), Kind::Image, "logo");
}

impl Model<'_> {
    /// The site's own stylesheets, scripts, images and API calls:
    /// (path, kind, label, body seed override).
    pub(super) fn site_assets(&self) -> Vec<(String, Kind, String, Option<String>)> {
        let s = &self.site;
        let mut r = rng_of(&["assets", &s.apex]);
        let mut v: Vec<(String, Kind, String, Option<String>)> = Vec::new();
        let mut add = |p: String, k: Kind, l: &str| v.push((p, k, l.to_string(), None));
        match s.style {
            Style::WordPress => {
                let ver = &s.wp_version;
                add(
                    format!("/wp-includes/css/dist/block-library/style.min.css?ver={ver}"),
                    Kind::Stylesheet,
                    "wp-block-library",
                );
                add(
                    format!(
                        "/wp-content/themes/{}/style.css?ver={}",
                        s.theme,
                        r.random_range(1..5)
                    ),
                    Kind::Stylesheet,
                    "theme",
                );
                add(
                    "/wp-includes/js/jquery/jquery.min.js?ver=3.7.1".to_string(),
                    Kind::Script,
                    "jquery",
                );
                if r.random_bool(0.6) {
                    add(
                        format!(
                            "/wp-content/plugins/{}/assets/js/frontend.min.js?ver={}.{}",
                            s.plugin,
                            r.random_range(3..9),
                            r.random_range(0..20)
                        ),
                        Kind::Script,
                        "plugin",
                    );
                }
                let y = 2019 + (h64(&["upl", &s.apex]) % 6) as i64;
                add(
                    format!(
                        "/wp-content/uploads/{y}/{:02}/logo.svg",
                        r.random_range(1..13)
                    ),
                    Kind::Image,
                    "logo",
                );
            }
            Style::Static | Style::Known => {
                let css = format!("/assets/css/main.{}.css", rhex(&mut r, 8));
                let js = format!("/assets/js/app.{}.js", rhex(&mut r, 8));
                add_bundle(&mut add, css, js, "/assets/img/logo.svg");
                if r.random_bool(0.4) {
                    add("/assets/img/hero.svg".to_string(), Kind::Image, "hero");
                }
            }
            Style::Vite => {
                let css = format!("/assets/index-{}.css", ralnum(&mut r, 8, false));
                let js = format!("/assets/index-{}.js", ralnum(&mut r, 8, false));
                add_bundle(&mut add, css, js, "/vite.svg");
                if r.random_bool(0.5) {
                    add("/api/config.json".to_string(), Kind::Xhr, "config");
                }
            }
            Style::NextJs => {
                let b = ralnum(&mut r, 21, false);
                for (file, ext, kind, label) in [
                    ("css/", "css", Kind::Stylesheet, "main-css"),
                    ("chunks/webpack-", "js", Kind::Script, "app"),
                    ("chunks/framework-", "js", Kind::Script, "framework"),
                    ("chunks/pages/_app-", "js", Kind::Script, "next-app"),
                ] {
                    let hash = rhex(&mut r, 16);
                    add(format!("/_next/static/{file}{hash}.{ext}"), kind, label);
                }
                if r.random_bool(0.5) {
                    add(
                        format!("/_next/static/{b}/_buildManifest.js"),
                        Kind::Script,
                        "manifest",
                    );
                }
                add("/logo.svg".to_string(), Kind::Image, "logo");
            }
            Style::Shopify => {
                add(
                    "/checkouts/internal/preloads.js?locale=en-US".to_string(),
                    Kind::Script,
                    "app",
                );
                add("/cart.js".to_string(), Kind::Xhr, "cart");
            }
            Style::Kit => {
                let d = s.kit_dir;
                let kit = s.scope.clone();
                let mut addk = |p: String, k: Kind, l: &str| {
                    let seed = format!("{kit}:{p}");
                    v.push((p, k, l.to_string(), Some(seed)));
                };
                addk(format!("/{d}/css/style.css"), Kind::Stylesheet, "kit-css");
                addk(format!("/{d}/js/main.js"), Kind::Script, "app");
                let hotlinks = s
                    .third
                    .iter()
                    .any(|t| Some(t.key) == self.brand.and_then(|b| b.assets));
                if !hotlinks {
                    addk(format!("/{d}/img/logo.svg"), Kind::Image, "logo");
                }
            }
        }
        v
    }

    pub(super) fn render_bodies(&mut self) {
        let (src, refs) = self.html(false);
        if !shared::skip_dom() {
            self.dom = self.html(true).0;
        }
        for (i, line) in refs {
            let doc_url = self.page_url.clone();
            let q = &mut self.reqs[i];
            if q.init_type == "parser" {
                q.init_line = Some(line);
            }
            q.init_url = Some(doc_url);
        }
        let color = self.site.color;
        let name = self.site.name.clone();
        let scanner = self.scanner_country.clone();
        let page = if self.status == 404 && self.site.style != Style::WordPress {
            not_found_page(&self.hosts[self.page_host].server)
        } else {
            src
        };
        let mut page = Some(page);
        let rgb = css_color(color);
        let n = self.reqs.len();
        for i in 0..n {
            let q = &self.reqs[i];
            let (seed, url) = (q.body_seed.as_str(), q.url.as_str());
            // Each body is keyed by every input its generator reads (`shared::body`).
            let (hash, body) = match (i, q.kind) {
                (0, _) => {
                    let page = page.take().unwrap_or_default();
                    (sha256_hex(page.as_bytes()), page.into())
                }
                (_, Kind::Stylesheet) => {
                    shared::body(&["css", seed, url, &rgb], || gen_css(seed, url, color))
                }
                (_, Kind::Script) => shared::body(&["js", seed, url], || gen_js(seed, url)),
                (_, Kind::Image) => {
                    shared::body(&["svg", seed, &rgb, &name], || gen_svg(seed, color, &name))
                }
                (_, Kind::Xhr | Kind::Fetch) => {
                    let key = q.tp.map(|t| t.key).unwrap_or(&q.label);
                    shared::body(&["json", seed, key, &scanner], || {
                        gen_json(seed, key, &scanner)
                    })
                }
                (_, Kind::Ping | Kind::Document) => (super::EMPTY_SHA256.to_string(), "".into()),
            };
            let q = &mut self.reqs[i];
            q.hash = hash;
            q.body = body;
            if let Some(j) = q.injected_by {
                q.init_type = "script";
                let u = self.reqs[j].url.clone();
                self.reqs[i].init_url = Some(u);
            }
        }
        let page_url = self.page_url.clone();
        for q in self.reqs.iter_mut().skip(1) {
            if q.init_url.is_none() {
                q.init_url = Some(page_url.clone());
            }
        }
    }
}

fn not_found_page(server: &str) -> String {
    let s = server.to_ascii_lowercase();
    if s.contains("nginx") {
        "<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n".to_string()
    } else if s.contains("apache") {
        "<!DOCTYPE HTML PUBLIC \"-//IETF//DTD HTML 2.0//EN\">\n<html><head>\n<title>404 Not Found</title>\n</head><body>\n<h1>Not Found</h1>\n<p>The requested URL was not found on this server.</p>\n</body></html>\n".to_string()
    } else {
        "<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head><body><h1>404 Not Found</h1><p>The page you requested could not be found.</p></body></html>\n".to_string()
    }
}

const CSS_SELECTORS: &[&str] = &[
    "body",
    "a",
    "h1",
    "h2",
    "h3",
    "p",
    "img",
    "ul",
    "li",
    "button",
    "input",
    ".container",
    ".row",
    ".col",
    ".btn",
    ".btn-primary",
    ".nav",
    ".navbar",
    ".header",
    ".site-header",
    ".footer",
    ".card",
    ".card-body",
    ".hero",
    ".logo",
    ".menu",
    ".menu-item",
    ".form-control",
    ".site-title",
    ".entry-content",
    ".widget",
    ".sidebar",
    ".modal",
    ".badge",
    ".alert",
    ".links",
    ".login-page",
];

const CSS_PROPS: &[&str] = &[
    "margin",
    "padding",
    "color",
    "background-color",
    "font-size",
    "line-height",
    "display",
    "border-radius",
    "font-weight",
    "max-width",
    "border",
    "text-align",
    "box-shadow",
    "transition",
    "width",
    "height",
    "letter-spacing",
    "gap",
];

fn css_value<R: Rng>(r: &mut R, prop: &str, color: (u8, u8, u8)) -> String {
    match prop {
        "color" | "background-color" => {
            if r.random_bool(0.4) {
                css_color(color)
            } else {
                css_color(hsl(
                    r.random_range(0.0..360.0),
                    r.random_range(0.0..0.4),
                    r.random_range(0.1..0.97),
                ))
            }
        }
        "display" => pick(r, &["block", "flex", "inline-block", "grid", "none"]).to_string(),
        "font-weight" => pick(r, &["400", "500", "600", "700"]).to_string(),
        "text-align" => pick(r, &["left", "center", "right"]).to_string(),
        "border" => format!(
            "1px solid {}",
            css_color(hsl(0.0, 0.0, r.random_range(0.7..0.92)))
        ),
        "box-shadow" => format!(
            "0 {}px {}px rgba(0,0,0,.{})",
            r.random_range(1..4),
            r.random_range(2..16),
            r.random_range(5..25)
        ),
        "transition" => format!("all .{}s ease-in-out", r.random_range(1..5)),
        "line-height" => format!("1.{}", r.random_range(2..8)),
        "max-width" | "width" | "height" => format!("{}px", r.random_range(1..120) * 8),
        _ => format!(
            "{}{}",
            r.random_range(0..48),
            pick(r, &["px", "rem", "em", "px"])
        ),
    }
}

/// The last path segment of an asset URL, without its query (`split` and
/// `rsplit` always yield at least one piece, so there is no other case).
fn file_name(url: &str) -> &str {
    let path = url.split('?').next().unwrap_or(url);
    path.rsplit('/').next().unwrap_or(path)
}

fn gen_css(seed: &str, url: &str, color: (u8, u8, u8)) -> String {
    let mut r = rng_of(&["css", seed]);
    let minified =
        url.contains(".min.") || url.contains("/_next/") || url.contains("/assets/index-");
    let n = r.random_range(14..70);
    let file = file_name(url);
    let mut out = format!("/*! {file} */\n");
    for _ in 0..n {
        let sel = if r.random_bool(0.3) {
            format!(
                "{} {}",
                pick(&mut r, CSS_SELECTORS),
                pick(&mut r, CSS_SELECTORS)
            )
        } else if r.random_bool(0.2) {
            format!("{}:hover", pick(&mut r, CSS_SELECTORS))
        } else {
            pick(&mut r, CSS_SELECTORS).to_string()
        };
        let k = r.random_range(1..6);
        let decls: Vec<String> = (0..k)
            .map(|_| {
                let p = *pick(&mut r, CSS_PROPS);
                format!("{p}:{}", css_value(&mut r, p, color))
            })
            .collect();
        if minified {
            out.push_str(&format!("{sel}{{{}}}", decls.join(";")));
        } else {
            out.push_str(&format!("{sel} {{\n  {};\n}}\n", decls.join(";\n  ")));
        }
    }
    if r.random_bool(0.5) {
        let bp = *pick(&mut r, &[576, 768, 992, 1200]);
        out.push_str(&format!(
            "@media (max-width:{bp}px){{.container{{max-width:100%;padding:0 {}px}}}}",
            r.random_range(8..24)
        ));
    }
    out.push('\n');
    out
}

const JS_IDENTS: &[&str] = &[
    "init", "render", "update", "handler", "options", "config", "state", "query", "element",
    "node", "callback", "request", "response", "data", "items", "target", "event", "value",
    "index", "length", "module", "exports", "ready", "listener", "selector", "queue", "cache",
];

fn gen_js(seed: &str, url: &str) -> String {
    let mut r = rng_of(&["js", seed]);
    let file = file_name(url);
    let header = if url.contains("jquery") {
        "/*! jQuery v3.7.1 | (c) OpenJS Foundation and other contributors | jquery.org/license */"
            .to_string()
    } else if url.contains("bootstrap") {
        "/*!\n  * Bootstrap v5.3.3 (https://getbootstrap.com/)\n  * Copyright 2011-2024 The Bootstrap Authors (https://github.com/twbs/bootstrap/graphs/contributors)\n  * Licensed under MIT (https://github.com/twbs/bootstrap/blob/main/LICENSE)\n  */".to_string()
    } else if url.contains("fbevents") {
        "/**\n* Copyright (c) 2017-present, Facebook, Inc. All rights reserved.\n*/".to_string()
    } else if url.contains("googletagmanager") {
        "\n// Copyright 2012 Google Inc. All rights reserved.\n".to_string()
    } else {
        format!("/*! {file} */")
    };
    let mut out = header;
    out.push('\n');
    out.push_str("!function(e,t){\"use strict\";");
    let n = r.random_range(20..90);
    for i in 0..n {
        let a = *pick(&mut r, JS_IDENTS);
        let b = *pick(&mut r, JS_IDENTS);
        let stmt = match r.random_range(0..6) {
            0 => format!("var {a}{i}=function(n){{return n&&n.nodeType===1&&n.{b}!==void 0}};"),
            1 => format!(
                "function {a}_{i}(n,r){{for(var o=0;o<n.length;o++)r.call(n[o],o,n[o]);return n}}"
            ),
            2 => format!(
                "t.addEventListener(\"{}\",function(n){{e.{a}&&e.{a}.{b}(n)}},{{passive:!0}});",
                pick(
                    &mut r,
                    &["DOMContentLoaded", "click", "scroll", "load", "resize"]
                )
            ),
            3 => format!(
                "e.{a}=e.{a}||{{}};e.{a}.{b}={};",
                r.random_range(0..100_000)
            ),
            4 => format!("var {a}{i}=\"{}\";", pick(&mut r, &words::TEXT_WORDS)),
            _ => format!(
                "if(typeof e.{a}===\"function\"){{e.{a}({{{b}:{}}})}}",
                r.random_bool(0.5)
            ),
        };
        out.push_str(&stmt);
    }
    out.push_str("}(window,document);\n");
    out
}

fn gen_svg(seed: &str, color: (u8, u8, u8), title: &str) -> String {
    let mut r = rng_of(&["svg", seed]);
    let w = r.random_range(2..16) * 16;
    let h = r.random_range(2..8) * 8;
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\"><title>{}</title>",
        html_escape(title)
    );
    for _ in 0..r.random_range(2..9) {
        let c = if r.random_bool(0.5) {
            css_color(color)
        } else {
            css_color(hsl(r.random_range(0.0..360.0), 0.5, 0.5))
        };
        match r.random_range(0..3) {
            0 => out.push_str(&format!(
                "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"{}\" fill=\"{c}\"/>",
                r.random_range(0..w),
                r.random_range(0..h),
                r.random_range(4..w),
                r.random_range(4..h),
                r.random_range(0..6)
            )),
            1 => out.push_str(&format!(
                "<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{c}\"/>",
                r.random_range(0..w),
                r.random_range(0..h),
                r.random_range(2..h.max(3))
            )),
            _ => out.push_str(&format!(
                "<path d=\"M{} {}L{} {}L{} {}Z\" fill=\"{c}\"/>",
                r.random_range(0..w),
                r.random_range(0..h),
                r.random_range(0..w),
                r.random_range(0..h),
                r.random_range(0..w),
                r.random_range(0..h)
            )),
        }
    }
    out.push_str("</svg>");
    out
}

fn gen_json(seed: &str, key: &str, scanner_country: &str) -> String {
    let mut r = rng_of(&["json", seed]);
    let v = match key {
        "ipapi" => {
            let ip = format!(
                "{}.{}.{}.{}",
                r.random_range(20..220),
                r.random_range(0..256),
                r.random_range(0..256),
                r.random_range(1..255)
            );
            json!({
                "ip": ip, "network": format!("{}/24", ip.rsplitn(2, '.').last().unwrap_or(&ip)),
                "version": "IPv4", "country": scanner_country, "country_code": scanner_country,
                "in_eu": matches!(scanner_country, "DE" | "FR" | "NL" | "IT" | "ES" | "SE"),
                "timezone": "UTC", "asn": "AS24940", "org": "Hetzner Online GmbH",
            })
        }
        "telegram" => json!({
            "ok": true,
            "result": {
                "message_id": r.random_range(100..99_999),
                "from": {"id": r.random_range(1_000_000_000u64..7_999_999_999), "is_bot": true, "first_name": "Result", "username": format!("{}_bot", ralnum(&mut r, 8, false))},
                "chat": {"id": -(r.random_range(1_000_000_000i64..1_999_999_999)), "title": "Logs", "type": "group"},
                "date": r.random_range(1_600_000_000i64..1_800_000_000),
                "text": "New visitor",
            }
        }),
        "doubleclick" => {
            json!({"id": format!("{}", r.random_range(1_000_000_000u64..9_999_999_999))})
        }
        "onetrust" => json!({
            "CookieSPAEnabled": false, "MultiVariantTestingEnabled": false, "UseV2": true,
            "MobileSDK": false, "SkipGeolocation": false, "ScriptType": "PRODUCTION",
            "Version": "202401.1.0", "OptanonDataJSON": rhex(&mut r, 32),
            "RuleSet": [{"Name": "Global", "Countries": ["us", "de", "gb"], "Default": true, "Type": "GDPR"}],
        }),
        "cart" => json!({
            "token": format!("{}?key={}", ralnum(&mut r, 26, false), rhex(&mut r, 32)),
            "note": null, "attributes": {}, "original_total_price": 0, "total_price": 0,
            "total_discount": 0, "total_weight": 0.0, "item_count": 0, "items": [],
            "requires_shipping": false, "currency": "USD", "items_subtotal_price": 0,
        }),
        _ => json!({
            "status": "ok",
            "version": format!("{}.{}.{}", r.random_range(1..5), r.random_range(0..20), r.random_range(0..40)),
            "features": {"search": r.random_bool(0.5), "newsletter": r.random_bool(0.5)},
            "locale": "en-US",
        }),
    };
    v.to_string()
}
