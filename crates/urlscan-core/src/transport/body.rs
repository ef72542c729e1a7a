//! Reading a body, bounded by the configured size.

use bytes::Bytes;

use super::wire::map_reqwest_error;
use crate::error::{Error, Result};

pub(super) async fn read_capped(
    mut resp: reqwest::Response,
    cap: usize,
    kept: bool,
) -> Result<Bytes> {
    let announced = resp.content_length().unwrap_or(0);
    if announced > cap as u64 {
        return Err(Error::Decode(format!(
            "response body of {announced} bytes exceeds the limit of {cap} bytes"
        )));
    }
    // Sized once from the length announced (a hint: a wrong one only means
    // regrowth): growing by doubling copies a large body several times and
    // maps fresh pages for each copy.
    let mut buf = bytes::BytesMut::with_capacity(announced as usize);
    if kept {
        populate(&mut buf);
    }
    while let Some(chunk) = resp.chunk().await.map_err(map_reqwest_error)? {
        if buf.len() + chunk.len() > cap {
            return Err(Error::Decode(format!(
                "response body exceeds the limit of {cap} bytes"
            )));
        }
        buf.extend_from_slice(&chunk);
    }
    Ok(buf.freeze())
}

/// The pages of a large body's buffer, asked of the kernel in one call
/// (MADV_POPULATE_WRITE, Linux 5.14+) rather than one page fault per 4 KB as
/// the body is written. Only for bodies kept with many others: each lands
/// in fresh memory, and a `results()` batch of 500 results of 0.1-2 MB took
/// 9% less client CPU; a single fetch reuses the memory of the one before,
/// where it cost 7% more (`bench/ab.py`). Other systems, older kernels and
/// small bodies skip it; a refusal changes nothing but the speed.
pub(super) fn populate(buf: &mut bytes::BytesMut) {
    #[cfg(target_os = "linux")]
    {
        const MIN: usize = 64 * 1024;
        const PAGE: usize = 4096;
        let spare = buf.spare_capacity_mut();
        if spare.len() < MIN {
            return;
        }
        let start = spare.as_mut_ptr() as usize;
        let first = start.next_multiple_of(PAGE);
        let end = (start + spare.len()) / PAGE * PAGE;
        if end > first {
            // SAFETY: [first, end) lies inside the buffer's own allocation;
            // MADV_POPULATE_WRITE only maps its pages (as a write would),
            // without changing their contents.
            unsafe {
                libc::madvise(
                    first as *mut libc::c_void,
                    end - first,
                    libc::MADV_POPULATE_WRITE,
                );
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = buf;
}
