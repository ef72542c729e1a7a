//! File download: `GET /downloads/{sha256}?password=&filename=`.
//!
//! Answers a ZIP holding one file named after the hash, encrypted with
//! ZipCrypto (what the service uses) and the password, `urlscan!` by default.
use std::io::Write;
use std::sync::Arc;

use axum::extract::{Path, RawQuery};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, MethodRouter};

use super::super::answer::{err, Params};
use super::super::content;
use super::super::state::AppState;
use super::entry::Entry;
use super::need;

pub(super) fn routes() -> Vec<(&'static str, MethodRouter<Arc<AppState>>)> {
    vec![("/downloads/{sha}", get(download))]
}

pub(super) const DEFAULT_PASSWORD: &str = "urlscan!";

/// The body with this SHA-256 among the responses of stored and live scans.
fn body_of(st: &AppState, sha: &str) -> Option<Vec<u8>> {
    if sha == content::EMPTY_SHA256 {
        return Some(Vec::new());
    }
    let spec = st.store().spec_with_body(sha);
    let specs: Vec<_> = match spec {
        Some(s) => vec![s],
        None => {
            let p = st.premium();
            p.livescans.values().map(|l| l.spec()).collect()
        }
    };
    specs.iter().find_map(|s| {
        content::response_bodies(s)
            .into_iter()
            .find(|(h, _)| h == sha)
            .map(|(_, b)| b.into_bytes())
    })
}

/// A ZIP with one ZipCrypto-encrypted, deflated entry.
pub(super) fn encrypted_zip(
    name: &str,
    data: &[u8],
    password: &str,
) -> zip::result::ZipResult<Vec<u8>> {
    use zip::unstable::write::FileOptionsExt;
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .with_deprecated_encryption(password.as_bytes())?;
    w.start_file(name, opts)?;
    w.write_all(data)?;
    Ok(w.finish()?.into_inner())
}

async fn download(
    Path(sha): Path<String>,
    RawQuery(raw): RawQuery,
    req: Entry<need::Premium>,
) -> Response {
    let sha = sha.trim().to_ascii_lowercase();
    if sha.len() != 64 || !sha.bytes().all(|b| b.is_ascii_hexdigit()) {
        return err(
            StatusCode::BAD_REQUEST,
            "Invalid file hash",
            Some("The file hash must be a SHA256 hash (64 hexadecimal characters)."),
        );
    }
    let params = Params::parse(raw);
    let get = |k: &str| params.get(k).filter(|v| !v.is_empty());
    let password = get("password").unwrap_or_else(|| DEFAULT_PASSWORD.into());
    let filename = get("filename").unwrap_or_else(|| format!("{sha}.zip"));
    let Some(data) = body_of(&req.st, &sha) else {
        return err(
            StatusCode::NOT_FOUND,
            "File not found",
            Some("We could not find a file with this hash."),
        );
    };
    let zip = match encrypted_zip(&sha, &data, &password) {
        Ok(z) => z,
        Err(e) => {
            return err(
                StatusCode::INTERNAL_SERVER_ERROR,
                "Could not build the archive",
                Some(&e.to_string()),
            )
        }
    };
    let safe: String = filename
        .chars()
        .filter(|c| !c.is_control() && !matches!(c, '"' | '\\' | '/'))
        .collect();
    let disposition = HeaderValue::from_str(&format!("attachment; filename=\"{safe}\""))
        .unwrap_or_else(|_| HeaderValue::from_static("attachment"));
    let mut resp = ([(header::CONTENT_TYPE, "application/zip")], zip).into_response();
    resp.headers_mut()
        .insert(header::CONTENT_DISPOSITION, disposition);
    resp
}
