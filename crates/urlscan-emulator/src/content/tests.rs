//! Properties of the generated content: determinism, consistency between
//! outputs, structure, verdicts and the corpus.
use serde_json::{json, Value};

use super::corpus::corpus;
use super::helpers::{html_escape, push_unique, sha256_hex, DAY_MS};
use super::words;
use super::{
    dom, index_doc, response_bodies, result_json, screenshot_png, search_hit, set_result_size,
    set_title_size, ScanSpec,
};

const NOW: i64 = 1_767_225_600_000; // 2026-01-01T00:00:00Z

fn spec(url: &str) -> ScanSpec {
    ScanSpec {
        uuid: "0a2121d2-76ae-43f0-a4f9-b4b43cd3770a".into(),
        url: url.into(),
        time_ms: NOW - 3_600_000,
        visibility: "public".into(),
        country: None,
        tags: vec![],
        method: "api".into(),
        source: "66de627f".into(),
        user_agent: None,
        referer: None,
        planted: None,
    }
}

fn sample_specs() -> Vec<ScanSpec> {
    let mut v = vec![
        spec("https://www.google.com/"),
        spec("http://google.com"),
        spec("https://paypal-secure-login.xyz/"),
        spec("https://bit.ly/3abcDEF"),
        spec("http://192.0.2.10:8080/admin"),
        spec("https://example.com/some/deep/path/page.html?x=1"),
        spec("http://[2001:db8::1]/x"),
        spec("https://coinbase-auth-hi29jf.workers.dev/"),
        spec("https://fonts.googleapis.com/"),
        spec("https://www.googletagmanager.com/gtag/js"),
    ];
    for k in words::KNOWN_SITES.iter() {
        v.push(spec(&format!("https://{}/", k.apex)));
    }
    for (h, _) in words::REDIRECTORS.iter() {
        v.push(spec(&format!("https://{h}/abc")));
    }
    v.extend(corpus(7, 60, NOW));
    v
}

#[test]
fn odd_inputs_do_not_panic() {
    for url in [
        "",
        "not a url",
        "ftp://x.y/",
        "http://",
        "https://UPPER.Example.COM./A?b=c#frag",
    ] {
        for t in [i64::MIN, -1, 0, i64::MAX] {
            let mut s = spec(url);
            s.time_ms = t;
            s.country = Some("zz".into());
            s.user_agent = Some(String::new());
            let r = result_json(&s, "");
            assert!(r["data"]["requests"].as_array().unwrap().len() >= 3);
            assert_eq!(r["task"]["time"].as_str().unwrap().len(), 24);
            let _ = (
                search_hit(&s, ""),
                index_doc(&s),
                dom(&s),
                screenshot_png(&s),
            );
            assert!(!response_bodies(&s).is_empty());
        }
    }
    let r = result_json(&spec("https://UPPER.Example.COM./A?b=c#frag"), "");
    assert_eq!(r["page"]["domain"], json!("upper.example.com"));
}

#[test]
fn same_site_shares_infrastructure_across_scans() {
    let mut a = spec("https://www.goldenmusic.com/");
    let mut b = spec("https://www.goldenmusic.com/");
    a.uuid = "11111111-1111-4111-8111-111111111111".into();
    b.uuid = "22222222-2222-4222-a222-222222222222".into();
    b.time_ms -= 3 * DAY_MS;
    let (ra, rb) = (result_json(&a, ""), result_json(&b, ""));
    assert_eq!(ra["page"]["server"], rb["page"]["server"]);
    assert_eq!(ra["page"]["asn"], rb["page"]["asn"]);
    assert_eq!(ra["lists"]["hashes"], rb["lists"]["hashes"]);
    assert_ne!(ra["data"]["timing"], rb["data"]["timing"]);
}

