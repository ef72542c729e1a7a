//! Client configuration, with the environment fallbacks users expect.
use std::fmt;
use std::time::Duration;

use crate::error::{Error, Result};

pub const DEFAULT_BASE_URL: &str = "https://urlscan.io";
pub const ENV_API_KEY: &str = "URLSCAN_API_KEY";
pub const ENV_BASE_URL: &str = "URLSCAN_BASE_URL";
/// 64 GiB: more than a day of the service's largest dump type, less than a disk.
pub const DEFAULT_MAX_DOWNLOAD_BYTES: u64 = 64 << 30;

/// An API key that never prints itself: `Debug` and `Display` show `***`.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(s: impl Into<String>) -> Self {
        Secret(s.into())
    }
    /// The key itself; only the transport reads it, to set the header.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

#[derive(Clone, Debug)]
pub struct Config {
    pub base_url: String,
    pub api_key: Option<Secret>,
    pub timeout: Duration,
    pub max_retries: u32,
    pub user_agent: String,
    pub proxy: Option<String>,
    pub verify: bool,
    /// Raise `RateLimitError` instead of waiting for a spent quota window.
    pub fail_fast: bool,
    /// Largest response body accepted, so a broken server cannot exhaust memory.
    pub max_body_bytes: usize,
    /// Largest file a download writes (data dumps), so a host that sends
    /// without end cannot fill the disk; the listing's size bounds it too.
    pub max_download_bytes: u64,
    /// Longest a call keeps retrying after its first attempt (backoff and
    /// waits after a 429 included); `None` leaves only `max_retries`.
    pub retry_deadline: Option<Duration>,
    /// Told of every attempt of every request and of every answer.
    pub observer: Option<std::sync::Arc<dyn crate::observe::Observer>>,
    /// Finished results, screenshots and DOMs (and search pages, for a TTL) kept on disk.
    pub cache: Option<std::sync::Arc<crate::cache::Cache>>,
    /// Every answer from the service written to a folder (`crate::record`).
    pub recorder: Option<std::sync::Arc<crate::record::Recorder>>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            base_url: DEFAULT_BASE_URL.to_string(),
            api_key: None,
            timeout: Duration::from_secs(30),
            max_retries: 3,
            user_agent: format!("urlscan-rs/{}", env!("CARGO_PKG_VERSION")),
            proxy: None,
            verify: true,
            fail_fast: false,
            max_body_bytes: 256 * 1024 * 1024,
            max_download_bytes: DEFAULT_MAX_DOWNLOAD_BYTES,
            retry_deadline: Some(Duration::from_secs(600)),
            observer: None,
            cache: None,
            recorder: None,
        }
    }
}

impl Config {
    /// Build a configuration; `None` for the key or base URL falls back to the
    /// environment (`URLSCAN_API_KEY`, `URLSCAN_BASE_URL`), then to the defaults.
    pub fn new(api_key: Option<String>, base_url: Option<String>) -> Result<Config> {
        let api_key = api_key
            .or_else(|| std::env::var(ENV_API_KEY).ok())
            .filter(|k| !k.trim().is_empty())
            .map(|k| Secret::new(k.trim()));
        if let Some(k) = &api_key {
            // Checked without quoting it: the key never appears in a message.
            if !urlscan_rules::header_value(k.expose()) {
                return Err(Error::Validation(
                    "the API key holds characters that cannot go in an HTTP header (or is too long)"
                        .into(),
                ));
            }
        }
        // Only an absent base URL means production: an empty one (given, or
        // an empty URLSCAN_BASE_URL) is a mistake that must not send the key there.
        let (base_url, from) = match base_url {
            Some(u) => (u, "base_url"),
            None => match std::env::var(ENV_BASE_URL) {
                Ok(u) => (u, ENV_BASE_URL),
                Err(_) => (DEFAULT_BASE_URL.to_string(), "the default"),
            },
        };
        if base_url.trim().is_empty() {
            return Err(Error::Validation(format!(
                "{from} is empty; give the service's address (e.g. {DEFAULT_BASE_URL}) or leave it unset"
            )));
        }
        let cfg = Config {
            api_key,
            base_url: normalize_base_url(&base_url)?,
            ..Config::default()
        };
        Ok(cfg)
    }

    pub fn with_timeout(mut self, secs: f64) -> Result<Config> {
        let secs = crate::validate::seconds("timeout", secs, false)?;
        self.timeout = Duration::from_secs_f64(secs);
        Ok(self)
    }

    pub fn with_retry_deadline(mut self, secs: Option<f64>) -> Result<Config> {
        self.retry_deadline = match secs {
            None => None,
            Some(s) => Some(Duration::from_secs_f64(crate::validate::seconds(
                "retry_deadline",
                s,
                true,
            )?)),
        };
        Ok(self)
    }

    pub fn with_user_agent(mut self, ua: Option<String>) -> Result<Config> {
        if let Some(ua) = ua {
            crate::validate::header_value("user_agent", &ua)?;
            self.user_agent = ua;
        }
        Ok(self)
    }

