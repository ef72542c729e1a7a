//! Static tables behind the generated scan content: hosting networks,
//! well-known sites, third-party services, impersonated brands and the word
//! lists used for domain names, titles and page text.
//!
//! Values mirror what real scans show (ASN names, address blocks, server
//! headers, certificate issuers) so that generated documents look and search
//! like real ones.
//!
//! Word lists and flat tables are data files under `words/`, compiled in and
//! parsed on first use: `.txt` holds one entry a line, `.tsv` one row a line
//! with tab-separated columns; lines starting with `#` are comments (the
//! column names). The third parties stay as Rust: their resources and
//! globals are lists of pairs, which read and check better as struct
//! literals than as columns.

use std::str::FromStr;
use std::sync::LazyLock;

/// A table parsed from a data file on first use.
pub type Table<T> = LazyLock<Vec<T>>;

/// The entries of a data file: its lines but blank lines and `#` comments.
fn entries(text: &'static str) -> impl Iterator<Item = &'static str> {
    text.lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
}

/// A word list: one entry a line.
fn list(text: &'static str) -> Vec<&'static str> {
    entries(text).collect()
}

/// The rows of a tab-separated table with `N` columns. The files are part of
/// the program, so a malformed row is a bug and stops it at once.
fn rows<const N: usize>(file: &str, text: &'static str) -> Vec<[&'static str; N]> {
    entries(text)
        .map(|line| {
            let cols: Vec<&'static str> = line.split('\t').collect();
            cols.try_into().unwrap_or_else(|c: Vec<_>| {
                panic!("{file}: {} columns, not {N}: {line:?}", c.len())
            })
        })
        .collect()
}

fn num<T: FromStr>(file: &str, s: &str) -> T {
    s.parse()
        .unwrap_or_else(|_| panic!("{file}: not a number: {s:?}"))
}

/// A colour column: red, green and blue separated by spaces.
fn rgb(file: &str, s: &str) -> (u8, u8, u8) {
    let mut parts = s.split(' ').map(|c| num(file, c));
    match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some(r), Some(g), Some(b), None) => (r, g, b),
        _ => panic!("{file}: not a colour: {s:?}"),
    }
}

