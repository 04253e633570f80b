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
/// answers everything else. The page may connect only to its own origin.
pub fn routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    routes_connecting_to(None)
}

/// [`routes`] for a hosted stack, whose event stream is served from another
/// origin (the stream function's URL, `ALYT_STREAM_URL`): the page may
/// connect there too.
pub fn routes_connecting_to<S: Clone + Send + Sync + 'static>(
    stream_url: Option<&str>,
) -> Router<S> {
    let policy = page_policy(stream_url);
    Router::new()
        .route(
            "/",
            get(move |headers: HeaderMap| {
                let policy = policy.clone();
                async move { serve(&INDEX, &headers, policy) }
            }),
        )
        .route("/console/{file}", get(asset))
}

/// The page loads only its own files and talks only to its own origin (and
/// the stream's, when that is elsewhere).
fn page_policy(stream_url: Option<&str>) -> HeaderValue {
    let stream_origin = stream_url
        .and_then(|u| u.split_once("://"))
        .filter(|(scheme, _)| *scheme == "https" || *scheme == "http")
        .map(|(scheme, rest)| format!(" {scheme}://{}", rest.split('/').next().unwrap_or_default()))
        .filter(|origin| origin.chars().all(|c| c.is_ascii_graphic() || c == ' '))
        .unwrap_or_default();
    HeaderValue::from_str(&format!(
        "default-src 'self'; connect-src 'self'{stream_origin}; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
    ))
    .expect("an ASCII policy")
}

async fn asset(Path(file): Path<String>, headers: HeaderMap) -> Response {
    match ASSETS.iter().find(|a| a.name == file) {
        Some(asset) => serve(asset, &headers, HeaderValue::from_static("default-src 'none'")),
        None => (
            StatusCode::NOT_FOUND,
            [(header::CONTENT_TYPE, "application/problem+json")],
            r#"{"type":"about:blank","title":"Not Found","status":404,"detail":"no such console file"}"#,
        )
            .into_response(),
    }
}

/// The file with an ETag of its content (browsers revalidate, `no-cache`,
/// and get 304 until a new build ships) and its content security policy.
fn serve(asset: &'static Asset, headers: &HeaderMap, policy: HeaderValue) -> Response {
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
    (
        common,
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static(asset.content_type),
            ),
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

        let hosted = routes_connecting_to::<()>(Some("https://abc.lambda-url.eu-west-1.on.aws/"))
            .oneshot(Request::get("/").body(Body::empty()).unwrap())
            .await
            .unwrap();
        let policy = hosted.headers()[header::CONTENT_SECURITY_POLICY]
            .to_str()
            .unwrap();
        assert!(
            policy.contains("connect-src 'self' https://abc.lambda-url.eu-west-1.on.aws;"),
            "{policy}"
        );
        assert!(
            page_policy(Some("javascript:alert(1)"))
                .to_str()
                .unwrap()
                .contains("connect-src 'self';")
        );

        let missing = get("/console/secrets.txt", None).await;
        assert_eq!(missing.status(), StatusCode::NOT_FOUND);
        assert_eq!(
            missing.headers()[header::CONTENT_TYPE],
            "application/problem+json"
        );
    }
}
