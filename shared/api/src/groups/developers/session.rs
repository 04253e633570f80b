//! What the developer operations share: the developer login response and the
//! check that the caller is a signed-in developer (not a key, not a household
//! session).

use alyt_domain::access::{Principal, SessionKind};
use alyt_store::repo::developers::DeveloperRecord;
use alyt_store::repo::identity::UserRecord;
use serde::Serialize;
use utoipa::ToSchema;

use crate::auth::sessions::{self, TokenPair};
use crate::{ApiError, AppState};

/// The constant `developer`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum DeveloperKind {
    Developer,
}

/// The login response (developer): the household login response plus
/// `kind: 'developer'`.
#[derive(Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeveloperSession {
    /// Bearer token for the developer operations (a short-lived JWT).
    pub access_token: String,
    /// Opaque; rotates on every refresh.
    pub refresh_token: String,
    /// Seconds the access token lives.
    pub expires_in: i64,
    pub kind: DeveloperKind,
}

impl From<TokenPair> for DeveloperSession {
    fn from(pair: TokenPair) -> Self {
        Self {
            access_token: pair.access_token,
            refresh_token: pair.refresh_token,
            expires_in: pair.expires_in,
            kind: DeveloperKind::Developer,
        }
    }
}

/// Starts a developer session for a person whose credentials were checked.
pub async fn start(state: &AppState, user: &UserRecord) -> Result<DeveloperSession, ApiError> {
    Ok(sessions::start(state, user, SessionKind::Developer, None)
        .await?
        .into())
}

pub use alyt_app::developers::SignedIn;

/// The caller as a developer session (`alyt_app::developers`): a key is
/// 403, any other token 401.
pub fn developer_session(caller: &Principal) -> Result<SignedIn, ApiError> {
    Ok(alyt_app::developers::developer_session(caller)?)
}

/// The developer record of a signed-in developer, which must be active.
pub async fn active_developer(
    state: &AppState,
    signed_in: &SignedIn,
) -> Result<DeveloperRecord, ApiError> {
    Ok(alyt_app::developers::active_developer(state, signed_in).await?)
}

/// A JSON body like [`ApiJson`](crate::conventions::extract::ApiJson), whose rejection for
/// a missing (or unknown) field names that field instead of `body`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Body<T>(pub T);

impl<S, T> axum::extract::FromRequest<S> for Body<T>
where
    S: Send + Sync,
    T: serde::de::DeserializeOwned,
{
    type Rejection = ApiError;

    async fn from_request(request: axum::extract::Request, state: &S) -> Result<Self, ApiError> {
        crate::conventions::extract::ApiJson::from_request(request, state)
            .await
            .map(|crate::conventions::extract::ApiJson(value)| Body(value))
            .map_err(name_the_field)
    }
}

/// Query parameters like [`ApiQuery`](crate::conventions::extract::ApiQuery), naming a
/// missing parameter.
#[derive(Debug, Clone, Copy, Default)]
pub struct Params<T>(pub T);

impl<S, T> axum::extract::FromRequestParts<S> for Params<T>
where
    S: Send + Sync,
    T: serde::de::DeserializeOwned,
{
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        state: &S,
    ) -> Result<Self, ApiError> {
        crate::conventions::extract::ApiQuery::from_request_parts(parts, state)
            .await
            .map(|crate::conventions::extract::ApiQuery(value)| Params(value))
            .map_err(name_the_field)
    }
}

/// serde reports a missing or unknown field at its parent (`body`, `query` or
/// the enclosing object); point at the field itself.
pub fn name_the_field(mut error: ApiError) -> ApiError {
    let named = ["missing field `", "unknown field `"]
        .iter()
        .find_map(|marker| {
            let start = error.detail.find(marker)? + marker.len();
            let len = error.detail[start..].find('`')?;
            Some(error.detail[start..start + len].to_owned())
        });
    if let (Some(name), Some(field)) = (named, error.field.as_deref()) {
        // An unknown field's path already ends with it.
        let already = field == name || field.ends_with(&format!(".{name}"));
        if !already {
            error.field = Some(match field {
                "body" | "query" => name,
                parent => format!("{parent}.{name}"),
            });
        }
    }
    error
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field_of<T: serde::de::DeserializeOwned + std::fmt::Debug>(json: &str) -> Option<String> {
        name_the_field(crate::conventions::extract::parse_json::<T>(json.as_bytes()).unwrap_err())
            .field
    }

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Outer {
        name: String,
        inner: Inner,
    }

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Inner {
        code: String,
    }

    #[test]
    fn missing_and_unknown_fields_are_named() {
        assert_eq!(
            field_of::<Outer>(r#"{"inner":{"code":"x"}}"#).as_deref(),
            Some("name")
        );
        assert_eq!(
            field_of::<Outer>(r#"{"name":"n","inner":{}}"#).as_deref(),
            Some("inner.code")
        );
        assert_eq!(
            field_of::<Outer>(r#"{"name":"n","inner":{"code":"x"},"extra":1}"#).as_deref(),
            Some("extra")
        );
        assert_eq!(
            field_of::<Outer>(r#"{"name":"n","inner":{"code":"x","more":1}}"#).as_deref(),
            Some("inner.more")
        );
        assert_eq!(
            field_of::<Outer>(r#"{"name":5,"inner":{"code":"x"}}"#).as_deref(),
            Some("name")
        );
        // Not JSON stays a bad request without a field.
        let e = name_the_field(crate::conventions::extract::parse_json::<Outer>(b"{").unwrap_err());
        assert_eq!(e.field, None);
    }
}