/// A comma-separated list inside a column (empty: none).
fn items(s: &'static str) -> Vec<&'static str> {
    s.split(", ").filter(|x| !x.is_empty()).collect()
}

macro_rules! word_lists {
    ($($(#[$doc:meta])* $name:ident: $file:literal;)*) => {$(
        $(#[$doc])*
        pub static $name: Table<&'static str> =
            LazyLock::new(|| list(include_str!(concat!("words/", $file))));
    )*};
}

// The word lists, each from its data file.
word_lists! {
    /// Words that, glued to a brand name, make a typical phishing host or path.
    PHISH_WORDS: "phish_words.txt";
    /// Multi-label public suffixes, so that apex domains come out right.
    MULTI_SUFFIXES: "multi_suffixes.txt";
    ADJECTIVES: "adjectives.txt";
    NOUNS: "nouns.txt";
    BUSINESS_SUFFIXES: "business_suffixes.txt";
    SURNAMES: "surnames.txt";
    /// TLDs favoured by throwaway phishing registrations.
    BAD_TLDS: "bad_tlds.txt";
    SUBDOMAINS: "subdomains.txt";
    PATH_WORDS: "path_words.txt";
    SLUG_WORDS: "slug_words.txt";
    /// Words for page body text.
    TEXT_WORDS: "text_words.txt";
    TAGLINES: "taglines.txt";
    FONTS: "fonts.txt";
    WP_THEMES: "wp_themes.txt";
    WP_PLUGINS: "wp_plugins.txt";
    /// User agents submitters sometimes pick instead of the default.
    CUSTOM_USER_AGENTS: "custom_user_agents.txt";
    /// Certificate Transparency logs named in SCT lists (`{y}` is the year).
    CT_LOGS: "ct_logs.txt";
}

/// A geolocation as the GeoIP processor reports it.
pub struct Loc {
    pub key: &'static str,
    pub country: &'static str,
    pub country_name: &'static str,
    pub region: &'static str,
    pub city: &'static str,
    pub lat: f64,
    pub lon: f64,
    pub metro: i64,
    pub timezone: &'static str,
}

pub static LOCATIONS: Table<Loc> = LazyLock::new(|| {
    const FILE: &str = "locations.tsv";
    rows(FILE, include_str!("words/locations.tsv"))
        .into_iter()
        .map(
            |[key, country, country_name, region, city, lat, lon, metro, timezone]| Loc {
                key,
                country,
                country_name,
                region,
                city,
                lat: num(FILE, lat),
                lon: num(FILE, lon),
                metro: num(FILE, metro),
                timezone,
            },
        )
        .collect()
});

/// An autonomous system that hosts sites, with the address blocks, places,
/// server software and certificate issuers typically seen on it.
pub struct Provider {
    pub key: &'static str,
    pub asn: u32,
    pub asnname: &'static str,
    pub org: &'static str,
    pub reg_country: &'static str,
    /// IPv4 blocks as (a, b, c, d, prefix length).
    pub v4: Vec<(u8, u8, u8, u8, u8)>,
    /// IPv6 address template and its announced route. `{1}`, `{2}` and `{4}`
    /// stand for one, two and up to four hex digits.
    pub v6: Option<(&'static str, &'static str)>,
    pub locs: Vec<&'static Loc>,
    pub servers: Vec<&'static str>,
    /// Reverse DNS template (`{a}`..`{d}` are the octets, `{n}` a small
    /// number, `{N}` a six-digit one); empty when the network sets no PTR.
    pub ptr: &'static str,
    pub issuers: Vec<&'static str>,
    /// Protocols seen on this network's edges, most common first.
    pub protocols: Vec<&'static str>,
}

pub static PROVIDERS: Table<Provider> = LazyLock::new(|| {
    const FILE: &str = "providers.tsv";
    let block = |cidr: &str| -> (u8, u8, u8, u8, u8) {
        let (addr, len) = cidr.split_once('/').unwrap_or((cidr, ""));
        let [a, b, c, d] = num::<std::net::Ipv4Addr>(FILE, addr).octets();
        (a, b, c, d, num(FILE, len))
    };
    let loc = |key: &str| -> &'static Loc {
        let all: &'static [Loc] = &LOCATIONS;
        all.iter()
            .find(|l| l.key == key)
            .unwrap_or_else(|| panic!("{FILE}: unknown location {key:?}"))
    };
    rows(FILE, include_str!("words/providers.tsv"))
        .into_iter()
        .map(
            |[key, asn, asnname, org, reg_country, v4, v6, v6_route, locs, servers, ptr, issuers, protocols]| Provider {
                key,
                asn: num(FILE, asn),
                asnname,
                org,
                reg_country,
                v4: v4.split(' ').map(block).collect(),
                v6: (!v6.is_empty()).then_some((v6, v6_route)),
                locs: locs.split(' ').map(loc).collect(),
                servers: items(servers),
                ptr,
                issuers: items(issuers),
                protocols: items(protocols),
            },
        )
        .collect()
});

/// Kind of resource a request fetches; decides CDP type, MIME type and body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Document,
    Stylesheet,
    Script,
    Image,
    Xhr,
    Fetch,
    Ping,
}

/// A third-party service a page pulls resources from.
pub struct ThirdParty {
    pub key: &'static str,
    pub host: &'static str,
    pub provider: &'static str,
    pub server: &'static str,
    /// Paths; `{ga}`, `{id}` and `{hex}` are filled in per site.
    pub resources: &'static [(&'static str, Kind)],
    pub tracker: bool,
    pub apps: &'static [&'static str],
    pub globals: &'static [(&'static str, &'static str)],
}

