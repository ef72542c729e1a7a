//! Typed views of the service's answers. Each answer keeps its body as
//! received (`Doc::body`) so nothing the service sent is lost; the typed part
//! holds what the core itself needs and proves the shape is right.
pub mod blocks;
pub mod check;
pub mod doc;
pub mod index;
pub mod indicators;
pub mod json;
pub mod scanning;
pub mod search;

pub use doc::Doc;
pub use json::{
    decode, decode_error, empty_object, first_byte, found, lenient_u64, lenient_value_u64,
    list_or_empty, wrong, wrong_json, AnyObject,
};
pub use scanning::{ResultHead, Submission};
pub use search::{SearchHitHead, SearchPageHead};

/// Bodies that are no JSON object, or not a whole one: what every reader of
/// an object (the checking scan, the index, a search page's acceptance) turns
/// down, each test with the cases of its own besides.
#[cfg(test)]
#[rustfmt::skip]
pub(crate) const NOT_OBJECTS: &[&[u8]] = &[
    b"", b" ", b"[]", b"[1]", b"\"x\"", b"1", b"null", b"{", b"}", b"{\"a\"", b"{\"a\":1", b"{\"results\": ",
];
