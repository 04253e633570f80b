//! The homes operation group as a Lambda behind API Gateway (HTTP API, payload 2.0).
//! The router is the same one the local platform serves; only the adapters differ.

use std::net::IpAddr;
use std::sync::Arc;

use alyt_api::ports::{NoBotCheck, NoMailer};
use alyt_api::ratelimit::RateLimitPolicy;
use alyt_api::{Adapters, AppState, ClientAddr, Group, Settings};
use alyt_aws::DynamoStore;
use alyt_domain::{Clock, SystemClock};
use lambda_http::request::RequestContext;

/// The hosted state: DynamoDB (table from `ALYT_TABLE`) and the wall clock.
pub async fn hosted_state() -> Result<AppState, lambda_http::Error> {
    let table = std::env::var("ALYT_TABLE").map_err(|_| "ALYT_TABLE is not set")?;
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let store = DynamoStore::from_env(table, clock.clone()).await;
    Ok(state_with(Arc::new(store), clock).await?)
}

pub async fn state_with(
    store: Arc<dyn alyt_store::Store>,
    clock: Arc<dyn Clock>,
) -> Result<AppState, alyt_store::StoreError> {
    AppState::build(
        Adapters {
            store,
            clock,
            // The homes group sends no mail and offers no sign-up.
            mailer: Arc::new(NoMailer),
            bot_check: Arc::new(NoBotCheck),
        },
        Settings {
            rate_limit: RateLimitPolicy::default(),
            public_url: std::env::var("ALYT_PUBLIC_URL").unwrap_or_default(),
        },
    )
    .await
}

/// The router this function serves, with the caller's address taken from API
/// Gateway's request context (never from a client-supplied header).
pub fn router(state: AppState) -> axum::Router {
    alyt_api::app(state, &[Group::Homes]).layer(axum::middleware::from_fn(client_addr))
}

async fn client_addr(
    mut request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    if let Some(ip) = source_ip(&request) {
        request.extensions_mut().insert(ClientAddr(ip));
    }
    next.run(request).await
}

fn source_ip(request: &axum::extract::Request) -> Option<IpAddr> {
    // lambda_http keeps API Gateway's request context in the extensions.
    match request.extensions().get::<RequestContext>()? {
        RequestContext::ApiGatewayV2(context) => context.http.source_ip.as_deref()?.parse().ok(),
        #[allow(unreachable_patterns)]
        _ => None,
    }
}
