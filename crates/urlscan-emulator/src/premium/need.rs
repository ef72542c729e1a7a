//! What a premium handler needs of its caller, as types, so that the entry
//! check can be an extractor (`entry::Entry<need::PremiumWrite>`).
use super::super::answer::Need;

pub(super) trait Needs: 'static {
    const NEED: Need;
}

macro_rules! needs {
    ($($name:ident),*) => {$(
        pub(super) struct $name;
        impl Needs for $name {
            const NEED: Need = Need::$name;
        }
    )*};
}
needs!(Key, Write, Premium, PremiumWrite);
