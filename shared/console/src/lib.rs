//! The console: the web app built from `console/` into
//! `console/dist/` (committed; tests/run rebuilds it and fails on drift),
//! compiled into the binary and served at `/` (the page), `/invitation`
//! and `/reset-password` (the same page, where a mailed invitation or
//! password-reset link lands with its token in the query) and
//! `/console/{file}` (its script, styles and icon sprite).
//! The app talks to the API like any client: nothing here reads the store.

use std::sync::OnceLock;

use axum::Router;
use axum::body::Bytes;
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

/// What the page needs to know beyond its files, from the environment of
/// the process that serves it (both runtimes read the same variables).
#[derive(Debug, Clone, Default)]
pub struct ConsoleSettings {
    /// `ALYT_STREAM_URL`: where a hosted stack streams events (the stream
    /// function's URL); the page may connect there too.
    pub stream_url: Option<String>,
    /// `ALYT_TURNSTILE_SITE_KEY`: Cloudflare Turnstile's site key (public):
    /// the sign-up page shows its widget. Without it the page sends
    /// Turnstile's test token, which only the local bot check accepts.
    pub turnstile_site_key: Option<String>,
}

/// Turnstile's script and frames come from here.
const TURNSTILE_ORIGIN: &str = "https://challenges.cloudflare.com";

impl ConsoleSettings {
    pub fn from_env() -> Self {
        let var = |name| std::env::var(name).ok().filter(|v: &String| !v.is_empty());
        Self {
            stream_url: var("ALYT_STREAM_URL"),
            turnstile_site_key: var("ALYT_TURNSTILE_SITE_KEY"),
        }
    }

    /// The site key, when it is one (letters, digits, `-`, `_`): anything
    /// else is left out of the page rather than written into it.
    fn site_key(&self) -> Option<&str> {
        self.turnstile_site_key.as_deref().filter(|key| {
            !key.is_empty()
                && key.len() <= 100
                && key
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        })
    }

    /// The page loads only its own files and talks only to its own origin,
    /// the stream's when that is elsewhere, and Turnstile when it is on.
    fn page_policy(&self) -> HeaderValue {
        let stream_origin = self
            .stream_url
            .as_deref()
            .and_then(|u| u.split_once("://"))
            .filter(|(scheme, _)| *scheme == "https" || *scheme == "http")
            .map(|(scheme, rest)| {
                format!(" {scheme}://{}", rest.split('/').next().unwrap_or_default())
            })
            .filter(|origin| origin.chars().all(|c| c.is_ascii_graphic() || c == ' '))
            .unwrap_or_default();
        let (scripts, frames, turnstile) = match self.site_key() {
            Some(_) => (
                format!("; script-src 'self' {TURNSTILE_ORIGIN}"),
                format!("; frame-src {TURNSTILE_ORIGIN}"),
                format!(" {TURNSTILE_ORIGIN}"),
            ),
            None => Default::default(),
        };
        HeaderValue::from_str(&format!(
            "default-src 'self'; connect-src 'self'{stream_origin}{turnstile}{scripts}{frames}; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
        ))
        .expect("an ASCII policy")
    }

    /// The page with what it must know written in as meta tags.
    fn page(&self) -> Vec<u8> {
        let html = String::from_utf8_lossy(INDEX.body);
        match self.site_key() {
            Some(key) => html
                .replacen(
                    "</head>",
                    &format!(
                        "  <meta name=\"alyt-turnstile-site-key\" content=\"{key}\" />\n  </head>"
                    ),
                    1,
                )
                .into_bytes(),
            None => INDEX.body.to_vec(),
        }
    }
}

/// The console's routes with no settings (the page connects only to its
/// own origin and signs up with the local bot check's test token); merge
/// them into an application whose fallback answers everything else.
pub fn routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    routes_with(&ConsoleSettings::default())
}

/// The console's routes for `settings`.
pub fn routes_with<S: Clone + Send + Sync + 'static>(settings: &ConsoleSettings) -> Router<S> {
    let body = Bytes::from(settings.page());
    let page = Page {
        etag: format!("\"{}\"", &hex::encode(Sha256::digest(&body))[..32]),
        body,
        policy: settings.page_policy(),
    };
    let serve = move |headers: HeaderMap| {
        let page = page.clone();
        async move { page.serve(&headers) }
    };
    Router::new()
        .route("/", get(serve.clone()))
        // The page reads the link's token from the query, which no request
        // log writes (they name the path), and takes it out of the address.
        .route("/invitation", get(serve.clone()))
        .route("/reset-password", get(serve))
        .route("/console/{file}", get(asset))
}

