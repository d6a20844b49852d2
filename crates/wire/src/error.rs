//! Errors of request assembly.

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
    #[error("invalid context: {0}")]
    Context(#[from] ContextError),
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
