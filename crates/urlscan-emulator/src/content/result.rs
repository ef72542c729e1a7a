//! The documents a scan is served as: the result, the search hit and the
//! index document, with their page, task, lists, stats and meta sections.

use serde_json::{json, Map, Value};

use super::helpers::{h64, iso, push_unique, DAY_MS};
use super::model::Model;
use super::requests::cdp_type;
use super::sites::Host;
use super::urls::{apex_of, file_name, Target};
use super::words;

impl Model<'_> {
    fn page_json(&self) -> Value {
        let h = &self.hosts[self.page_host];
        // Sized for every field it may hold: growing a map is most of the cost of making it.
        let mut p = Map::with_capacity(22);
        p.insert("url".into(), json!(self.page_url));
        p.insert("domain".into(), json!(self.page.host));
        p.insert("apexDomain".into(), json!(self.site.apex));
        p.insert("country".into(), json!(h.loc.country));
        p.insert("city".into(), json!(h.loc.city));
        p.insert("server".into(), json!(h.server));
        p.insert("ip".into(), json!(h.ip));
        p.insert("asn".into(), json!(format!("AS{}", h.prov.asn)));
        p.insert("asnname".into(), json!(h.prov.asnname));
        p.insert("ptr".into(), json!(h.ptr));
        p.insert("title".into(), json!(self.title));
        p.insert("status".into(), json!(self.status.to_string()));
        p.insert("mimeType".into(), json!("text/html"));
        p.insert("language".into(), json!(self.site.lang));
        if let Some(rd) = &self.redirect {
            let from = &self.hosts[rd.host];
            let label = if from.name == h.name {
                "same-domain"
            } else if from.apex == h.apex {
                "sub-domain"
            } else {
                "off-domain"
            };
            p.insert("redirected".into(), json!(label));
        }
        if self.page.scheme == "https" {
            let t = &h.tls;
            p.insert("tlsIssuer".into(), json!(t.issuer));
            p.insert("tlsValidDays".into(), json!(t.valid_days));
            p.insert("tlsAgeDays".into(), json!(t.age_days));
            p.insert("tlsValidFrom".into(), json!(iso(t.from_s * 1000)));
        }
        if !self.page.is_ip {
            let apex_age = ((self.t_ms - self.site.reg_ms) / DAY_MS).max(0);
            let dom_age = if self.page.host == self.site.apex
                || self.page.host == format!("www.{}", self.site.apex)
            {
                apex_age
            } else {
                (apex_age as f64 * (0.2 + (h64(&["dage", &self.page.host]) % 80) as f64 / 100.0))
                    as i64
            };
            p.insert("apexDomainAgeDays".into(), json!(apex_age));
            p.insert("domainAgeDays".into(), json!(dom_age));
        }
        if let Some(rank) = self.site.rank {
            p.insert("umbrellaRank".into(), json!(rank));
        }
        Value::Object(p)
    }

    fn task_json(&self, base: &str, full: bool) -> Value {
        let s = self.spec;
        // Sized for what it holds: the index documents keep it.
        let mut t = Map::with_capacity(if full { 14 } else { 9 });
        t.insert("uuid".into(), json!(s.uuid));
        t.insert("time".into(), json!(iso(s.time_ms)));
        // The service echoes the URL as submitted ("https://www.google.com",
        // no slash); only unusable input is replaced by its normalised form.
        let raw = s.url.trim();
        let as_submitted = url::Url::parse(raw)
            .map(|u| {
                matches!(u.scheme(), "http" | "https")
                    && (u.as_str() == raw || u.as_str() == format!("{raw}/"))
            })
            .unwrap_or(false);
        let task_url = if as_submitted {
            raw.to_string()
        } else {
            self.submitted.url()
        };
        t.insert("url".into(), json!(task_url));
        t.insert("visibility".into(), json!(s.visibility));
        t.insert("method".into(), json!(s.method));
        t.insert("source".into(), json!(s.source));
        t.insert("tags".into(), json!(s.tags));
        t.insert("domain".into(), json!(self.submitted.host));
        t.insert("apexDomain".into(), json!(apex_of(&self.submitted.host)));
        if full {
            let mut o = Map::new();
            o.insert("useragent".into(), json!(self.ua));
            if let Some(r) = &s.referer {
                o.insert("referer".into(), json!(r));
            }
            t.insert("options".into(), Value::Object(o));
            t.insert("userAgent".into(), json!(self.ua));
            t.insert(
                "reportURL".into(),
                json!(format!("{base}/result/{}/", s.uuid)),
            );
            t.insert(
                "screenshotURL".into(),
                json!(format!("{base}/screenshots/{}.png", s.uuid)),
            );
            t.insert("domURL".into(), json!(format!("{base}/dom/{}/", s.uuid)));
        }
        Value::Object(t)
    }

    /// Hosts in first-contact order with their request index list
    /// (the redirect hop counts as a contact).
    pub(super) fn lists(&self) -> Lists {
        let mut l = self.host_lists();
        for q in &self.reqs {
            if q.url.starts_with("https") {
                let h = &self.hosts[q.host];
                if !l
                    .certs
                    .iter()
                    .any(|c: &Value| c["subjectName"].as_str() == Some(h.tls.subject.as_str()))
                {
                    l.certs.push(json!({
                        "subjectName": h.tls.subject,
                        "issuer": h.tls.issuer,
                        "validFrom": h.tls.from_s,
                        "validTo": h.tls.to_s,
                    }));
                }
            }
        }
        for (href, _) in &self.links {
            let t = Target::parse(href);
            push_unique(&mut l.link_domains, &t.host);
        }
        l
    }

    /// [`Self::lists`] but for `certs` and `link_domains`, which the hit and
    /// the index do not hold (and which cost the most to find).
    pub(super) fn host_lists(&self) -> Lists {
        let mut l = Lists::default();
        let mut host_order: Vec<usize> = Vec::new();
        if let Some(rd) = &self.redirect {
            host_order.push(rd.host);
            push_unique(&mut l.urls, &rd.from);
        }
        for q in &self.reqs {
            if !host_order.contains(&q.host) {
                host_order.push(q.host);
            }
            push_unique(&mut l.urls, &q.url);
            push_unique(&mut l.hashes, &q.hash);
        }
        for &hi in &host_order {
            let h = &self.hosts[hi];
            push_unique(&mut l.ips, &h.ip);
            push_unique(&mut l.countries, h.loc.country);
            push_unique(&mut l.asns, &h.prov.asn.to_string());
            push_unique(&mut l.asnnames, h.prov.asnname);
            push_unique(&mut l.domains, &h.name);
            push_unique(&mut l.servers, &h.server);
        }
        l.host_order = host_order;
        l
    }

    fn stats_json(&self, lists: &Lists) -> Value {
        #[derive(Default)]
        struct Agg {
            count: u64,
            size: u64,
            enc: u64,
            ips: Vec<String>,
            countries: Vec<String>,
            initiators: Vec<String>,
            redirects: u64,
            domains: Vec<String>,
            protocols: Vec<(String, u64)>,
        }
        fn group<'g>(groups: &'g mut Vec<(String, Agg)>, key: &str) -> &'g mut Agg {
            if let Some(i) = groups.iter().position(|g| g.0 == key) {
                return &mut groups[i].1;
            }
            groups.push((key.to_string(), Agg::default()));
            &mut groups.last_mut().expect("just pushed").1
        }
        let mut by_type: Vec<(String, Agg)> = Vec::new();
        let mut by_proto: Vec<(String, Agg)> = Vec::new();
        let mut by_tls: Vec<(String, Agg)> = Vec::new();
        let mut by_server: Vec<(String, Agg)> = Vec::new();
        let mut by_domain: Vec<(String, Agg)> = Vec::new();
        let mut by_reg: Vec<(String, Agg)> = Vec::new();
        let mut by_ip: Vec<(String, Agg)> = Vec::new();
        // Seed domain/ip order with the lists order (redirect hop first).
        for &hi in &lists.host_order {
            let h = &self.hosts[hi];
            group(&mut by_domain, &h.name);
            group(&mut by_reg, &h.apex);
            group(&mut by_ip, &h.ip);
        }
        if let Some(rd) = &self.redirect {
            let h = &self.hosts[rd.host];
            for g in [
                group(&mut by_domain, &h.name),
                group(&mut by_reg, &h.apex),
                group(&mut by_ip, &h.ip),
            ] {
                g.redirects += 1;
            }
            let d = group(&mut by_ip, &h.ip);
            push_unique(&mut d.domains, &h.name);
        }
        let mut secure = 0u64;
        let mut v6 = 0u64;
        for (i, q) in self.reqs.iter().enumerate() {
            let h = &self.hosts[q.host];
            let size = q.body.len() as u64;
            let enc = q.hdr_len + q.enc_body;
            let proto = self.protocol_of(i);
            let init_host = q
                .init_url
                .as_ref()
                .map(|u| Target::parse(u).host)
                .unwrap_or_else(|| h.name.clone());
            let is_secure = q.url.starts_with("https");
            if is_secure {
                secure += 1;
            }
            if h.v6 {
                v6 += 1;
            }
            let tls_key = if is_secure { "secure" } else { "" };
            let tls_proto = format!("{} / {} / {}", h.tls.version, h.tls.kx, h.tls.cipher);
            let mut groups: Vec<&mut Agg> = vec![
                group(&mut by_type, cdp_type(q.kind)),
                group(&mut by_proto, proto),
                group(&mut by_server, &h.server),
            ];
            for g in groups.iter_mut() {
                g.count += 1;
                g.size += size;
                g.enc += enc;
                push_unique(&mut g.ips, &h.ip);
                push_unique(&mut g.countries, h.loc.country);
            }
            if is_secure {
                let g = group(&mut by_tls, tls_key);
                g.count += 1;
                g.size += size;
                g.enc += enc;
                push_unique(&mut g.ips, &h.ip);
                push_unique(&mut g.countries, h.loc.country);
                match g.protocols.iter_mut().find(|p| p.0 == tls_proto) {
                    Some(p) => p.1 += 1,
                    None => g.protocols.push((tls_proto.clone(), 1)),
                }
            }
            for g in [group(&mut by_domain, &h.name), group(&mut by_reg, &h.apex)] {
                g.count += 1;
                g.size += size;
                g.enc += enc;
                push_unique(&mut g.ips, &h.ip);
                push_unique(&mut g.countries, h.loc.country);
                push_unique(&mut g.initiators, &init_host);
                push_unique(&mut g.domains, &h.name);
            }
            let g = group(&mut by_ip, &h.ip);
            g.count += 1;
            g.size += size;
            g.enc += enc;
            push_unique(&mut g.countries, h.loc.country);
            push_unique(&mut g.domains, &h.name);
        }
        let total = self.reqs.len().max(1) as u64;
        let pct = |c: u64| ((c * 100) as f64 / total as f64).round() as i64;
        let simple = |groups: &Vec<(String, Agg)>, key: &str| -> Vec<Value> {
            groups
                .iter()
                .map(|(k, g)| {
                    let mut m = Map::new();
                    m.insert("count".into(), json!(g.count));
                    m.insert("size".into(), json!(g.size));
                    m.insert("encodedSize".into(), json!(g.enc));
                    m.insert("latency".into(), json!(0));
                    m.insert("countries".into(), json!(g.countries));
                    m.insert("ips".into(), json!(g.ips));
                    m.insert(key.into(), json!(k));
                    m.insert("percentage".into(), json!(pct(g.count)));
                    Value::Object(m)
                })
                .collect()
        };
        let resource_stats: Vec<Value> = by_type
            .iter()
            .map(|(k, g)| {
                let comp = if g.enc > 0 {
                    g.size as f64 / g.enc as f64
                } else {
                    1.0
                };
                json!({
                    "count": g.count, "size": g.size, "encodedSize": g.enc, "latency": 0,
                    "countries": g.countries, "ips": g.ips, "type": k,
                    "compression": format!("{comp:.1}"), "percentage": pct(g.count),
                })
            })
            .collect();
        let protocol_stats: Vec<Value> = by_proto
            .iter()
            .map(|(k, g)| {
                json!({
                    "count": g.count, "size": g.size, "encodedSize": g.enc, "ips": g.ips,
                    "countries": g.countries, "securityState": {}, "protocol": k,
                })
            })
            .collect();
        let tls_stats: Vec<Value> = by_tls
            .iter()
            .map(|(k, g)| {
                let mut protos = Map::new();
                for (p, c) in &g.protocols {
                    protos.insert(p.clone(), json!(c));
                }
                json!({
                    "count": g.count, "size": g.size, "encodedSize": g.enc, "ips": g.ips,
                    "countries": g.countries, "protocols": protos, "securityState": k,
                })
            })
            .collect();
        let server_stats = simple(&by_server, "server");
        let domain_stats: Vec<Value> = by_domain
            .iter()
            .enumerate()
            .map(|(i, (k, g))| {
                json!({
                    "count": g.count, "ips": g.ips, "domain": k, "size": g.size, "encodedSize": g.enc,
                    "countries": g.countries, "index": i, "initiators": g.initiators,
                    "redirects": g.redirects, "requests": g.count,
                })
            })
            .collect();
        let reg_stats: Vec<Value> = by_reg
            .iter()
            .enumerate()
            .map(|(i, (k, g))| {
                let subs: Vec<Value> = g
                    .domains
                    .iter()
                    .filter(|d| *d != k)
                    .map(|d| {
                        let sub = d.strip_suffix(&format!(".{k}")).unwrap_or(d);
                        let c = self.hosts.iter().find(|h| &h.name == d).map(|h| h.loc.country).unwrap_or("");
                        json!({"domain": sub, "country": c})
                    })
                    .collect();
                json!({
                    "count": g.count, "ips": g.ips, "regDomain": k, "size": g.size, "encodedSize": g.enc,
                    "countries": g.countries, "index": i, "subDomains": subs,
                    "redirects": g.redirects, "requests": g.count, "initiators": g.initiators,
                })
            })
            .collect();
        let ip_stats: Vec<Value> = by_ip
            .iter()
            .enumerate()
            .map(|(i, (k, g))| {
                let h = self
                    .hosts
                    .iter()
                    .find(|h| &h.ip == k)
                    .expect("ip belongs to a host");
                let mut m = Map::new();
                m.insert("requests".into(), json!(g.count));
                m.insert("domains".into(), json!(g.domains));
                m.insert("ip".into(), json!(k));
                m.insert("asn".into(), h.asn_json());
                m.insert("dns".into(), json!({}));
                m.insert("geoip".into(), h.geoip_json());
                m.insert("size".into(), json!(g.size));
                m.insert("encodedSize".into(), json!(g.enc));
                m.insert("countries".into(), json!(g.countries));
                m.insert("index".into(), json!(i));
                m.insert("ipv6".into(), json!(h.v6));
                m.insert("redirects".into(), json!(g.redirects));
                m.insert("count".into(), Value::Null);
                if !h.ptr.is_empty() {
                    m.insert("rdns".into(), json!({"ip": h.ip, "ptr": h.ptr}));
                }
                Value::Object(m)
            })
            .collect();
        json!({
            "resourceStats": resource_stats,
            "protocolStats": protocol_stats,
            "tlsStats": tls_stats,
            "serverStats": server_stats,
            "domainStats": domain_stats,
            "regDomainStats": reg_stats,
            "secureRequests": secure,
            "securePercentage": pct(secure),
            "IPv6Percentage": pct(v6),
            "uniqCountries": lists.countries.len(),
            "totalLinks": self.links.len(),
            "malicious": if self.malicious() { 1 } else { 0 },
            "adBlocked": self.reqs.iter().filter(|q| q.tracker).count(),
            "ipStats": ip_stats,
        })
    }

    fn meta_json(&self, lists: &Lists) -> Value {
        let hosts: Vec<&Host> = lists.host_order.iter().map(|&i| &self.hosts[i]).collect();
        let mut asn = Vec::new();
        let mut geo = Vec::new();
        let mut rdns = Vec::new();
        let mut seen: Vec<String> = Vec::new();
        for h in &hosts {
            if seen.contains(&h.ip) {
                continue;
            }
            seen.push(h.ip.clone());
            asn.push(h.asn_json());
            geo.push(json!({"ip": h.ip, "geoip": h.geoip_json()}));
            if !h.ptr.is_empty() {
                rdns.push(json!({"ip": h.ip, "ptr": h.ptr}));
            }
        }
        let mut umbrella = Vec::new();
        for h in &hosts {
            let rank = if h.name == self.page.host {
                self.site.rank
            } else {
                h.rank
            };
            if let Some(rk) = rank {
                if !umbrella
                    .iter()
                    .any(|u: &Value| u["hostname"] == json!(h.name))
                {
                    umbrella.push(json!({"hostname": h.name, "rank": rk}));
                }
            }
        }
        let wappa: Vec<Value> = self
            .apps
            .iter()
            .filter_map(|(a, pattern)| {
                let rec = words::APPS.iter().find(|x| x.0 == *a)?;
                let cats: Vec<Value> = rec
                    .1
                    .iter()
                    .map(|(n, p, g)| json!({"name": n, "priority": p, "groups": [g]}))
                    .collect();
                Some(json!({
                    "app": a,
                    "categories": cats,
                    "confidence": [{"pattern": pattern, "confidence": 100}],
                    "confidenceTotal": 100,
                    "icon": format!("{}.svg", a.replace('/', "")),
                    "website": rec.2,
                }))
            })
            .collect();
        // Google Safe Browsing: its API's answer, empty for a page it does not list
        // (a recorded 2018 result: `{"state": "done", "data": {}}`).
        let gsb = match self.brand {
            Some(_) => json!({"matches": [{
                "threatType": "SOCIAL_ENGINEERING",
                "platformType": "ANY_PLATFORM",
                "threat": {"url": self.page_url},
                "cacheDuration": "300s",
                "threatEntryType": "URL",
            }]}),
            None => json!({}),
        };
        json!({
            "processors": {
                "gsb": {"state": "done", "data": gsb},
                "umbrella": {"data": umbrella},
                "geoip": {"data": geo},
                "asn": {"data": asn},
                "rdns": {"data": rdns},
                "wappa": {"data": wappa},
                "download": {"data": []},
            }
        })
    }

    pub(super) fn result(&self, base: &str) -> Value {
        let lists = self.lists();
        let requests: Vec<Value> = (0..self.reqs.len()).map(|i| self.request_json(i)).collect();
        let links: Vec<Value> = self
            .links
            .iter()
            .map(|(h, t)| json!({"href": h, "text": t}))
            .collect();
        let globals: Vec<Value> = self
            .globals
            .iter()
            .map(|(p, t)| json!({"prop": p, "type": t, "source": "windowScope"}))
            .collect();
        let redirects: Vec<Value> = self
            .redirect
            .iter()
            .map(|rd| json!({"from": rd.from, "to": rd.to, "status": rd.status, "initiator": "other"}))
            .collect();
        let t = |off: f64| iso(self.nav0 + off.round() as i64);
        let doc = &self.reqs[0];
        let timing = json!({
            "beginNavigation": iso(self.nav0),
            "frameStartedLoading": t(doc.start + 1.0),
            "frameNavigated": t(doc.ttfb + doc.start + 2.0),
            "domContentEventFired": t(self.dcl),
            "loadEventFired": t(self.load),
            "frameStoppedLoading": t(self.load + 1.0),
        });
        let data = json!({
            "requests": requests,
            "cookies": self.cookies,
            "console": self.console,
            "links": links,
            "timing": timing,
            "globals": globals,
            "redirects": redirects,
            "storages": [],
        });
        let mut result = json!({
            "data": data,
            "stats": self.stats_json(&lists),
            "meta": self.meta_json(&lists),
            "task": self.task_json(base, true),
            "page": self.page_json(),
            "lists": {
                "ips": lists.ips,
                "countries": lists.countries,
                "asns": lists.asns,
                "domains": lists.domains,
                "servers": lists.servers,
                "urls": lists.urls,
                "linkDomains": lists.link_domains,
                "certificates": lists.certs,
                "hashes": lists.hashes,
            },
            "verdicts": self.verdicts_json(),
            "submitter": {"country": self.submitter_country},
            "scanner": {"country": self.scanner_country},
            "labels": self.labels(),
            // The caller's matches of their saved searches, filled in for each
            // answer (a real result of July 2025: `"metatags": []`, `"usertags": []`).
            "usertags": [],
            "metatags": [],
        });
        if let Some(v) = self.visible_json() {
            result["visible"] = v;
        }
        self.shape_result(&mut result);
        result
    }

    pub(super) fn hit(&self, base: &str) -> Value {
        self.hit_with(base, &self.host_lists())
    }

    /// [`Self::hit`], of the [`Self::host_lists`] already made.
    pub(super) fn hit_with(&self, base: &str, lists: &Lists) -> Value {
        let data_len: usize = self.reqs.iter().map(|q| q.body.len()).sum();
        let enc_len: u64 = self.reqs.iter().map(|q| q.hdr_len + q.enc_body).sum();
        let uuid = &self.spec.uuid;
        // Sized for the index document it becomes too (`index`): 15 fields and 10 more.
        let mut m = Map::with_capacity(25);
        // The caller's, first: filled in for each answer (`state::saved_matches`).
        m.insert("usertags".into(), json!([]));
        m.insert("meta".into(), json!([]));
        m.insert("task".into(), self.task_json(base, false));
        m.insert(
            "stats".into(),
            json!({
                "uniqIPs": lists.ips.len(),
                "consoleMsgs": self.console.len(),
                "uniqCountries": lists.countries.len(),
                "dataLength": data_len,
                "encodedDataLength": enc_len,
                "requests": self.reqs.len(),
            }),
        );
        m.insert("page".into(), self.page_json());
        let loaded = self.nav0 + self.load as i64;
        insert_hit_links(&mut m, uuid, self.spec.time_ms, loaded, base);
        m.insert(
            "verdicts".into(),
            json!({"score": self.score, "malicious": self.malicious()}),
        );
        if !self.brands().is_empty() {
            m.insert("brand".into(), Value::Array(self.brand_json()));
        }
        m.insert("labels".into(), json!(self.labels()));
        if let Some(v) = self.visible_json() {
            m.insert("visible".into(), v);
        }
        let mut hit = Value::Object(m);
        self.shape_hit(&mut hit);
        hit
    }

    pub(super) fn index(&self, hit: Value) -> Value {
        self.index_with(hit, self.host_lists())
    }

    /// [`Self::index`], of the [`Self::host_lists`] already made.
    pub(super) fn index_with(&self, hit: Value, lists: Lists) -> Value {
        let mut v = hit;
        let mut filenames: Vec<String> = Vec::new();
        for q in &self.reqs {
            push_unique(&mut filenames, &file_name(&q.url));
        }
        if let Value::Object(m) = &mut v {
            // Not facts of the scan: the searches evaluate them per caller.
            m.shift_remove("usertags");
            m.shift_remove("meta");
            // The lists move into the document (`json!` of a list would copy it).
            m.insert("domain".into(), Value::from(lists.domains));
            m.insert("ip".into(), Value::from(lists.ips));
            m.insert("hash".into(), Value::from(lists.hashes));
            m.insert(
                "asn".into(),
                json!(lists
                    .asns
                    .iter()
                    .map(|a| format!("AS{a}"))
                    .collect::<Vec<_>>()),
            );
            m.insert("asnname".into(), Value::from(lists.asnnames));
            m.insert("country".into(), Value::from(lists.countries));
            m.insert("server".into(), Value::from(lists.servers));
            m.insert("filename".into(), Value::from(filenames));
            m.insert("date".into(), json!(iso(self.spec.time_ms)));
            m.insert("hostname".into(), json!(self.page.host));
        }
        v
    }

    // -----------------------------------------------------------------------
    // Screenshot
    // -----------------------------------------------------------------------

    pub(super) fn brand_json(&self) -> Vec<Value> {
        self.brands()
            .iter()
            .map(|b| {
                json!({
                    "key": b.key,
                    "name": b.name,
                    "country": b.country,
                    "vertical": b.vertical,
                })
            })
            .collect()
    }

    /// System labels. urlscan Brand AI labels the scans it processed
    /// `visual.brandai` (docs.urlscan.io, July 30, 2025): here, the pages
    /// that impersonate a brand.
    fn labels(&self) -> Vec<&'static str> {
        match self.brands().first() {
            Some(_) => vec!["visual.brandai"],
            None => vec![],
        }
    }

    /// `visible.brandname`: the brand Brand AI saw on the page (docs.urlscan.io,
    /// July 30, 2025); only on the scans it processed.
    fn visible_json(&self) -> Option<Value> {
        self.brands().first().map(|b| json!({"brandname": b.name}))
    }

    pub(super) fn verdicts_json(&self) -> Value {
        let mal = self.malicious();
        let brands = self.brand_json();
        // `overall.brands` lists brand keys, `urlscan.brands` the brand objects
        // (docs.urlscan.io changelog 2022-04-20; a live-aligned fixture:
        // `"overall": {"brands": ["allegrolokalnie", ...]}`); community brands
        // are keys too (a live-aligned client types them as strings).
        let keys: Vec<&str> = self.brands().iter().map(|b| b.key).collect();
        let (cats, tags): (Vec<&str>, Vec<String>) = if keys.is_empty() {
            (vec![], vec![])
        } else {
            let named = keys.iter().map(|k| k.to_string());
            (
                vec!["phishing"],
                std::iter::once("phishing".to_string())
                    .chain(named)
                    .collect(),
            )
        };
        let votes = self.community_votes;
        json!({
            "overall": {
                "score": self.score, "categories": cats, "brands": keys, "tags": tags,
                "malicious": mal, "hasVerdicts": mal,
            },
            "urlscan": {
                "score": self.score, "categories": cats, "brands": brands, "tags": tags,
                "malicious": mal, "hasVerdicts": mal,
            },
            "engines": {
                "score": 0, "categories": [], "brands": [], "tags": [], "malicious": false,
                "hasVerdicts": false, "enginesTotal": 0, "maliciousTotal": 0, "benignTotal": 0,
                "maliciousVerdicts": [], "benignVerdicts": [], "verdicts": [],
            },
            "community": {
                "score": if votes > 0 { 100 } else { 0 },
                "categories": if votes > 0 { cats.clone() } else { vec![] },
                "brands": if votes > 0 { keys.clone() } else { vec![] },
                "tags": [], "malicious": votes > 0, "hasVerdicts": votes > 0,
                "votesTotal": votes, "votesMalicious": votes, "votesBenign": 0,
            },
        })
    }
}

