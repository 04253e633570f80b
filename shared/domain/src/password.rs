//! The password policy for household and developer accounts (one policy).
//!
//! Following NIST SP 800-63B rather than composition rules: length counts, a
//! known-bad or trivially guessable password is refused, and nothing else is
//! imposed. The policy:
//! - 12 to 128 characters (Unicode scalar values);
//! - not one character repeated, and not a run like `abcdefghijkl` or `123456789012`;
//! - not one of the most common passwords (a built-in list; compared ignoring case);
//! - does not contain the local part of the account's email address (4+ characters).

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PasswordRejected {
    #[error("the password must have at least {MIN_PASSWORD_CHARS} characters")]
    TooShort,
    #[error("the password must have at most {MAX_PASSWORD_CHARS} characters")]
    TooLong,
    #[error("the password is too easy to guess (a repeated character or a simple run)")]
    Trivial,
    #[error("the password is one of the most common passwords")]
    Common,
    #[error("the password must not contain your email address")]
    ContainsEmail,
}

pub const MIN_PASSWORD_CHARS: usize = 12;
pub const MAX_PASSWORD_CHARS: usize = 128;

/// Common passwords of 12+ characters (shorter ones already fail on length).
const COMMON: &[&str] = &[
    "password1234",
    "password12345",
    "password123456",
    "passwordpassword",
    "123456789012",
    "1234567890123",
    "12345678901234",
    "qwertyuiopasdfgh",
    "qwertyuiop123",
    "qwerty123456",
    "1q2w3e4r5t6y",
    "1qaz2wsx3edc",
    "iloveyou1234",
    "administrator",
    "letmein12345",
    "welcome12345",
    "changeme1234",
    "trustno11234",
    "football1234",
    "baseball1234",
    "sunshine1234",
    "princess1234",
    "superman1234",
    "qwertyqwerty",
    "abc123abc123",
    "aaaaaaaaaaaa",
    "correcthorsebatterystaple",
    "monkey123456",
    "dragon123456",
    "p@ssw0rd1234",
    "passw0rd1234",
    "password!234",
    "welcome@1234",
];

pub fn check_password(password: &str, email: &str) -> Result<(), PasswordRejected> {
    let chars: Vec<char> = password.chars().collect();
    if chars.len() < MIN_PASSWORD_CHARS {
        return Err(PasswordRejected::TooShort);
    }
    if chars.len() > MAX_PASSWORD_CHARS {
        return Err(PasswordRejected::TooLong);
    }
    let lower = password.to_lowercase();
    if COMMON.contains(&lower.as_str()) {
        return Err(PasswordRejected::Common);
    }
    if is_trivial(&chars) {
        return Err(PasswordRejected::Trivial);
    }
    let local = email.split('@').next().unwrap_or_default().to_lowercase();
    if local.chars().count() >= 4 && lower.contains(&local) {
        return Err(PasswordRejected::ContainsEmail);
    }
    Ok(())
}

/// One repeated character, or a run with a constant step of -1, 0 or +1.
fn is_trivial(chars: &[char]) -> bool {
    let steps: Vec<i64> = chars
        .windows(2)
        .map(|w| i64::from(u32::from(w[1])) - i64::from(u32::from(w[0])))
        .collect();
    steps.windows(2).all(|w| w[0] == w[1]) && steps.first().is_some_and(|s| s.abs() <= 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_policy_in_examples() {
        let email = "jamie.doe@example.com";
        assert_eq!(
            check_password("short", email),
            Err(PasswordRejected::TooShort)
        );
        assert_eq!(
            check_password(&"x".repeat(129), email),
            Err(PasswordRejected::TooLong)
        );
        assert_eq!(
            check_password("Password1234", email),
            Err(PasswordRejected::Common)
        );
        assert_eq!(
            check_password("bbbbbbbbbbbbbb", email),
            Err(PasswordRejected::Trivial)
        );
        assert_eq!(
            check_password("abcdefghijklm", email),
            Err(PasswordRejected::Trivial)
        );
        assert_eq!(
            check_password("987654321098", email),
            Ok(()),
            "not a constant run (8->9 wraps)"
        );
        assert_eq!(
            check_password("my jamie.doe secret", email),
            Err(PasswordRejected::ContainsEmail)
        );
        assert_eq!(check_password("plum tractor season", email), Ok(()));
        assert_eq!(check_password("ünïcødé-pässwörd", email), Ok(()));
    }

    proptest! {
        /// Long enough random text from a wide alphabet always passes; anything
        /// under 12 characters never does.
        #[test]
        fn length_decides_for_random_text(p in "[a-zA-Z0-9 ]{0,40}") {
            let verdict = check_password(&p, "nobody@example.com");
            if p.chars().count() < MIN_PASSWORD_CHARS {
                prop_assert_eq!(verdict, Err(PasswordRejected::TooShort));
            }
        }
    }
}
