//! What every handler may use: the application state a runtime builds from
//! its adapters ([`AppState::build`]) and the settings it chooses. It knows
//! no operation group, so every group can depend on it.

use std::sync::Arc;

use alyt_app::App;
pub use alyt_app::EventsSettings;

use crate::auth::TokenSigner;
use crate::conventions::ratelimit::RateLimiter;

/// What every handler may use: the application's ports and settings
/// ([`App`], which the handlers reach through this state as if they were
/// its own fields) plus what only HTTP needs. Built from local adapters by
/// the `alyt` binary and from hosted adapters by each Lambda; handlers
/// cannot tell which.
///
/// The application sits behind an `Arc`: every request clones the state
/// (axum's `State`), and a clone of the `App` itself copies a dozen `Arc`s
/// and its strings.
#[derive(Clone)]
pub struct AppState {
    pub app: Arc<App>,
    pub limiter: Arc<RateLimiter>,
    pub tokens: Arc<TokenSigner>,
}

impl std::ops::Deref for AppState {
    type Target = App;
    fn deref(&self) -> &App {
        &self.app
    }
}

impl std::ops::DerefMut for AppState {
    /// For a runtime setting its fields before it serves (the state is
    /// not shared yet, so nothing is copied).
    fn deref_mut(&mut self) -> &mut App {
        Arc::make_mut(&mut self.app)
    }
}

pub use alyt_app::Adapters;

/// Settings a runtime chooses.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    pub rate_limit: crate::conventions::ratelimit::RateLimitPolicy,
    pub public_url: String,
    pub token_key: TokenKey,
}

/// Which keys sign and verify the platform's tokens.
#[derive(Clone, Default)]
pub enum TokenKey {
    /// The platform's keys in the store (the current one created on first
    /// use): the local platform, and a hosted runtime given no secret.
    #[default]
    Stored,
    /// The keys of a source of the runtime's own (hosted: a Secrets Manager
    /// secret), read again as the source says.
    Source(Arc<dyn crate::auth::jwt::SigningKeySource>),
    /// A key of this process only, never read from the store: tokens it
    /// signs are accepted nowhere else. For a worker that neither signs nor
    /// verifies (the routine runner), so its role need not read the key.
    ThisProcessOnly,
}

impl std::fmt::Debug for TokenKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TokenKey::Stored => "Stored",
            TokenKey::Source(_) => "Source",
            TokenKey::ThisProcessOnly => "ThisProcessOnly",
        })
    }
}

impl AppState {
    /// The state over the given adapters: loads (or creates) the token signing
    /// key from the store.
    pub async fn build(
        adapters: Adapters,
        settings: Settings,
    ) -> Result<Self, alyt_store::StoreError> {
        let app = App::new(adapters, settings.public_url.clone())?;
        Self::over(app, settings).await
    }

    /// The HTTP state over an application a runtime built: the token key
    /// and the rate limiter added.
    pub async fn over(app: App, settings: Settings) -> Result<Self, alyt_store::StoreError> {
        let tokens = Arc::new(match settings.token_key {
            TokenKey::Stored => {
                let stored = Arc::new(crate::auth::jwt::StoredSigningKeys(app.store.clone()));
                TokenSigner::from_source(stored, app.clock.unix_seconds()).await?
            }
            TokenKey::Source(source) => {
                TokenSigner::from_source(source, app.clock.unix_seconds()).await?
            }
            TokenKey::ThisProcessOnly => TokenSigner::this_process_only(),
        });
        Ok(Self {
            limiter: Arc::new(RateLimiter::new(settings.rate_limit, app.clock.clone())),
            tokens,
            app: Arc::new(app),
        })
    }

    /// The same state with another simulator control (the local platform's
    /// in-process runner).
    pub fn with_simulator(mut self, simulator: Arc<dyn crate::ports::SimulatorControl>) -> Self {
        self.simulator = simulator;
        self
    }
}
