//! The built-in connectors the local platform serves: the virtual bridge on
//! a loopback port of its own, so a household can install it from the
//! catalogue like any connector. Its connector record is written at every
//! start (the port and the runtime token change); what it pairs lives in
//! its memory, so installations from an earlier run no longer reach it.

use alyt_app::catalogue::built_in_connector;
use alyt_connectors::bridge::{RunningBridge, VirtualBridge};
use alyt_connectors::catalogue::{VIRTUAL_BRIDGE, VIRTUAL_BRIDGE_CODE, built_in_definitions};
use alyt_store::Store;
use alyt_store::repo::integrations::Integrations;
use time::OffsetDateTime;

/// Serves the virtual bridge and records it as an installable connector.
/// `None` (logged) when it cannot: the platform runs without it.
pub async fn serve_virtual_bridge(store: &dyn Store, now: OffsetDateTime) -> Option<RunningBridge> {
    let definition = built_in_definitions()
        .into_iter()
        .find(|d| d.slug == VIRTUAL_BRIDGE)?;
    let runtime_token = format!("svc_rt_{}", alyt_domain::secret::random_token());
    let bridge = VirtualBridge::new(runtime_token.clone(), VIRTUAL_BRIDGE_CODE);
    let running = match bridge.serve("127.0.0.1:0").await {
        Ok(running) => running,
        Err(e) => {
            tracing::warn!(error = %e, "the built-in virtual bridge could not listen");
            return None;
        }
    };
    let record = built_in_connector(&definition, running.url().to_owned(), runtime_token, now)?;
    if let Err(e) = Integrations(store).put_built_in(&record).await {
        tracing::warn!(error = %e, "the built-in virtual bridge could not be recorded");
        return None;
    }
    tracing::info!(addr = %running.addr(), "built-in virtual bridge served");
    Some(running)
}
