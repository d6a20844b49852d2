//! Errors of request assembly.

use forge_replay_model::release::PiRelease;

use crate::api::Api;
use crate::catalog::CatalogError;
use crate::transcript::ContextError;

/// Why a request could not be assembled.
#[derive(Debug, thiserror::Error)]
pub enum AssembleError {
    /// `model.api` is not one of pi-ai's ten APIs.
    #[error("unknown api `{api}`; known apis: {}", known_apis())]
    UnknownApi { api: String },
    /// The API's builder is not written yet.
    #[error("assembly for api `{api}` is not implemented yet")]
    Unsupported { api: Api },
    /// pi-ai itself refuses this request; `message` is pi-ai's error text.
    #[error("pi-ai rejects this request: {message}")]
    Rejected { message: String },
    /// The context is not a valid pi-ai context.
    #[error("invalid context")]
    Context(#[from] ContextError),
    /// A case names a release other than the catalog's.
    #[error("the case follows Pi {case} but the catalog is pi-ai {catalog}'s")]
    ReleaseMismatch { case: PiRelease, catalog: PiRelease },
    /// The model could not be resolved.
    #[error(transparent)]
    Catalog(#[from] CatalogError),
}

fn known_apis() -> String {
    Api::ALL.map(Api::name).join(", ")
}

impl AssembleError {
    /// A pi-ai refusal with its exact message.
    pub fn rejected(message: impl Into<String>) -> Self {
        AssembleError::Rejected {
            message: message.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use forge_replay_model::error::chain;

    use super::AssembleError;
    use crate::{normalize_context, Catalog};

    /// Each cause is printed once (the message does not repeat its source).
    #[test]
    fn errors_print_each_cause_once() {
        let e = AssembleError::from(normalize_context(&serde_json::json!(5)).unwrap_err());
        assert_eq!(chain(&e), "invalid context: $.context: must be an object");

        let user = r#"{"acme": {"models": [{"id": "m", "api": "openai-completions"}]}}"#;
        let e = AssembleError::from(
            Catalog::with_user_file(
                forge_replay_model::release::PiRelease::V0_87_1,
                user,
                "models.json",
            )
            .unwrap_err(),
        );
        assert_eq!(
            chain(&e),
            "models.json: $.acme.models[0]: invalid model object: field `baseUrl` must be a string"
        );
    }
}
