//! Extractors whose rejections are problem bodies that say what is wrong, so a
//! malformed or wrong-typed request is always a 4xx with the field at fault.

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, RawPathParams, Request};
use axum::http::header;
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use crate::ApiError;

/// A JSON request body.
#[derive(Debug, Clone, Copy, Default)]
pub struct ApiJson<T>(pub T);

impl<S, T> FromRequest<S> for ApiJson<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, ApiError> {
        let is_json = request
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .map(|mime| {
                let mime = mime.trim().to_ascii_lowercase();
                mime == "application/json" || mime.ends_with("+json")
            })
            .unwrap_or(false);
        if !is_json {
            return Err(ApiError::unsupported_media_type(
                "send the body as JSON with content-type: application/json",
            ));
        }
        let bytes = Bytes::from_request(request, state).await.map_err(|e| {
            if e.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::payload_too_large("the body is larger than this operation accepts")
            } else {
                ApiError::bad_request(format!("the body could not be read: {e}"))
            }
        })?;
        parse_json(&bytes).map(ApiJson)
    }
}

/// An optional JSON body: none (or whitespace only) is `T::default()`,
/// anything else is parsed as [`parse_json`] parses it.
pub fn parse_optional_json<T: DeserializeOwned + Default>(bytes: &[u8]) -> Result<T, ApiError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(T::default());
    }
    parse_json(bytes)
}

/// Parses JSON, naming the path of the first field that is wrong.
pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let value = serde_path_to_error::deserialize(&mut deserializer).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let detail = match inner.classify() {
            serde_json::error::Category::Syntax | serde_json::error::Category::Eof => {
                return ApiError::bad_request(format!("the body is not valid JSON: {inner}"));
            }
            _ => inner.to_string(),
        };
        if path == "." || path.is_empty() {
            ApiError::validation("body", detail)
        } else {
            ApiError::validation(path, detail)
        }
    })?;
    deserializer
        .end()
        .map_err(|e| ApiError::bad_request(format!("trailing data after the JSON body: {e}")))?;
    Ok(value)
}

/// Query parameters.
#[derive(Debug, Clone, Copy, Default)]
pub struct ApiQuery<T>(pub T);

impl<S, T> FromRequestParts<S> for ApiQuery<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, ApiError> {
        let query = parts.uri.query().unwrap_or_default();
        let deserializer =
            serde_urlencoded::Deserializer::new(form_urlencoded::parse(query.as_bytes()));
        serde_path_to_error::deserialize(deserializer)
            .map(ApiQuery)
            .map_err(|e| {
                let path = e.path().to_string();
                let detail = e.into_inner().to_string();
                let field = if path == "." {
                    "query".to_owned()
                } else {
                    path
                };
                ApiError::validation(field, format!("bad query parameter: {detail}"))
            })
    }
}

/// An operation's path parameters as typed ids, in path order:
/// `ApiPath<DeviceId>` on `/v1/devices/{deviceId}`,
/// `ApiPath<(TenantId, ClientId)>` on `/v1/tenants/{tenantId}/clients/{clientId}/...`.
/// A value that is not a UUID is a 400 naming its parameter
/// (`deviceId must be a UUID`).
#[derive(Debug, Clone, Copy)]
pub struct ApiPath<T>(pub T);

/// A typed id that a path parameter parses into (every id of
/// [`alyt_domain::ids`] is a UUID on the wire).
pub trait PathId: std::str::FromStr<Err = uuid::Error> {}

macro_rules! path_ids {
    ($($id:ty),* $(,)?) => {$(impl PathId for $id {})*};
}

path_ids!(
    alyt_domain::ids::UserId,
    alyt_domain::ids::TenantId,
    alyt_domain::ids::ClientId,
    alyt_domain::ids::PropertyId,
    alyt_domain::ids::RoomId,
    alyt_domain::ids::DeviceId,
    alyt_domain::ids::EndpointId,
    alyt_domain::ids::IntegrationId,
    alyt_domain::ids::ConnectorId,
    alyt_domain::ids::DeveloperId,
    alyt_domain::ids::KeyId,
    alyt_domain::ids::WebhookId,
    alyt_domain::ids::RoutineId,
    alyt_domain::ids::InvitationId,
    alyt_domain::ids::WidgetTokenId,
    alyt_domain::ids::ConnectorVersionId,
);

