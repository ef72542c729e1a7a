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
//! column names). A column may hold a list (`a, b`), or a list of pairs
//! (`a 1, b 2`).

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

/// A table from a data file: each row (its columns) made a `T` by `row`,
/// which is handed the file's name for its messages.
fn table<const N: usize, T>(
    file: &'static str,
    text: &'static str,
    row: impl Fn(&'static str, [&'static str; N]) -> T,
) -> Vec<T> {
    rows(file, text)
        .into_iter()
        .map(|cols| row(file, cols))
        .collect()
}

/// A [`Table`] from the data file `words/$file`, each row read by `$row`.
macro_rules! table {
    ($file:literal, $row:expr $(,)?) => {
        LazyLock::new(|| table($file, include_str!(concat!("words/", $file)), $row))
    };
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

pub static LOCATIONS: Table<Loc> = table!(
    "locations.tsv",
    |file, [key, country, country_name, region, city, lat, lon, metro, timezone]| Loc {
        key,
        country,
        country_name,
        region,
        city,
        lat: num(file, lat),
        lon: num(file, lon),
        metro: num(file, metro),
        timezone,
    },
);

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

impl Kind {
    fn parse(file: &str, s: &str) -> Kind {
        match s {
            "document" => Kind::Document,
            "stylesheet" => Kind::Stylesheet,
            "script" => Kind::Script,
            "image" => Kind::Image,
            "xhr" => Kind::Xhr,
            "fetch" => Kind::Fetch,
            "ping" => Kind::Ping,
            _ => panic!("{file}: not a resource kind: {s:?}"),
        }
    }
}

/// A third-party service a page pulls resources from.
pub struct ThirdParty {
    pub key: &'static str,
    pub host: &'static str,
    pub provider: &'static str,
    pub server: &'static str,
    /// Paths; `{ga}`, `{id}` and `{hex}` are filled in per site.
    pub resources: Vec<(&'static str, Kind)>,
    pub tracker: bool,
    pub apps: Vec<&'static str>,
    pub globals: Vec<(&'static str, &'static str)>,
}

/// Pairs inside a column: `first second, first second` (empty: none).
fn pairs(file: &str, s: &'static str) -> Vec<(&'static str, &'static str)> {
    let pair = |p: &'static str| {
        p.split_once(' ')
            .unwrap_or_else(|| panic!("{file}: not a pair: {p:?}"))
    };
    items(s).into_iter().map(pair).collect()
}

pub static THIRD_PARTIES: Table<ThirdParty> = table!(
    "third_parties.tsv",
    |file, [key, host, provider, server, resources, tracker, apps, globals]| ThirdParty {
        key,
        host,
        provider,
        server,
        resources: pairs(file, resources)
            .into_iter()
            .map(|(kind, path)| (path, Kind::parse(file, kind)))
            .collect(),
        tracker: num(file, tracker),
        apps: items(apps),
        globals: pairs(file, globals),
    }
);

/// Generic third-party services ordinary sites pick from, with weights.
pub static GENERIC_THIRD_PARTIES: Table<(&'static str, u32)> = table!(
    "generic_third_parties.tsv",
    |file, [key, weight]| (key, num(file, weight))
);

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

pub static KNOWN_SITES: Table<KnownSite> = table!(
    "known_sites.tsv",
    |file, [apex, host, name, provider, server, title, rank, age_days, third, color, apps]| {
        KnownSite {
            apex,
            host,
            name,
            provider,
            server,
            title,
            rank: num(file, rank),
            age_days: num(file, age_days),
            third: items(third),
            color: rgb(file, color),
            apps: items(apps),
        }
    },
);

/// Known redirectors: `(host, target apex)`; an empty target means a URL
/// shortener whose destination is derived from the path.
pub static REDIRECTORS: Table<(&'static str, &'static str)> =
    table!("redirectors.tsv", |_, [host, target]| (host, target));

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

pub static BRANDS: Table<Brand> = table!(
    "brands.tsv",
    |file, [key, name, country, vertical, keywords, legit, title, heading, color, assets, home]| {
        Brand {
            key,
            name,
            country: items(country),
            vertical: items(vertical),
            keywords: items(keywords),
            legit: items(legit),
            title,
            heading,
            color: rgb(file, color),
            assets: (!assets.is_empty()).then_some(assets),
            home,
        }
    },
);

/// Shared hosting / platform suffixes: (suffix, provider, server).
pub static HOSTING_SUFFIXES: Table<(&'static str, &'static str, &'static str)> = table!(
    "hosting_suffixes.tsv",
    |_, [suffix, provider, server]| (suffix, provider, server)
);

/// Benign TLDs with weights, and the language a site on them uses.
pub static TLDS: Table<(&'static str, u32, &'static str)> = table!(
    "tlds.tsv",
    |file, [tld, weight, lang]| (tld, num(file, weight), lang)
);

/// Navigation labels per page language: home, about, services, blog, contact.
pub static NAV_LABELS: Table<(&'static str, [&'static str; 5])> = table!(
    "nav_labels.tsv",
    |_, [lang, home, about, services, blog, contact]| {
        (lang, [home, about, services, blog, contact])
    }
);

/// Scanner countries with weights (lowercase, as the API takes them).
pub static SCAN_COUNTRIES: Table<(&'static str, u32)> = table!(
    "scan_countries.tsv",
    |file, [country, weight]| (country, num(file, weight))
);

/// Accept-Language values per scanner country.
pub static ACCEPT_LANGUAGES: Table<(&'static str, &'static str)> = table!(
    "accept_languages.tsv",
    |_, [country, value]| (country, value)
);

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
