//! Reading a body, bounded by the configured size.

use bytes::Bytes;

use super::wire::map_reqwest_error;
use crate::error::{Error, Result};
use crate::recycle::{self, Kept};

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
    let mut buf = Body::new(announced as usize);
    if kept && buf.fresh {
        populate(&mut buf.bytes, announced as usize);
    }
    while let Some(chunk) = resp.chunk().await.map_err(map_reqwest_error)? {
        if buf.bytes.len() + chunk.len() > cap {
            return Err(Error::Decode(format!(
                "response body exceeds the limit of {cap} bytes"
            )));
        }
        buf.bytes.extend_from_slice(&chunk);
    }
    Ok(Bytes::from_owner(buf))
}

/// The buffer of the last large body freed (`recycle`).
static KEPT: Kept<Vec<u8>> = Kept::new();

/// A body's buffer: the one kept when it is large enough, and kept again
/// when the last `Bytes` of it is dropped.
struct Body {
    bytes: Vec<u8>,
    /// Newly allocated (its pages not yet written).
    fresh: bool,
}

impl Body {
    fn new(len: usize) -> Body {
        if len >= recycle::MIN {
            if let Some(bytes) = KEPT.take(|b| b.capacity() >= len) {
                return Body {
                    bytes,
                    fresh: false,
                };
            }
        }
        Body {
            bytes: Vec::with_capacity(recycle::room(len)),
            fresh: true,
        }
    }
}

impl AsRef<[u8]> for Body {
    fn as_ref(&self) -> &[u8] {
        &self.bytes
    }
}

impl Drop for Body {
    fn drop(&mut self) {
        let mut bytes = std::mem::take(&mut self.bytes);
        bytes.clear();
        let room = bytes.capacity();
        // A buffer not kept is freed as it is dropped here.
        let _ = KEPT.keep(bytes, room, Vec::capacity);
    }
}

/// The pages of a large body's buffer, asked of the kernel in one call
/// (MADV_POPULATE_WRITE, Linux 5.14+) rather than one page fault per 4 KB as
/// the body is written. Only for fresh buffers of bodies kept with many
/// others: each lands in fresh memory, and a `results()` batch of 500
/// results of 0.1-2 MB took 9% less client CPU; a single fetch reuses the
/// memory of the one before, where it cost 7% more (`bench/ab.py`). Other
/// systems, older kernels and small bodies skip it; a refusal changes
/// nothing but the speed. Only the `len` bytes announced: the room to spare
/// past them (`recycle::room`) is mapped only if a body is longer.
pub(super) fn populate(buf: &mut Vec<u8>, len: usize) {
    #[cfg(target_os = "linux")]
    {
        const MIN: usize = 64 * 1024;
        const PAGE: usize = 4096;
        let spare = buf.spare_capacity_mut();
        let n = len.min(spare.len());
        let spare = &mut spare[..n];
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A body's buffer, fresh or kept from an earlier body, starts empty
    /// with room for what was announced, and holds what is written to it.
    /// (Which buffer comes back is not asserted: other tests' bodies share
    /// the one kept.)
    #[test]
    fn a_buffer_fresh_or_kept_starts_empty_with_room_and_keeps_its_bytes() {
        let len = 2 * recycle::MIN;
        let mut first = Body::new(len);
        first.bytes.resize(len, b'x');
        drop(Bytes::from_owner(first));
        for announced in [len, len / 2, 100] {
            let mut next = Body::new(announced);
            assert!(next.bytes.is_empty(), "a buffer starts empty");
            assert!(next.bytes.capacity() >= announced);
            next.bytes.extend_from_slice(b"{\"a\":1}");
            let body = Bytes::from_owner(next);
            assert_eq!(&body[..], b"{\"a\":1}");
        }
    }
}
