//! The facts a test stated (`facts`) applied to the scan model while it is
//! built, not to the rendered document, so every place the service shows a
//! fact reads it: the page host's address, network and country are the
//! page's, the requests' remote address, `lists`, `stats.ipStats` and the
//! `asn`/`geoip`/`rdns` processors; the brands are the verdicts', the labels',
//! `visible` and the page's content (the kit of the brand); the title is the
//! page's and the DOM's `<title>`.

use std::net::IpAddr;
use std::sync::Mutex;

use serde_json::{json, Map, Value};

use super::helpers::{h64, iso};
use super::model::Model;
use super::urls::Target;
use super::words::{self, Brand, Loc, Provider};
/// Networks and places made for facts the tables do not hold, made once each
/// (hosts refer to them as `&'static`, like the tables' own).
static MADE_PROVIDERS: Mutex<Vec<&'static Provider>> = Mutex::new(Vec::new());
static MADE_LOCS: Mutex<Vec<&'static Loc>> = Mutex::new(Vec::new());

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

/// The network of `asn`: the table's when it has one, else one named after
/// the number, registered in `country`, with `like`'s address plan.
fn provider_of(asn: u32, country: &str, like: &'static Provider) -> &'static Provider {
    if let Some(p) = words::PROVIDERS.iter().find(|p| p.asn == asn) {
        return p;
    }
    let mut made = MADE_PROVIDERS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(p) = made
        .iter()
        .find(|p| p.asn == asn && p.reg_country == country)
    {
        return p;
    }
    let p: &'static Provider = Box::leak(Box::new(Provider {
        key: leak(format!("as{asn}")),
        asn,
        asnname: leak(format!("AS{asn}, {country}")),
        org: leak(format!("AS{asn}")),
        reg_country: leak(country.to_string()),
        v4: like.v4.clone(),
        v6: like.v6,
        locs: like.locs.clone(),
        servers: like.servers.clone(),
        ptr: "",
        issuers: like.issuers.clone(),
        protocols: like.protocols.clone(),
    }));
    made.push(p);
    p
}

/// A place in `country`: one of `prefer` there, else the table's first
/// there, else a place known by its code alone.
fn loc_of(country: &str, prefer: &[&'static Loc]) -> &'static Loc {
    if let Some(l) = prefer.iter().find(|l| l.country == country) {
        return l;
    }
    if let Some(l) = words::LOCATIONS.iter().find(|l| l.country == country) {
        return l;
    }
    let mut made = MADE_LOCS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(l) = made.iter().find(|l| l.country == country) {
        return l;
    }
    let l: &'static Loc = Box::leak(Box::new(Loc {
        key: leak(format!("{country}_NONE")),
        country: leak(country.to_string()),
        country_name: leak(country.to_string()),
        region: "",
        city: "",
        lat: 0.0,
        lon: 0.0,
        metro: 0,
        timezone: "",
    }));
    made.push(l);
    l
}

impl<'a> Model<'a> {
    /// The page host as the facts say: its address (with no reverse DNS
    /// name: the generated one was made from the generated address), its
    /// network and its country. Called once the page host exists, before the
    /// requests are planned.
    pub(super) fn apply_host_facts(&mut self) {
        let f = self.facts;
        if f.ip.is_none() && f.asn.is_none() && f.country.is_none() {
            return;
        }
        let h = &mut self.hosts[self.page_host];
        if let Some(asn) = f.asn {
            let country = f.country.as_deref().unwrap_or(h.loc.country);
            let prov = provider_of(asn, country, h.prov);
            if f.country.is_none() && !std::ptr::eq(prov, h.prov) && !prov.locs.is_empty() {
                // A known network's own place, as the generator would pick.
                h.loc = prov.locs[(h64(&["loc", &h.name]) % prov.locs.len() as u64) as usize];
            }
            h.prov = prov;
        }
        if let Some(cc) = &f.country {
            h.loc = loc_of(cc, &h.prov.locs);
        }
        if let Some(ip) = f.ip {
            h.ip = ip.to_string();
            h.v6 = ip.is_ipv6();
            h.route = match ip {
                IpAddr::V4(a) => {
                    let [a, b, c, _] = a.octets();
                    format!("{a}.{b}.{c}.0/24")
                }
                IpAddr::V6(a) => {
                    let s = a.segments();
                    format!("{:x}:{:x}:{:x}::/48", s[0], s[1], s[2])
                }
            };
            h.ptr = String::new();
        }
    }

    /// The verdict's score as the facts say: the given one, else 100 for a
    /// page the facts call malicious that the generator had not.
    pub(super) fn apply_verdict_facts(&mut self) {
        let f = self.facts;
        if let Some(s) = f.score {
            self.score = s;
        } else if f.malicious == Some(true) && self.brand.is_none() {
            self.score = 100;
        }
    }

