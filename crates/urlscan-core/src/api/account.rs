//! Account: quotas and the current user.
use crate::client::Client;
use crate::error::Result;
use crate::models::{AnyObject, Doc};
use crate::transport::Req;

impl Client {
    /// GET /api/v1/quotas
    pub async fn quotas(&self) -> Result<Doc<AnyObject>> {
        self.doc(Req::get("/api/v1/quotas"), "quotas").await
    }

    /// GET /api/v1/pro/username
    pub async fn user(&self) -> Result<Doc<AnyObject>> {
        self.doc(Req::get("/api/v1/pro/username"), "user").await
    }
}
