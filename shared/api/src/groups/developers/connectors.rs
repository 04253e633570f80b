//! A developer's connectors: the server the platform calls for a connector's
//! integrations
//! (connect, discover, read, command, disconnect; `shared/connectors`).
//!
//! * `POST /v1/developers/connectors` `{ slug, name, serverUrl }`: 201 with
//!   the connector and its runtime token, shown this once. 409 when the
//!   slug is taken (slugs are unique across the platform).
//! * `GET /v1/developers/connectors`: the caller's own connectors, oldest
//!   first, paginated; never their runtime tokens.
//!
//! Who: a signed-in developer, or a DEV key of the developer with
//! `integrations:write` (create) or `integrations:read` (list). A LIVE key
//! acts for its one connector and creates none (403).
//!
//! A new connector is unpublished: it can be installed only in the
//! developer's sandbox tenant (`sandboxTenantId`) until staff publish a
//! version of it (`submissions.rs`, `review.rs`). Its id is the
//! `definitionId` a LIVE key is issued for once a version is approved
//! (`POST /v1/developers/admin/developers/{developerId}/live-keys`); such a
//! key reaches the tenants that installed the connector.
//!
//! The server URL is checked against the outbound policy (https and public
//! addresses on the hosted platform; the local platform allows http to
//! private networks), as a webhook URL, and again at every call.
//!
//! Store calls: create 1 transaction (connector + slug guard); list 1 index
//! query.

use crate::routing::{Operations, operations};
use alyt_domain::ids::{ConnectorId, TenantId};
use alyt_store::repo::integrations::ConnectorRecord;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;

use super::session::{Body, Params};
use crate::auth::Caller;
use crate::conventions::list::{ListResponse, PageParams, listed};
use crate::conventions::problem::Problem;
use crate::conventions::responses::{
    BadPage, MayNotReadConnectors, MayNotWriteConnectors, NoDeveloperSessionOrKey,
};
use crate::{ApiError, AppState};
use alyt_app::developers::connectors::{self, NewConnector};

pub fn routes() -> Operations {
    Operations::new().merge(operations!(list_connectors, create_connector))
}

pub use alyt_app::developers::connectors::{
    NAME_MAX_CHARS, RUNTIME_TOKEN_PREFIX, SLUG_MAX_CHARS, SLUG_MIN_CHARS,
};

/// A connector as its developer sees it; never its runtime token.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Connector {
    /// Also the `definitionId` a LIVE key for this connector is issued for.
    pub id: ConnectorId,
    pub slug: String,
    pub name: String,
    /// The connector server's base URL; protocol calls go to
    /// `{serverUrl}/v1/...`.
    pub server_url: String,
    /// Published to the catalogue (installable by any household). False
    /// until the catalogue review publishes it.
    pub published: bool,
    /// Where the connector can be installed while unpublished.
    #[schema(required = true)]
    pub sandbox_tenant_id: Option<TenantId>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
}

impl From<&ConnectorRecord> for Connector {
    fn from(c: &ConnectorRecord) -> Self {
        Self {
            id: c.id,
            slug: c.slug.clone(),
            name: c.name.clone(),
            server_url: c.server_url.clone(),
            published: c.published,
            sandbox_tenant_id: c.sandbox_tenant_id,
            created_at: c.created_at,
        }
    }
}

/// The create answer: the connector and its runtime token, shown this once.
#[derive(Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConnectorWithToken {
    pub connector: Connector,
    /// `svc_rt_…`: the platform sends it as `Authorization: Bearer <token>`
    /// on every call to the connector server, which must refuse calls
    /// without it. Shown once. It is kept as issued (not as a hash), like a
    /// webhook signing secret, because the platform must present it; it is
    /// never logged nor shown again. It is not an App secret and grants no
    /// access to the API.
    pub runtime_token: String,
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateConnectorRequest {
    /// 2-40 characters: lowercase letters, digits and hyphens, starting with
    /// a letter. Unique across the platform.
    #[schema(min_length = 2, max_length = 40, pattern = "^[a-z][a-z0-9-]{1,39}$")]
    pub slug: String,
    /// 1-80 characters; households see it as the integration's name.
    #[schema(min_length = 1, max_length = 80)]
    pub name: String,
    /// The connector server's base URL: https on the hosted platform.
    #[schema(max_length = 2048)]
    pub server_url: String,
}

/// A slug: 2-40 of a-z, 0-9 and '-', starting with a letter.
pub fn check_slug(slug: &str) -> Result<(), ApiError> {
    Ok(connectors::check_slug(slug)?)
}

/// Creates a connector and answers its runtime token, shown this once.
#[utoipa::path(
    post,
    path = "/v1/developers/connectors",
    tag = "developers",
    operation_id = "createConnector",
    security(("bearer" = ["integrations:write"])),
    request_body = CreateConnectorRequest,
    responses(
        (status = 201, description = "The connector and its runtime token (shown once)", body = ConnectorWithToken),
        (status = 400, description = "A field is wrong: slug, name, serverUrl (refused by the outbound policy)", body = Problem, content_type = "application/problem+json"),
        NoDeveloperSessionOrKey,
        MayNotWriteConnectors,
        (status = 409, description = "The slug is taken, or the developer has no sandbox tenant yet", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn create_connector(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Body(request): Body<CreateConnectorRequest>,
) -> Result<(StatusCode, Json<ConnectorWithToken>), ApiError> {
    let new = NewConnector {
        slug: request.slug,
        name: request.name,
        server_url: request.server_url,
    };
    let (record, runtime_token) = connectors::create_connector(&state, &caller, new).await?;
    Ok((
        StatusCode::CREATED,
        Json(ConnectorWithToken {
            connector: Connector::from(&record),
            runtime_token,
        }),
    ))
}

/// The developer's connectors, oldest first; never their runtime tokens.
#[utoipa::path(
    get,
    path = "/v1/developers/connectors",
    tag = "developers",
    operation_id = "listConnectors",
    security(("bearer" = ["integrations:read"])),
    params(PageParams),
    responses(
        (status = 200, description = "One page of connectors", body = ListResponse<Connector>),
        BadPage,
        NoDeveloperSessionOrKey,
        MayNotReadConnectors,
    )
)]
pub async fn list_connectors(
    State(state): State<AppState>,
    Caller(caller): Caller,
    Params(page): Params<PageParams>,
) -> Result<Json<ListResponse<Connector>>, ApiError> {
    let found = connectors::connectors_page(&state, &caller, &page.paging()).await?;
    Ok(listed(found, |r| Connector::from(&r)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_lowercase_words_starting_with_a_letter() {
        for good in ["lan-bridge", "ab", "x1", &"a".repeat(40)] {
            assert!(check_slug(good).is_ok(), "{good}");
        }
        for bad in [
            "a",
            "1abc",
            "-ab",
            "Lan",
            "lan_bridge",
            "lan bridge",
            "",
            &"a".repeat(41),
            "é-ab",
        ] {
            let e = check_slug(bad).unwrap_err();
            assert_eq!(e.field.as_deref(), Some("slug"), "{bad}");
        }
    }
}
