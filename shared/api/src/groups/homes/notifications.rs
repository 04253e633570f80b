//! A household's notifications (each raised as a `notification.raised` event):
//! `GET /v1/notifications?tenantId&propertyId?`, newest first, paginated.
//!
//! Who sees what: a key needs `notifications:read` and sees its tenants';
//! platform staff and the tenant's ADMIN/INSTALLER see the tenant's (all of
//! them, or one home's); household OWNERs and MEMBERs see those of their
//! households' homes and of their households (memberships; with
//! `propertyId`, only a guest's membership of that home is about it);
//! notifications about no home and no household, such as a disabled
//! webhook, are the tenant's, not a household's; a GUEST controls the
//! pinned home but does not read its notifications. Another tenant, or a
//! home the caller does not reach, is the same 404 as a missing one.

use crate::routing::{Operations, operations};
use alyt_app::notifications;
use alyt_domain::ids::{ClientId, DeviceId, PropertyId, TenantId};
use alyt_store::repo::notifications::NotificationRecord;
use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::auth::Caller;
use crate::conventions::extract::ApiQuery;
use crate::conventions::list::{ListResponse, PageParams, listed};
use crate::conventions::problem::Problem;
use crate::conventions::responses::{BadPropertyPage, NoValidToken};
use crate::{ApiError, AppState};

pub fn routes() -> Operations {
    Operations::new().merge(operations!(list_notifications))
}

/// A tenant notification, as `notification.raised` announced it.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Notification {
    pub id: Uuid,
    pub tenant_id: TenantId,
    /// The home it concerns; null for the tenant's own (a disabled webhook)
    /// and for a whole household's (a membership).
    #[schema(required = true)]
    pub property_id: Option<PropertyId>,
    /// The household it concerns (memberships).
    #[schema(required = true)]
    pub client_id: Option<ClientId>,
    /// What raised it: `device.alert`, `membership.granted`,
    /// `membership.ended`, `webhook.disabled`.
    pub kind: String,
    pub title: String,
    pub body: String,
    #[schema(required = true)]
    pub device_id: Option<DeviceId>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub at: OffsetDateTime,
}

impl From<NotificationRecord> for Notification {
    fn from(n: NotificationRecord) -> Self {
        Self {
            id: n.id,
            tenant_id: n.tenant_id,
            property_id: n.property_id,
            client_id: n.client_id,
            kind: n.kind,
            title: n.title,
            body: n.body,
            device_id: n.device_id,
            at: n.at,
        }
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct NotificationQuery {
    pub tenant_id: TenantId,
    /// One home's notifications only.
    pub property_id: Option<PropertyId>,
    /// Items per page, 1 to 200 (default 50).
    pub limit: Option<u32>,
    /// The `nextCursor` of the previous page.
    pub cursor: Option<String>,
}

/// The notifications of a tenant's homes the caller reads, newest first.
#[utoipa::path(
    get,
    path = "/v1/notifications",
    tag = "homes",
    operation_id = "listNotifications",
    params(NotificationQuery),
    security(("bearer" = ["notifications:read"])),
    responses(
        (status = 200, description = "One page of notifications, newest first", body = ListResponse<Notification>),
        BadPropertyPage,
        NoValidToken,
        (status = 403, description = "A key without notifications:read, or a guest", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tenant or home (or not one of the caller's)", body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn list_notifications(
    State(state): State<AppState>,
    Caller(caller): Caller,
    ApiQuery(query): ApiQuery<NotificationQuery>,
) -> Result<Json<ListResponse<Notification>>, ApiError> {
    let paging = PageParams::new(query.limit, query.cursor).paging();
    let found = notifications::notifications_page(
        &state,
        &caller,
        query.tenant_id,
        query.property_id,
        &paging,
    )
    .await?;
    Ok(listed(found, Notification::from))
}
