//! [`Resume`]: what one request's assembly leaves for the next request of the same walk, so the
//! passes over the whole transcript that depend only on each message start where the previous
//! request's transcript and this one's part.
//!
//! Today that is every check [`crate::assemble_resumed`] makes before the per-API builder (the
//! V8 `TypeError`s of the transcript, the rewrites of odd system messages) and the first loop
//! of `estimateContextTokens` ([`ContextFold`]). The result is exactly what a request assembled
//! from scratch gets; only the work differs (an Architecture Invariant, checked on every request
//! of every committed session and case).

use crate::options::ContextFold;
use crate::{Api, Model};
use forge_replay_model::release::PiRelease;

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
