//! The extension's allocator (mimalloc) settings, applied when the module
//! loads.
//!
//! Blocks above `LARGE_KIB` (2 MiB) are mapped from the OS and returned to it when
//! freed, instead of being cut from mimalloc's arenas. Freed arena memory
//! stays resident until it is purged, by default 10 s later (a purge delay of
//! 1 s times the arena multiplier of 10), and a freed large block often does
//! not fit the next request. The large blocks here are search pages (a page
//! of 10,000 hits is 19 MB), results, their indexes and table buffers,
//! allocated on the I/O thread and freed on the caller's. Measured with
//! `bench/workloads.py` against the same build without the setting
//! (`bench/RESULTS.md`): `to_arrow()` of every column of 100,000 hits peaked
//! 36 to 64 MB lower, `results()` of 100 results of 0.1 to 2 MB 33 to 38 MB
//! lower, with client CPU within the runs' spread;
//! 1 MiB cost the `result()` loop 15% more CPU (its bodies of 1 to 2 MB were
//! then mapped afresh each time), 4 MiB kept the peak where it was.
//!
//! A value the user gives (`MIMALLOC_ARENA_MAX_OBJECT_SIZE`) wins: it is
//! read when mimalloc starts, and a default set afterwards leaves it alone.

use libmimalloc_sys::{mi_option_set_default, mi_option_t};

/// mimalloc's `mi_option_arena_max_object_size` (its position in
/// `mi_option_t`, which libmimalloc-sys does not name).
const ARENA_MAX_OBJECT_SIZE: mi_option_t = 45;

/// Blocks larger than this many KiB bypass the arenas.
const LARGE_KIB: std::ffi::c_long = 2048;

/// Apply the settings (before the extension allocates much: they apply to
/// blocks allocated after them).
pub fn tune() {
    // SAFETY: sets one of mimalloc's option values; not thread-safe, and
    // called once from the module's initialisation, which Python runs holding
    // its import lock before any of the module's threads exist.
    unsafe { mi_option_set_default(ARENA_MAX_OBJECT_SIZE, LARGE_KIB) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use libmimalloc_sys::mi_option_get;

    #[test]
    fn the_option_set_is_the_arena_object_limit_and_tune_sets_it() {
        // SAFETY: reads and sets option values; this test alone touches them.
        unsafe {
            // mimalloc's default limit, 2 GiB in KiB, is this option's alone:
            // the position names the right option.
            assert_eq!(mi_option_get(ARENA_MAX_OBJECT_SIZE), 2 << 20);
            tune();
            assert_eq!(mi_option_get(ARENA_MAX_OBJECT_SIZE), LARGE_KIB);
        }
    }
}