#[test]
fn deterministic_outputs() {
    let specs: Vec<ScanSpec> = sample_specs().into_iter().step_by(4).collect();
    let render = |s: &ScanSpec| {
        (
            result_json(s, "http://127.0.0.1:8000").to_string(),
            search_hit(s, "x").to_string(),
            index_doc(s).to_string(),
            dom(s),
            screenshot_png(s),
            response_bodies(s),
        )
    };
    // Two passes over different specs, so no per-thread reuse can mask a difference.
    let first: Vec<_> = specs.iter().map(render).collect();
    let second: Vec<_> = specs.iter().map(render).collect();
    assert!(first == second);
}

#[test]
fn png_decodes() {
    for s in sample_specs().iter().take(10) {
        let bytes = screenshot_png(s);
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
        let dec = png::Decoder::new(std::io::Cursor::new(bytes));
        let mut reader = dec.read_info().expect("png header");
        let mut buf = vec![0; reader.output_buffer_size().expect("size")];
        let info = reader.next_frame(&mut buf).expect("png frame");
        assert_eq!((info.width, info.height), (320, 200));
    }
}

#[test]
fn hashes_match_bodies_and_lists() {
    for s in sample_specs() {
        let res = result_json(&s, "");
        let bodies = response_bodies(&s);
        for (h, b) in &bodies {
            assert_eq!(*h, sha256_hex(b.as_bytes()));
        }
        let mut listed: Vec<String> = res["lists"]["hashes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect();
        let mut req_hashes: Vec<String> = res["data"]["requests"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["response"]["hash"].as_str().unwrap().to_string())
            .collect();
        req_hashes.sort();
        req_hashes.dedup();
        listed.sort();
        assert_eq!(listed, req_hashes);
        let mut served: Vec<String> = bodies.iter().map(|b| b.0.clone()).collect();
        served.sort();
        assert_eq!(served, listed);
        for r in res["data"]["requests"].as_array().unwrap() {
            let size = r["response"]["size"].as_u64().unwrap();
            let h = r["response"]["hash"].as_str().unwrap();
            let body = &bodies.iter().find(|b| b.0 == h).unwrap().1;
            assert_eq!(size as usize, body.len());
        }
    }
}

#[test]
fn structure_and_required_fields() {
    for s in sample_specs() {
        let res = result_json(&s, "http://127.0.0.1:8000");
        for k in [
            "data",
            "stats",
            "meta",
            "task",
            "page",
            "lists",
            "verdicts",
            "submitter",
            "scanner",
        ] {
            assert!(res.get(k).is_some(), "missing {k}");
        }
        let reqs = res["data"]["requests"].as_array().unwrap();
        assert!((3..=15).contains(&reqs.len()), "{} requests", reqs.len());
        let page = &res["page"];
        for k in [
            "url",
            "domain",
            "apexDomain",
            "country",
            "server",
            "ip",
            "asn",
            "asnname",
            "title",
            "status",
            "mimeType",
        ] {
            assert!(page.get(k).is_some(), "page.{k}");
        }
        assert!(page["status"].is_string());
        let domains: Vec<&str> = res["lists"]["domains"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert!(domains.contains(&page["domain"].as_str().unwrap()));
        let others = domains.len() - 1;
        assert!(
            (1..=5).contains(&others),
            "{others} other domains for {}",
            s.url
        );
        for k in ["requests", "uniqIPs", "dataLength", "encodedDataLength"] {
            assert!(
                res["stats"].get(k).is_none(),
                "result stats must not have {k}"
            );
        }
        let task = &res["task"];
        assert_eq!(task["uuid"], json!(s.uuid));
        assert_eq!(
            task["reportURL"],
            json!(format!("http://127.0.0.1:8000/result/{}/", s.uuid))
        );
        assert!(task["time"].as_str().unwrap().ends_with('Z'));
        for p in ["asn", "download", "geoip", "rdns", "umbrella", "wappa"] {
            assert!(
                res["meta"]["processors"][p]["data"].is_array(),
                "processor {p}"
            );
        }
        for v in ["overall", "urlscan", "engines", "community"] {
            let o = &res["verdicts"][v];
            assert!(
                o["score"].is_i64() && o["malicious"].is_boolean() && o["hasVerdicts"].is_boolean()
            );
            let sc = o["score"].as_i64().unwrap();
            assert!((-100..=100).contains(&sc));
        }
        assert!(res["verdicts"]["community"]["votesTotal"].is_i64());
        assert!(res["verdicts"]["engines"]["enginesTotal"].is_i64());
        let size = res.to_string().len();
        assert!(size > 3_000 && size < 80_000, "result size {size}");
        let page_url = page["url"].as_str().unwrap();
        assert_eq!(reqs[0]["request"]["request"]["url"], json!(page_url));
        assert!(res["lists"]["urls"]
            .as_array()
            .unwrap()
            .contains(&json!(page_url)));
    }
}

#[test]
fn malicious_verdicts() {
    let res = result_json(&spec("https://paypal-secure-login.xyz/"), "");
    let o = &res["verdicts"]["overall"];
    assert_eq!(o["malicious"], json!(true));
    assert!(o["score"].as_i64().unwrap() >= 50);
    assert_eq!(o["categories"], json!(["phishing"]));
    assert_eq!(o["brands"], json!(["paypal"]));
    assert!(!o["tags"].as_array().unwrap().is_empty());
    let hit = search_hit(&spec("https://paypal-secure-login.xyz/"), "");
    assert_eq!(hit["verdicts"]["malicious"], json!(true));
    assert_eq!(hit["brand"][0]["key"], json!("paypal"));
    for u in [
        "https://www.paypal.com/",
        "https://www.google.com/search?q=paypal+login",
        "https://purchase-guide.com/",
    ] {
        let r = result_json(&spec(u), "");
        assert_eq!(r["verdicts"]["overall"]["malicious"], json!(false), "{u}");
    }
}

#[test]
fn verdict_brands_are_keys_overall_and_objects_from_urlscan() {
    let mut voted = 0;
    let phishing = words::BRANDS.iter().map(|b| {
        spec(&format!(
            "https://{}-secure-login.xyz/signin",
            b.keywords[0]
        ))
    });
    for s in sample_specs().into_iter().chain(phishing) {
        let v = result_json(&s, "")["verdicts"].clone();
        let urlscan = v["urlscan"]["brands"].as_array().unwrap().clone();
        let keys: Vec<Value> = urlscan.iter().map(|b| b["key"].clone()).collect();
        for b in &urlscan {
            assert!(b["name"].is_string() && b["country"].is_array() && b["vertical"].is_array());
        }
        assert_eq!(v["overall"]["brands"], json!(keys), "{}", s.url);
        let community = v["community"]["brands"].as_array().unwrap();
        assert!(community.iter().all(Value::is_string), "{}", s.url);
        if v["community"]["votesTotal"].as_i64() > Some(0) {
            assert_eq!(v["community"]["brands"], json!(keys), "{}", s.url);
            voted += 1;
        }
    }
    assert!(voted > 0, "no scan with community votes");
    let v = result_json(&spec("https://paypal-secure-login.xyz/"), "")["verdicts"].clone();
    assert_eq!(v["urlscan"]["brands"][0]["key"], json!("paypal"));
    assert_eq!(v["urlscan"]["brands"][0]["name"], json!("PayPal"));
}

#[test]
fn brand_ai_labels_scans_that_impersonate_a_brand() {
    let phish = spec("https://paypal-secure-login.xyz/");
    let res = result_json(&phish, "");
    assert_eq!(res["labels"], json!(["visual.brandai"]));
    assert_eq!(res["visible"], json!({"brandname": "PayPal"}));
    // The caller's saved-search matches are filled in per answer.
    assert_eq!(res["usertags"], json!([]));
    assert_eq!(res["metatags"], json!([]));
    let hit = search_hit(&phish, "");
    assert_eq!(hit["labels"], json!(["visual.brandai"]));
    assert_eq!(hit["visible"], json!({"brandname": "PayPal"}));
    assert_eq!(hit["usertags"], json!([]));
    assert_eq!(hit["meta"], json!([]));
    let keys: Vec<&String> = hit.as_object().unwrap().keys().take(2).collect();
    assert_eq!(
        keys,
        ["usertags", "meta"],
        "stored first, replaced per caller"
    );
    let idx = index_doc(&phish);
    assert_eq!(idx["labels"], json!(["visual.brandai"]));
    assert_eq!(idx["visible"]["brandname"], json!("PayPal"));
    assert!(idx.get("usertags").is_none() && idx.get("meta").is_none());
    for s in sample_specs() {
        let (res, hit) = (result_json(&s, ""), search_hit(&s, ""));
        let brand = hit.get("brand").is_some();
        let want = if brand {
            json!(["visual.brandai"])
        } else {
            json!([])
        };
        assert_eq!(res["labels"], want, "{}", s.url);
        assert_eq!(hit["labels"], want, "{}", s.url);
        assert_eq!(hit.get("visible").is_some(), brand, "{}", s.url);
        assert_eq!(res.get("visible"), hit.get("visible"), "{}", s.url);
        if brand {
            assert_eq!(hit["visible"]["brandname"], hit["brand"][0]["name"]);
        }
    }
    for u in ["https://www.paypal.com/", "https://www.google.com/"] {
        let res = result_json(&spec(u), "");
        assert_eq!(res["labels"], json!([]), "{u}");
        assert!(res.get("visible").is_none(), "{u}");
    }
}

#[test]
fn hit_consistent_with_result() {
    for s in sample_specs() {
        let res = result_json(&s, "http://h");
        let hit = search_hit(&s, "http://h");
        assert_eq!(hit["task"]["uuid"], res["task"]["uuid"]);
        assert_eq!(hit["task"]["time"], res["task"]["time"]);
        assert_eq!(hit["page"], res["page"]);
        assert_eq!(hit["_id"], json!(s.uuid));
        assert_eq!(hit["sort"], json!([s.time_ms, s.uuid]));
        assert_eq!(hit["_score"], Value::Null);
        assert_eq!(
            hit["result"],
            json!(format!("http://h/api/v1/result/{}/", s.uuid))
        );
        assert_eq!(
            hit["screenshot"],
            json!(format!("http://h/screenshots/{}.png", s.uuid))
        );
        assert_eq!(
            hit["stats"]["requests"].as_u64().unwrap() as usize,
            res["data"]["requests"].as_array().unwrap().len()
        );
        assert_eq!(
            hit["verdicts"]["malicious"],
            res["verdicts"]["overall"]["malicious"]
        );
        let idx = index_doc(&s);
        assert_eq!(idx["domain"], res["lists"]["domains"]);
        assert_eq!(idx["hash"], res["lists"]["hashes"]);
        assert_eq!(idx["ip"], res["lists"]["ips"]);
        assert_eq!(idx["hostname"], res["page"]["domain"]);
        assert_eq!(idx["date"], res["task"]["time"]);
        assert!(idx["asn"][0].as_str().unwrap().starts_with("AS"));
    }
}

#[test]
fn dom_mentions_title_and_domains() {
    let s = spec("https://www.google.com/");
    let d = dom(&s);
    let res = result_json(&s, "");
    assert!(d.contains(&format!(
        "<title>{}</title>",
        html_escape(res["page"]["title"].as_str().unwrap())
    )));
    assert!(d.contains("www.gstatic.com"));
}

#[test]
fn redirects() {
    let res = result_json(&spec("http://google.com"), "");
    assert_eq!(res["page"]["url"], json!("https://www.google.com/"));
    assert_eq!(res["page"]["redirected"], json!("sub-domain"));
    assert_eq!(res["task"]["url"], json!("http://google.com"));
    assert_eq!(res["lists"]["urls"][0], json!("http://google.com/"));
    let res = result_json(&spec("https://bit.ly/3abcDEF"), "");
    assert_eq!(res["page"]["redirected"], json!("off-domain"));
    assert!(res["lists"]["domains"]
        .as_array()
        .unwrap()
        .contains(&json!("bit.ly")));
}

#[test]
fn corpus_properties() {
    let a = corpus(42, 600, NOW);
    let b = corpus(42, 600, NOW);
    assert_eq!(a.len(), 600);
    assert_eq!(format!("{a:?}"), format!("{b:?}"));
    assert_ne!(
        format!("{:?}", corpus(43, 5, NOW)),
        format!("{:?}", corpus(42, 5, NOW))
    );
    let mut mal = 0;
    let mut recent = 0;
    let mut domains: Vec<String> = Vec::new();
    for s in &a {
        let u = &s.uuid;
        assert_eq!(u.len(), 36);
        assert_eq!(&u[14..15], "4");
        assert!("89ab".contains(&u[19..20]));
        assert!(s.time_ms < NOW && s.time_ms > NOW - 366 * DAY_MS);
        if s.time_ms > NOW - 7 * DAY_MS {
            recent += 1;
        }
        let hit = search_hit(s, "");
        if hit["verdicts"]["malicious"] == json!(true) {
            mal += 1;
        }
        push_unique(&mut domains, hit["page"]["apexDomain"].as_str().unwrap());
    }
    assert!((24..=66).contains(&mal), "{mal} malicious of 600");
    assert!(recent > 90, "{recent} recent");
    assert!(domains.len() > 120, "{} domains", domains.len());
}

#[test]
fn a_whole_result_renders_in_the_services_form() {
    // Padded too: the padding counts the document as served.
    const BIG: &str = "http://form-test.padded";
    set_result_size(BIG, Some((200_000, 210_000)));
    for s in sample_specs().iter().take(3) {
        for base in ["http://127.0.0.1:8000", BIG] {
            let v = result_json(s, base);
            let out = crate::json_form::render(&v);
            assert_eq!(
                String::from_utf8(out.clone()).unwrap(),
                serde_json::to_string_pretty(&v).unwrap()
            );
            if base == BIG {
                assert!(out.len() <= 210_000, "{} bytes served", out.len());
            }
        }
    }
    set_result_size(BIG, None);
}

#[test]
fn a_title_of_any_size_counts_characters() {
    // Titles hold non-ASCII characters ("–"): the size is in characters, never a cut inside one.
    const LONG: &str = "http://title-test.long";
    set_title_size(LONG, Some(1001));
    for s in sample_specs() {
        let v = result_json(&s, LONG);
        assert_eq!(v["page"]["title"].as_str().unwrap().chars().count(), 1001);
    }
    set_title_size(LONG, None);
}

#[test]
fn indexing_a_corpus_changes_no_byte() {
    // Scans of the same sites (a corpus repeats them) over a year, and odd
    // ones: built with the sites, hosts and bodies kept between scans, and
    // without a DOM for the index, each output is what it is alone.
    let mut specs = sample_specs();
    specs.extend(corpus(3, 600, NOW));
    // The same pages a year apart: certificates renewed, kits re-registered.
    specs.extend(corpus(3, 200, NOW - 365 * DAY_MS));
    for url in [
        "",
        "not a url",
        "https://unreachable.example.com/",
        "https://download.example.org/a.zip",
    ] {
        specs.push(spec(url));
    }
    let base = "http://127.0.0.1:8000";
    let alone: Vec<_> = specs
        .iter()
        .map(|s| {
            let hit = search_hit(s, base).to_string();
            let result = result_json(s, base).to_string();
            (index_doc(s), hit, response_bodies(s), dom(s), result)
        })
        .collect();
    let shared: Vec<_> = super::indexing_corpus(|| {
        specs
            .iter()
            .map(|s| {
                let (index, hit) = super::indexed(s, base);
                let result = result_json(s, base).to_string();
                (index, hit, response_bodies(s), dom(s), result)
            })
            .collect()
    });
    assert_eq!(alone.len(), shared.len());
    for (s, (a, b)) in specs.iter().zip(alone.iter().zip(&shared)) {
        assert!(a == b, "{} differs when indexed with a corpus", s.url);
    }
    // Outside, nothing is kept or left out.
    assert_eq!(dom(&specs[0]), alone[0].3);
    assert!(!alone[0].3.is_empty());
}

#[test]
fn dates_are_written_as_chrono_formats_them() {
    use super::helpers::{dt, http_date, iso};
    let mut ms: i64 = -70_000_000_000_000;
    while ms < 300_000_000_000_000 {
        assert_eq!(
            iso(ms),
            dt(ms).format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string(),
            "{ms}"
        );
        let http = dt(ms).format("%a, %d %b %Y %H:%M:%S GMT").to_string();
        assert_eq!(http_date(ms), http, "{ms}");
        ms += 9_876_543_211;
    }
    for ms in [
        i64::MIN,
        i64::MAX,
        0,
        -1,
        1_767_225_600_000,
        253_402_300_799_999,
        253_402_300_800_000,
    ] {
        assert_eq!(
            iso(ms),
            dt(ms).format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string(),
            "{ms}"
        );
    }
}

#[test]
fn html_escape_is_the_four_replacements() {
    for s in [
        "",
        "plain",
        "a&b<c>d\"e",
        "&amp;&lt;",
        "<<>>\"\"&&",
        "ünï – ☃ &",
    ] {
        let want = s
            .replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;");
        assert_eq!(html_escape(s), want);
    }
}

#[test]
fn file_names_are_what_parsing_finds() {
    use super::urls::{file_name, Target};
    let parsed = |u: &str| {
        Target::parse(u)
            .path()
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .to_string()
    };
    let mut urls: Vec<String> = [
        "https://example.com/a/b.js?x=1#y",
        "https://example.com",
        "https://example.com?x",
        "https://example.com/",
        "http://EXAMPLE.com/A/B.CSS",
        "https://example.com/a/../b.js",
        "https://example.com/a/./b.js",
        "https://example.com/a/%2e%2E/b.js",
        "https://example.com/a/%2E/b",
        "https://example.com/a b/c d",
        "https://example.com/a\\b/c",
        "https://example.com/ü/ß.js",
        "https://example.com/a|b^c/[d]",
        "https://example.com/a%zz/b%41",
        "https://999.1.1.1/x.js",
        "https://1.2.3/x.js",
        "https://0x7f.1/x.js",
        "https://xn--zz.com/x.js",
        "https://XN--80ak6aa92e.com/x.js",
        "https://a..b/x.js",
        "https://example.com./x.js",
        "https://user:pw@example.com/x.js",
        "https://example.com:8443/x.js",
        "https://example.com:99999/x.js",
        "https://[2001:db8::1]/x.js",
        "https://host_name.com/x.js",
        "https://-a-.com/x.js",
        " https://example.com/x.js ",
        "https://exa\tmple.com/x\n.js",
        "HTTPS://example.com/x.js",
        "ftp://example.com/x.js",
        "not a url",
        "",
        "https://example.com/x.js\u{0}",
        "https://example.com/%/x",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    // Every request URL of varied scans.
    let mut specs = sample_specs();
    specs.extend(corpus(5, 300, NOW));
    for s in &specs {
        let doc = result_json(s, "http://127.0.0.1:8000");
        for r in doc["data"]["requests"].as_array().into_iter().flatten() {
            if let Some(u) = r.pointer("/request/request/url").and_then(Value::as_str) {
                urls.push(u.to_string());
            }
        }
    }
    assert!(urls.len() > 2_000);
    for u in &urls {
        assert_eq!(file_name(u), parsed(u), "{u:?}");
    }
}
