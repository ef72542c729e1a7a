use std::sync::Arc;

use bytes::Bytes;
use serde::de::DeserializeOwned;
use tokio::sync::Semaphore;

use crate::config::Config;
use crate::error::{RateLimitInfo, Result};
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