/// A hit's fields that place the scan in the index: indexed a few seconds
/// after the page loaded (`loaded_ms`), its id and sort key, and the links to
/// its result and screenshot. Planted documents' hits share them
/// (`planted::hit`), so both kinds read alike.
pub(super) fn insert_hit_links(
    m: &mut Map<String, Value>,
    uuid: &str,
    time_ms: i64,
    loaded_ms: i64,
    base: &str,
) {
    let indexed = loaded_ms + 4_000 + (h64(&["idx", uuid]) % 20_000) as i64;
    m.insert("indexedAt".into(), json!(iso(indexed)));
    m.insert("_id".into(), json!(uuid));
    m.insert("_score".into(), Value::Null);
    m.insert("sort".into(), json!([time_ms, uuid]));
    m.insert(
        "result".into(),
        json!(format!("{base}/api/v1/result/{uuid}/")),
    );
    m.insert(
        "screenshot".into(),
        json!(format!("{base}/screenshots/{uuid}.png")),
    );
}

#[derive(Default)]
pub(super) struct Lists {
    pub(super) ips: Vec<String>,
    pub(super) countries: Vec<String>,
    pub(super) asns: Vec<String>,
    pub(super) asnnames: Vec<String>,
    pub(super) domains: Vec<String>,
    pub(super) servers: Vec<String>,
    pub(super) urls: Vec<String>,
    pub(super) link_domains: Vec<String>,
    pub(super) certs: Vec<Value>,
    pub(super) hashes: Vec<String>,
    pub(super) host_order: Vec<usize>,
}