    /// A proxy for every request: http, https, socks5 or socks5h (the proxy
    /// resolves names) with a host. Other schemes would be taken and then
    /// ignored by the HTTP stack. The message never shows the URL, which may
    /// hold a password.
    pub fn with_proxy(mut self, proxy: Option<String>) -> Result<Config> {
        if let Some(p) = &proxy {
            let bad = |why: String| Err(Error::Validation(format!("proxy {why}")));
            if !p.contains("://") {
                return bad(format!(
                    "must be a URL with its scheme ({}), e.g. http://proxy.example:3128",
                    PROXY_SCHEMES.join(", ")
                ));
            }
            match url::Url::parse(p) {
                Err(e) => {
                    return bad(format!(
                        "is not a valid URL ({e}); expected e.g. http://proxy.example:3128"
                    ))
                }
                Ok(u) if !PROXY_SCHEMES.contains(&u.scheme()) => {
                    return bad(format!(
                        "scheme must be one of {}, got {:?}",
                        PROXY_SCHEMES.join(", "),
                        crate::validate::shown(u.scheme(), 20)
                    ))
                }
                Ok(u) if u.host_str().is_none_or(str::is_empty) => {
                    return bad("must name a host".into())
                }
                Ok(_) => {}
            }
        }
        self.proxy = proxy;
        Ok(self)
    }

    pub fn with_max_retries(mut self, n: i64) -> Result<Config> {
        if !(0..=100).contains(&n) {
            return Err(Error::Validation(format!(
                "max_retries must be between 0 and 100, got {n}"
            )));
        }
        self.max_retries = n as u32;
        Ok(self)
    }

    pub fn with_max_body_bytes(mut self, n: i64) -> Result<Config> {
        if n < 1024 {
            return Err(Error::Validation(format!(
                "max_body_bytes must be at least 1024, got {n}"
            )));
        }
        self.max_body_bytes = usize::try_from(n).unwrap_or(usize::MAX);
        Ok(self)
    }

    pub fn with_max_download_bytes(mut self, n: i64) -> Result<Config> {
        if n < 1024 {
            return Err(Error::Validation(format!(
                "max_download_bytes must be at least 1024, got {n}"
            )));
        }
        self.max_download_bytes = n as u64;
        Ok(self)
    }
}

/// The base URL without a trailing slash. A bad one is described, never
/// quoted: it may be an API key given in the wrong place (`--base-url KEY`).
fn normalize_base_url(raw: &str) -> Result<String> {
    let parsed = url::Url::parse(raw.trim()).map_err(|e| {
        Error::Validation(format!(
            "base_url is not a valid URL ({e}; {} characters, not shown in case it is a key); expected e.g. {DEFAULT_BASE_URL}",
            raw.chars().count()
        ))
    })?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
        return Err(Error::Validation(format!(
            "base_url must be an http or https URL with a host, e.g. {DEFAULT_BASE_URL} (got a {:?} URL{})",
            crate::validate::shown(parsed.scheme(), 20),
            if parsed.host_str().is_none() { " without a host" } else { "" }
        )));
    }
    Ok(parsed.as_str().trim_end_matches('/').to_string())
}

/// The proxy schemes the HTTP stack speaks.
pub const PROXY_SCHEMES: &[&str] = &["http", "https", "socks5", "socks5h"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proxies_are_ones_the_stack_speaks() {
        for ok in [
            "http://p:3128",
            "https://u:pw@p",
            "socks5://127.0.0.1:1080",
            "socks5h://p:1",
        ] {
            assert!(
                Config::default().with_proxy(Some(ok.into())).is_ok(),
                "{ok}"
            );
        }
        for bad in [
            "ftp://x",
            "socks4://x",
            "p:3128",
            "http://",
            "",
            "file:///tmp/x",
        ] {
            let e = Config::default().with_proxy(Some(bad.into())).unwrap_err();
            assert!(matches!(e, Error::Validation(_)), "{bad}");
        }
        let e = Config::default()
            .with_proxy(Some("ftp://user:s3cret@x".into()))
            .unwrap_err();
        assert!(!e.to_string().contains("s3cret"));
    }

    #[test]
    fn secret_never_prints() {
        let s = Secret::new("0196d976-07f6-7aae-8a57-aa019145f31c");
        assert_eq!(format!("{s:?} {s}"), "*** ***");
        let cfg = Config {
            api_key: Some(s),
            ..Config::default()
        };
        assert!(!format!("{cfg:?}").contains("0196d976"));
    }

    #[test]
    fn base_url_is_normalized_and_checked() {
        let c = Config::new(Some("k".into()), Some("http://127.0.0.1:8000/".into())).unwrap();
        assert_eq!(c.base_url, "http://127.0.0.1:8000");
        assert!(matches!(
            Config::new(None, Some("ftp://x".into())),
            Err(Error::Validation(_))
        ));
        assert!(Config::default().with_timeout(0.0).is_err());
        assert!(Config::default().with_timeout(1e30).is_err());
        assert!(Config::default().with_retry_deadline(Some(1e30)).is_err());
        assert!(Config::default()
            .with_user_agent(Some("a\r\nX-Injected: 1".into()))
            .is_err());
        assert!(matches!(
            Config::new(None, Some(String::new())),
            Err(Error::Validation(_))
        ));
        assert!(Config::new(Some("a\nb".into()), Some("http://x".into())).is_err());
    }
}
