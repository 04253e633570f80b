//! Developer sign-up, verification, sessions and MFA over HTTP.