    /// Whether the verdicts call the page malicious.
    pub(super) fn malicious(&self) -> bool {
        self.facts.malicious.unwrap_or(self.brand.is_some())
    }

    /// The brands the page impersonates, the one it is built around first.
    pub(super) fn brands(&self) -> Vec<&'static Brand> {
        match &self.facts.brands {
            Some(b) => b.clone(),
            None => self.brand.into_iter().collect(),
        }
    }

    /// `meta.processors.download` as the facts say: the files given, each
    /// completed, what was not given made the way the generator makes the
    /// file of a `download.` page.
    pub(super) fn apply_download_facts(&self, r: &mut Value) {
        if self.facts.downloads.is_empty() {
            return;
        }
        let page = Target::parse(&self.page_url);
        let files: Vec<Value> = self
            .facts
            .downloads
            .iter()
            .enumerate()
            .map(|(i, given)| self.download_file(i, given, &page))
            .collect();
        r["meta"]["processors"]["download"] = json!({"state": "done", "data": files});
    }

    fn download_file(&self, i: usize, given: &Map<String, Value>, page: &Target) -> Value {
        let text = |k: &str| given.get(k).and_then(Value::as_str).map(str::to_string);
        let url = text("url");
        let filename = text("filename").unwrap_or_else(|| {
            url.as_deref()
                .map(Target::parse)
                .and_then(|t| t.path().rsplit('/').next().map(str::to_string))
                .filter(|n| !n.is_empty())
                .unwrap_or_else(|| format!("download-{}.bin", i + 1))
        });
        let url = url.unwrap_or_else(|| {
            url::Url::parse(&page.url())
                .and_then(|u| u.join(&filename))
                .map(|u| u.to_string())
                .unwrap_or_else(|_| self.page_url.clone())
        });
        let n = i.to_string();
        let seed = [
            self.spec.uuid.as_str(),
            url.as_str(),
            filename.as_str(),
            n.as_str(),
        ];
        let sha256 = text("sha256").unwrap_or_else(|| {
            ["dl-a", "dl-b", "dl-c", "dl-d"]
                .iter()
                .map(|part| {
                    let mut parts = seed.to_vec();
                    parts.push(part);
                    format!("{:016x}", h64(&parts))
                })
                .collect()
        });
        let size = given
            .get("filesize")
            .and_then(Value::as_u64)
            .unwrap_or_else(|| 20_000 + h64(&seed) % 2_000_000);
        let (mime, description) = mime_of(&filename);
        let mime = text("mimeType").unwrap_or_else(|| mime.to_string());
        let description = text("mimeDescription").unwrap_or_else(|| description.to_string());
        let start = self.nav0 + 900 + 1_700 * i as i64;
        json!({
            "sha256": sha256,
            "filename": filename,
            "filesize": size,
            "mimeType": mime,
            "mimeDescription": description,
            "url": url,
            "state": "completed",
            "receivedBytes": size,
            "startedAt": iso(start),
            "finishedAt": iso(start + 1_500),
        })
    }
}

/// The MIME type and libmagic's description of a file by its extension.
fn mime_of(filename: &str) -> (&'static str, &'static str) {
    let ext = filename
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "zip" => (
            "application/zip",
            "Zip archive data, at least v2.0 to extract",
        ),
        "exe" | "scr" | "dll" => (
            "application/x-dosexec",
            "PE32 executable (GUI) Intel 80386, for MS Windows",
        ),
        "msi" => (
            "application/x-msi",
            "Composite Document File V2 Document, MSI Installer",
        ),
        "pdf" => ("application/pdf", "PDF document, version 1.7"),
        "doc" | "xls" => (
            "application/CDFV2",
            "Composite Document File V2 Document, Little Endian",
        ),
        "docx" | "docm" => (
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
            "Microsoft Word 2007+",
        ),
        "xlsx" | "xlsm" => (
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            "Microsoft Excel 2007+",
        ),
        "js" => ("text/plain", "ASCII text, with very long lines"),
        "iso" => (
            "application/x-iso9660-image",
            "ISO 9660 CD-ROM filesystem data",
        ),
        "rar" => ("application/x-rar", "RAR archive data, v5"),
        "7z" => (
            "application/x-7z-compressed",
            "7-zip archive data, version 0.4",
        ),
        "apk" | "jar" => ("application/java-archive", "Java archive data (JAR)"),
        "dmg" => ("application/x-apple-diskimage", "Apple disk image"),
        "html" | "htm" => ("text/html", "HTML document, ASCII text"),
        _ => ("application/octet-stream", "data"),
    }
}
