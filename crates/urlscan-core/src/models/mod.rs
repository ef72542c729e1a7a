//! Typed views of the service's answers. Each answer keeps its body as
//! received (`Doc::body`) so nothing the service sent is lost; the typed part
//! holds what the core itself needs and proves the shape is right.
#[cfg(target_arch = "x86_64")]
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
