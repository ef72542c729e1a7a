//! Bytes classified 16 or 64 at a time into bit masks (bit i for byte i),
//! as simdjson's first stage does, and what follows from the masks by
//! arithmetic alone: the end of a container in a checked body, found at a
//! cost per 64-byte block, not per token.
//!
//! Three back-ends classify: SSE2 (part of x86-64 itself), NEON (part of
//! aarch64 itself) and a portable one, eight bytes to a word, which every
//! other target uses and the `portable` feature selects everywhere. Their
//! masks are the same by definition; the tests hold them equal byte for
//! byte, so the fast and the portable build read every body alike.

#[cfg(any(
    test,
    feature = "portable",
    not(any(target_arch = "x86_64", target_arch = "aarch64"))
))]
mod portable;

#[cfg(all(target_arch = "aarch64", not(feature = "portable")))]
mod neon;
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
mod sse2;

#[cfg(all(target_arch = "aarch64", not(feature = "portable")))]
use neon as fast;
#[cfg(not(any(
    all(target_arch = "x86_64", not(feature = "portable")),
    all(target_arch = "aarch64", not(feature = "portable"))
)))]
use portable as fast;
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
use sse2 as fast;

/// The back-end this build classifies with: `sse2`, `neon` or `portable`.
pub const BACKEND: &str = if cfg!(all(target_arch = "x86_64", not(feature = "portable"))) {
    "sse2"
} else if cfg!(all(target_arch = "aarch64", not(feature = "portable"))) {
    "neon"
} else {
    "portable"
};

/// The classes of 64 bytes that locate structure.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Block {
    pub quote: u64,
    pub backslash: u64,
    /// `{` and `[`.
    pub open: u64,
    /// `}` and `]`.
    pub close: u64,
}

impl Block {
    /// The block of the classes of its four 16-byte quarters (`quarter(k)`:
    /// quote, backslash, open and close, bit i for byte 16k + i).
    #[allow(dead_code)] // (the portable back-end classifies whole words)
    #[inline(always)]
    fn of_quarters(quarter: impl Fn(usize) -> [u32; 4]) -> Block {
        let mut out = Block::default();
        for k in 0..4 {
            let [quote, backslash, open, close] = quarter(k).map(|m| u64::from(m) << (16 * k));
            out.quote |= quote;
            out.backslash |= backslash;
            out.open |= open;
            out.close |= close;
        }
        out
    }
}

/// Where the 16 bytes of a string's run stop.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Run {
    /// The first quote, backslash or control character (below 0x20); 16
    /// when there is none.
    pub stop: u32,
    /// Whether a byte before it is 0x80 or above (non-ASCII).
    pub wide: bool,
}

impl Run {
    /// The run of a classified chunk: `stop` and `high` with bit i for byte i.
    #[allow(dead_code)] // (the portable back-end finds the stop without masks)
    fn of_masks(stop: u32, high: u32) -> Run {
        let n = stop.trailing_zeros().min(16);
        Run {
            stop: n,
            wide: high & ((1u32 << n) - 1) != 0,
        }
    }
}

// The tests read the same bodies with either back-end in one build.
#[cfg(test)]
thread_local! {
    static PORTABLE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// `f` run with the portable back-end in place of this build's.
#[cfg(test)]
pub(crate) fn portably<T>(f: impl FnOnce() -> T) -> T {
    PORTABLE.set(true);
    let out = f();
    PORTABLE.set(false);
    out
}

macro_rules! dispatch {
    ($f:ident($chunk:expr)) => {{
        #[cfg(test)]
        if PORTABLE.get() {
            return portable::$f($chunk);
        }
        fast::$f($chunk)
    }};
}

/// How many of the 16 bytes are spaces before the first that is not (16 when all are).
#[inline]
pub fn leading_spaces(chunk: &[u8; 16]) -> u32 {
    dispatch!(leading_spaces(chunk))
}

#[inline]
pub fn run(chunk: &[u8; 16]) -> Run {
    dispatch!(run(chunk))
}

#[inline]
pub fn block(chunk: &[u8; 64]) -> Block {
    dispatch!(block(chunk))
}

/// Each bit set from a set bit of `x` up to the next one (not included):
/// the bytes from an opening quote up to its closing quote.
#[inline]
fn prefix_xor(mut x: u64) -> u64 {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    x
}

/// The bytes escaped by a backslash (the byte after each odd run of them),
/// simdjson's branchless form; `carry` says whether the block before ended
/// in an escaping backslash, and is updated for the next block.
#[inline]
fn escaped(backslash: u64, carry: &mut u64) -> u64 {
    const EVEN: u64 = 0x5555_5555_5555_5555;
    let backslash = backslash & !*carry;
    let follows = (backslash << 1) | *carry;
    let odd_starts = backslash & !EVEN & !follows;
    let (even_starts, overflow) = odd_starts.overflowing_add(backslash);
    *carry = u64::from(overflow);
    (EVEN ^ (even_starts << 1)) & follows
}

/// Where the container opening at `open` in `body` ends (past its closing
/// bracket). `body` must be valid JSON there (it was checked before): a
/// bracket inside a string is told apart, nothing else is checked. None
/// when no closing bracket is found.
pub fn container_end(body: &[u8], open: usize) -> Option<usize> {
    container_end_with(body, open, block)
}

/// `container_end` with the given classifier (the tests run each back-end).
#[inline(always)]
fn container_end_with(body: &[u8], open: usize, classify: fn(&[u8; 64]) -> Block) -> Option<usize> {
    let (mut at, mut depth) = (open, 0u64);
    let (mut in_string, mut carry) = (0u64, 0u64);
    let mut tail = [b' '; 64];
    while at < body.len() {
        let chunk: &[u8; 64] = match body.get(at..at + 64) {
            Some(c) => c.try_into().ok()?,
            None => {
                let rest = &body[at..];
                tail[..rest.len()].copy_from_slice(rest);
                tail[rest.len()..].fill(b' ');
                &tail
            }
        };
        let c = classify(chunk);
        let quotes = c.quote & !escaped(c.backslash, &mut carry);
        let strings = prefix_xor(quotes) ^ in_string;
        in_string = ((strings as i64) >> 63) as u64;
        let (opens, closes) = (c.open & !strings, c.close & !strings);
        if u64::from(closes.count_ones()) < depth {
            depth = depth + u64::from(opens.count_ones()) - u64::from(closes.count_ones());
        } else {
            let mut marks = opens | closes;
            while marks != 0 {
                let bit = marks.trailing_zeros();
                marks &= marks - 1;
                if opens >> bit & 1 == 1 {
                    depth += 1;
                } else {
                    depth = depth.checked_sub(1)?;
                    if depth == 0 {
                        return Some(at + bit as usize + 1);
                    }
                }
            }
        }
        at += 64;
    }
    None
}

#[cfg(test)]
mod tests;
