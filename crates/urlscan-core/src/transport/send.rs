//! One call through the layers: the key checks before sending, the cache,
//! retries (`retry`), one attempt on the wire and what it is told.
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use reqwest::header::{HeaderMap, HeaderValue};
use reqwest::Method;

use super::answer::{api_error, bad_key_error, no_key_error};
use super::base::{anonymous_ok, Check, Req, Resp, Transport, API_KEY_HEADER, RAW_RESPONSE};
use super::body::read_capped;
use super::limits::{header_str, parse_rate_limit};
use super::told::{failure_kind, Told};
use super::wire::map_reqwest_error;
use crate::error::{Error, Result};
use crate::observe::Observer;

impl Transport {
    /// Send with retries; a non-2xx answer becomes `Error::Api`.
    pub async fn send(&self, req: &Req) -> Result<Resp> {
        let resp = self.send_raw(req).await?;
        self.success(req, resp)
    }

    /// `send`, with `check` run on a 200's body before it is used or kept: a body it refuses is
    /// its error (never kept), and one a cache serves that it refuses is dropped and fetched
    /// again. `check` runs on the body returned last.
    pub async fn send_checked(&self, req: &Req, check: &mut Check<'_>) -> Result<Resp> {
        let resp = self.send_raw_checked(req, Some(check)).await?;
        self.success(req, resp)
    }

    /// A 2xx (or a redirect wanted as the answer), else the error the status stands for.
    pub(super) fn success(&self, req: &Req, resp: Resp) -> Result<Resp> {
        match resp.status {
            200..=299 => Ok(resp),
            // Wanted as the answer (data-dump links).
            300..=399 if !req.follow_redirects => Ok(resp),
            // A redirect still standing was not followed: it leaves the base
            // URL's origin, where the API key must not go.
            300..=399 => {
                let mut e = api_error(req, &resp);
                if let Error::Api(a) = &mut e {
                    let to = header_str(&resp.headers, "location").unwrap_or("?");
                    a.message = format!(
                        "redirected to {to}, outside {}; not followed, so the API key is not sent there",
                        self.cfg.base_url
                    );
                }
                Err(e)
            }
            _ => Err(api_error(req, &resp)),
        }
    }

    /// Send with retries and return whatever status came last.
    pub async fn send_raw(&self, req: &Req) -> Result<Resp> {
        self.send_raw_checked(req, None).await
    }

