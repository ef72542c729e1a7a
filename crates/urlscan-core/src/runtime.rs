//! The tokio runtimes of the process, built lazily: one shared by every
//! client (sync and async use), one for the in-process emulator. A forked
//! child gets runtimes of its own: the parent's worker threads do not exist
//! there.
use std::future::Future;
use std::sync::Mutex;

use tokio::runtime::Runtime;
use tokio::task::JoinHandle;

use crate::error::{Error, Result};

/// (process id, runtime). Runtimes are leaked on purpose: dropping one in a
/// forked child would wait for threads that only the parent has.
type Slot = Mutex<Option<(u32, &'static Runtime)>>;

static CLIENTS: Slot = Mutex::new(None);
static SERVERS: Slot = Mutex::new(None);

/// The clients' runtime. One worker thread: a client's own CPU work is
/// small beside its I/O, and a second worker mostly woke up to look for work
/// and slept again (`bench/ab.py`, one worker against two: 5% less client
/// CPU for a search export, 7% less for result fetches). Sync calls run
/// their futures on the calling thread, so Python threads still work in
/// parallel; the items of a batch (requests and the checks of their bodies)
/// and pages read ahead run as tasks here.
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

/// A future run as a task of the current runtime, aborted when this handle
/// is dropped before it is joined, so a cancelled call leaves no task behind
/// (one in the middle of a step stops at the step's end).
pub(crate) struct Task<T>(JoinHandle<T>);

impl<T: Send + 'static> Task<T> {
    pub(crate) fn spawn(fut: impl Future<Output = T> + Send + 'static) -> Task<T> {
        // The call's parent (its trace context) and raw-answer capture
        // (`with_raw_response`) follow its work into the task.
        let fut = crate::observe::within(crate::observe::parent(), fut);
        match crate::transport::RAW_RESPONSE.try_with(|cell| cell.clone()) {
            Ok(cell) => Task(tokio::spawn(
                crate::transport::RAW_RESPONSE.scope(cell, fut),
            )),
            Err(_) => Task(tokio::spawn(fut)),
        }
    }

    /// The task's output; `what` names it if the task panicked.
    pub(crate) async fn join(mut self, what: &str) -> Result<T> {
        (&mut self.0)
            .await
            .map_err(|e| Error::Internal(format!("{what} task failed: {e}")))
    }
}

impl<T> Drop for Task<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}