macro_rules! tp {
    ($key:expr, $host:expr, $prov:expr, $server:expr, [$($res:expr),* $(,)?], $tracker:expr, [$($app:expr),*], [$($g:expr),*]) => {
        ThirdParty {
            key: $key,
            host: $host,
            provider: $prov,
            server: $server,
            resources: &[$($res),*],
            tracker: $tracker,
            apps: &[$($app),*],
            globals: &[$($g),*],
        }
    };
}

pub const THIRD_PARTIES: &[ThirdParty] = &[
    tp!("google-fonts", "fonts.googleapis.com", "google", "ESF",
        [("/css2?family={font}:wght@400;500;700&display=swap", Kind::Stylesheet)],
        false, ["Google Font API"], []),
    tp!("gtm", "www.googletagmanager.com", "google", "Google Tag Manager",
        [("/gtag/js?id={ga}", Kind::Script)],
        true, ["Google Tag Manager"], [("dataLayer", "object"), ("gtag", "function"), ("google_tag_manager", "object")]),
    tp!("ga", "www.google-analytics.com", "google", "Golfe2",
        [("/g/collect?v=2&tid={ga}&gtm=45je5{hex}&_p={num}&cid={cid}&en=page_view", Kind::Ping)],
        true, ["Google Analytics"], [("google_tag_data", "object")]),
    tp!("google-ajax", "ajax.googleapis.com", "google", "sffe",
        [("/ajax/libs/jquery/3.7.1/jquery.min.js", Kind::Script)],
        false, ["jQuery"], [("jQuery", "function"), ("$", "function")]),
    tp!("doubleclick", "googleads.g.doubleclick.net", "google", "cafe",
        [("/pagead/id?slf_rd=1", Kind::Xhr)],
        true, ["Google Ads"], []),
    tp!("gstatic", "www.gstatic.com", "google", "sffe",
        [("/og/_/js/k=og.qtm.en_US.{hex}.O/rt=j/m=qabr,q_d,qcwid,qapid/exm=qaaw,qadd,qaid,qein/d=1/ed=1", Kind::Script),
         ("/images/branding/googlelogo/svg/googlelogo_clr_74x24px.svg", Kind::Image)],
        false, [], []),
    tp!("google-apis", "apis.google.com", "google", "ESF",
        [("/_/scs/abc-static/_/js/k=gapi.gapi.en.{hex}.O/m=gapi_iframes,googleapis_client/rt=j/sv=1/d=1/ed=1", Kind::Script)],
        false, [], [("gapi", "object")]),
    tp!("ytimg", "i.ytimg.com", "google", "sffe",
        [("/generate_204", Kind::Ping)],
        false, [], [("ytcfg", "object")]),
    tp!("cdnjs", "cdnjs.cloudflare.com", "cloudflare", "cloudflare",
        [("/ajax/libs/font-awesome/6.5.1/css/all.min.css", Kind::Stylesheet),
         ("/ajax/libs/jquery/3.7.1/jquery.min.js", Kind::Script)],
        false, ["Font Awesome", "jQuery", "cdnjs"], [("jQuery", "function"), ("$", "function")]),
    tp!("jsdelivr", "cdn.jsdelivr.net", "fastly", "Fastly",
        [("/npm/bootstrap@5.3.3/dist/css/bootstrap.min.css", Kind::Stylesheet),
         ("/npm/bootstrap@5.3.3/dist/js/bootstrap.bundle.min.js", Kind::Script)],
        false, ["Bootstrap", "jsDelivr"], [("bootstrap", "object")]),
    tp!("jquery-cdn", "code.jquery.com", "fastly", "nginx",
        [("/jquery-3.7.1.min.js", Kind::Script)],
        false, ["jQuery"], [("jQuery", "function"), ("$", "function")]),
    tp!("unpkg", "unpkg.com", "cloudflare", "cloudflare",
        [("/swiper@11/swiper-bundle.min.js", Kind::Script)],
        false, ["Swiper"], [("Swiper", "function")]),
    tp!("fb-pixel", "connect.facebook.net", "facebook", "proxygen-bolt",
        [("/en_US/fbevents.js", Kind::Script)],
        true, ["Facebook Pixel"], [("fbq", "function"), ("_fbq", "function")]),
    tp!("cf-insights", "static.cloudflareinsights.com", "cloudflare", "cloudflare",
        [("/beacon.min.js/vcd15cbe7772f49c399c6a5babf22c1241717689176015", Kind::Script)],
        true, ["Cloudflare Browser Insights"], [("__cfBeacon", "object")]),
    tp!("hotjar", "static.hotjar.com", "cloudfront", "AmazonS3",
        [("/c/hotjar-{num}.js?sv=7", Kind::Script)],
        true, ["Hotjar"], [("hj", "function"), ("_hjSettings", "object")]),
    tp!("onetrust", "cdn.cookielaw.org", "cloudflare", "cloudflare",
        [("/scripttemplates/otSDKStub.js", Kind::Script),
         ("/consent/{uuid}/{uuid}.json", Kind::Xhr)],
        false, ["OneTrust"], [("OneTrust", "object"), ("OptanonWrapper", "function")]),
    tp!("stripe", "js.stripe.com", "cloudfront", "nginx",
        [("/v3/", Kind::Script)],
        false, ["Stripe"], [("Stripe", "function")]),
    tp!("shopify", "cdn.shopify.com", "cloudflare", "cloudflare",
        [("/s/files/1/0{num}/{num}/t/{num}/assets/theme.css?v={num}", Kind::Stylesheet),
         ("/shopifycloud/storefront/assets/storefront/load_feature-{hex}.js", Kind::Script)],
        false, ["Shopify"], [("Shopify", "object")]),
    tp!("wp-emoji", "s.w.org", "automattic", "nginx",
        [("/images/core/emoji/15.0.3/svg/1f642.svg", Kind::Image)],
        false, [], [("_wpemojiSettings", "object")]),
    tp!("wp-stats", "stats.wp.com", "automattic", "nginx",
        [("/e-202{num}.js", Kind::Script)],
        true, ["Jetpack"], [("_stq", "object")]),
    tp!("twimg", "abs.twimg.com", "fastly", "ECS (fra/D4A1)",
        [("/responsive-web/client-web/main.{hex}.js", Kind::Script)],
        false, ["React"], [("webpackChunk_twitter_responsive_web", "object")]),
    tp!("licdn", "static.licdn.com", "akamai", "AkamaiNetStorage",
        [("/aero-v1/sc/h/{hex}", Kind::Stylesheet)],
        false, [], []),
    tp!("fbcdn", "static.xx.fbcdn.net", "facebook", "proxygen-bolt",
        [("/rsrc.php/v3/yT/l/0,cross/{hex}.css", Kind::Stylesheet),
         ("/rsrc.php/v3/yB/r/{hex}.js", Kind::Script)],
        false, ["React"], [("requireLazy", "function")]),
    tp!("cdninstagram", "static.cdninstagram.com", "facebook", "proxygen-bolt",
        [("/rsrc.php/v3/yS/r/{hex}.js", Kind::Script)],
        false, ["React"], []),
    tp!("wikimedia-upload", "upload.wikimedia.org", "wikimedia", "ATS/9.2.9",
        [("/wikipedia/commons/8/80/Wikipedia-logo-v2.svg", Kind::Image)],
        false, [], []),
    tp!("githubassets", "github.githubassets.com", "fastly", "Varnish",
        [("/assets/light-{hex}.css", Kind::Stylesheet),
         ("/assets/wp-runtime-{hex}.js", Kind::Script)],
        false, ["GitHub Pages"], []),
    tp!("github-collector", "collector.github.com", "github", "GitHub.com",
        [("/github/collect", Kind::Ping)],
        true, [], []),
    tp!("amazon-media", "m.media-amazon.com", "cloudfront", "Server",
        [("/images/I/{hex}.css?AUIClients/AmazonUI", Kind::Stylesheet),
         ("/images/G/01/gno/sprites/nav-sprite-global-1x-reorg-privacy._CB{num}_.svg", Kind::Image)],
        false, [], [("ue", "object")]),
    tp!("amazon-fls", "fls-na.amazon.com", "aws-us", "Server",
        [("/1/batch/1/OP/ATVPDKIKX0DER:{num}:{hex}$uedata=s:%2Frd%2Fuedata", Kind::Ping)],
        true, [], []),
    tp!("paypalobjects", "www.paypalobjects.com", "akamai", "nginx",
        [("/paypal-ui/logos/svg/paypal-color.svg", Kind::Image),
         ("/web/res/{hex3}/{hex}/css/contextualLoginElementalUIv4.css", Kind::Stylesheet)],
        false, [], []),
    tp!("msftauth", "aadcdn.msftauth.net", "akamai", "AkamaiNetStorage",
        [("/shared/1.0/content/images/microsoft_logo_ee5c8d9fb6248c938fd0dc19370e90bd.svg", Kind::Image),
         ("/shared/1.0/content/js/ConvergedLogin_PCore_{hex}.js", Kind::Script)],
        false, [], [("ServerData", "object")]),
    tp!("ms-wcp", "wcpstatic.microsoft.com", "akamai", "AkamaiNetStorage",
        [("/mscc/lib/v2/wcp-consent.js", Kind::Script)],
        false, [], [("WcpConsent", "object")]),
    tp!("ms-analytics", "js.monitor.azure.com", "microsoft", "Microsoft-IIS/10.0",
        [("/scripts/c/ms.analytics-web-4.min.js", Kind::Script)],
        true, ["Microsoft Application Insights"], [("oneDS", "object")]),
    tp!("apple-cdn", "appleid.cdn-apple.com", "akamai", "Apple",
        [("/appleauth/static/jsj/N{num}/widget/auth/app.js", Kind::Script)],
        false, [], [("AppleID", "object")]),
    tp!("apple-metrics", "securemetrics.apple.com", "apple", "Apple",
        [("/b/ss/applestoreww/1/JS-2.17.0/s{num}", Kind::Ping)],
        true, ["Adobe Analytics"], [("s_account", "string")]),
    tp!("nflxext", "assets.nflxext.com", "akamai", "nginx",
        [("/ffe/siteui/acquisition/common/nficon2023.svg", Kind::Image),
         ("/web/ffe/wp/css/netflix-sans-{hex}.css", Kind::Stylesheet)],
        false, [], [("netflix", "object")]),
    tp!("redditstatic", "www.redditstatic.com", "fastly", "snooserv",
        [("/shreddit/{hex}/shreddit-core.js", Kind::Script)],
        false, ["Lit"], []),
    tp!("sstatic", "cdn.sstatic.net", "cloudflare", "cloudflare",
        [("/Js/stub.en.js?v={hex}", Kind::Script),
         ("/Shared/stacks.css?v={hex}", Kind::Stylesheet),
         ("/Sites/stackoverflow/Img/logo.svg", Kind::Image)],
        false, ["jQuery"], [("StackExchange", "object"), ("jQuery", "function")]),
    tp!("bbci", "static.files.bbci.co.uk", "akamai", "Apache",
        [("/core/bundle-service-worker.{hex}.js", Kind::Script)],
        false, ["React"], [("bbcpage", "object")]),
    tp!("nyt-static", "static01.nyt.com", "fastly", "nginx",
        [("/vi-assets/static-assets/main-{hex}.js", Kind::Script)],
        false, ["React"], [("__preloadedData", "object")]),
    tp!("bing-r", "r.bing.com", "microsoft", "Microsoft-IIS/10.0",
        [("/rp/{hex}.br.js", Kind::Script)],
        false, [], [("_w", "object"), ("sj_evt", "object")]),
    tp!("ipapi", "ipapi.co", "cloudflare", "cloudflare",
        [("/json/", Kind::Xhr)],
        false, [], []),
    tp!("telegram", "api.telegram.org", "telegram", "nginx/1.18.0",
        [("/bot{num}:AAH{hex}/sendMessage", Kind::Fetch)],
        false, [], []),
];