    pub(super) async fn send_raw_checked(
        &self,
        req: &Req,
        mut check: Option<&mut Check<'_>>,
    ) -> Result<Resp> {
        match &self.cfg.api_key {
            None if !anonymous_ok(&req.path) => return Err(no_key_error(req)),
            None => self.say_anonymous(),
            // The service would answer 400 on every endpoint: said before anything is sent.
            Some(k) if !urlscan_rules::api_key_format(k.expose()) => {
                return Err(bad_key_error(req))
            }
            Some(_) => {}
        }
        // An endpoint the service paced before is paced under that action from now on.
        let paced;
        let req = match req.template.filter(|_| req.action.is_none()) {
            Some(t) => match self.learned.lock().unwrap().get(t) {
                Some(a) => {
                    paced = req.clone().action(a.clone());
                    &paced
                }
                None => req,
            },
            None => req,
        };
        let cache = self.cfg.cache.clone();
        let kept = match (&cache, req.cache) {
            (Some(c), Some(keep)) if req.method == Method::GET && c.keeps(keep) => {
                let scope = crate::cache::scope(
                    &self.cfg.base_url,
                    self.cfg.api_key.as_ref().map(|k| k.expose()),
                );
                Some((
                    c.clone(),
                    keep,
                    crate::cache::key(&scope, &req.path, &req.query),
                ))
            }
            _ => None,
        };
        // What a 200 must be: the call's own check, else the row's (before a cache keeps or
        // serves it); a row without one is read by its caller.
        let keeping = kept.is_some();
        let mut accepted = |body: &Bytes| -> Result<()> {
            match (check.as_mut(), req.accept) {
                (Some(c), _) => c(body),
                (None, Some(a)) if keeping => a.check(&req.path, body),
                _ => Ok(()),
            }
        };
        let out = match kept {
            Some((c, keep, key)) => {
                let hit = blocking({
                    let (c, key, action) = (c.clone(), key.clone(), req.action.clone());
                    move || c.get(&key, action.as_deref())
                })
                .await;
                let served = match hit.map(cached_resp) {
                    Some(resp) => match accepted(&resp.body) {
                        Ok(()) => Some(resp),
                        Err(e) => {
                            let (c, key) = (c.clone(), key.clone());
                            blocking(move || c.drop_damaged(&key, &e.to_string())).await;
                            None
                        }
                    },
                    None => None,
                };
                match served {
                    Some(resp) => Ok(resp),
                    None => {
                        let out = self.fetch(req).await;
                        match out {
                            Ok(resp) if resp.status == 200 => {
                                // Refused: the call's error, and nothing is kept.
                                accepted(&resp.body)?;
                                let (body, scan) = (
                                    resp.body.clone(),
                                    crate::cache::scan_of(&req.path).map(String::from),
                                );
                                let ct =
                                    header_str(&resp.headers, "content-type").map(String::from);
                                blocking(move || {
                                    c.put(&key, scan.as_deref(), keep, &body, ct.as_deref())
                                })
                                .await;
                                Ok(resp)
                            }
                            out => out,
                        }
                    }
                }
            }
            None => match self.fetch(req).await {
                Ok(resp) if resp.status == 200 => accepted(&resp.body).map(|()| resp),
                out => out,
            },
        };
        if let (Some(c), Ok(resp)) = (&cache, &out) {
            // A deleted scan, or one whose visibility changed, is not served again.
            let changed = matches!(req.method, Method::PUT | Method::DELETE)
                && req.path.ends_with("/visibility/")
                && (200..300).contains(&resp.status);
            if resp.status == 410 || changed {
                if let Some(scan) = crate::cache::scan_of(&req.path).map(String::from) {
                    let c = c.clone();
                    blocking(move || c.evict_scan(&scan)).await;
                }
            }
        }
        if let Ok(resp) = &out {
            let _ = RAW_RESPONSE.try_with(|cell| {
                let url = format!("{}{}", self.cfg.base_url.trim_end_matches('/'), req.path);
                *cell.lock().unwrap() = Some((req.method.to_string(), url, resp.clone()));
            });
        }
        out
    }

    /// The service's answer (after retries), written to the recording folder
    /// first when there is one (`crate::record`): a recording that cannot be
    /// written fails the call.
    pub(super) async fn fetch(&self, req: &Req) -> Result<Resp> {
        let resp = self.guarded(self.send_with_retries(req)).await?;
        if let Some(rec) = self.cfg.recorder.clone() {
            // Off the I/O threads: the body is parsed, the hook called, files written.
            let (sent, got) = (req.clone(), resp.clone());
            let key = self.cfg.api_key.as_ref().map(|k| k.expose());
            let secrets = crate::record::secrets_of(key, &self.cfg.base_url);
            blocking(move || {
                let entry = crate::record::Entry::of(crate::record::Exchange {
                    method: sent.method.as_str(),
                    path: &sent.path,
                    query: &sent.query,
                    json: sent.body.as_ref(),
                    status: got.status,
                    headers: &got.headers,
                    body: &got.body,
                });
                rec.record(entry, &secrets)
            })
            .await?;
        }
        Ok(resp)
    }

    /// Who is told of this client's requests: its own observer and the process's.
    pub(super) fn observers(&self) -> [Option<Arc<dyn Observer>>; 2] {
        [self.cfg.observer.clone(), crate::observe::global()]
    }

