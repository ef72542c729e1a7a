//! The one error type of the core. The Python layer maps each variant (and
//! each `ApiErrorKind`) to a class of the documented exception hierarchy.
use serde_json::Value;

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApiErrorKind {
    BadRequest,
    ScanRefused,
    Authentication,
    PermissionDenied,
    NotFound,
    ScanPending,
    Gone,
    RateLimited,
    Server,
    /// Any other non-2xx status.
    Other,
}

/// The values of the `X-Rate-Limit-*` headers of one response.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RateLimitInfo {
    pub scope: Option<String>,
    pub action: Option<String>,
    pub window: Option<String>,
    pub limit: Option<u64>,
    pub remaining: Option<u64>,
    /// ISO 8601 timestamp as sent.
    pub reset: Option<String>,
    pub reset_after: Option<f64>,
    /// `X-Rate-Limit-Concurrency-Limit` (sent with search): requests of
    /// the action the key may have in flight at once.
    pub concurrency_limit: Option<u64>,
}

#[derive(Debug, Clone)]
pub struct ApiError {
    pub kind: ApiErrorKind,
    pub status: u16,
    pub message: String,
    pub description: Option<String>,
    pub code: Option<String>,
    pub errors: Option<Value>,
    /// The body as received (text; binary bodies are shown lossily).
    pub body: String,
    pub method: String,
    /// Path and query of the request; never holds the key (it travels in a header).
    pub path: String,
    pub rate_limit: Option<RateLimitInfo>,
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "HTTP {} on {} {}: {}",
            self.status, self.method, self.path, self.message
        )?;
        if let Some(d) = self.description.as_deref().filter(|d| *d != self.message) {
            write!(f, " ({d})")?;
        }
        Ok(())
    }
}

#[derive(Debug, Clone, thiserror::Error)]
pub enum Error {
    /// Input breaks a documented rule; nothing was sent.
    #[error("{0}")]
    Validation(String),
    /// Connection, DNS or TLS failure, after retries.
    #[error("transport error: {0}")]
    Transport(String),
    /// The connection could not be made (refused, DNS, TLS handshake): the
    /// request never reached the service, so even a POST may be sent again.
    #[error("transport error: connect: {0}")]
    Connect(String),
    #[error("request timed out: {0}")]
    Timeout(String),
    #[error("{0}")]
    Api(Box<ApiError>),
    #[error("scan {uuid} did not finish within {timeout} seconds")]
    ScanTimeout { uuid: String, timeout: f64 },
    /// A 2xx body that is not what the interface says.
    #[error("unexpected response: {0}")]
    Decode(String),
    #[error("the client is closed")]
    Closed,
    /// A local file could not be read or written (Python's `OSError`, with its errno).
    #[error("{message}: {path}")]
    Io {
        errno: Option<i32>,
        message: String,
        path: String,
    },
    /// A bug inside urlscan-rs (a caught panic), reported instead of crashing.
    #[error("internal error in urlscan-rs (please report it): {0}")]
    Internal(String),
}

impl Error {
    pub fn api_kind(&self) -> Option<&ApiErrorKind> {
        match self {
            Error::Api(e) => Some(&e.kind),
            _ => None,
        }
    }
    pub fn is_pending(&self) -> bool {
        self.api_kind() == Some(&ApiErrorKind::ScanPending)
    }
}
