//! The console (issue 22): the web app built from `console/` into
//! `console/dist/` (committed; tests/run rebuilds it and fails on drift),
//! compiled into the binary and served at `/` (the page) and
//! `/console/{file}` (its script, styles and icon sprite). The app talks to
//! the API like any client: nothing here reads the store.

use std::sync::OnceLock;

use axum::Router;
use axum::extract::Path;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use sha2::{Digest, Sha256};

/// One built file.
struct Asset {
    name: &'static str,
    content_type: &'static str,
    body: &'static [u8],
}

const INDEX: Asset = Asset {
    name: "index.html",
    content_type: "text/html; charset=utf-8",
    body: include_bytes!("../../../console/dist/index.html"),
};

const ASSETS: [Asset; 3] = [
    Asset {
        name: "app.js",
        content_type: "text/javascript; charset=utf-8",
        body: include_bytes!("../../../console/dist/app.js"),
    },
    Asset {
        name: "app.css",
        content_type: "text/css; charset=utf-8",
        body: include_bytes!("../../../console/dist/app.css"),
    },
    Asset {
        name: "icons.svg",
        content_type: "image/svg+xml",
        body: include_bytes!("../../../console/dist/icons.svg"),
    },
];

/// The console's routes; merge them into an application whose fallback
/// answers everything else.
pub fn routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new()
        .route(
            "/",
            get(|headers: HeaderMap| async move { serve(&INDEX, &headers) }),
        )
        .route("/console/{file}", get(asset))
}

async fn asset(Path(file): Path<String>, headers: HeaderMap) -> Response {
    match ASSETS.iter().find(|a| a.name == file) {
        Some(asset) => serve(asset, &headers),
        None => (
            StatusCode::NOT_FOUND,
            [(header::CONTENT_TYPE, "application/problem+json")],
            r#"{"type":"about:blank","title":"Not Found","status":404,"detail":"no such console file"}"#,
        )
            .into_response(),
    }
}

/// The file with an ETag of its content: browsers revalidate (`no-cache`)
/// and get 304 until a new build ships.
fn serve(asset: &'static Asset, headers: &HeaderMap) -> Response {
    let etag = etag_of(asset);
    let fresh = headers
        .get(header::IF_NONE_MATCH)
        .is_some_and(|given| given.as_bytes() == etag.as_bytes());
    let common = [
        (header::ETAG, HeaderValue::from_str(etag).expect("hex")),
        (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
        (
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ),
    ];
    if fresh {
        return (StatusCode::NOT_MODIFIED, common).into_response();
    }
    // The page loads only its own files and talks only to its own origin.
    let policy = if asset.name == INDEX.name {
        "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
    } else {
        "default-src 'none'"
    };
    (
        common,
        [
            (header::CONTENT_TYPE, asset.content_type),
            (header::CONTENT_SECURITY_POLICY, policy),
        ],
        asset.body,
    )
        .into_response()
}

fn etag_of(asset: &'static Asset) -> &'static str {
    static TAGS: OnceLock<Vec<(&'static str, String)>> = OnceLock::new();
    let tags = TAGS.get_or_init(|| {
        std::iter::once(&INDEX)
            .chain(ASSETS.iter())
            .map(|a| {
                (
                    a.name,
                    format!("\"{}\"", &hex::encode(Sha256::digest(a.body))[..32]),
                )
            })
            .collect()
    });
    tags.iter()
        .find(|(name, _)| *name == asset.name)
        .map(|(_, tag)| tag.as_str())
        .expect("every asset is tagged")
}

#[cfg(test)]
mod tests {
    use axum::body::Body;
    use axum::http::Request;
    use http_body_util::BodyExt;
    use tower::ServiceExt;

    use super::*;

    async fn get(path: &str, etag: Option<&str>) -> Response {
        let mut request = Request::get(path);
        if let Some(tag) = etag {
            request = request.header(header::IF_NONE_MATCH, tag);
        }
        routes::<()>()
            .oneshot(request.body(Body::empty()).unwrap())
            .await
            .unwrap()
    }

    #[tokio::test]
    async fn the_page_and_its_files_are_served_and_revalidated() {
        let page = get("/", None).await;
        assert_eq!(page.status(), StatusCode::OK);
        assert_eq!(
            page.headers()[header::CONTENT_TYPE],
            "text/html; charset=utf-8"
        );
        assert!(
            page.headers()[header::CONTENT_SECURITY_POLICY]
                .to_str()
                .unwrap()
                .starts_with("default-src 'self'")
        );
        let tag = page.headers()[header::ETAG].to_str().unwrap().to_owned();
        let body = page.into_body().collect().await.unwrap().to_bytes();
        assert!(String::from_utf8_lossy(&body).contains("/console/app.js"));

        assert_eq!(
            get("/", Some(&tag)).await.status(),
            StatusCode::NOT_MODIFIED
        );
        let script = get("/console/app.js", None).await;
        assert_eq!(script.status(), StatusCode::OK);
        assert_ne!(script.headers()[header::ETAG].to_str().unwrap(), tag);
        assert_eq!(
            get("/console/icons.svg", None).await.headers()[header::CONTENT_TYPE],
            "image/svg+xml"
        );

        let missing = get("/console/secrets.txt", None).await;
        assert_eq!(missing.status(), StatusCode::NOT_FOUND);
        assert_eq!(
            missing.headers()[header::CONTENT_TYPE],
            "application/problem+json"
        );
    }
}