/// The page as this process serves it.
#[derive(Clone)]
struct Page {
    body: Bytes,
    policy: HeaderValue,
    etag: String,
}

impl Page {
    fn serve(&self, headers: &HeaderMap) -> Response {
        respond(
            &self.etag,
            INDEX.content_type,
            self.body.clone(),
            self.policy.clone(),
            headers,
        )
    }
}

async fn asset(Path(file): Path<String>, headers: HeaderMap) -> Response {
    match ASSETS.iter().find(|a| a.name == file) {
        Some(asset) => respond(
            etag_of(asset),
            asset.content_type,
            Bytes::from_static(asset.body),
            HeaderValue::from_static("default-src 'none'"),
            &headers,
        ),
        None => (
            StatusCode::NOT_FOUND,
            [(header::CONTENT_TYPE, "application/problem+json")],
            r#"{"type":"about:blank","title":"Not Found","status":404,"detail":"no such console file"}"#,
        )
            .into_response(),
    }
}

/// A file with its ETag (browsers revalidate, `no-cache`, and get 304 until
/// a new build ships) and its content security policy.
fn respond(
    etag: &str,
    content_type: &'static str,
    body: Bytes,
    policy: HeaderValue,
    headers: &HeaderMap,
) -> Response {
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
            (header::CONTENT_TYPE, HeaderValue::from_static(content_type)),
            (header::CONTENT_SECURITY_POLICY, policy),
        ],
        body,
    )
        .into_response()
}

fn etag_of(asset: &'static Asset) -> &'static str {
    static TAGS: OnceLock<Vec<(&'static str, String)>> = OnceLock::new();
    let tags = TAGS.get_or_init(|| {
        ASSETS
            .iter()
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
        // An invitation link lands on the same page, token and all.
        let invitation = get("/invitation?token=abc", None).await;
        assert_eq!(invitation.status(), StatusCode::OK);
        assert_eq!(invitation.headers()[header::ETAG].to_str().unwrap(), tag);
        // So does a password-reset link.
        let reset = get("/reset-password?token=abc&side=developer", None).await;
        assert_eq!(reset.status(), StatusCode::OK);
        assert_eq!(reset.headers()[header::ETAG].to_str().unwrap(), tag);
        let script = get("/console/app.js", None).await;
        assert_eq!(script.status(), StatusCode::OK);
        assert_ne!(script.headers()[header::ETAG].to_str().unwrap(), tag);
        assert_eq!(
            get("/console/icons.svg", None).await.headers()[header::CONTENT_TYPE],
            "image/svg+xml"
        );

        let settings = ConsoleSettings {
            stream_url: Some("https://abc.lambda-url.eu-west-1.on.aws/".into()),
            turnstile_site_key: Some("0x4AAAAAAA-site_key".into()),
        };
        let hosted = routes_with::<()>(&settings)
            .oneshot(Request::get("/").body(Body::empty()).unwrap())
            .await
            .unwrap();
        let policy = hosted.headers()[header::CONTENT_SECURITY_POLICY]
            .to_str()
            .unwrap()
            .to_owned();
        assert!(
            policy.contains("connect-src 'self' https://abc.lambda-url.eu-west-1.on.aws https://challenges.cloudflare.com;"),
            "{policy}"
        );
        assert!(
            policy.contains("script-src 'self' https://challenges.cloudflare.com"),
            "{policy}"
        );
        let page = hosted.into_body().collect().await.unwrap().to_bytes();
        assert!(
            String::from_utf8_lossy(&page).contains(
                r#"<meta name="alyt-turnstile-site-key" content="0x4AAAAAAA-site_key" />"#
            )
        );
        // Nothing that is not a plain key or an http(s) URL reaches the page.
        let hostile = ConsoleSettings {
            stream_url: Some("javascript:alert(1)".into()),
            turnstile_site_key: Some("\"><script>".into()),
        };
        assert!(!String::from_utf8_lossy(&hostile.page()).contains("<script>\""));
        assert!(!String::from_utf8_lossy(&hostile.page()).contains("turnstile"));
        let policy = hostile.page_policy();
        assert!(
            policy
                .to_str()
                .unwrap()
                .starts_with("default-src 'self'; connect-src 'self'; img-src")
        );

        let missing = get("/console/secrets.txt", None).await;
        assert_eq!(missing.status(), StatusCode::NOT_FOUND);
        assert_eq!(
            missing.headers()[header::CONTENT_TYPE],
            "application/problem+json"
        );
    }
}
