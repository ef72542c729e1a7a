//! The one tokio runtime shared by every client (sync and async use) and by
//! the in-process emulator, built lazily. A forked child gets a runtime of its
//! own: the parent's worker threads do not exist there.
use std::sync::Mutex;

use tokio::runtime::Runtime;

use crate::error::Result;

/// (process id, runtime). Runtimes are leaked on purpose: dropping one in a
/// forked child would wait for threads that only the parent has.
static RUNTIME: Mutex<Option<(u32, &'static Runtime)>> = Mutex::new(None);

pub fn runtime() -> Result<&'static Runtime> {
    let pid = std::process::id();
    let mut slot = RUNTIME.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((owner, rt)) = *slot {
        if owner == pid {
            return Ok(rt);
        }
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("urlscan-rs")
        .enable_all()
        .build()
        .map_err(|e| crate::Error::Transport(format!("cannot start the I/O runtime: {e}")))?;
    let rt: &'static Runtime = Box::leak(Box::new(rt));
    *slot = Some((pid, rt));
    Ok(rt)
}