fn path_id<T: PathId>((name, value): (&str, &str)) -> Result<T, ApiError> {
    value
        .parse()
        .map_err(|_| ApiError::validation(name, format!("{name} must be a UUID")))
}

/// What [`ApiPath`] extracts: one id, or a tuple of them in path order.
pub trait PathIds: Sized {
    fn from_params(params: &[(&str, &str)]) -> Result<Self, ApiError>;
}

fn wrong_count() -> ApiError {
    ApiError::internal("ApiPath's type does not match the operation's path parameters")
}

impl<T: PathId> PathIds for T {
    fn from_params(params: &[(&str, &str)]) -> Result<Self, ApiError> {
        match params {
            [one] => path_id(*one),
            _ => Err(wrong_count()),
        }
    }
}

/// A path parameter taken as text, not an id (an invitation link's token).
#[derive(Debug, Clone)]
pub struct PathText(pub String);

impl PathIds for PathText {
    fn from_params(params: &[(&str, &str)]) -> Result<Self, ApiError> {
        match params {
            [(_, value)] => Ok(PathText((*value).to_owned())),
            _ => Err(wrong_count()),
        }
    }
}

impl<A: PathId, B: PathId> PathIds for (A, B, PathText) {
    fn from_params(params: &[(&str, &str)]) -> Result<Self, ApiError> {
        match params {
            [a, b, (_, text)] => Ok((path_id(*a)?, path_id(*b)?, PathText((*text).to_owned()))),
            _ => Err(wrong_count()),
        }
    }
}

impl<A: PathId> PathIds for (A, PathText) {
    fn from_params(params: &[(&str, &str)]) -> Result<Self, ApiError> {
        match params {
            [a, (_, text)] => Ok((path_id(*a)?, PathText((*text).to_owned()))),
            _ => Err(wrong_count()),
        }
    }
}

impl<A: PathId> PathIds for (A, PathText, PathText) {
    fn from_params(params: &[(&str, &str)]) -> Result<Self, ApiError> {
        match params {
            [a, (_, b), (_, c)] => Ok((
                path_id(*a)?,
                PathText((*b).to_owned()),
                PathText((*c).to_owned()),
            )),
            _ => Err(wrong_count()),
        }
    }
}

impl<A: PathId, B: PathId> PathIds for (A, B) {
    fn from_params(params: &[(&str, &str)]) -> Result<Self, ApiError> {
        match params {
            [a, b] => Ok((path_id(*a)?, path_id(*b)?)),
            _ => Err(wrong_count()),
        }
    }
}

impl<A: PathId, B: PathId, C: PathId> PathIds for (A, B, C) {
    fn from_params(params: &[(&str, &str)]) -> Result<Self, ApiError> {
        match params {
            [a, b, c] => Ok((path_id(*a)?, path_id(*b)?, path_id(*c)?)),
            _ => Err(wrong_count()),
        }
    }
}

impl<S, T> FromRequestParts<S> for ApiPath<T>
where
    S: Send + Sync,
    T: PathIds,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        // The only rejection of a matched route: a parameter that does not
        // percent-decode to UTF-8.
        let raw = RawPathParams::from_request_parts(parts, state)
            .await
            .map_err(|_| {
                ApiError::validation("path", "a path parameter is not valid UTF-8 once decoded")
            })?;
        let params: Vec<(&str, &str)> = raw.iter().collect();
        T::from_params(&params).map(ApiPath)
    }
}

/// A patch field's `Some(value)` when it is present, null included (a
/// field left out stays `None`: keep the value).
pub(crate) fn present<'de, D: serde::Deserializer<'de>, T: serde::Deserialize<'de>>(
    deserializer: D,
) -> Result<Option<Option<T>>, D::Error> {
    <Option<T> as serde::Deserialize>::deserialize(deserializer).map(Some)
}
