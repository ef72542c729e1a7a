//! One large buffer of a kind kept for the next use, not freed.
//!
//! Memory fresh from the OS costs the kernel zeroing each page as it is
//! first written. A search page of 10,000 hits is a 19 MB body and about 20
//! MB of index, allocated anew for every page: exporting 100,000 hits spent
//! 16% of the client's CPU there (`bench/RESULTS.md`), while pages of 100
//! reuse the allocator's warm memory. A walk reads one page while the next
//! arrives, so keeping the last one freed serves the one after; at most one
//! buffer of each kind is held once a walk is over, of at most `MAX` bytes.

use std::sync::Mutex;

/// Smaller buffers come from the allocator's own free lists.
pub const MIN: usize = 1 << 20;
/// Larger ones are not kept (a page of 10,000 hits: a body of 21 MB with its
/// room to spare, an index of 30 MB).
pub const MAX: usize = 48 << 20;

/// A kept buffer of type `T` (a slot; see the module docs).
pub struct Kept<T>(Mutex<Option<T>>);

impl<T> Kept<T> {
    pub const fn new() -> Kept<T> {
        Kept(Mutex::new(None))
    }

    /// The kept buffer, when `fits` says it will do.
    pub fn take(&self, fits: impl FnOnce(&T) -> bool) -> Option<T> {
        let mut slot = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if slot.as_ref().is_some_and(fits) {
            slot.take()
        } else {
            None
        }
    }

    /// Keep `v`, a buffer of `bytes` bytes of room, emptied by the caller,
    /// if its size is kept and it is larger than the one kept (`size` of
    /// it). The one not kept is given back, to be freed by the caller (a
    /// buffer whose `Drop` keeps it would otherwise come back here).
    #[must_use]
    pub fn keep(&self, v: T, bytes: usize, size: impl FnOnce(&T) -> usize) -> Option<T> {
        if !(MIN..=MAX).contains(&bytes) {
            return Some(v);
        }
        let mut slot = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if slot.as_ref().is_none_or(|k| size(k) < bytes) {
            slot.replace(v)
        } else {
            Some(v)
        }
    }
}

/// Room for `len` bytes, with some to spare when they are many, so that the
/// next buffer of about this size fits the same allocation (pages of one size
/// differ by a few bytes; room never written costs no memory).
pub fn room(len: usize) -> usize {
    if len >= MIN {
        len + len / 8
    } else {
        len
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_one_buffer_of_a_kept_size_the_larger_and_gives_it_when_it_fits() {
        let kept: Kept<Vec<u8>> = Kept::new();
        let cap = |v: &Vec<u8>| v.capacity();
        assert!(kept.keep(Vec::with_capacity(10), 10, cap).is_some());
        assert!(kept.take(|_| true).is_none(), "a small buffer is not kept");
        assert!(kept
            .keep(Vec::with_capacity(MAX + 1), MAX + 1, cap)
            .is_some());
        assert!(kept.take(|_| true).is_none(), "a huge buffer is not kept");
        assert!(kept.keep(Vec::with_capacity(MIN), MIN, cap).is_none());
        let back = kept.keep(Vec::with_capacity(2 * MIN), 2 * MIN, cap);
        assert_eq!(
            back.map(|v| v.capacity() < 2 * MIN),
            Some(true),
            "the smaller comes back"
        );
        let back = kept.keep(Vec::with_capacity(MIN), MIN, cap);
        assert_eq!(back.map(|v| v.capacity() < 2 * MIN), Some(true));
        assert!(kept.take(|v| v.capacity() >= 3 * MIN).is_none());
        let v = kept
            .take(|v| v.capacity() >= MIN)
            .expect("the larger is kept");
        assert!(v.capacity() >= 2 * MIN);
        assert!(kept.take(|_| true).is_none(), "given once");
        assert_eq!(room(100), 100);
        assert_eq!(room(8 * MIN), 9 * MIN);
    }
}
