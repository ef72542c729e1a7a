//! The classes 16 bytes at a time with NEON, which every aarch64 CPU has.
use std::arch::aarch64::*;

use super::{Block, Run};

// SAFETY (every `unsafe` below): NEON is part of aarch64 itself, so no
// feature check is needed, and each load reads 16 bytes of a chunk whose
// length the types fix.

#[inline(always)]
fn load(chunk: &[u8], k: usize) -> uint8x16_t {
    let c: &[u8; 16] = chunk[16 * k..16 * k + 16].try_into().expect("16 bytes");
    unsafe { vld1q_u8(c.as_ptr()) }
}

/// Bit i set when byte i of `v` (all ones or all zeros) is set: NEON has no
/// movemask, so each byte keeps its own bit and three pairwise adds gather them.
#[inline(always)]
fn mask(v: uint8x16_t) -> u32 {
    const BITS: [u8; 16] = [1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128];
    unsafe {
        let m = vandq_u8(v, vld1q_u8(BITS.as_ptr()));
        let p = vpaddq_u8(m, m);
        let p = vpaddq_u8(p, p);
        let p = vpaddq_u8(p, p);
        u32::from(vgetq_lane_u16::<0>(vreinterpretq_u16_u8(p)))
    }
}

#[inline(always)]
fn is(x: uint8x16_t, c: u8) -> uint8x16_t {
    unsafe { vceqq_u8(x, vdupq_n_u8(c)) }
}

pub(super) fn leading_spaces(chunk: &[u8; 16]) -> u32 {
    (!mask(is(load(chunk, 0), b' '))).trailing_zeros().min(16)
}

pub(super) fn run(chunk: &[u8; 16]) -> Run {
    let x = load(chunk, 0);
    unsafe {
        let low = vcltq_u8(x, vdupq_n_u8(0x20));
        Run::of_masks(
            mask(vorrq_u8(vorrq_u8(is(x, b'"'), is(x, b'\\')), low)),
            mask(vcgeq_u8(x, vdupq_n_u8(0x80))),
        )
    }
}

pub(super) fn block(chunk: &[u8; 64]) -> Block {
    Block::of_quarters(|k| {
        let x = load(chunk, k);
        // `{` and `[` differ by the 0x20 bit only, as do `}` and `]`.
        let lower = unsafe { vorrq_u8(x, vdupq_n_u8(0x20)) };
        [is(x, b'"'), is(x, b'\\'), is(lower, b'{'), is(lower, b'}')].map(mask)
    })
}
