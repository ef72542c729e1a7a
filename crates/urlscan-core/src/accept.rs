//! What a 200 must be before it is used or kept.
//!
//! A broken or hostile server can answer 200 with another scan's document, an
//! empty object or an error envelope. A row whose answer a cache may keep
//! declares what its answer is ([`Accept`]); the transport checks a body by it
//! before the cache keeps it, and again (with the entry's checksum) whenever
//! the cache serves it, so a damaged entry is dropped and fetched anew. A call
//! that decodes its answer anyway (a result) passes its own check instead, so
//! the body is read once.
use bytes::Bytes;

use crate::error::{Error, Result};
use crate::models::doc::member;
use crate::models::{Doc, ResultHead};

const PNG_SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";

/// What a row's 200 is (the row's `accept`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Accept {
    /// A whole PNG image (a screenshot): its signature, and its last chunk IEND.
    Png,
    /// Bytes that are not empty (a page's DOM holds at least its root element).
    NotEmpty,
    /// A search page: one whole JSON object with a `results` list.
    SearchPage,
    /// A scan's result: a JSON object whose `task.uuid` is the scan its path names.
    ScanResult,
}

impl Accept {
    /// `body`, answering `path`, checked to be what this row promises.
    pub fn check(self, path: &str, body: &Bytes) -> Result<()> {
        match self {
            Accept::Png if !body.starts_with(PNG_SIGNATURE) => Err(Error::Decode(format!(
                "the answer to {path} is not a PNG image ({} bytes)",
                body.len()
            ))),
            // A PNG ends with its IEND chunk (empty, with its CRC): one that does not was cut.
            Accept::Png if !body.ends_with(b"IEND\xaeB`\x82") => Err(Error::Decode(format!(
                "the answer to {path} is a PNG image cut short ({} bytes, no IEND chunk)",
                body.len()
            ))),
            Accept::Png => Ok(()),
            Accept::NotEmpty if !body.is_empty() => Ok(()),
            Accept::NotEmpty => Err(Error::Decode(format!(
                "the answer to {path} came back empty (HTTP 200 without a body)"
            ))),
            Accept::SearchPage => {
                if crate::models::first_byte(body) != Some(b'{') {
                    return Err(crate::models::wrong_json(path, "an object", body));
                }
                // The index is read by a checking scan: a body that is not JSON is its error.
                let index = crate::models::index::object_index(body)?;
                match member(&index, body, "results")
                    .map(|e| crate::models::first_byte(&body[e.start..e.end]))
                {
                    Some(Some(b'[')) => Ok(()),
                    _ => Err(Error::Decode(format!(
                        "the answer to {path} is not a search page (no results list)"
                    ))),
                }
            }
            Accept::ScanResult => {
                let uuid = crate::cache::scan_of(path).unwrap_or_default();
                scan_result(uuid, body.clone()).map(drop)
            }
        }
    }
}

/// `body` read as the result of scan `uuid`: a JSON object whose `task.uuid` is
/// that scan (compared without case), else a `DecodeError` naming both. A 200
/// that is not a result (an empty object, an error envelope, another scan's
/// document) is never taken for one.
pub fn scan_result(uuid: &str, body: Bytes) -> Result<Doc<ResultHead>> {
    if crate::models::first_byte(&body) != Some(b'{') {
        return Err(crate::models::wrong_json(
            &format!("the result of scan {uuid}"),
            "an object",
            &body,
        ));
    }
    let doc = crate::models::index::result_doc(body)?;
    let got = doc.head.task.as_ref().and_then(|t| t.uuid.as_deref());
    match got {
        Some(g) if g.trim().eq_ignore_ascii_case(uuid.trim()) => Ok(doc),
        Some(g) => Err(Error::Decode(format!(
            "asked for the result of scan {uuid}, the answer is the result of scan {}",
            crate::validate::shown(g, 60)
        ))),
        None => {
            let said = message_of(&doc);
            Err(Error::Decode(format!(
                "the answer for scan {uuid} is not a scan result (it has no task.uuid){said}"
            )))
        }
    }
}