/// Generic third-party services ordinary sites pick from, with weights.
pub static GENERIC_THIRD_PARTIES: Table<(&'static str, u32)> = LazyLock::new(|| {
    const FILE: &str = "generic_third_parties.tsv";
    rows(FILE, include_str!("words/generic_third_parties.tsv"))
        .into_iter()
        .map(|[key, weight]| (key, num(FILE, weight)))
        .collect()
});

/// A site every analyst recognises; scans of it look like the real thing.
pub struct KnownSite {
    pub apex: &'static str,
    /// Canonical host: a scan of the bare apex redirects here.
    pub host: &'static str,
    pub name: &'static str,
    pub provider: &'static str,
    pub server: &'static str,
    pub title: &'static str,
    pub rank: i64,
    pub age_days: i64,
    pub third: Vec<&'static str>,
    pub color: (u8, u8, u8),
    pub apps: Vec<&'static str>,
}

pub static KNOWN_SITES: Table<KnownSite> = LazyLock::new(|| {
    const FILE: &str = "known_sites.tsv";
    rows(FILE, include_str!("words/known_sites.tsv"))
        .into_iter()
        .map(
            |[apex, host, name, provider, server, title, rank, age_days, third, color, apps]| {
                KnownSite {
                    apex,
                    host,
                    name,
                    provider,
                    server,
                    title,
                    rank: num(FILE, rank),
                    age_days: num(FILE, age_days),
                    third: items(third),
                    color: rgb(FILE, color),
                    apps: items(apps),
                }
            },
        )
        .collect()
});

