//! urlscan-rs: the Python extension. The client is `urlscan_core` (pure
//! Rust), the local service is `urlscan_emulator`; `bindings` (feature
//! `python`) is the thin Python layer over both, built by maturin.
#[cfg(any(test, feature = "python"))]
mod allocator;
#[cfg(feature = "python")]
mod bindings;
// Finished calls handed to the Python event loop: plain Rust, tested without Python.
pub mod inbox;

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;

#[cfg(feature = "python")]
use pyo3::prelude::*;

/// Rust's allocations in the extension (Python's own are its own): see the
/// workspace's Cargo.toml, and `allocator` for its settings.
#[cfg(feature = "python")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[cfg(feature = "python")]
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    allocator::tune();
    bindings::register(m)
}
