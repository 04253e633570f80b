//! One error type for every operation, answered as an RFC 9457 problem body:
//! `{ type, title, status, detail, field?, requestId }` with
//! `content-type: application/problem+json`.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use utoipa::ToSchema;

use crate::conventions::request_id;

/// The problem body of every error response.
#[derive(Debug, Clone, Serialize, serde::Deserialize, ToSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Problem {
    /// A stable identifier of the kind of problem, e.g. `urn:alyt:problem:validation`.
    #[serde(rename = "type")]
    pub kind: String,
    pub title: String,
    pub status: u16,
    /// What is wrong, for a person to read.
    pub detail: String,
    /// The request field at fault (a JSON path like `payload.key`, or a query parameter).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub field: Option<String>,
    /// The id of the request, as in the `x-request-id` header and the logs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub request_id: Option<String>,
    /// The quota that is spent (`REQUESTS`, ...), on `quota-exceeded` problems.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub quota: Option<String>,
    /// Where to send this request instead, on `misdirected` problems (the
    /// event stream's own host).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub location: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    pub status: StatusCode,
    /// Short slug of the problem type (`validation`, `not-found`, ...).
    pub slug: &'static str,
    pub title: &'static str,
    pub detail: String,
    pub field: Option<String>,
    /// Seconds after which a retry may succeed (429 and 503).
    /// (u32: a wait of 136 years is enough, and it keeps the error small.)
    pub retry_after: Option<u32>,
    /// The spent quota a `quota-exceeded` problem names.
    pub quota: Option<&'static str>,
    /// Where to send the request instead (`misdirected`; rare, so boxed
    /// to keep every `Result<_, ApiError>` small).
    pub location: Option<Box<String>>,
    /// The caller's cap of open event streams, when that is what is spent:
    /// written as the `streams` policy of the RateLimit fields beside the
    /// request rate's (small, as every `Result<_, ApiError>` carries it).
    pub streams_cap: Option<std::num::NonZeroU32>,
}

impl ApiError {
    fn new(status: StatusCode, slug: &'static str, title: &'static str, detail: String) -> Self {
        Self {
            status,
            slug,
            title,
            detail,
            field: None,
            retry_after: None,
            quota: None,
            location: None,
            streams_cap: None,
        }
    }

