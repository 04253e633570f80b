//! Checked text fields of request bodies (the rules are `alyt_app::text`),
//! for the handlers that check a field themselves: each refusal is a 400
//! naming the field.

use crate::ApiError;

pub use alyt_app::text::valid_email;

pub fn too_long(field: &str, max: usize) -> ApiError {
    alyt_app::text::too_long(field, max).into()
}

/// The trimmed address, when it has an address's shape.
pub fn checked_email(email: &str) -> Result<String, ApiError> {
    Ok(alyt_app::text::checked_email(email)?)
}

/// Trimmed text of 1 to `max` characters.
pub fn required_text(field: &str, value: &str, max: usize) -> Result<String, ApiError> {
    Ok(alyt_app::text::required_text(field, value, max)?)
}

/// Trimmed optional text; empty means absent.
pub fn optional_text(
    field: &str,
    value: Option<&str>,
    max: usize,
) -> Result<Option<String>, ApiError> {
    Ok(alyt_app::text::optional_text(field, value, max)?)
}
