//! Checked text fields: addresses by their shape, names trimmed and bounded
//! with no control characters. Each refusal names the field. Use cases
//! check them once the caller may act, so a refusal of the caller comes
//! first.

use crate::Error;

const EMAIL_MAX: usize = 254;

pub fn too_long(field: &str, max: usize) -> Error {
    Error::validation(
        field,
        format!("{field} has at most {max} characters and no control characters"),
    )
}

/// A syntactic check of an email address (the link we send proves the rest):
/// one `@`, a non-empty local part of at most 64 characters, a domain of
/// dot-separated labels of letters, digits and hyphens with at least one dot,
/// no spaces or control characters; at most 254 characters.
pub fn valid_email(email: &str) -> bool {
    if email.len() > EMAIL_MAX || email.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return false;
    }
    let Some((local, domain)) = email.split_once('@') else {
        return false;
    };
    let label_ok = |l: &str| {
        !l.is_empty()
            && l.len() <= 63
            && !l.starts_with('-')
            && !l.ends_with('-')
            && l.chars().all(|c| c.is_alphanumeric() || c == '-')
    };
    !local.is_empty()
        && local.len() <= 64
        && !local.contains(['@', '"', '<', '>', '(', ')', ',', ';', ':', '\\', '[', ']'])
        && domain.contains('.')
        && domain.split('.').all(label_ok)
}

/// The trimmed address, when it has an address's shape.
pub fn checked_email(email: &str) -> Result<String, Error> {
    let email = email.trim();
    if !valid_email(email) {
        return Err(Error::validation(
            "email",
            "email must be an address like name@example.com",
        ));
    }
    Ok(email.to_owned())
}

/// Trimmed text of 1 to `max` characters.
pub fn required_text(field: &str, value: &str, max: usize) -> Result<String, Error> {
    let value = value.trim();
    if value.is_empty() {
        return Err(Error::validation(
            field,
            format!("{field} must not be empty"),
        ));
    }
    if value.chars().count() > max || value.chars().any(char::is_control) {
        return Err(too_long(field, max));
    }
    Ok(value.to_owned())
}

/// Trimmed optional text; empty means absent.
pub fn optional_text(
    field: &str,
    value: Option<&str>,
    max: usize,
) -> Result<Option<String>, Error> {
    match value.map(str::trim).filter(|v| !v.is_empty()) {
        None => Ok(None),
        Some(v) if v.chars().count() > max || v.chars().any(char::is_control) => {
            Err(too_long(field, max))
        }
        Some(v) => Ok(Some(v.to_owned())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn email_syntax() {
        for good in [
            "dev@example.com",
            "first.last+tag@sub.example.co.uk",
            "ünïcode@exämple.de",
        ] {
            assert!(valid_email(good), "{good}");
        }
        for bad in [
            "",
            "plain",
            "@example.com",
            "dev@",
            "dev@localhost",
            "dev@example..com",
            "dev@-example.com",
            "two@@example.com",
            "dev @example.com",
            "dev@exa mple.com",
            "a\r\nbcc@example.com",
            "<dev>@example.com",
        ] {
            assert!(!valid_email(bad), "{bad:?}");
        }
        assert!(!valid_email(&format!("{}@example.com", "a".repeat(65))));
    }

    #[test]
    fn refusals_name_the_field() {
        assert_eq!(
            checked_email(" dev@example.com ").as_deref(),
            Ok("dev@example.com")
        );
        assert_eq!(
            checked_email("dev@localhost").unwrap_err().field.as_deref(),
            Some("email")
        );
        assert_eq!(optional_text("name", Some("  "), 5), Ok(None));
        let long = optional_text("name", Some("abcdef"), 5).unwrap_err();
        assert_eq!(long.field.as_deref(), Some("name"));
        let empty = required_text("name", " ", 5).unwrap_err();
        assert_eq!(empty.detail, "name must not be empty");
    }
}