/// Known redirectors: `(host, target apex)`; an empty target means a URL
/// shortener whose destination is derived from the path.
pub static REDIRECTORS: Table<(&'static str, &'static str)> = LazyLock::new(|| {
    rows("redirectors.tsv", include_str!("words/redirectors.tsv"))
        .into_iter()
        .map(|[host, target]| (host, target))
        .collect()
});

/// A brand phishing pages impersonate.
pub struct Brand {
    pub key: &'static str,
    pub name: &'static str,
    pub country: Vec<&'static str>,
    pub vertical: Vec<&'static str>,
    pub keywords: Vec<&'static str>,
    pub legit: Vec<&'static str>,
    pub title: &'static str,
    pub heading: &'static str,
    pub color: (u8, u8, u8),
    /// Third-party key of the brand's own asset host, hot-linked by kits.
    pub assets: Option<&'static str>,
    /// Where the kit's footer links point.
    pub home: &'static str,
}

pub static BRANDS: Table<Brand> = LazyLock::new(|| {
    const FILE: &str = "brands.tsv";
    rows(FILE, include_str!("words/brands.tsv"))
        .into_iter()
        .map(
            |[key, name, country, vertical, keywords, legit, title, heading, color, assets, home]| {
                Brand {
                    key,
                    name,
                    country: items(country),
                    vertical: items(vertical),
                    keywords: items(keywords),
                    legit: items(legit),
                    title,
                    heading,
                    color: rgb(FILE, color),
                    assets: (!assets.is_empty()).then_some(assets),
                    home,
                }
            },
        )
        .collect()
});

