//! The list envelope `{ items, nextCursor }` and the paging parameters every
//! list takes. The cursors themselves (opaque, bound to the list they came
//! from) are [`alyt_app::paging`]'s.

use alyt_domain::ids::TenantId;
use alyt_store::{ListScope, PageKey};
use axum::Json;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::ApiError;

pub use alyt_app::paging::{DEFAULT_LIMIT, MAX_LIMIT, Paging, decode_cursor, encode_cursor};

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ListResponse<T> {
    pub items: Vec<T>,
    /// Pass as `cursor` to get the next page; null on the last page.
    #[schema(required = true)]
    pub next_cursor: Option<String>,
}

impl<T> ListResponse<T> {
    /// One page of `items`, with the cursor of `next` (where the store
    /// continues) when more remain.
    pub fn page(items: Vec<T>, next: Option<&PageKey>) -> Self {
        Self {
            items,
            next_cursor: next.map(encode_cursor),
        }
    }
}

/// The envelope of one page a repository read (its records and the position
/// it stopped at), each record turned into its view: how a list handler answers.
pub fn listed<R, T>(
    (records, next): (Vec<R>, Option<PageKey>),
    view: impl FnMut(R) -> T,
) -> Json<ListResponse<T>> {
    Json(ListResponse::page(
        records.into_iter().map(view).collect(),
        next.as_ref(),
    ))
}

/// `?tenantId&limit&cursor`: the query of a list within one tenant.
#[derive(Debug, Clone, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct TenantPage {
    pub tenant_id: TenantId,
    /// Items per page, 1 to 200 (default 50).
    pub limit: Option<u32>,
    /// The `nextCursor` of the previous page.
    pub cursor: Option<String>,
}

impl TenantPage {
    pub fn page(&self) -> PageParams {
        PageParams::new(self.limit, self.cursor.clone())
    }
}

/// The paging parameters every list operation takes.
#[derive(Debug, Clone, Default, Deserialize, IntoParams, PartialEq)]
#[into_params(parameter_in = Query)]
pub struct PageParams {
    /// Items per page, 1 to 200 (default 50).
    pub limit: Option<u32>,
    /// The `nextCursor` of the previous page.
    pub cursor: Option<String>,
}

impl PageParams {
    /// The paging fields of an operation's own query.
    pub fn new(limit: Option<u32>, cursor: Option<String>) -> Self {
        Self { limit, cursor }
    }

    pub fn limit(&self) -> Result<u32, ApiError> {
        Ok(alyt_app::paging::checked_limit(self.limit)?)
    }

    /// The page size and cursor for a use case to check in its own order.
    pub fn paging(&self) -> Paging {
        Paging::new(self.limit, self.cursor.clone())
    }

    /// The cursor of the list `scope` (handed out by its repository): a
    /// cursor of another list (another device, another metric, a table list
    /// where an index list is read) is refused with 400 rather than reaching
    /// the store.
    pub fn after_within(&self, scope: &ListScope) -> Result<Option<PageKey>, ApiError> {
        Ok(self.paging().after_within(scope)?)
    }

    /// The limit, then the cursor within `scope`, both checked (in that
    /// order, so a bad limit is named first).
    pub fn within(&self, scope: &ListScope) -> Result<(u32, Option<PageKey>), ApiError> {
        Ok((self.limit()?, self.after_within(scope)?))
    }

    pub fn after(&self) -> Result<Option<PageKey>, ApiError> {
        Ok(self.cursor.as_deref().map(decode_cursor).transpose()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alyt_store::Index;
    use proptest::prelude::*;

    #[test]
    fn limit_bounds() {
        let p = |limit| PageParams {
            limit,
            cursor: None,
        };
        assert_eq!(p(None).limit().unwrap(), DEFAULT_LIMIT);
        assert_eq!(p(Some(1)).limit().unwrap(), 1);
        assert_eq!(p(Some(200)).limit().unwrap(), 200);
        assert_eq!(
            p(Some(0)).limit().unwrap_err().field.as_deref(),
            Some("limit")
        );
        assert!(p(Some(201)).limit().is_err());
    }

    #[test]
    fn cursors_are_bound_to_the_partition_their_list_reads() {
        let table = PageKey {
            pk: "TENANT#a".into(),
            sk: "INTEGRATION#1".into(),
            index_pk: None,
            index_sk: None,
        };
        let index = PageKey {
            pk: "TENANT#a".into(),
            sk: "ENDPOINT#1".into(),
            index_pk: Some("INTEGRATION#1".into()),
            index_sk: Some("ENDPOINT#1".into()),
        };
        let params = |at: &PageKey| PageParams {
            limit: None,
            cursor: Some(encode_cursor(at)),
        };
        assert_eq!(
            params(&table)
                .after_within(&ListScope::Table("TENANT#a".into()))
                .unwrap(),
            Some(table.clone())
        );
        assert!(
            params(&table)
                .after_within(&ListScope::Table("TENANT#b".into()))
                .is_err()
        );
        assert!(
            params(&index)
                .after_within(&ListScope::Table("TENANT#a".into()))
                .is_err(),
            "an index cursor"
        );
        assert_eq!(
            params(&index)
                .after_within(&ListScope::Index(Index::Gsi2, "INTEGRATION#1".into()))
                .unwrap(),
            Some(index.clone())
        );
        assert!(
            params(&index)
                .after_within(&ListScope::Index(Index::Gsi2, "INTEGRATION#2".into()))
                .is_err()
        );
        assert!(
            params(&table)
                .after_within(&ListScope::Index(Index::Gsi1, "TENANT#a".into()))
                .is_err(),
            "a table cursor"
        );
        assert_eq!(
            PageParams::default()
                .after_within(&ListScope::Index(Index::Gsi1, "X".into()))
                .unwrap(),
            None
        );
    }

    proptest! {
        #[test]
        fn cursors_round_trip(pk in ".{1,40}", sk in ".{1,40}", index in proptest::option::of((".{1,20}", ".{1,20}"))) {
            let at = PageKey {
                pk, sk,
                index_pk: index.as_ref().map(|i| i.0.clone()),
                index_sk: index.map(|i| i.1),
            };
            prop_assert_eq!(decode_cursor(&encode_cursor(&at)).unwrap(), at);
        }

        /// Arbitrary text never panics the decoder; it is a 400 on `cursor` or a valid position.
        #[test]
        fn garbage_cursors_are_rejected_cleanly(text in ".{0,300}") {
            if let Err(e) = decode_cursor(&text) {
                let e = ApiError::from(e);
                prop_assert_eq!(e.status.as_u16(), 400);
                prop_assert_eq!(e.field.as_deref(), Some("cursor"));
            }
        }
    }
}