    pub(super) async fn send_once(&self, req: &Req, attempt: u32) -> Result<Resp> {
        let _permit = match &self.gate {
            Some(g) => Some(g.acquire().await.map_err(|_| Error::Closed)?),
            None => None,
        };
        let url = format!("{}{}", self.cfg.base_url, req.path);
        let http = if req.follow_redirects {
            &self.http
        } else {
            &self.http_no_redirect
        };
        // This client's timeout, not the pool's: clients of `with_options` share the pool.
        let mut rb = http
            .request(req.method.clone(), &url)
            .timeout(self.cfg.timeout);
        if !req.query.is_empty() {
            rb = rb.query(&req.query);
        }
        if let Some(key) = &self.cfg.api_key {
            let mut v = HeaderValue::from_str(key.expose()).map_err(|_| {
                Error::Validation(
                    "the API key holds characters that cannot go in an HTTP header".into(),
                )
            })?;
            v.set_sensitive(true);
            rb = rb.header(API_KEY_HEADER, v);
        }
        if let Some(body) = &req.body {
            let bytes = serde_json::to_vec(body).map_err(|e| Error::Validation(e.to_string()))?;
            rb = rb
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(bytes);
        }
        let mut request = rb.build().map_err(map_reqwest_error)?;
        // What the observers are shown (nothing is copied without one).
        let held = self.observers();
        let observers: Vec<&dyn Observer> = held.iter().flatten().map(|o| &**o).collect();
        let shown = (!observers.is_empty()).then(|| {
            let mut headers = request.headers().clone();
            headers.remove(API_KEY_HEADER);
            let u = request.url();
            let server = (
                u.host_str().unwrap_or_default().to_string(),
                u.port_or_known_default().unwrap_or_default(),
            );
            (u.to_string(), headers, server)
        });
        let sent = shown
            .as_ref()
            .map(|(url, headers, (host, port))| crate::observe::Sent {
                method: req.method.as_str(),
                url,
                host,
                port: *port,
                headers,
                attempt,
                action: req.action.as_deref(),
                template: req.template,
            });
        let mut add = HeaderMap::new();
        let tokens = match &sent {
            Some(s) => observers.iter().map(|o| o.sent(s, &mut add)).collect(),
            None => Vec::new(),
        };
        request.headers_mut().extend(add);
        // Timed from here: what the observers did before is not the request's.
        let started = Instant::now();
        let mut told = Told {
            observers: &observers,
            sent: sent.as_ref(),
            tokens,
            started,
        };
        let (status, headers, body) = match async {
            let resp = http.execute(request).await.map_err(map_reqwest_error)?;
            let status = resp.status().as_u16();
            let headers = resp.headers().clone();
            let body = read_capped(resp, self.cfg.max_body_bytes, req.kept).await?;
            Ok::<_, Error>((status, headers, body))
        }
        .await
        {
            Ok(answer) => answer,
            Err(e) => {
                told.failed(failure_kind(&e), &e.to_string());
                return Err(e);
            }
        };
        told.answered(status, &headers);
        log::debug!(
            "{} {} -> {} ({} bytes, {:.1} ms)",
            req.method,
            req.display_path(),
            status,
            body.len(),
            started.elapsed().as_secs_f64() * 1000.0
        );
        self.record_limit(req, parse_rate_limit(&headers), status);
        Ok(Resp {
            status,
            headers,
            body,
        })
    }
}

/// Runs a call to the cache (SQLite, which may wait for another process's
/// write) off the I/O threads.
pub(super) async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    match tokio::task::spawn_blocking(f).await {
        Ok(v) => v,
        Err(e) => std::panic::resume_unwind(e.into_panic()),
    }
}

/// The answer a cache hit stands for: a 200 with the body and type kept.
pub(super) fn cached_resp(hit: crate::cache::Stored) -> Resp {
    let mut headers = HeaderMap::new();
    if let Some(v) = hit
        .content_type
        .and_then(|t| reqwest::header::HeaderValue::from_str(&t).ok())
    {
        headers.insert(reqwest::header::CONTENT_TYPE, v);
    }
    headers.insert(
        "x-urlscan-rs-cache",
        reqwest::header::HeaderValue::from_static("hit"),
    );
    Resp {
        status: 200,
        headers,
        body: hit.body,
    }
}
