//! File downloads (premium): a password-protected ZIP holding one file named
//! after its SHA-256.
use std::io::{Cursor, Read};

use bytes::Bytes;
use sha2::{Digest, Sha256};

use crate::core::client::Client;
use crate::core::error::{Error, Result};
use crate::core::transport::Req;
use crate::core::validate;

/// The service's documented default password.
pub const DEFAULT_PASSWORD: &str = "urlscan!";
/// Largest file unpacked from a download, against ZIP bombs.
pub const MAX_UNPACKED: u64 = 512 * 1024 * 1024;

impl Client {
    /// GET /downloads/{sha256}: the ZIP as served.
    pub async fn download_zip(&self, sha256: &str, password: Option<&str>) -> Result<Bytes> {
        let h = validate::sha256(sha256)?;
        let req = Req::get(format!("/downloads/{h}")).query_opt("password", password);
        let body = self.t.send(&req).await?.body;
        if !body.starts_with(b"PK") {
            return Err(Error::Decode(format!(
                "download of {h} is not a ZIP archive ({} bytes)",
                body.len()
            )));
        }
        Ok(body)
    }

    /// The file itself: unpacked and checked against the requested hash.
    pub async fn download(&self, sha256: &str, password: Option<&str>) -> Result<Bytes> {
        let h = validate::sha256(sha256)?;
        let zip = self.download_zip(&h, password).await?;
        let pw = password.unwrap_or(DEFAULT_PASSWORD).to_string();
        // Unpacking is CPU work: keep it off the I/O threads.
        tokio::task::spawn_blocking(move || unpack(&zip, &h, &pw))
            .await
            .map_err(|e| Error::Decode(format!("unpacking failed: {e}")))?
    }
}

/// Find the one file named after the hash, refusing unsafe names and
/// oversized content, and check its SHA-256.
pub fn unpack(zip: &[u8], sha256: &str, password: &str) -> Result<Bytes> {
    let bad = |m: String| Error::Decode(m);
    let mut archive = zip::ZipArchive::new(Cursor::new(zip))
        .map_err(|e| bad(format!("invalid ZIP archive: {e}")))?;
    let mut names = Vec::with_capacity(archive.len());
    for name in archive.file_names() {
        let name = name
            .map_err(|e| bad(format!("invalid ZIP entry name: {e}")))?
            .to_string();
        if name.contains("..") || name.starts_with('/') || name.contains('\\') {
            return Err(bad(format!(
                "refusing ZIP entry with an unsafe name {name:?}"
            )));
        }
        names.push(name);
    }
    let index = names
        .iter()
        .position(|n| n.eq_ignore_ascii_case(sha256))
        .or_else(|| (names.len() == 1).then_some(0))
        .ok_or_else(|| bad(format!("the ZIP holds no file named {sha256}")))?;
    let entry = match archive.by_index_decrypt(index, password.as_bytes()) {
        Ok(e) => e,
        Err(zip::result::ZipError::InvalidPassword) => {
            return Err(Error::Validation(
                "wrong password for the downloaded ZIP".into(),
            ))
        }
        Err(e) => return Err(bad(format!("cannot open the file in the ZIP: {e}"))),
    };
    if entry.size() > MAX_UNPACKED {
        return Err(bad(format!(
            "the file in the ZIP is {} bytes, over the limit of {MAX_UNPACKED}",
            entry.size()
        )));
    }
    let mut out = Vec::new();
    // `take` bounds what is read even if the header lies about the size.
    entry
        .take(MAX_UNPACKED + 1)
        .read_to_end(&mut out)
        .map_err(|e| bad(format!("cannot unpack the file: {e}")))?;
    if out.len() as u64 > MAX_UNPACKED {
        return Err(bad(format!(
            "the file in the ZIP exceeds {MAX_UNPACKED} bytes"
        )));
    }
    let got = hex::encode(Sha256::digest(&out));
    if got != sha256 {
        return Err(bad(format!(
            "downloaded file has SHA-256 {got}, not the requested {sha256}"
        )));
    }
    Ok(Bytes::from(out))
}
