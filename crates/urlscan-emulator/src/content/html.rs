//! The page itself: title, links and the HTML (as served and as rendered
//! into the DOM snapshot).

use std::fmt::Write;

use chrono::Datelike;
use rand::Rng;

use super::helpers::{capitalize, dt, html_escape, pick, rhex, rng_of};
use super::model::Model;
use super::sites::{SiteKind, Style};
use super::words::{self, Kind};

fn path_title(path: &str) -> Option<String> {
    let seg = path.split('/').rev().find(|s| !s.is_empty())?;
    let stem = seg.split('.').next().unwrap_or(seg);
    let stem = stem.replace("%20", " ");
    let words_: Vec<String> = stem
        .split(['-', '_', ' ', '+'])
        .filter(|w| !w.is_empty() && !w.chars().all(|c| c.is_ascii_digit()))
        .map(capitalize)
        .collect();
    if words_.is_empty() || stem == "index" {
        return None;
    }
    let t = words_.join(" ");
    Some(t.chars().take(60).collect())
}

impl Model<'_> {
    pub(super) fn make_title(&self) -> String {
        let name = &self.site.name;
        if self.status == 404 {
            return if self.site.style == Style::WordPress {
                format!("Page not found – {name}")
            } else {
                "404 Not Found".to_string()
            };
        }
        let pt = path_title(self.page.path());
        match self.site.kind {
            SiteKind::Phish(b) => b.title.to_string(),
            SiteKind::Known(k) => match pt {
                Some(t) => format!("{t} - {}", k.name),
                None => k.title.to_string(),
            },
            SiteKind::Generic => match pt {
                Some(t) => format!("{t} – {name}"),
                None => {
                    let mut r = rng_of(&["tagline", &self.site.apex]);
                    let sep = *pick(&mut r, &[" – ", " | ", " - "]);
                    format!("{name}{sep}{}", pick(&mut r, &words::TAGLINES))
                }
            },
        }
    }

    pub(super) fn make_links(&self) -> Vec<(String, String)> {
        let origin = self.page.origin();
        let mut r = rng_of(&["links", &self.page_url]);
        let mut out: Vec<(String, String)> = Vec::new();
        match self.site.kind {
            SiteKind::Phish(b) => {
                out.push((
                    format!("{origin}{}", self.page.path()),
                    "Forgot password?".into(),
                ));
                out.push((format!("{}privacy", b.home), "Privacy".into()));
                out.push((format!("{}legal", b.home), "Legal".into()));
                if r.random_bool(0.5) {
                    out.push((format!("{}help", b.home), "Help".into()));
                }
            }
            SiteKind::Known(k) => {
                for sub in ["support", "about", "developer", "accounts"] {
                    if r.random_bool(0.6) {
                        out.push((format!("https://{sub}.{}/", k.apex), capitalize(sub)));
                    }
                }
                for w in ["about", "privacy", "terms", "help"] {
                    out.push((format!("{origin}/{w}"), capitalize(w)));
                }
            }
            SiteKind::Generic => {
                let labels = words::NAV_LABELS
                    .iter()
                    .find(|(l, _)| *l == self.site.lang)
                    .map(|(_, v)| *v)
                    .unwrap_or(words::NAV_LABELS[0].1);
                let paths = ["", "about", "services", "blog", "contact"];
                for (p, l) in paths.iter().zip(labels.iter()) {
                    let href = if p.is_empty() {
                        format!("{origin}/")
                    } else {
                        format!("{origin}/{p}/")
                    };
                    out.push((href, l.to_string()));
                }
                for _ in 0..r.random_range(1..4) {
                    let n = r.random_range(2..5);
                    let slug: Vec<&str> =
                        (0..n).map(|_| *pick(&mut r, &words::SLUG_WORDS)).collect();
                    let text = capitalize(&slug.join(" "));
                    out.push((format!("{origin}/blog/{}/", slug.join("-")), text));
                }
                let handle = self
                    .site
                    .apex
                    .split('.')
                    .next()
                    .unwrap_or("site")
                    .to_string();
                let socials = [
                    (format!("https://www.facebook.com/{handle}"), "Facebook"),
                    (format!("https://x.com/{handle}"), "X"),
                    (format!("https://www.instagram.com/{handle}/"), "Instagram"),
                    (
                        format!("https://www.linkedin.com/company/{handle}"),
                        "LinkedIn",
                    ),
                    (format!("https://www.youtube.com/@{handle}"), "YouTube"),
                ];
                for (href, t) in socials {
                    if r.random_bool(0.5) {
                        out.push((href, t.into()));
                    }
                }
                out.push((format!("{origin}/privacy-policy/"), "Privacy Policy".into()));
            }
        }
        out
    }

    fn is_parser_resource(&self, i: usize) -> bool {
        let q = &self.reqs[i];
        i > 0 && q.injected_by.is_none() && q.init_type == "parser"
    }

    /// HTML of the page; `rendered` adds what scripts insert at runtime.
    /// Returns the text and, per request index, the 0-based line referencing it.
    pub(super) fn html(&self, rendered: bool) -> (String, Vec<(usize, i64)>) {
        let mut lines = Lines {
            // Most pages fit: growing the text as it is written costs more than the spare.
            text: String::with_capacity(8192),
            count: 0,
        };
        let mut refs: Vec<(usize, i64)> = Vec::new();
        let mut r = rng_of(&["html", &self.page_url]);
        let s = &self.site;
        let t = html_escape(&self.title);
        if !rendered {
            lines.push("<!DOCTYPE html>");
        }
        lines.push(format_args!("<html lang=\"{}\">", s.lang));
        lines.push("<head>");
        lines.push("<meta charset=\"utf-8\">");
        lines.push("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">");
        lines.push(format_args!("<title>{t}</title>"));
        if s.style == Style::WordPress {
            lines.push(format_args!(
                "<meta name=\"generator\" content=\"WordPress {}\">",
                s.wp_version
            ));
        }
        if !s.is_phish() {
            let desc: Vec<&str> = (0..r.random_range(8..16))
                .map(|_| *pick(&mut r, &words::TEXT_WORDS))
                .collect();
            lines.push(format_args!(
                "<meta name=\"description\" content=\"{}.\">",
                html_escape(&capitalize(&desc.join(" ")))
            ));
            lines.push(format_args!(
                "<link rel=\"canonical\" href=\"{}{}\">",
                html_escape(&self.page.origin()),
                html_escape(self.page.path())
            ));
        } else {
            lines.push("<meta name=\"robots\" content=\"noindex, nofollow\">");
        }
        for (i, q) in self.reqs.iter().enumerate() {
            if !self.is_parser_resource(i) {
                continue;
            }
            let u = html_escape(&q.url);
            match q.kind {
                Kind::Stylesheet => {
                    refs.push((i, lines.len() as i64));
                    lines.push(format_args!(
                        "<link rel=\"stylesheet\" href=\"{u}\" media=\"all\">"
                    ));
                }
                Kind::Script => {
                    refs.push((i, lines.len() as i64));
                    let attr = if q.tp.is_some() { " async" } else { " defer" };
                    let attr = if rendered {
                        attr.to_string() + "=\"\""
                    } else {
                        attr.to_string()
                    };
                    lines.push(format_args!("<script src=\"{u}\"{attr}></script>"));
                }
                _ => {}
            }
        }
        if s.third.iter().any(|x| x.key == "gtm") {
            lines.push(format_args!(
                "<script>window.dataLayer=window.dataLayer||[];function gtag(){{dataLayer.push(arguments);}}gtag('js',new Date());gtag('config','{}');</script>",
                s.ga_id
            ));
        }
        for (i, q) in self.reqs.iter().enumerate() {
            if q.init_type == "script" && q.kind == Kind::Script {
                refs.push((i, lines.len() as i64));
                if rendered {
                    lines.push(format_args!(
                        "<script async=\"\" src=\"{}\"></script>",
                        html_escape(&q.url)
                    ));
                } else {
                    lines.push(format_args!(
                        "<script>!function(d,s){{var e=d.createElement(s);e.async=!0;e.src=\"{}\";d.head.appendChild(e)}}(document,\"script\");</script>",
                        q.url
                    ));
                }
            }
        }
        if s.style == Style::NextJs {
            lines.push(format_args!(
                "<script id=\"__NEXT_DATA__\" type=\"application/json\">{{\"props\":{{\"pageProps\":{{}}}},\"page\":\"{}\",\"query\":{{}},\"buildId\":\"{}\",\"nextExport\":true}}</script>",
                html_escape(self.page.path()),
                rhex(&mut r, 21)
            ));
        }
        lines.push("</head>");
        let images: Vec<usize> = (0..self.reqs.len())
            .filter(|&i| self.is_parser_resource(i) && self.reqs[i].kind == Kind::Image)
            .collect();
        match s.kind {
            SiteKind::Phish(b) => {
                lines.push("<body class=\"login-page\">");
                lines.push("<div class=\"container\"><div class=\"card\">");
                for &i in &images {
                    refs.push((i, lines.len() as i64));
                    lines.push(format_args!(
                        "<img class=\"logo\" src=\"{}\" alt=\"{}\" width=\"124\">",
                        html_escape(&self.reqs[i].url),
                        html_escape(b.name)
                    ));
                }
                lines.push(format_args!("<h1>{}</h1>", html_escape(b.heading)));
                let action = format!("{}/next.php", s.kit_dir);
                lines.push(format_args!("<form id=\"login-form\" method=\"post\" action=\"{action}\" autocomplete=\"off\">"));
                lines.push("<input type=\"email\" name=\"email\" id=\"email\" placeholder=\"Email or mobile number\" required>");
                lines.push("<input type=\"password\" name=\"password\" id=\"password\" placeholder=\"Password\" required>");
                lines.push("<button type=\"submit\" class=\"btn-primary\">Next</button>");
                lines.push("</form>");
                for (href, text) in &self.links {
                    lines.push(format_args!(
                        "<a href=\"{}\">{}</a>",
                        html_escape(href),
                        html_escape(text)
                    ));
                }
                lines.push("</div></div>");
            }
            _ => {
                lines.push(format_args!(
                    "<body class=\"{}\">",
                    if self.status == 404 {
                        "error404"
                    } else {
                        "home page"
                    }
                ));
                lines.push("<header class=\"site-header\">");
                let mut iter = self.links.iter();
                lines.push(format_args!(
                    "<a class=\"logo\" href=\"{}/\">{}</a>",
                    html_escape(&self.page.origin()),
                    html_escape(&s.name)
                ));
                lines.push("<nav><ul>");
                let nav_n = if matches!(s.kind, SiteKind::Generic) {
                    5
                } else {
                    0
                };
                for _ in 0..nav_n {
                    if let Some((h, tx)) = iter.next() {
                        lines.push(link_item(h, tx));
                    }
                }
                lines.push("</ul></nav>");
                lines.push("</header>");
                lines.push("<main>");
                if self.status == 404 {
                    lines.push("<h1>Oops! That page can’t be found.</h1>");
                    lines.push("<p>It looks like nothing was found at this location.</p>");
                } else {
                    let heading = self
                        .title
                        .split(['–', '|'])
                        .next()
                        .unwrap_or(&self.title)
                        .trim()
                        .to_string();
                    lines.push(format_args!("<h1>{}</h1>", html_escape(&heading)));
                    for _ in 0..r.random_range(2..5) {
                        let n = r.random_range(2..5);
                        let sentences: Vec<String> = (0..n)
                            .map(|_| {
                                let k = r.random_range(6..15);
                                let w: Vec<&str> =
                                    (0..k).map(|_| *pick(&mut r, &words::TEXT_WORDS)).collect();
                                format!("{}.", capitalize(&w.join(" ")))
                            })
                            .collect();
                        lines.push(format_args!("<p>{}</p>", sentences.join(" ")));
                    }
                }
                for &i in &images {
                    refs.push((i, lines.len() as i64));
                    lines.push(format_args!(
                        "<img src=\"{}\" alt=\"{}\" loading=\"lazy\">",
                        html_escape(&self.reqs[i].url),
                        html_escape(&s.name)
                    ));
                }
                lines.push("<ul class=\"links\">");
                for (h, tx) in iter {
                    lines.push(link_item(h, tx));
                }
                lines.push("</ul>");
                lines.push("</main>");
                let year = dt(self.t_ms).year();
                lines.push(format_args!(
                    "<footer><p>&copy; {year} {}. All rights reserved.</p></footer>",
                    html_escape(&s.name)
                ));
            }
        }
        if rendered && s.third.iter().any(|x| x.key == "onetrust") {
            lines.push("<div id=\"onetrust-consent-sdk\"><div id=\"onetrust-banner-sdk\" class=\"otFlat\" role=\"region\" aria-label=\"Cookie banner\"><p id=\"onetrust-policy-text\">We use cookies to improve your experience.</p><button id=\"onetrust-accept-btn-handler\">Accept All Cookies</button></div></div>");
        }
        lines.push("</body>");
        lines.push("</html>");
        (lines.text, refs)
    }
}

/// Lines of text, joined with `\n` as they come (a page's HTML is written
/// for every scan).
struct Lines {
    text: String,
    count: usize,
}

impl Lines {
    fn push(&mut self, line: impl std::fmt::Display) {
        if self.count > 0 {
            self.text.push('\n');
        }
        // Writing to a String cannot fail.
        let _ = write!(self.text, "{line}");
        self.count += 1;
    }

    fn len(&self) -> usize {
        self.count
    }
}

/// One entry of a page's link list.
fn link_item(href: &str, text: &str) -> String {
    format!(
        "<li><a href=\"{}\">{}</a></li>",
        html_escape(href),
        html_escape(text)
    )
}
