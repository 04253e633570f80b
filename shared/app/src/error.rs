//! What a use case answers when it does not do what was asked. The kinds are
//! the ones a caller tells apart (a refused field, a missing object, a
//! conflict of a named kind, a spent budget); the HTTP layer gives each its
//! status and problem type, and no kind knows a status.

use alyt_domain::access::Denied;
use alyt_store::StoreError;

/// Why a use case did not do what was asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The request as a whole makes no sense (not one field's value).
    BadRequest,
    /// A field has a wrong value ([`Error::field`] names it).
    Invalid,
    /// No valid credentials.
    Unauthorized,
    /// A guest's sign-in that ended with the stay.
    StayEnded,
    /// The caller may not do this.
    Forbidden,
    /// No such object, or not one the caller reaches (never told apart).
    NotFound,
    /// The object's state does not allow it; the name tells conflicts a
    /// client handles apart (`conflict`, `security-refused`, ...).
    Conflict(&'static str),
    /// The thing itself refused (a connector's rejection).
    Refused,
    /// It existed and does no more.
    Gone,
    /// The failed-attempt limiter of passwords and codes.
    TooManyAttempts,
    /// An invitation mail budget is spent.
    TooManyMails,
    /// The caller holds all the event streams it may hold at once (how many).
    TooManyStreams(u32),
    /// A developer quota is spent (its wire name); it renews with time.
    QuotaExceeded(&'static str),
    /// A standing developer quota is full (its wire name): it frees only
    /// when something counted is removed.
    QuotaFull(&'static str),
    /// Something we depend on is briefly unavailable; retry.
    Unavailable,
    /// A streaming provider says the account holder withdrew our access.
    ProviderRevoked,
    /// A streaming provider limits our calls.
    ProviderRateLimited,
    /// A connector's server did not answer as the protocol says.
    ConnectorUnavailable,
    /// A fault of ours (the cause is logged where it happened, never told).
    Internal,
}

/// A use case's refusal or failure: its kind, what a person reads, and the
/// field at fault or when to retry where the kind has one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind:?}: {detail}")]
pub struct Error {
    pub kind: ErrorKind,
    pub detail: String,
    /// The request field at fault (a JSON path like `payload.key`).
    pub field: Option<String>,
    /// Seconds after which a retry may succeed.
    pub retry_after: Option<u32>,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(kind: ErrorKind, detail: impl Into<String>) -> Self {
        Self {
            kind,
            detail: detail.into(),
            field: None,
            retry_after: None,
        }
    }

    fn retrying(kind: ErrorKind, retry_after: u64, detail: impl Into<String>) -> Self {
        Self {
            retry_after: Some(u32::try_from(retry_after).unwrap_or(u32::MAX)),
            ..Self::new(kind, detail)
        }
    }

    pub fn bad_request(detail: impl Into<String>) -> Self {
        Self::new(ErrorKind::BadRequest, detail)
    }

    /// A field of the request has a wrong value.
    pub fn validation(field: impl Into<String>, detail: impl Into<String>) -> Self {
        Self::new(ErrorKind::Invalid, detail).with_field(field)
    }

    pub fn unauthorized(detail: impl Into<String>) -> Self {
        Self::new(ErrorKind::Unauthorized, detail)
    }

    /// A guest's sign-in that ended with the stay: sign in again for any
    /// other home.
    pub fn stay_ended() -> Self {
        Self::new(
            ErrorKind::StayEnded,
            "your stay has ended, so this sign-in has too; sign in again to reach any other home of yours",
        )
    }

    pub fn forbidden(detail: impl Into<String>) -> Self {
        Self::new(ErrorKind::Forbidden, detail)
    }

    /// Also the answer for another tenant's object, so that existence never leaks.
    pub fn not_found(detail: impl Into<String>) -> Self {
        Self::new(ErrorKind::NotFound, detail)
    }

    pub fn conflict(detail: impl Into<String>) -> Self {
        Self::new(ErrorKind::Conflict("conflict"), detail)
    }

    /// A conflict of a kind clients tell apart (`security-refused`,
    /// `request-id-reused`).
    pub fn conflict_typed(name: &'static str, detail: impl Into<String>) -> Self {
        Self::new(ErrorKind::Conflict(name), detail)
    }

    /// Understood but refused by the thing itself (a connector's rejection).
    pub fn unprocessable(detail: impl Into<String>) -> Self {
        Self::new(ErrorKind::Refused, detail)
    }

    pub fn gone(detail: impl Into<String>) -> Self {
        Self::new(ErrorKind::Gone, detail)
    }

    pub fn too_many_attempts(retry_after: u64, detail: impl Into<String>) -> Self {
        Self::retrying(ErrorKind::TooManyAttempts, retry_after, detail)
    }

    pub fn too_many_mails(retry_after: u64, detail: impl Into<String>) -> Self {
        Self::retrying(ErrorKind::TooManyMails, retry_after, detail)
    }

    /// A developer quota is spent; `quota` is the kind's wire name (`REQUESTS`).
    pub fn too_many_streams(per_caller: u32, retry_after: u64) -> Self {
        Self::retrying(
            ErrorKind::TooManyStreams(per_caller),
            retry_after,
            format!(
                "this caller already holds {per_caller} open event streams; close one (or wait for one to end) and reconnect"
            ),
        )
    }

    pub fn quota_exceeded(
        quota: &'static str,
        retry_after: u64,
        detail: impl Into<String>,
    ) -> Self {
        Self::retrying(ErrorKind::QuotaExceeded(quota), retry_after, detail)
    }

    /// A standing quota is full; `quota` is the kind's wire name
    /// (`VIRTUAL_DEVICES`).
    pub fn quota_full(quota: &'static str, detail: impl Into<String>) -> Self {
        Self::new(ErrorKind::QuotaFull(quota), detail)
    }

    pub fn unavailable(detail: impl Into<String>) -> Self {
        Self::retrying(ErrorKind::Unavailable, 1, detail)
    }

    pub fn provider_revoked(detail: impl Into<String>) -> Self {
        Self::new(ErrorKind::ProviderRevoked, detail)
    }

    pub fn provider_rate_limited(retry_after: u64, detail: impl Into<String>) -> Self {
        Self::retrying(ErrorKind::ProviderRateLimited, retry_after, detail)
    }

    /// A connector's server did not answer as the protocol says (down,
    /// timed out, refused our token, or answered garbage).
    pub fn bad_gateway(detail: impl Into<String>) -> Self {
        Self::new(ErrorKind::ConnectorUnavailable, detail)
    }

    /// A fault of ours. The cause is logged, never told.
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        tracing::error!(%cause, "internal error");
        Self::new(
            ErrorKind::Internal,
            "something went wrong on our side; the request id helps us find it",
        )
    }

    pub fn with_field(mut self, field: impl Into<String>) -> Self {
        self.field = Some(field.into());
        self
    }
}

impl From<StoreError> for Error {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Unavailable(cause) => {
                tracing::warn!(%cause, "store unavailable");
                Error::unavailable("storage is briefly unavailable; retry shortly")
            }
            // Conditions are handled by the operations that set them; one that
            // escapes is a concurrent change the caller may retry.
            StoreError::ConditionFailed { .. } | StoreError::TransactionCanceled { .. } => {
                Error::conflict("the object changed concurrently; retry")
            }
            StoreError::Invalid(cause) => Error::internal(cause),
        }
    }
}

impl From<Denied> for Error {
    /// A refusal by the access rules: missing objects (and foreign ones, which
    /// answer the same) are not found, every other refusal forbidden with its
    /// reason.
    fn from(denied: Denied) -> Self {
        match denied {
            Denied::NotFound => Error::not_found("not found"),
            other => Error::forbidden(other.to_string()),
        }
    }
}
