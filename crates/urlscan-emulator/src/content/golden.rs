//! The generated content, pinned: a digest of every output for a few hundred
//! varied scans. Scans stored by users of the emulator, recorded fixtures and
//! search results all depend on the exact bytes, so a change to the generator
//! (or its word tables) must show up here and be deliberate.
use sha2::{Digest, Sha256};

use super::*;

/// SHA-256 of everything [`render_all`] produces. Update it only for an
/// intended change of the generated content.
const DIGEST: &str = "812a92bb69373f8b9ce4d8be087f5ded6aae44f7451945a6df213122be7e9b4a";

const NOW: i64 = 1_767_225_600_000; // 2026-01-01T00:00:00Z

/// Hand-picked URLs: phishing-looking hosts and paths, IP hosts with and
/// without ports, long paths and queries, odd and invalid input.
const URLS: &[&str] = &[
    "https://www.google.com/",
    "http://google.com",
    "https://paypal-secure-login.xyz/",
    "https://secure-paypa1-verify.top/webapps/signin.php?cmd=_login",
    "https://login.microsoftonline.com.account-verify.icu/common/oauth2",
    "https://appleid.apple.com-unlock.support/",
    "https://netflix-billing-update.online/en/account/payment",
    "https://my-wallet-recovery.click/metamask/restore.html",
    "https://coinbase-auth-hi29jf.workers.dev/",
    "https://dhl-parcel-tracking.vip/track?id=4839201",
    "https://bankofamerica.secure-session.live/login",
    "http://45.137.21.9/paypal/login.php",
    "http://192.0.2.10:8080/admin",
    "https://203.0.113.77/wp-admin/",
    "http://10.0.0.1/",
    "http://[2001:db8::1]/x",
    "https://[2606:4700::6810:85e5]:8443/verify/account",
    "https://bit.ly/3abcDEF",
    "https://t.co/xyz123",
    "https://tinyurl.com/",
    "https://example.com/some/deep/path/page.html?x=1",
    "https://example.org/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q/r/s/t/u/v/w/x/y/z/index.htm",
    "https://www.bluecanyon-bakery.de/produkte/brot/roggen?sort=neu&seite=2#oben",
    "https://shop.goldenmusic.co.uk/collections/all?page=3",
    "https://docs.rapidforge.io/guides/how-to-build-better-home",
    "https://blog.millerlabs.com.au/2024/05/announcing-version-2/",
    "https://xn--80ak6aa92e.com/",
    "https://fonts.googleapis.com/",
    "https://www.googletagmanager.com/gtag/js",
    "https://UPPER.Example.COM./A?b=c#frag",
    "http://localhost:3000/",
    "https://a.b.c.d.e.f.example.net/",
    "",
    "not a url",
    "ftp://x.y/",
    "http://",
];

fn spec(url: &str, i: usize) -> ScanSpec {
    let countries = [None, Some("de"), Some("jp"), Some("zz"), Some("us")];
    let visibilities = ["public", "unlisted", "private"];
    ScanSpec {
        uuid: format!(
            "{:08x}-{:04x}-4{:03x}-a{:03x}-{:012x}",
            i * 2_654_435_761 % (1 << 32),
            i % 65_536,
            i % 4096,
            (i * 7) % 4096,
            i * 1_000_003
        ),
        url: url.into(),
        time_ms: NOW - (i as i64) * 7_919_000 * 13,
        visibility: visibilities[i % 3].into(),
        country: countries[i % countries.len()].map(str::to_string),
        tags: (0..i % 3).map(|t| format!("tag{t}")).collect(),
        method: if i % 4 == 0 { "manual" } else { "api" }.into(),
        source: format!("{:08x}", i * 48_271),
        user_agent: (i % 7 == 3).then(|| words::CUSTOM_USER_AGENTS[i % 5].to_string()),
        referer: (i % 5 == 2).then(|| "https://referrer.example/".to_string()),
        planted: None,
    }
}

/// About 250 scans: the URLs above, every known site, redirector, brand
/// (phishing and legitimate domains) and hosting suffix, and a seeded corpus.
fn golden_specs() -> Vec<ScanSpec> {
    let mut urls: Vec<String> = URLS.iter().map(|u| u.to_string()).collect();
    for k in words::KNOWN_SITES.iter() {
        urls.push(format!("https://{}/", k.apex));
    }
    for (h, _) in words::REDIRECTORS.iter() {
        urls.push(format!("https://{h}/abc"));
    }
    for b in words::BRANDS.iter() {
        urls.push(format!("https://{}-secure-login.xyz/signin", b.keywords[0]));
        urls.push(format!("https://www.{}/", b.legit[0]));
    }
    for (suffix, _, _) in words::HOSTING_SUFFIXES.iter() {
        urls.push(format!("https://verify-account-7f3.{suffix}/login.html"));
    }
    let mut specs: Vec<ScanSpec> = urls.iter().enumerate().map(|(i, u)| spec(u, i)).collect();
    specs.extend(corpus(11, 100, NOW));
    specs
}

/// Every public output of every golden scan, hashed in order.
fn render_all() -> (usize, String) {
    const PADDED: &str = "http://golden-padded.test";
    set_result_size(PADDED, Some((20_000, 60_000)));
    let specs = golden_specs();
    let mut h = Sha256::new();
    let mut put = |label: &str, bytes: &[u8]| {
        h.update(label.as_bytes());
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    };
    for (i, s) in specs.iter().enumerate() {
        put(
            "result",
            result_json(s, "http://127.0.0.1:8000")
                .to_string()
                .as_bytes(),
        );
        if i % 10 == 0 {
            put("padded", result_json(s, PADDED).to_string().as_bytes());
        }
        put(
            "hit",
            search_hit(s, "https://urlscan.test").to_string().as_bytes(),
        );
        put("index", index_doc(s).to_string().as_bytes());
        put("dom", dom(s).as_bytes());
        put("png", &screenshot_png(s));
        for (hash, body) in response_bodies(s) {
            put("body", hash.as_bytes());
            put("body", body.as_bytes());
        }
        for c in certificates(s) {
            put("cert", c.to_string().as_bytes());
        }
    }
    set_result_size(PADDED, None);
    (specs.len(), hex::encode(h.finalize()))
}

#[test]
fn content_is_unchanged() {
    let (n, digest) = render_all();
    assert!(n >= 200, "only {n} golden scans");
    assert_eq!(
        digest, DIGEST,
        "the generated content changed; if that is intended, set DIGEST to the new value"
    );
}
