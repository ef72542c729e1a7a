//! Who is calling and what an endpoint needs of them: the vocabulary of
//! keys that the state, the answers and the handlers share.

/// The kinds of keys the emulator issues, and what each may do.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyInfo {
    pub kind: &'static str,
    pub user: String,
    pub email: String,
    pub team: Option<String>,
    pub premium: bool,
    /// The `readwrite` scope; a read-only key lacks it.
    pub readwrite: bool,
}

/// Who is calling.
#[derive(Debug, Clone)]
pub enum Caller {
    Anonymous,
    Key(KeyInfo),
}

impl Caller {
    pub fn key(&self) -> Option<&KeyInfo> {
        match self {
            Caller::Key(k) => Some(k),
            Caller::Anonymous => None,
        }
    }
    pub fn premium(&self) -> bool {
        self.key().is_some_and(|k| k.premium)
    }
    /// The rate-limit subject: the user, or the (loopback) address.
    pub fn subject(&self) -> String {
        match self {
            Caller::Key(k) => format!("user:{}", k.user),
            Caller::Anonymous => "ip:127.0.0.1".into(),
        }
    }
    pub fn anonymous(&self) -> bool {
        matches!(self, Caller::Anonymous)
    }
}

#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Need {
    /// Works without a key (a per-address budget).
    Anyone,
    /// Needs a key; no key gets the 401 envelope.
    Key,
    /// Needs a key; no key gets 403 "You're not logged in!" (result, DOM, responses).
    KeyLoggedIn,
    Premium,
    PremiumWrite,
    Write,
}
