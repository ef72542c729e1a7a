//! File downloads (premium): a password-protected ZIP holding one file named
//! after its SHA-256.
use std::io::{Cursor, Read};

use bytes::Bytes;
use sha2::{Digest, Sha256};

use reqwest::Method;

use super::endpoints::{Endpoint, Returns, Shape};
use crate::client::Client;
use crate::error::{Error, Result};
use crate::fields::{f, req, Field, Kind};
use crate::validate;

/// The service's documented default password.
pub const DEFAULT_PASSWORD: &str = "urlscan!";
/// Largest file unpacked from a download, against ZIP bombs.
pub const MAX_UNPACKED: u64 = 512 * 1024 * 1024;

const SHA256: &[Field] = &[req("sha256", "sha256", Kind::Sha256).doc("SHA-256 hash")];
const PASSWORD: &[Field] =
    &[f("password", "password", Kind::Str).doc("ZIP password (default: urlscan!)")];

#[rustfmt::skip]
pub const ENDPOINTS: &[Endpoint] = &[
    Endpoint::new("files.download", Method::GET, "/downloads/{0}")
        .ids(SHA256)
        .params(PASSWORD)
        .returns(Returns::Json(Shape::Bytes))
        .by_hand()
        .doc("A file a scan downloaded, unpacked from its ZIP and checked against the hash"),
    Endpoint::new("files.download_zip", Method::GET, "/downloads/{0}")
        .ids(SHA256)
        .params(PASSWORD)
        .returns(Returns::Json(Shape::Bytes))
        .by_hand()
        .doc("A file's password-protected ZIP, as served"),
];

impl Client {
    /// GET /downloads/{sha256}: the ZIP as served.
    pub async fn download_zip(&self, sha256: &str, password: Option<&str>) -> Result<Bytes> {
        let h = validate::sha256(sha256)?;
        let req = super::endpoints::row(ENDPOINTS, "files.download_zip")
            .request(&[&h])
            .query_opt("password", password);
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
    unpack_capped(zip, sha256, password, MAX_UNPACKED)
}

fn unpack_capped(zip: &[u8], sha256: &str, password: &str, max: u64) -> Result<Bytes> {
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
    if entry.size() > max {
        return Err(bad(format!(
            "the file in the ZIP is {} bytes, over the limit of {max}",
            entry.size()
        )));
    }
    let mut out = Vec::new();
    // `take` bounds what is read even if the header lies about the size.
    entry
        .take(max + 1)
        .read_to_end(&mut out)
        .map_err(|e| bad(format!("cannot unpack the file: {e}")))?;
    if out.len() as u64 > max {
        return Err(bad(format!("the file in the ZIP exceeds {max} bytes")));
    }
    let got = hex::encode(Sha256::digest(&out));
    if got != sha256 {
        return Err(bad(format!(
            "downloaded file has SHA-256 {got}, not the requested {sha256}"
        )));
    }
    Ok(Bytes::from(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use zip::unstable::write::FileOptionsExt;

    /// A ZIP of (name, data) entries, ZipCrypto-encrypted with `password`.
    fn zip_of(entries: &[(&str, &[u8])], password: &str) -> Vec<u8> {
        let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let opts = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .with_deprecated_encryption(password.as_bytes())
            .unwrap();
        for (name, data) in entries {
            w.start_file(*name, opts).unwrap();
            w.write_all(data).unwrap();
        }
        w.finish().unwrap().into_inner()
    }

    fn sha(data: &[u8]) -> String {
        hex::encode(Sha256::digest(data))
    }

    fn decode_err(r: Result<Bytes>) -> String {
        match r {
            Err(Error::Decode(m)) => m,
            other => panic!("expected a DecodeError, got {other:?}"),
        }
    }

    #[test]
    fn unpacks_and_checks_the_hash() {
        let data = b"<html>hello</html>";
        let h = sha(data);
        let z = zip_of(&[(&h, data)], DEFAULT_PASSWORD);
        assert_eq!(&unpack(&z, &h, DEFAULT_PASSWORD).unwrap()[..], data);
        // Same name, other content: the hash check catches it.
        let other = sha(b"something else");
        let z = zip_of(&[(&other, data)], DEFAULT_PASSWORD);
        assert!(decode_err(unpack(&z, &other, DEFAULT_PASSWORD)).contains("not the requested"));
        // Wrong password is the caller's mistake, not a decode error.
        let z = zip_of(&[(&h, data)], "other");
        assert!(matches!(
            unpack(&z, &h, DEFAULT_PASSWORD),
            Err(Error::Validation(_))
        ));
    }

    #[test]
    fn refuses_path_traversal_and_absolute_names() {
        let data = b"x";
        let h = sha(data);
        for evil in [
            "../../etc/passwd",
            "a/../../b",
            "/etc/passwd",
            "..\\windows\\system32",
            "dir\\file",
        ] {
            let z = zip_of(&[(&h, data), (evil, data)], DEFAULT_PASSWORD);
            let m = decode_err(unpack(&z, &h, DEFAULT_PASSWORD));
            assert!(m.contains("unsafe name"), "{evil}: {m}");
        }
    }

    #[test]
    fn caps_the_unpacked_size_against_zip_bombs() {
        // 8 MiB of zeros deflate to a few KB.
        let bomb = vec![0u8; 8 << 20];
        let h = sha(&bomb);
        let z = zip_of(&[(&h, &bomb)], DEFAULT_PASSWORD);
        assert!(z.len() < 64 * 1024, "{} bytes", z.len());
        let m = decode_err(unpack_capped(&z, &h, DEFAULT_PASSWORD, 1 << 20));
        assert!(m.contains("over the limit"), "{m}");

        // A header that understates the size: the read is still bounded.
        let mut lying = z.clone();
        let size = (bomb.len() as u32).to_le_bytes();
        let small = 16u32.to_le_bytes();
        let mut patched = 0;
        for i in 0..lying.len().saturating_sub(4) {
            if lying[i..i + 4] == size {
                lying[i..i + 4].copy_from_slice(&small);
                patched += 1;
            }
        }
        assert!(patched >= 2, "uncompressed size fields not found");
        let r = unpack_capped(&lying, &h, DEFAULT_PASSWORD, 1 << 20);
        assert!(
            matches!(r, Err(Error::Decode(_))),
            "a lying header must not unpack: {r:?}"
        );
    }

    #[test]
    fn refuses_what_is_not_the_requested_file() {
        let data = b"x";
        let h = sha(data);
        let z = zip_of(&[("a", data), ("b", data)], DEFAULT_PASSWORD);
        assert!(decode_err(unpack(&z, &h, DEFAULT_PASSWORD)).contains("no file named"));
        assert!(decode_err(unpack(b"PK not a zip", &h, DEFAULT_PASSWORD)).contains("invalid ZIP"));
        assert!(decode_err(unpack(&z[..z.len() / 2], &h, DEFAULT_PASSWORD)).contains("invalid ZIP"));
    }
}
