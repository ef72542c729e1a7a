use std::sync::Arc;

use bytes::Bytes;
use serde::de::DeserializeOwned;
use tokio::sync::Semaphore;

use crate::config::Config;
use crate::error::{Error, RateLimitInfo, Result};
use crate::models::Doc;
use crate::transport::{Req, Transport};

/// The client: cheap to clone (clones share the connection pool and the
/// rate-limit state). Endpoints live in `core::api`, one file per area.
#[derive(Clone, Debug)]
pub struct Client {
    pub(crate) t: Arc<Transport>,
}

impl Client {
    pub fn new(cfg: Config) -> Result<Client> {
        Ok(Client {
            t: Arc::new(Transport::new(cfg)?),
        })
    }

    pub fn config(&self) -> &Config {
        &self.t.cfg
    }

    /// The latest `X-Rate-Limit-*` values seen, one entry per action.
    pub fn rate_limits(&self) -> Vec<RateLimitInfo> {
        self.t.rate_limits()
    }

    /// End every call in flight with `Error::Closed` and refuse new ones.
    pub fn close(&self) {
        self.t.close();
    }

    pub fn is_closed(&self) -> bool {
        self.t.is_closed()
    }

    /// A client sharing this one's connection pool, pacing and rate-limit
    /// state (and its `close`), with the per-call settings of `cfg`: its
    /// timeout, retries, retry deadline, fail-fast and size bounds. `cfg`
    /// is this client's configuration with those changed; what builds the
    /// pool (address, key, proxy, TLS, user agent) is refused if changed.
    pub fn with_options(&self, cfg: Config) -> Result<Client> {
        let own = &self.t.cfg;
        let same_pool = cfg.base_url == own.base_url
            && cfg.api_key == own.api_key
            && cfg.proxy == own.proxy
            && cfg.verify == own.verify
            && cfg.user_agent == own.user_agent;
        if !same_pool {
            return Err(Error::Validation(
                "with_options changes per-call settings only: base_url, api_key, proxy, verify and user_agent belong to the connection pool (build another client for those)".into(),
            ));
        }
        Ok(Client {
            t: Arc::new(self.t.with_config(cfg)),
        })
    }

    /// A client whose requests in flight are bounded by `n` (batch jobs).
    pub(crate) fn gated(&self, n: usize) -> Client {
        Client {
            t: Arc::new(self.t.with_gate(Arc::new(Semaphore::new(n.max(1))))),
        }
    }

    pub(crate) async fn doc<T: DeserializeOwned>(&self, req: Req, what: &str) -> Result<Doc<T>> {
        let resp = self.t.send(&req).await?;
        Doc::decode(resp.body, what)
    }

    /// The body of `req`'s 200, checked by its row's `accept` when it has one (a screenshot is a
    /// whole PNG, a DOM not empty), with or without a cache.
    pub(crate) async fn bytes(&self, req: Req) -> Result<Bytes> {
        let Some(accept) = req.accept else {
            return Ok(self.t.send(&req).await?.body);
        };
        let path = req.path.clone();
        let mut check = |body: &Bytes| accept.check(&path, body);
        Ok(self.t.send_checked(&req, &mut check).await?.body)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn with_options_shares_the_pool_state_and_refuses_what_builds_a_pool() {
        let rt = crate::runtime::runtime().expect("runtime");
        let _guard = rt.enter();
        let client = Client::new(Config::default()).expect("client");
        let mut cfg = client.config().clone();
        cfg.timeout = Duration::from_secs(2);
        cfg.max_retries = 0;
        let quick = client.with_options(cfg).expect("per-call settings");
        assert_eq!(quick.config().timeout, Duration::from_secs(2));
        assert_eq!(client.config().timeout, Duration::from_secs(30));
        assert!(Arc::ptr_eq(&client.t.closed, &quick.t.closed));
        // A download's stall bound is its client's: not shared once the timeout differs.
        assert!(!Arc::ptr_eq(
            &client.t.http_download,
            &quick.t.http_download
        ));
        client.close();
        assert!(quick.is_closed());
        for change in [
            |c: &mut Config| c.base_url = "http://127.0.0.1:1".into(),
            |c: &mut Config| c.verify = false,
            |c: &mut Config| c.proxy = Some("http://proxy.example:3128".into()),
            |c: &mut Config| c.user_agent = "other".into(),
            |c: &mut Config| c.api_key = Some(crate::config::Secret::new("k")),
        ] {
            let mut cfg = client.config().clone();
            change(&mut cfg);
            let err = client.with_options(cfg).expect_err("a pool's setting");
            assert!(err.to_string().contains("per-call settings only"), "{err}");
        }
    }
}
