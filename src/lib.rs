//! urlscan-rs: a fast, typed client for the urlscan.io API, and a local
//! emulator of the service. `core` is pure Rust; `bindings` (feature
//! `python`) is the thin Python layer built by maturin.
pub mod core;
pub mod emulator;
pub mod rules;

#[cfg(feature = "python")]
mod bindings;

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;

#[cfg(feature = "python")]
use pyo3::prelude::*;

#[cfg(feature = "python")]
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    bindings::register(m)
}
