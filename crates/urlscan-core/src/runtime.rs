//! The tokio runtimes of the process, built lazily: one shared by every
//! client (sync and async use), one for the in-process emulator. A forked
//! child gets runtimes of its own: the parent's worker threads do not exist
//! there.
use std::sync::Mutex;

use tokio::runtime::Runtime;

use crate::error::Result;

/// (process id, runtime). Runtimes are leaked on purpose: dropping one in a
/// forked child would wait for threads that only the parent has.
type Slot = Mutex<Option<(u32, &'static Runtime)>>;

static CLIENTS: Slot = Mutex::new(None);
static SERVERS: Slot = Mutex::new(None);

/// The clients' runtime. One worker thread: a client's CPU work beside its
/// I/O is small (each page or body is checked once, on the thread that
/// reads it), and a second worker mostly wakes up to look for work and
/// sleeps again (measured: about 5% of a search export's CPU and 7% of a
/// result fetch's, with nothing slower). Sync calls run their futures on
/// the calling thread, so Python threads still work in parallel.
pub fn runtime() -> Result<&'static Runtime> {
    shared(&CLIENTS, 1, "urlscan-rs")
}

/// The runtime of emulators started in this process: two workers, so that
/// serving many clients at once (and the emulator's own clock and
/// deliveries) does not wait on the clients' I/O thread.
pub fn server_runtime() -> Result<&'static Runtime> {
    shared(&SERVERS, 2, "urlscan-emu")
}

fn shared(slot: &Slot, workers: usize, name: &str) -> Result<&'static Runtime> {
    let pid = std::process::id();
    let mut slot = slot.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((owner, rt)) = *slot {
        if owner == pid {
            return Ok(rt);
        }
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .thread_name(name)
        .enable_all()
        .build()
        .map_err(|e| crate::Error::Transport(format!("cannot start the I/O runtime: {e}")))?;
    let rt: &'static Runtime = Box::leak(Box::new(rt));
    *slot = Some((pid, rt));
    Ok(rt)
}
