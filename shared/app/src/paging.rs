//! Pages of a list: how many items, and where the page before stopped.
//!
//! A cursor is the store's page position, base64url-encoded. It is opaque to
//! clients, and it cannot reach outside the list it came from: a position
//! outside the partition the use case reads (which the caller's rights
//! decided) is refused as a bad `cursor`, never another tenant's data.

use alyt_store::{ListScope, PageKey};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};

use crate::Error;

/// Items per page when the caller does not say.
pub const DEFAULT_LIMIT: u32 = 50;
/// Most items per page.
pub const MAX_LIMIT: u32 = 200;

/// What a list request asks for: a page size and the cursor of the page
/// before, both as the caller sent them. The use case checks them in the
/// order its answers promise (the size, typically, before access, and the
/// cursor against the list the caller may read once that is decided).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Paging {
    pub limit: Option<u32>,
    pub cursor: Option<String>,
}

impl Paging {
    pub fn new(limit: Option<u32>, cursor: Option<String>) -> Self {
        Self { limit, cursor }
    }

    /// The page size: default [`DEFAULT_LIMIT`], 1 to [`MAX_LIMIT`].
    pub fn limit(&self) -> Result<u32, Error> {
        checked_limit(self.limit)
    }

    /// The position the cursor names within `scope`: a cursor of another
    /// list (another device, another metric, a table list where an index
    /// list is read) is refused rather than reaching the store.
    pub fn after_within(&self, scope: &ListScope) -> Result<Option<PageKey>, Error> {
        match self.cursor.as_deref().map(decode_cursor).transpose()? {
            Some(at) if !scope.holds(&at) => Err(Error::validation(
                "cursor",
                "the cursor belongs to another list",
            )),
            after => Ok(after),
        }
    }
}

/// A page size the caller asked for, checked.
pub fn checked_limit(limit: Option<u32>) -> Result<u32, Error> {
    match limit {
        None => Ok(DEFAULT_LIMIT),
        Some(n) if (1..=MAX_LIMIT).contains(&n) => Ok(n),
        Some(n) => Err(Error::validation(
            "limit",
            format!("limit must be between 1 and {MAX_LIMIT}, not {n}"),
        )),
    }
}

/// Versioned so the format can change without breaking old cursors silently.
#[derive(Serialize, Deserialize)]
struct CursorV1 {
    v: u8,
    #[serde(flatten)]
    at: PageKey,
}

/// The cursor a client passes back to continue after `at`.
pub fn encode_cursor(at: &PageKey) -> String {
    let body = serde_json::to_vec(&CursorV1 {
        v: 1,
        at: at.clone(),
    })
    .unwrap_or_default();
    URL_SAFE_NO_PAD.encode(body)
}

/// The position a cursor names, or a bad `cursor` when it is not one a list
/// handed out.
pub fn decode_cursor(cursor: &str) -> Result<PageKey, Error> {
    let invalid = || Error::validation("cursor", "the cursor is not one this list handed out");
    if cursor.len() > 2048 {
        return Err(invalid());
    }
    let bytes = URL_SAFE_NO_PAD.decode(cursor).map_err(|_| invalid())?;
    let parsed: CursorV1 = serde_json::from_slice(&bytes).map_err(|_| invalid())?;
    if parsed.v != 1 {
        return Err(invalid());
    }
    Ok(parsed.at)
}
