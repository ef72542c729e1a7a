//! The entry of every premium handler, which first brings what runs on the
//! emulator clock up to it (`premium_model::tick`).
use std::marker::PhantomData;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};

use super::super::answer::caller;
use super::super::premium_model::now;
use super::super::state::{AppState, Caller, KeyInfo};
use super::common::key_of;
use super::need::Needs;

/// The entry of a premium handler: the state, a caller that may do what `N`
/// needs (else the 401/403 answer) and the emulator time, after bringing
/// time-driven state up to it. With `B = Bytes` it holds the request body
/// too, read before the check, as a trailing `Bytes` argument would be.
/// Extractors listed before it in a handler (`Path`) answer first.
pub(super) struct Entry<N, B = ()> {
    pub(super) st: Arc<AppState>,
    pub(super) caller: Caller,
    pub(super) now: i64,
    pub(super) body: B,
    need: PhantomData<fn() -> N>,
}

impl<N: Needs, B> Entry<N, B> {
    fn new(st: &Arc<AppState>, headers: &HeaderMap, body: B) -> Result<Self, Response> {
        let c = caller(st, headers, N::NEED)?;
        Ok(Entry {
            st: Arc::clone(st),
            caller: c,
            now: now(st),
            body,
            need: PhantomData,
        })
    }

    /// The caller's key (every premium `Need` asks for one).
    pub(super) fn key(&self) -> &KeyInfo {
        key_of(&self.caller)
    }

    /// `f` of each finished scan the caller may search whose verdict is malicious, oldest
    /// first (what the brands and the malicious lookup count).
    pub(super) fn each_malicious_scan(&self, mut f: impl FnMut(&crate::state::Entry)) {
        let store = self.st.store();
        for e in store.by_time.values() {
            if !e.finished(self.now) || !e.searchable_by(&self.caller) {
                continue;
            }
            if crate::state::lookup(&e.doc, "verdicts.malicious")
                == Some(&serde_json::Value::Bool(true))
            {
                f(e);
            }
        }
    }
}

impl<N: Needs> FromRequestParts<Arc<AppState>> for Entry<N> {
    type Rejection = Response;

    async fn from_request_parts(
        parts: &mut Parts,
        st: &Arc<AppState>,
    ) -> Result<Self, Self::Rejection> {
        Entry::new(st, &parts.headers, ())
    }
}

impl<N: Needs> FromRequest<Arc<AppState>> for Entry<N, Bytes> {
    type Rejection = Response;

    async fn from_request(req: Request, st: &Arc<AppState>) -> Result<Self, Self::Rejection> {
        let headers = req.headers().clone();
        let body = Bytes::from_request(req, st)
            .await
            .map_err(IntoResponse::into_response)?;
        Entry::new(st, &headers, body)
    }
}
