//! [`Resume`]: what one request's assembly leaves for the next request of the same walk, so the
//! passes over the whole transcript that depend only on each message start where the previous
//! request's transcript and this one's part.
//!
//! Today that is every check [`crate::assemble_resumed`] makes before the per-API builder (the
//! V8 `TypeError`s of the transcript, the rewrites of odd system messages) and the first loop
//! of `estimateContextTokens` ([`ContextFold`]), and for `anthropic-messages` the message list
//! itself: the previous request's list, handed back with [`Resume::recycle`], is cut back to
//! the last point both requests share where the conversion keeps no state, and only the
//! messages after it are converted ([`Reuse`] tells a consumer which elements it kept). The
//! result is exactly what a request assembled from scratch gets; only the work differs (an
//! Architecture Invariant, checked on every request of every committed session and case).

use std::sync::atomic::{AtomicU64, Ordering};

use crate::api::anthropic::Memo;
use crate::options::ContextFold;
use crate::{Api, Model};
use forge_replay_model::release::PiRelease;
use serde_json::Value;

/// The state a walk carries from one request to the next for one target (see the module
/// overview). Make one per target with [`Resume::default`]; a caller that cannot vouch for the
/// messages any more calls [`Resume::forget`], or passes a shared prefix of 0.
#[derive(Debug, Clone, Default)]
pub struct Resume {
    /// What the checks depend on besides the messages.
    key: Option<Key>,
    /// `states[k]`: the estimate's first loop after the transcript's first `k` messages, for
    /// every `k` up to the number of leading messages that passed every check. Empty: nothing
    /// known.
    states: Vec<ContextFold>,
    /// The Anthropic message list of the previous request, and where the next may resume.
    pub(crate) memo: Memo,
}

/// What a request's message list shares with an earlier request of the same walk
/// ([`crate::assemble_resumed`]): the first `kept` elements of its `messages` are, value for
/// value, those of the request whose `token` is `after`. `after == 0`: nothing is shared.
/// `token` names this request (unique in the process; 0 when it was built from scratch).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Reuse {
    pub token: u64,
    pub after: u64,
    pub kept: usize,
}

impl Reuse {
    /// A token no request of this process has.
    pub(crate) fn next_token() -> u64 {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        NEXT.fetch_add(1, Ordering::Relaxed)
    }

    /// The elements a consumer may take over from the request it saw before, whose token is
    /// `previous`: `kept` when that request is the one this one was built after, else 0.
    pub fn kept_after(&self, previous: u64) -> usize {
        if self.after != 0 && self.after == previous {
            self.kept
        } else {
            0
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
struct Key {
    release: PiRelease,
    api: Api,
    provider: String,
    id: String,
}

impl Resume {
    /// Drops what is known (the messages it was about may be gone).
    pub fn forget(&mut self) {
        self.key = None;
        self.states.clear();
        self.memo.forget();
    }

    /// Hands back the payload of the request this resume built last (its [`Reuse::token`]), once
    /// it is no longer needed: the next request builds its message list in it. Any other payload
    /// is dropped.
    pub fn recycle(&mut self, token: u64, payload: Value) {
        self.memo.recycle(token, payload);
    }

    /// Where the checks of a transcript for `api`, `release` and `model` start, given that its
    /// first `shared` messages are the previous request's first `shared`, unchanged; and the
    /// estimate's state there. Resets what is known when the key changed.
    pub(crate) fn start(
        &mut self,
        release: PiRelease,
        api: Api,
        model: &Model,
        shared: usize,
    ) -> (usize, ContextFold) {
        let same = self.key.as_ref().is_some_and(|k| {
            k.release == release
                && k.api == api
                && k.provider == model.provider()
                && k.id == model.id()
        });
        if !same {
            self.key = Some(Key {
                release,
                api,
                provider: model.provider().to_string(),
                id: model.id().to_string(),
            });
            self.states.clear();
            self.memo.forget();
        }
        if self.states.is_empty() {
            self.states.push(ContextFold::default());
        }
        let start = shared.min(self.states.len() - 1);
        self.states.truncate(start + 1);
        (start, self.states[start])
    }

    /// Records the estimate's state after message `start + k` for each state of `after`
    /// (in order): those messages passed every check.
    pub(crate) fn extend(&mut self, after: impl IntoIterator<Item = ContextFold>) {
        self.states.extend(after);
    }
}
