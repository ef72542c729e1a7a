//! The locks of the state that are held together (premium, store, events)
//! and the one order they are taken in.
use std::cell::Cell;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};
use std::sync::MutexGuard;

use super::event_records::Events;
use super::premium_records::PremiumState;
use super::{AppState, Store};

thread_local! {
    /// The levels this thread holds, one bit each.
    static HELD: Cell<u8> = const { Cell::new(0) };
}

/// The level bits, in lock order.
const PREMIUM: u8 = 1;
const STORE: u8 = 2;
const EVENTS: u8 = 4;

/// One of the state's locks, held; it derefs to the data.
pub struct Guard<'a, T> {
    inner: MutexGuard<'a, T>,
    level: u8,
}

impl<'a, T> Guard<'a, T> {
    fn take(m: &'a std::sync::Mutex<T>, level: u8) -> Guard<'a, T> {
        debug_assert!(
            (HELD.get() & !(level - 1)) == 0,
            "lock order: premium, store, events (a later one is held)"
        );
        let inner = m.lock().unwrap();
        HELD.set(HELD.get() | level);
        Guard { inner, level }
    }
}

impl<T> Drop for Guard<'_, T> {
    fn drop(&mut self) {
        HELD.set(HELD.get() & !self.level);
    }
}

impl<T> Deref for Guard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.inner
    }
}

impl<T> DerefMut for Guard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.inner
    }
}

/// Lock order: premium, then store, then events (threads taking two in
/// opposite orders could deadlock). The mutexes are private: one alone
/// comes from `AppState::premium`, `store` or `events`, several from a chain
/// started by `AppState::lock`, each step of which offers only the later
/// levels (store, then premium, does not compile). Debug builds also panic
/// when a thread takes a lock while it holds a later one.
///
/// ```compile_fail,E0599
/// # fn f(st: &urlscan_emulator::state::AppState) {
/// let (_store, next) = st.lock().store();
/// let _premium = next.premium();
/// # }
/// ```
pub struct Next<'a, L> {
    st: &'a AppState,
    level: PhantomData<L>,
}

/// Where a chain of locks stands (`Next`'s parameter).
pub struct AtPremium;
pub struct AtStore;
pub struct AtEvents;

/// The levels from which the store may still be taken.
pub trait BeforeStore {}
impl BeforeStore for AtPremium {}
impl BeforeStore for AtStore {}

fn next<L>(st: &AppState) -> Next<'_, L> {
    Next {
        st,
        level: PhantomData,
    }
}

impl<'a, L> Next<'a, L> {
    /// The last lock of a chain.
    pub fn events(self) -> Guard<'a, Events> {
        Guard::take(&self.st.events, EVENTS)
    }
}

impl<'a> Next<'a, AtPremium> {
    pub fn premium(self) -> (Guard<'a, PremiumState>, Next<'a, AtStore>) {
        let g = Guard::take(&self.st.premium, PREMIUM);
        (g, next(self.st))
    }
}

impl<'a, L: BeforeStore> Next<'a, L> {
    pub fn store(self) -> (Guard<'a, Store>, Next<'a, AtEvents>) {
        let g = Guard::take(&self.st.store, STORE);
        (g, next(self.st))
    }
}

impl AppState {
    /// The start of a chain of locks (see `Next`):
    ///
    /// ```
    /// # fn f(st: &urlscan_emulator::state::AppState) {
    /// let (premium, next) = st.lock().premium();
    /// let (store, next) = next.store();
    /// let events = next.events();
    /// # }
    /// ```
    pub fn lock(&self) -> Next<'_, AtPremium> {
        next(self)
    }

    /// The premium state alone.
    pub fn premium(&self) -> Guard<'_, PremiumState> {
        self.lock().premium().0
    }

    /// The scan store alone.
    pub fn store(&self) -> Guard<'_, Store> {
        self.lock().store().0
    }

    /// The notifications alone.
    pub fn events(&self) -> Guard<'_, Events> {
        self.lock().events()
    }
}

#[cfg(test)]
mod tests {
    use crate::{AppState, EmulatorConfig};

    fn state() -> AppState {
        let cfg = EmulatorConfig {
            scans: 0,
            ..EmulatorConfig::default()
        };
        AppState::new(cfg, "http://127.0.0.1:1".into())
    }

    #[test]
    fn a_chain_takes_the_locks_in_order_and_drops_them_in_any() {
        let st = state();
        let (p, next) = st.lock().premium();
        let (store, next) = next.store();
        let ev = next.events();
        drop(store);
        drop(p);
        drop(ev);
        // All released: any one may be taken again.
        drop(st.premium());
        drop(st.lock().store());
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "lock order")]
    fn premium_while_the_store_is_held_panics() {
        let st = state();
        let _store = st.store();
        let _p = st.premium();
    }
}
