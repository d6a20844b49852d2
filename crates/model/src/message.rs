//! A context message held by value or borrowed from the builder that made it.
//!
//! Pi's projection, pi-forge's capability step and `convertToLlm` pass nearly every message of
//! a context through unchanged ("non-marker messages are passed through by reference"). The
//! replay engine builds a request's context from the session builder's own messages, so it
//! runs those steps over `Cow<'_, Value>`: a passed-through message stays a pointer, and only
//! the messages a step makes (capability updates, converted custom messages) are owned. The
//! same steps run over `Value` for callers that keep the context.

use std::borrow::{Borrow, Cow};

use serde_json::Value;

/// A message of a context: a [`Value`], or a [`Cow`] of one.
pub trait Message: Borrow<Value> + Sized {
    /// A message a step made.
    fn from_value(v: Value) -> Self;
    /// The message, copied if it is borrowed.
    fn into_value(self) -> Value;
    /// The message to change in place (copied first if it is borrowed).
    fn make_mut(&mut self) -> &mut Value;
}

impl Message for Value {
    fn from_value(v: Value) -> Self {
        v
    }

    fn into_value(self) -> Value {
        self
    }

    fn make_mut(&mut self) -> &mut Value {
        self
    }
}

impl Message for Cow<'_, Value> {
    fn from_value(v: Value) -> Self {
        Cow::Owned(v)
    }

    fn into_value(self) -> Value {
        self.into_owned()
    }

    fn make_mut(&mut self) -> &mut Value {
        self.to_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_borrowed_message_is_copied_only_when_changed() {
        let original = json!({"role": "user", "content": "a"});
        let mut m: Cow<'_, Value> = Cow::Borrowed(&original);
        assert!(matches!(m, Cow::Borrowed(_)));
        let v: &Value = m.borrow();
        assert_eq!(v, &original);
        m.make_mut()["content"] = json!("b");
        assert!(matches!(m, Cow::Owned(_)));
        assert_eq!(original["content"], "a");
        assert_eq!(m.into_value()["content"], "b");
        let made = <Cow<'_, Value> as Message>::from_value(json!(1));
        assert!(matches!(made, Cow::Owned(_)));
        let mut owned = json!({"x": 1});
        owned.make_mut()["x"] = json!(2);
        assert_eq!(
            Value::from_value(owned.clone()).into_value(),
            json!({"x": 2})
        );
    }
}
