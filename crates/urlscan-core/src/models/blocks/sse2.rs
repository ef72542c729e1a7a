//! The classes 16 bytes at a time with SSE2, which every x86-64 CPU has.
use std::arch::x86_64::*;

use super::{Block, Run};

// SAFETY (every `unsafe` below): SSE2 is part of x86-64 itself, so no
// feature check is needed, and each load reads 16 bytes of a chunk whose
// length the types fix (loadu needs no alignment).

#[inline(always)]
fn load(chunk: &[u8], k: usize) -> __m128i {
    let c: &[u8; 16] = chunk[16 * k..16 * k + 16].try_into().expect("16 bytes");
    unsafe { _mm_loadu_si128(c.as_ptr().cast()) }
}

#[inline(always)]
fn mask(v: __m128i) -> u32 {
    unsafe { _mm_movemask_epi8(v) as u32 }
}

#[inline(always)]
fn is(x: __m128i, c: u8) -> __m128i {
    unsafe { _mm_cmpeq_epi8(x, _mm_set1_epi8(c as i8)) }
}

pub(super) fn leading_spaces(chunk: &[u8; 16]) -> u32 {
    (!mask(is(load(chunk, 0), b' '))).trailing_zeros().min(16)
}

pub(super) fn run(chunk: &[u8; 16]) -> Run {
    let x = load(chunk, 0);
    unsafe {
        // A byte is at most 0x1f when its unsigned max with 0x1f is 0x1f.
        let control = _mm_set1_epi8(0x1f);
        let low = _mm_cmpeq_epi8(_mm_max_epu8(x, control), control);
        Run::of_masks(
            mask(_mm_or_si128(_mm_or_si128(is(x, b'"'), is(x, b'\\')), low)),
            mask(x),
        )
    }
}

pub(super) fn block(chunk: &[u8; 64]) -> Block {
    Block::of_quarters(|k| {
        let x = load(chunk, k);
        // `{` and `[` differ by the 0x20 bit only, as do `}` and `]`.
        let lower = unsafe { _mm_or_si128(x, _mm_set1_epi8(0x20)) };
        [is(x, b'"'), is(x, b'\\'), is(lower, b'{'), is(lower, b'}')].map(mask)
    })
}
