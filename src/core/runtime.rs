//! The one tokio runtime shared by every client (sync and async use) and by
//! the in-process emulator. Built lazily; a process that forked after building
//! it gets a clear error instead of a hang (the runtime's threads do not exist
//! in the child).
use std::sync::OnceLock;

use tokio::runtime::Runtime;

use crate::core::error::{Error, Result};

static RUNTIME: OnceLock<(u32, &'static Runtime)> = OnceLock::new();

pub fn runtime() -> Result<&'static Runtime> {
    let (pid, rt) = RUNTIME.get_or_init(|| {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("urlscan-rs")
            .enable_all()
            .build()
            .expect("cannot start the tokio runtime");
        (std::process::id(), Box::leak(Box::new(rt)))
    });
    if *pid != std::process::id() {
        return Err(Error::Transport(
            "urlscan-rs was first used in a parent process before fork(); its I/O threads do not exist in this child. Use the 'spawn' start method (multiprocessing.set_start_method('spawn')) or create clients only after forking".into(),
        ));
    }
    Ok(rt)
}