/// Shared hosting / platform suffixes: (suffix, provider, server).
pub static HOSTING_SUFFIXES: Table<(&'static str, &'static str, &'static str)> =
    LazyLock::new(|| {
        rows(
            "hosting_suffixes.tsv",
            include_str!("words/hosting_suffixes.tsv"),
        )
        .into_iter()
        .map(|[suffix, provider, server]| (suffix, provider, server))
        .collect()
    });

/// Benign TLDs with weights, and the language a site on them uses.
pub static TLDS: Table<(&'static str, u32, &'static str)> = LazyLock::new(|| {
    const FILE: &str = "tlds.tsv";
    rows(FILE, include_str!("words/tlds.tsv"))
        .into_iter()
        .map(|[tld, weight, lang]| (tld, num(FILE, weight), lang))
        .collect()
});

/// Navigation labels per page language: home, about, services, blog, contact.
pub static NAV_LABELS: Table<(&'static str, [&'static str; 5])> = LazyLock::new(|| {
    rows("nav_labels.tsv", include_str!("words/nav_labels.tsv"))
        .into_iter()
        .map(|[lang, home, about, services, blog, contact]| {
            (lang, [home, about, services, blog, contact])
        })
        .collect()
});

/// Scanner countries with weights (lowercase, as the API takes them).
pub static SCAN_COUNTRIES: Table<(&'static str, u32)> = LazyLock::new(|| {
    const FILE: &str = "scan_countries.tsv";
    rows(FILE, include_str!("words/scan_countries.tsv"))
        .into_iter()
        .map(|[country, weight]| (country, num(FILE, weight)))
        .collect()
});

