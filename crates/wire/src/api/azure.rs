//! Builder for this API.

use crate::api::{Api, ApiInput, ApiOutput};
use crate::error::AssembleError;

/// Assembles the request.
pub fn assemble(_input: &ApiInput<'_>) -> Result<ApiOutput, AssembleError> {
    Err(AssembleError::Unsupported {
        api: Api::AzureOpenAiResponses,
    })
}
