//! `Inbox`: finished work handed from runtime threads to one thread that
//! sleeps in its event loop (an asyncio loop). Pushers never block on that
//! thread: the first push after a drain wakes it once (a byte on a socket
//! pair it watches, where it can watch one), and one drain takes the whole
//! batch, so a burst of completions costs one wake instead of one each.
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

#[cfg(unix)]
type Bell = (
    std::os::unix::net::UnixStream,
    std::os::unix::net::UnixStream,
);

pub struct Inbox<T> {
    pending: Mutex<Vec<T>>,
    /// A wake is on its way and the drain it causes has not started yet.
    woken: AtomicBool,
    /// The loop watches the bell (see `watched`).
    #[cfg_attr(not(unix), allow(dead_code))]
    by_bell: AtomicBool,
    #[cfg(unix)]
    bell: Option<Bell>,
}

/// What a push asks of the pusher.
#[derive(Debug, PartialEq, Eq)]
pub enum Wake {
    /// Nothing: a wake is on its way (or the bell rang).
    Done,
    /// Wake the loop another way (it does not watch the bell).
    Needed,
}

impl<T> Default for Inbox<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Inbox<T> {
    pub fn new() -> Inbox<T> {
        #[cfg(unix)]
        let bell = std::os::unix::net::UnixStream::pair()
            .ok()
            .filter(|(r, w)| r.set_nonblocking(true).is_ok() && w.set_nonblocking(true).is_ok());
        Inbox {
            pending: Mutex::new(Vec::new()),
            woken: AtomicBool::new(false),
            by_bell: AtomicBool::new(false),
            #[cfg(unix)]
            bell,
        }
    }

    /// The socket the loop can watch for a wake, if there is one.
    #[cfg(unix)]
    pub fn fd(&self) -> Option<std::os::fd::RawFd> {
        use std::os::fd::AsRawFd;
        self.bell.as_ref().map(|(r, _)| r.as_raw_fd())
    }

    /// The loop watches `fd()` now: pushes ring the bell from here on.
    pub fn watched(&self) {
        self.by_bell.store(true, Ordering::SeqCst);
    }

    /// Queue `item`; the loop is woken once per batch.
    pub fn push(&self, item: T) -> Wake {
        self.pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(item);
        if self.woken.swap(true, Ordering::SeqCst) {
            return Wake::Done;
        }
        #[cfg(unix)]
        if self.by_bell.load(Ordering::SeqCst) {
            if let Some((_, w)) = &self.bell {
                use std::io::Write;
                // WouldBlock: the socket is full of bytes, so the loop wakes anyway.
                match (&*w).write(&[1]) {
                    Ok(_) => return Wake::Done,
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return Wake::Done,
                    Err(_) => {}
                }
            }
        }
        Wake::Needed
    }

    /// Everything queued so far (run by the loop when woken).
    pub fn drain(&self) -> Vec<T> {
        // The bell is emptied before the flag is cleared: no byte is written
        // while the flag is set, and a byte written after the clear belongs
        // to a push that may land after the batch is taken below, so it must
        // stay for the next drain.
        #[cfg(unix)]
        if let Some((r, _)) = &self.bell {
            use std::io::Read;
            let mut buf = [0u8; 64];
            while matches!((&*r).read(&mut buf), Ok(n) if n > 0) {}
        }
        self.woken.store(false, Ordering::SeqCst);
        std::mem::take(&mut *self.pending.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// Wait until the bell's socket is readable, as the loop's selector does.
    fn sleep_on_bell(fd: std::os::fd::RawFd, ms: i32) -> bool {
        let mut p = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd; the inbox (and its socket) outlives the call.
        unsafe { libc::poll(&mut p, 1, ms) > 0 }
    }

    #[test]
    fn one_wake_per_batch() {
        let inbox = Inbox::new();
        inbox.watched();
        let fd = inbox.fd().unwrap();
        assert!(!sleep_on_bell(fd, 0));
        assert_eq!(inbox.push(1), Wake::Done);
        assert_eq!(inbox.push(2), Wake::Done);
        assert!(sleep_on_bell(fd, 0));
        assert_eq!(inbox.drain(), vec![1, 2]);
        assert!(!sleep_on_bell(fd, 0), "the bell is silent after a drain");
        assert!(inbox.drain().is_empty());
    }

    #[test]
    fn unwatched_pushes_ask_for_a_wake_once_per_batch() {
        let inbox = Inbox::new();
        assert_eq!(inbox.push(1), Wake::Needed);
        assert_eq!(inbox.push(2), Wake::Done);
        assert_eq!(inbox.drain(), vec![1, 2]);
        assert_eq!(inbox.push(3), Wake::Needed);
    }

    /// Pushers race a loop that sleeps on the bell and drains: every item
    /// arrives, and the loop is never left asleep with items waiting (a
    /// lost wake shows as a poll that times out with items still to come).
    #[test]
    fn no_wake_is_lost() {
        const PUSHERS: usize = 3;
        const EACH: usize = 20_000;
        let inbox = Arc::new(Inbox::new());
        inbox.watched();
        let fd = inbox.fd().unwrap();
        let threads: Vec<_> = (0..PUSHERS)
            .map(|t| {
                let inbox = inbox.clone();
                std::thread::spawn(move || {
                    for i in 0..EACH {
                        inbox.push(t * EACH + i);
                        if i % 64 == 0 {
                            std::thread::yield_now();
                        }
                    }
                })
            })
            .collect();
        let mut got = Vec::with_capacity(PUSHERS * EACH);
        while got.len() < PUSHERS * EACH {
            assert!(
                sleep_on_bell(fd, 10_000),
                "asleep with {} of {} items received",
                got.len(),
                PUSHERS * EACH
            );
            got.extend(inbox.drain());
        }
        for t in threads {
            t.join().unwrap();
        }
        got.sort_unstable();
        assert_eq!(got, (0..PUSHERS * EACH).collect::<Vec<_>>());
    }
}