/// Accept-Language values per scanner country.
pub static ACCEPT_LANGUAGES: Table<(&'static str, &'static str)> = LazyLock::new(|| {
    rows(
        "accept_languages.tsv",
        include_str!("words/accept_languages.tsv"),
    )
    .into_iter()
    .map(|[country, value]| (country, value))
    .collect()
});

/// A Wappalyzer-style technology record: app, its categories as
/// `(category, priority, group)`, website.
pub type AppRecord = (&'static str, Vec<(&'static str, i64, i64)>, &'static str);

/// One file row per (app, category); an app's rows stand together.
pub static APPS: Table<AppRecord> = LazyLock::new(|| {
    const FILE: &str = "apps.tsv";
    let mut apps: Vec<AppRecord> = Vec::new();
    for [app, category, priority, group, website] in rows(FILE, include_str!("words/apps.tsv")) {
        let cat = (category, num(FILE, priority), num(FILE, group));
        match apps.last_mut() {
            Some(last) if last.0 == app => last.1.push(cat),
            _ => apps.push((app, vec![cat], website)),
        }
    }
    apps
});

#[cfg(test)]
mod tests {
    use super::*;

    /// Every data file parses (a malformed row panics on first use).
    #[test]
    fn tables_parse() {
        let lens = [
            LOCATIONS.len(),
            PROVIDERS.len(),
            GENERIC_THIRD_PARTIES.len(),
            KNOWN_SITES.len(),
            BRANDS.len(),
            REDIRECTORS.len(),
            PHISH_WORDS.len(),
            HOSTING_SUFFIXES.len(),
            MULTI_SUFFIXES.len(),
            ADJECTIVES.len(),
            NOUNS.len(),
            BUSINESS_SUFFIXES.len(),
            SURNAMES.len(),
            TLDS.len(),
            BAD_TLDS.len(),
            SUBDOMAINS.len(),
            PATH_WORDS.len(),
            SLUG_WORDS.len(),
            TEXT_WORDS.len(),
            TAGLINES.len(),
            NAV_LABELS.len(),
            FONTS.len(),
            WP_THEMES.len(),
            WP_PLUGINS.len(),
            SCAN_COUNTRIES.len(),
            ACCEPT_LANGUAGES.len(),
            CUSTOM_USER_AGENTS.len(),
            CT_LOGS.len(),
            APPS.len(),
        ];
        assert!(lens.iter().all(|&n| n > 0), "{lens:?}");
        for p in PROVIDERS.iter() {
            assert!(!p.v4.is_empty() && !p.locs.is_empty(), "{}", p.key);
            assert!(!p.servers.is_empty() && !p.issuers.is_empty(), "{}", p.key);
            assert!(!p.protocols.is_empty(), "{}", p.key);
        }
    }
}