    /// The request is malformed (unparseable JSON, wrong content type).
    pub fn bad_request(detail: impl Into<String>) -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            "bad-request",
            "Bad request",
            detail.into(),
        )
    }

    /// A field of the request has a wrong value.
    pub fn validation(field: impl Into<String>, detail: impl Into<String>) -> Self {
        Self {
            field: Some(field.into()),
            ..Self::new(
                StatusCode::BAD_REQUEST,
                "validation",
                "Invalid request field",
                detail.into(),
            )
        }
    }

    pub fn unauthorized(detail: impl Into<String>) -> Self {
        Self::new(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "Authentication required",
            detail.into(),
        )
    }

    pub fn forbidden(detail: impl Into<String>) -> Self {
        Self::new(
            StatusCode::FORBIDDEN,
            "forbidden",
            "Not allowed",
            detail.into(),
        )
    }

    /// Also the answer for another tenant's object, so that existence never leaks.
    pub fn not_found(detail: impl Into<String>) -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            "not-found",
            "Not found",
            detail.into(),
        )
    }

    pub fn method_not_allowed() -> Self {
        Self::new(
            StatusCode::METHOD_NOT_ALLOWED,
            "method-not-allowed",
            "Method not allowed",
            "this path does not accept that method".into(),
        )
    }

    pub fn conflict(detail: impl Into<String>) -> Self {
        Self::new(StatusCode::CONFLICT, "conflict", "Conflict", detail.into())
    }

    /// A conflict of a kind clients tell apart (`security-refused`,
    /// `request-id-reused`).
    pub fn conflict_typed(slug: &'static str, detail: impl Into<String>) -> Self {
        Self::new(StatusCode::CONFLICT, slug, "Conflict", detail.into())
    }

    /// Understood but refused by the thing itself (a connector's rejection).
    pub fn unprocessable(detail: impl Into<String>) -> Self {
        Self::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "refused",
            "Refused by the thing",
            detail.into(),
        )
    }

    /// This host cannot serve the request; `location` can (421).
    pub fn misdirected(location: String, detail: impl Into<String>) -> Self {
        Self {
            location: Some(Box::new(location)),
            ..Self::new(
                StatusCode::MISDIRECTED_REQUEST,
                "misdirected",
                "Served elsewhere",
                detail.into(),
            )
        }
    }

    pub fn gone(detail: impl Into<String>) -> Self {
        Self::new(StatusCode::GONE, "gone", "Gone", detail.into())
    }

    pub fn payload_too_large(detail: impl Into<String>) -> Self {
        Self::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "payload-too-large",
            "Payload too large",
            detail.into(),
        )
    }

    pub fn unsupported_media_type(detail: impl Into<String>) -> Self {
        Self::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported-media-type",
            "Unsupported media type",
            detail.into(),
        )
    }

    /// The failed-attempt limiter of passwords and codes refused to check
    /// one more (`alyt_app::auth::attempts`); `detail` says which limit.
    pub fn too_many_attempts(retry_after: u64, detail: impl Into<String>) -> Self {
        Self {
            retry_after: Some(seconds(retry_after)),
            ..Self::new(
                StatusCode::TOO_MANY_REQUESTS,
                "too-many-attempts",
                "Too many attempts",
                detail.into(),
            )
        }
    }

    /// An invitation mail over its daily budget (`alyt_app::people`);
    /// `detail` says which.
    pub fn too_many_mails(retry_after: u64, detail: impl Into<String>) -> Self {
        Self {
            retry_after: Some(seconds(retry_after)),
            ..Self::new(
                StatusCode::TOO_MANY_REQUESTS,
                "too-many-mails",
                "Too many mails",
                detail.into(),
            )
        }
    }

    /// A guest's session that ended with their stay (the spec's stay-ended
    /// message, instead of a bare 401): sign in again for any other home.
    pub fn stay_ended() -> Self {
        Self::new(
            StatusCode::UNAUTHORIZED,
            "stay-ended",
            "Stay ended",
            "your stay has ended, so this sign-in has too; sign in again to reach any other home of yours".into(),
        )
    }

    /// Every stream slot of the caller is held (at most `per_caller` open
    /// streams at once): the `streams` policy of the RateLimit fields.
    pub fn too_many_streams(per_caller: u32, retry_after: u64) -> Self {
        Self {
            retry_after: Some(seconds(retry_after)),
            streams_cap: std::num::NonZeroU32::new(per_caller),
            ..Self::new(
                StatusCode::TOO_MANY_REQUESTS,
                "too-many-streams",
                "Too many streams",
                format!(
                    "this caller already holds {per_caller} open event streams; close one (or wait for one to end) and reconnect"
                ),
            )
        }
    }

    pub fn too_many_requests(retry_after: u64) -> Self {
        Self {
            retry_after: Some(seconds(retry_after)),
            ..Self::new(
                StatusCode::TOO_MANY_REQUESTS,
                "rate-limited",
                "Too many requests",
                format!("the rate limit is spent; retry in {retry_after} s"),
            )
        }
    }

    /// A developer quota is spent: the request is not served. `quota` is the
    /// kind's wire name (`REQUESTS`); separate from the per-process rate limit.
    pub fn quota_exceeded(
        quota: &'static str,
        retry_after: u64,
        detail: impl Into<String>,
    ) -> Self {
        Self {
            retry_after: Some(seconds(retry_after)),
            quota: Some(quota),
            ..Self::new(
                StatusCode::TOO_MANY_REQUESTS,
                "quota-exceeded",
                "Quota exceeded",
                detail.into(),
            )
        }
    }

    pub fn unavailable(detail: impl Into<String>) -> Self {
        Self {
            retry_after: Some(1),
            ..Self::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "unavailable",
                "Service unavailable",
                detail.into(),
            )
        }
    }

    /// A streaming provider says the account holder withdrew the
    /// platform's access: connecting the account again is the way out.
    pub fn provider_revoked(detail: impl Into<String>) -> Self {
        Self::new(
            StatusCode::CONFLICT,
            "provider-access-revoked",
            "Provider access revoked",
            detail.into(),
        )
    }

    /// A streaming provider limits the platform's calls: not the caller's
    /// rate limit (that is 429), so 503 with when to try again.
    pub fn provider_rate_limited(retry_after: u64, detail: impl Into<String>) -> Self {
        Self {
            retry_after: Some(seconds(retry_after)),
            ..Self::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "provider-rate-limited",
                "Provider rate limited",
                detail.into(),
            )
        }
    }

    /// A connector's server did not answer as the protocol says (down,
    /// timed out, refused our token, or answered garbage).
    pub fn bad_gateway(detail: impl Into<String>) -> Self {
        Self::new(
            StatusCode::BAD_GATEWAY,
            "connector-unavailable",
            "Connector unavailable",
            detail.into(),
        )
    }

    /// A fault of ours. The cause is logged, never sent.
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        tracing::error!(%cause, "internal error");
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "Internal error",
            "something went wrong on our side; the request id helps us find it".into(),
        )
    }

    pub fn with_field(mut self, field: impl Into<String>) -> Self {
        self.field = Some(field.into());
        self
    }

    /// The problem body without the request id: an answer kept to be given
    /// again (a repeated request gets it as it was).
    pub fn body_json(&self) -> serde_json::Value {
        let problem = Problem {
            request_id: None,
            ..self.problem()
        };
        serde_json::to_value(problem).unwrap_or_default()
    }

    pub fn problem(&self) -> Problem {
        Problem {
            kind: format!("urn:alyt:problem:{}", self.slug),
            title: self.title.into(),
            status: self.status.as_u16(),
            detail: self.detail.clone(),
            field: self.field.clone(),
            request_id: request_id::current(),
            quota: self.quota.map(str::to_owned),
            location: self.location.as_deref().cloned(),
        }
    }
}

