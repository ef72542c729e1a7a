//! The classes eight bytes to a word, on any target (SWAR).
use super::{Block, Run};

const ONES: u64 = 0x0101_0101_0101_0101;
const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
const HIGH: u64 = !LOW7;

/// The high bit of each byte of `v` that is zero, exactly (no borrow
/// reaches the next byte, unlike the shorter `(v - ONES) & !v` form).
#[inline(always)]
fn zero(v: u64) -> u64 {
    !(((v & LOW7) + LOW7) | v | LOW7)
}

#[inline(always)]
fn eq(word: u64, c: u8) -> u64 {
    zero(word ^ (ONES * u64::from(c)))
}

#[inline(always)]
fn word(chunk: &[u8], k: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&chunk[8 * k..8 * k + 8]);
    u64::from_le_bytes(w)
}

// A run's stop is found in the words' high bits themselves (a byte is
// eight bits): no gathering into a bit a byte.

pub(super) fn leading_spaces(chunk: &[u8; 16]) -> u32 {
    for k in 0..2 {
        let other = !eq(word(chunk, k), b' ') & HIGH;
        if other != 0 {
            return 8 * k as u32 + other.trailing_zeros() / 8;
        }
    }
    16
}

pub(super) fn run(chunk: &[u8; 16]) -> Run {
    let mut wide = false;
    for k in 0..2 {
        let w = word(chunk, k);
        // Below 0x20: no high bit, and adding 0x60 to the low seven sets none.
        let control = !(((w & LOW7) + ONES * 0x60) | w) & HIGH;
        let stop = eq(w, b'"') | eq(w, b'\\') | control;
        if stop != 0 {
            // The high bits of the bytes before the stop.
            let before = (stop & stop.wrapping_neg()) - 1;
            return Run {
                stop: 8 * k as u32 + stop.trailing_zeros() / 8,
                wide: wide || w & HIGH & before != 0,
            };
        }
        wide |= w & HIGH != 0;
    }
    Run { stop: 16, wide }
}

/// Bit 8j + k of `x` moved to bit 8k + j (an 8x8 bit matrix transposed,
/// Hacker's Delight 7-3).
#[inline(always)]
fn transpose(mut x: u64) -> u64 {
    let mut t = (x ^ (x >> 7)) & 0x00aa_00aa_00aa_00aa;
    x ^= t ^ (t << 7);
    t = (x ^ (x >> 14)) & 0x0000_cccc_0000_cccc;
    x ^= t ^ (t << 14);
    t = (x ^ (x >> 28)) & 0x0000_0000_f0f0_f0f0;
    x ^ t ^ (t << 28)
}

pub(super) fn block(chunk: &[u8; 64]) -> Block {
    // Byte j of word k first goes to bit 8j + k (one shift a word and
    // class), then one transpose a class puts it at 8k + j: cheaper than
    // moving each word's eight high bits down apart (a multiply each).
    let (mut quote, mut backslash, mut open, mut close) = (0u64, 0u64, 0u64, 0u64);
    for k in 0..8 {
        let w = word(chunk, k);
        // `{` and `[` differ by the 0x20 bit only, as do `}` and `]`.
        let lower = w | (ONES * 0x20);
        quote |= eq(w, b'"') >> (7 - k);
        backslash |= eq(w, b'\\') >> (7 - k);
        open |= eq(lower, b'{') >> (7 - k);
        close |= eq(lower, b'}') >> (7 - k);
    }
    Block {
        quote: transpose(quote),
        backslash: transpose(backslash),
        open: transpose(open),
        close: transpose(close),
    }
}