/// What an error envelope answered with status 200 says, as `: it says "..."`, read from the
/// document's index (its `message`, when that is a string).
fn message_of(doc: &Doc<ResultHead>) -> String {
    let said = doc
        .index
        .as_deref()
        .and_then(|index| member(index, &doc.body, "message"))
        .and_then(|e| serde_json::from_slice::<String>(&doc.body[e.start..e.end]).ok());
    match said {
        Some(m) => format!(": it says {:?}", crate::validate::shown(&m, 120)),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const U1: &str = "0a1b2c3d-0000-4000-8000-000000000001";
    const U2: &str = "0a1b2c3d-0000-4000-8000-000000000002";

    fn doc(uuid: &str) -> Bytes {
        Bytes::from(format!(
            r#"{{"data": {{}}, "task": {{"uuid": "{uuid}", "url": "https://x/"}}, "page": {{}}}}"#
        ))
    }

    #[test]
    fn a_result_is_the_scan_asked_for() {
        assert!(scan_result(U1, doc(U1)).is_ok());
        assert!(scan_result(U1, doc(&U1.to_ascii_uppercase())).is_ok());
        let e = scan_result(U1, doc(U2)).unwrap_err().to_string();
        assert!(e.contains(U1) && e.contains(U2), "{e}");
        for body in [
            "{}",
            r#"{"status": 404, "message": "Scan is not finished yet"}"#,
            r#"{"task": null}"#,
            r#"{"task": {"uuid": null}}"#,
            "[]",
            "",
        ] {
            let e = scan_result(U1, Bytes::from(body)).unwrap_err();
            assert!(matches!(e, Error::Decode(_)), "{body}: {e:?}");
        }
        let e = scan_result(
            U1,
            Bytes::from(r#"{"status": 404, "message": "Scan is not finished yet"}"#),
        )
        .unwrap_err();
        assert!(e.to_string().contains("not finished yet"), "{e}");
        // A wrong type at task.uuid is a decode error too, not a panic.
        assert!(scan_result(U1, Bytes::from(r#"{"task": {"uuid": 5}}"#)).is_err());
        // Duplicate keys: the last wins, as in every reader of the body.
        let two = format!(r#"{{"task": {{"uuid": "{U1}"}}, "task": {{"uuid": "{U2}"}}}}"#);
        assert!(scan_result(U1, Bytes::from(two)).is_err());
    }

    #[test]
    fn rows_check_what_they_promise() {
        let path = format!("/api/v1/result/{U1}/");
        assert!(Accept::ScanResult.check(&path, &doc(U1)).is_ok());
        assert!(Accept::ScanResult.check(&path, &doc(U2)).is_err());
        let png = b"\x89PNG\r\n\x1a\nrest\0\0\0\0IEND\xaeB`\x82";
        assert!(Accept::Png
            .check("/s.png", &Bytes::from_static(png))
            .is_ok());
        assert!(Accept::Png
            .check("/s.png", &Bytes::from_static(&png[..20]))
            .is_err());
        assert!(Accept::Png
            .check("/s.png", &Bytes::from_static(b"<html>"))
            .is_err());
        assert!(Accept::NotEmpty.check("/dom/", &Bytes::new()).is_err());
        assert!(Accept::SearchPage
            .check(
                "/s",
                &Bytes::from_static(b" {\"results\": [], \"total\": 0}\n")
            )
            .is_ok());
        let objects: [&[u8]; 3] = [
            b"{}",
            b"{\"status\": 404, \"message\": \"x\"}",
            b"{\"results\": {}}",
        ];
        for bad in crate::models::NOT_OBJECTS.iter().chain(&objects) {
            assert!(Accept::SearchPage
                .check("/s", &Bytes::copy_from_slice(bad))
                .is_err());
        }
    }
}