fn seconds(wait: u64) -> u32 {
    u32::try_from(wait).unwrap_or(u32::MAX)
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}: {}", self.status.as_u16(), self.slug, self.detail)
    }
}

impl std::error::Error for ApiError {}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::to_vec(&self.problem()).unwrap_or_default();
        let mut response = (self.status, body).into_response();
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/problem+json"),
        );
        if self.status == StatusCode::UNAUTHORIZED {
            headers.insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"alyt\""),
            );
        }
        if let Some(seconds) = self.retry_after {
            headers.insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        if let Some(quota) = self.streams_cap {
            // The rate limiter adds the request rate's policy beside these.
            let reset = self.retry_after.unwrap_or(1);
            for (field, value) in [
                ("ratelimit-policy", format!("\"streams\";q={quota}")),
                ("ratelimit", format!("\"streams\";r=0;t={reset}")),
            ] {
                if let Ok(value) = HeaderValue::from_str(&value) {
                    headers.insert(field, value);
                }
            }
        }
        response
    }
}

impl From<alyt_store::StoreError> for ApiError {
    fn from(e: alyt_store::StoreError) -> Self {
        use alyt_store::StoreError;
        match e {
            StoreError::Unavailable(cause) => {
                tracing::warn!(%cause, "store unavailable");
                ApiError::unavailable("storage is briefly unavailable; retry shortly")
            }
            // Conditions are handled by the operations that set them; one that
            // escapes is a concurrent change the caller may retry.
            StoreError::ConditionFailed { .. } | StoreError::TransactionCanceled { .. } => {
                ApiError::conflict("the object changed concurrently; retry")
            }
            StoreError::Invalid(cause) => ApiError::internal(cause),
        }
    }
}

impl From<alyt_domain::access::Denied> for ApiError {
    /// A refusal by the access rules: missing objects (and foreign ones, which
    /// answer the same) are 404, every other refusal 403 with its reason.
    fn from(denied: alyt_domain::access::Denied) -> Self {
        match denied {
            alyt_domain::access::Denied::NotFound => ApiError::not_found("not found"),
            other => ApiError::forbidden(other.to_string()),
        }
    }
}

// The 401s every group names, kept at this path for the handlers that
// import them from here; the other shared answers are in `responses`.
pub use super::responses::{NoDeveloperSession, NoDeveloperSessionOrKey, NoValidToken};

impl From<alyt_app::Error> for ApiError {
    /// A use case's answer as the problem clients know for its kind.
    fn from(e: alyt_app::Error) -> Self {
        use alyt_app::ErrorKind as Kind;
        let retry_after = u64::from(e.retry_after.unwrap_or(1));
        let mut answer = match e.kind {
            Kind::BadRequest => ApiError::bad_request(e.detail),
            Kind::Invalid => ApiError::validation(e.field.clone().unwrap_or_default(), e.detail),
            Kind::Unauthorized => ApiError::unauthorized(e.detail),
            Kind::StayEnded => ApiError::stay_ended(),
            Kind::Forbidden => ApiError::forbidden(e.detail),
            Kind::NotFound => ApiError::not_found(e.detail),
            Kind::Conflict("conflict") => ApiError::conflict(e.detail),
            Kind::Conflict(name) => ApiError::conflict_typed(name, e.detail),
            Kind::Refused => ApiError::unprocessable(e.detail),
            Kind::Gone => ApiError::gone(e.detail),
            Kind::TooManyAttempts => ApiError::too_many_attempts(retry_after, e.detail),
            Kind::TooManyMails => ApiError::too_many_mails(retry_after, e.detail),
            Kind::TooManyStreams(per_caller) => ApiError::too_many_streams(per_caller, retry_after),
            Kind::QuotaExceeded(quota) => ApiError::quota_exceeded(quota, retry_after, e.detail),
            Kind::QuotaFull(quota) => ApiError {
                quota: Some(quota),
                slug: "quota-exceeded",
                title: "Quota exceeded",
                ..ApiError::conflict(e.detail)
            },
            Kind::Unavailable => ApiError::unavailable(e.detail),
            Kind::ProviderRevoked => ApiError::provider_revoked(e.detail),
            Kind::ProviderRateLimited => ApiError::provider_rate_limited(retry_after, e.detail),
            Kind::ConnectorUnavailable => ApiError::bad_gateway(e.detail),
            Kind::Internal => ApiError {
                detail: e.detail,
                ..ApiError::new(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "internal",
                    "Internal error",
                    String::new(),
                )
            },
        };
        answer.field = e.field;
        answer
    }
}
