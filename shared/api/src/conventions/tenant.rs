//! The tenant a household operation acts in: the `tenantId` query
//! parameter, as every household operation takes it. An operation whose body
//! has carried `tenantId` too keeps accepting it there; given both ways, the
//! two must agree.

use alyt_domain::ids::TenantId;
use serde::Deserialize;
use utoipa::IntoParams;

use crate::ApiError;

/// `?tenantId=` of an operation whose body may name the tenant instead.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct TenantQuery {
    /// The tenant (or `tenantId` in the body).
    pub tenant_id: Option<TenantId>,
}

impl TenantQuery {
    /// The tenant from the query or `body` (the body's `tenantId`): 400
    /// (`tenantId`) when neither names one or the two differ.
    pub fn or_body(&self, body: Option<TenantId>) -> Result<TenantId, ApiError> {
        match (self.tenant_id, body) {
            (Some(q), Some(b)) if q != b => Err(ApiError::validation(
                "tenantId",
                "the tenantId of the query and the tenantId of the body differ",
            )),
            (Some(tenant), _) | (None, Some(tenant)) => Ok(tenant),
            (None, None) => Err(ApiError::validation(
                "tenantId",
                "tenantId is required, as a query parameter or in the body",
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tenant_comes_from_the_query_or_the_body_and_both_must_agree() {
        let (a, b) = (TenantId::new(), TenantId::new());
        let query = |tenant_id| TenantQuery { tenant_id };
        assert_eq!(query(Some(a)).or_body(None).unwrap(), a);
        assert_eq!(query(None).or_body(Some(a)).unwrap(), a);
        assert_eq!(query(Some(a)).or_body(Some(a)).unwrap(), a);
        for (q, body) in [(Some(a), Some(b)), (None, None)] {
            let e = query(q).or_body(body).unwrap_err();
            assert_eq!(e.field.as_deref(), Some("tenantId"));
        }
    }
}
