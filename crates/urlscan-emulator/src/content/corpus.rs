//! The seeded corpus: a history of public scans (benign sites, well-known
//! sites and phishing pages) for the emulator to start with.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::helpers::{capitalize, chacha_of, pick, pick_w, ralnum, rhex, DAY_MS};
use super::spec::ScanSpec;
use super::urls::Target;
use super::verdicts::{classify, is_legit_apex};
use super::words::{self, Brand, KnownSite};

fn uuid_v4(r: &mut ChaCha8Rng) -> String {
    let mut b = [0u8; 16];
    r.fill(&mut b);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h = hex::encode(b);
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

fn gen_benign_apex(r: &mut ChaCha8Rng) -> String {
    let tld = {
        let pool: Vec<(&str, u32)> = words::TLDS.iter().map(|t| (t.0, t.1)).collect();
        *pick_w(r, &pool)
    };
    let label = match r.random_range(0..7) {
        0 | 1 => format!("{}{}", pick(r, &words::ADJECTIVES), pick(r, &words::NOUNS)),
        2 => format!("{}{}", pick(r, &words::NOUNS), pick(r, &words::NOUNS)),
        3 => format!("{}-{}", pick(r, &words::NOUNS), pick(r, &words::NOUNS)),
        4 => format!("{}{}", pick(r, &words::SURNAMES), pick(r, &words::NOUNS)),
        5 => format!(
            "{}{}",
            pick(r, &words::NOUNS),
            pick(r, &words::BUSINESS_SUFFIXES)
        ),
        _ => format!(
            "the{}{}",
            pick(r, &words::ADJECTIVES),
            pick(r, &words::NOUNS)
        ),
    };
    format!("{label}.{tld}")
}

/// A phishing URL for `brand`, or `None` if the random draw happened to
/// produce something the classifier would not flag.
fn gen_phish_url(r: &mut ChaCha8Rng, b: &'static Brand, benign: &[String]) -> Option<String> {
    let kw = if r.random_bool(0.75) {
        b.keywords[0]
    } else {
        *pick(r, &b.keywords)
    };
    let w1 = *pick(
        r,
        &[
            "login", "secure", "verify", "account", "support", "update", "signin", "auth",
            "billing", "service", "help", "wallet", "recovery",
        ],
    );
    let w2 = *pick(
        r,
        &[
            "center", "online", "portal", "team", "access", "info", "id", "web", "app", "check",
        ],
    );
    let bad = *pick(r, &words::BAD_TLDS);
    let scheme = if r.random_bool(0.85) { "https" } else { "http" };
    let (host, path): (String, String) = match r.random_range(0..7) {
        0 => (format!("{kw}-{w1}-{w2}.{bad}"), "/".into()),
        1 => (format!("{w1}-{kw}{w2}.{bad}"), format!("/{w1}/")),
        2 => (
            format!("{kw}{w1}{}.{bad}", r.random_range(10..99)),
            "/".into(),
        ),
        3 => {
            let suf = pick(r, &words::HOSTING_SUFFIXES).0;
            (
                format!("{kw}-{w1}-{}.{suf}", ralnum(r, 6, false)),
                "/".into(),
            )
        }
        4 => (format!("{w1}{kw}.{bad}"), format!("/{kw}/{w1}.php")),
        5 => (
            format!("www.{kw}.{w1}-{}.{bad}", ralnum(r, 5, false)),
            format!("/?session={}", rhex(r, 24)),
        ),
        _ => {
            let host = format!("www.{}", pick(r, benign));
            let path = match r.random_range(0..3) {
                0 => format!("/wp-content/plugins/{kw}/{w1}/index.php"),
                1 => format!("/wp-includes/{kw}-{w1}/login.html"),
                _ => format!("/.well-known/{kw}/{w1}/"),
            };
            (host, path)
        }
    };
    let host = host.replace("..", ".");
    let url = format!("{scheme}://{host}{path}");
    let t = Target::parse(&url);
    match classify(&t.host, t.path()) {
        Some(found) if found.key == b.key => Some(url),
        _ => None,
    }
}

fn gen_path(r: &mut ChaCha8Rng) -> String {
    let slug = |r: &mut ChaCha8Rng| {
        let n = r.random_range(2..6);
        (0..n)
            .map(|_| *pick(r, &words::SLUG_WORDS))
            .collect::<Vec<_>>()
            .join("-")
    };
    match r.random_range(0..12) {
        0..=3 => "/".to_string(),
        4 => format!("/{}/", pick(r, &words::PATH_WORDS)),
        5 => format!("/blog/{}/", slug(r)),
        6 => format!(
            "/{}/{:02}/{}/",
            r.random_range(2019..2026),
            r.random_range(1..13),
            slug(r)
        ),
        7 => format!("/products/{}-{}", slug(r), r.random_range(100..9999)),
        8 => format!("/search?q={}", pick(r, &words::TEXT_WORDS)),
        9 => format!(
            "/?utm_source={}&utm_medium={}&utm_campaign={}",
            pick(
                r,
                &["newsletter", "twitter", "facebook", "google", "linkedin"]
            ),
            pick(r, &["email", "social", "cpc", "referral"]),
            slug(r)
        ),
        10 => format!("/{}/{}", pick(r, &words::PATH_WORDS), slug(r)),
        _ => format!("/docs/{}/{}.html", pick(r, &words::PATH_WORDS), slug(r)),
    }
}

fn gen_known_url(r: &mut ChaCha8Rng, k: &KnownSite) -> String {
    let host = match r.random_range(0..10) {
        0..=5 => k.host.to_string(),
        6 | 7 => k.apex.to_string(),
        _ => format!(
            "{}.{}",
            pick(r, &["support", "blog", "developer", "help", "news"]),
            k.apex
        ),
    };
    let path = match k.apex {
        "wikipedia.org" if r.random_bool(0.6) => {
            let w: Vec<String> = (0..r.random_range(1..3))
                .map(|_| capitalize(pick::<&str, _>(r, &words::NOUNS)))
                .collect();
            return format!("https://en.wikipedia.org/wiki/{}", w.join("_"));
        }
        "github.com" => format!("/{}/{}", pick(r, &words::SURNAMES), pick(r, &words::NOUNS)),
        "google.com" if r.random_bool(0.5) => format!(
            "/search?q={}+{}",
            pick(r, &words::ADJECTIVES),
            pick(r, &words::NOUNS)
        ),
        "youtube.com" if r.random_bool(0.6) => format!("/watch?v={}", ralnum(r, 11, false)),
        _ => gen_path(r),
    };
    let scheme = if r.random_bool(0.9) { "https" } else { "http" };
    format!("{scheme}://{host}{path}")
}

/// A seeded historical corpus of `n` public scans before `now_ms`.
pub fn corpus(seed: u64, n: usize, now_ms: i64) -> Vec<ScanSpec> {
    let mut r = chacha_of(&["corpus", &seed.to_string()]);
    let mut benign: Vec<String> = Vec::new();
    let mut tries = 0;
    while benign.len() < 280 && tries < 5_000 {
        tries += 1;
        let a = gen_benign_apex(&mut r);
        if !benign.contains(&a) && classify(&a, "/").is_none() && !is_legit_apex(&a) {
            benign.push(a);
        }
    }
    let mut phish: Vec<String> = Vec::new();
    let mut tries = 0;
    while phish.len() < 48 && tries < 5_000 {
        tries += 1;
        let b = pick(&mut r, &words::BRANDS);
        if let Some(u) = gen_phish_url(&mut r, b, &benign) {
            if !phish.contains(&u) {
                phish.push(u);
            }
        }
    }
    let submitters: Vec<String> = (0..30).map(|_| rhex(&mut r, 8)).collect();
    let tag_pool: &[&str] = &[
        "research",
        "osint",
        "automated",
        "ioc",
        "triage",
        "newsletter",
    ];
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let roll: f64 = r.random();
        let (url, is_phish) = if roll < 0.07 && !phish.is_empty() {
            (pick(&mut r, &phish).clone(), true)
        } else if roll < 0.37 {
            // Popular sites first: a skewed pick.
            let i = ((r.random::<f64>().powi(2)) * words::KNOWN_SITES.len() as f64) as usize;
            let k = &words::KNOWN_SITES[i.min(words::KNOWN_SITES.len() - 1)];
            (gen_known_url(&mut r, k), false)
        } else if roll < 0.40 {
            let (h, _) = *pick(&mut r, &words::REDIRECTORS);
            let h = if h.contains("twitter") || h == "fb.com" || h == "youtu.be" {
                "bit.ly"
            } else {
                h
            };
            (format!("https://{h}/{}", ralnum(&mut r, 7, false)), false)
        } else {
            let i = ((r.random::<f64>().powf(1.6)) * benign.len() as f64) as usize;
            let apex = &benign[i.min(benign.len().saturating_sub(1))];
            let host = match r.random_range(0..20) {
                0..=10 => format!("www.{apex}"),
                11..=16 => apex.clone(),
                _ => format!("{}.{apex}", pick(&mut r, &words::SUBDOMAINS)),
            };
            let scheme = if r.random_bool(0.8) { "https" } else { "http" };
            (format!("{scheme}://{host}{}", gen_path(&mut r)), false)
        };
        // Cubic skew puts ~27% of scans in the last 7 days.
        let age_ms = (r.random::<f64>().powi(3) * 365.0 * DAY_MS as f64) as i64;
        let time_ms = now_ms.saturating_sub(age_ms.max(60_000) + r.random_range(0..1_000));
        let method = if r.random_bool(0.65) { "api" } else { "manual" };
        let mut tags: Vec<String> = Vec::new();
        if is_phish && r.random_bool(0.4) {
            tags.push("phishing".into());
        } else if r.random_bool(0.08) {
            tags.push(pick(&mut r, tag_pool).to_string());
        }
        let user_agent = r
            .random_bool(0.08)
            .then(|| pick(&mut r, &words::CUSTOM_USER_AGENTS).to_string());
        let referer = r
            .random_bool(0.05)
            .then(|| "https://www.google.com/".to_string());
        out.push(ScanSpec {
            uuid: uuid_v4(&mut r),
            url,
            time_ms,
            visibility: "public".into(),
            country: Some(pick_w(&mut r, &words::SCAN_COUNTRIES).to_string()),
            tags,
            method: method.into(),
            source: pick(&mut r, &submitters).clone(),
            user_agent,
            referer,
            planted: None,
        });
    }
    out
}
