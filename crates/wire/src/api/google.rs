//! Builder for this API (written by the wire-cases engineer; a stub until then).

use crate::api::{Api, ApiInput, ApiOutput};
use crate::error::AssembleError;

/// Assembles the request (not implemented yet).
pub fn assemble(input: &ApiInput<'_>) -> Result<ApiOutput, AssembleError> {
    let api = input.model.api().unwrap_or(Api::GoogleGenerativeAi);
    Err(AssembleError::Unsupported { api })
}
