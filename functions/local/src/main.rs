//! `alyt`: the whole platform on this machine, with no AWS.

use std::io::IsTerminal;
use std::process::ExitCode;

use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

#[tokio::main]
async fn main() -> ExitCode {
    // Lines leave in batches (see `log_lines`); the guard writes out the
    // rest when `main` returns.
    let (log_lines, _log_flushed_at_exit) = alyt_local::log_lines::LogLines::to_stdout();
    let (filter, unreadable) = log_filter(std::env::var("RUST_LOG").ok().as_deref());
    tracing_subscriber::registry()
        .with(
            tracing_subscriber::fmt::layer()
                .with_ansi(std::io::stdout().is_terminal())
                .with_writer(log_lines)
                .compact(),
        )
        .with(filter)
        .init();
    if let Some(given) = unreadable {
        tracing::warn!(%given, "RUST_LOG is not a list of target=level directives; logging at info");
    }

    let config = match alyt_local::Config::from_env() {
        Ok(config) => config,
        Err(e) => {
            eprintln!("alyt: {e}");
            return ExitCode::from(2);
        }
    };
    let platform = match alyt_local::spawn(config).await {
        Ok(platform) => platform,
        Err(e) => {
            eprintln!("alyt: {e}");
            return ExitCode::FAILURE;
        }
    };
    // Listen for Ctrl-C before saying where the platform is: whoever reads
    // the address may interrupt at once, and an unheard SIGINT kills the
    // process without the clean stop.
    let stop = match StopSignals::listen() {
        Ok(stop) => stop,
        Err(e) => {
            eprintln!("alyt: cannot listen for Ctrl-C: {e}");
            platform.shutdown().await;
            return ExitCode::FAILURE;
        }
    };
    println!("Alyt is running locally.");
    // The console first: it is where a newcomer starts.
    let base = platform.base_url();
    println!(
        "  Console      {}/   (sign in as the owner below)",
        base.trim_end_matches("/v1")
    );
    println!("  HTTP API     {}", platform.base_url());
    println!("  OpenAPI      {}/openapi.json", platform.base_url());
    println!("  MQTT broker  mqtt://{}", platform.mqtt_addr);
    println!("  data         {}", platform.data_dir.display());
    println!(
        "  mail outbox  {}",
        platform.data_dir.join("outbox").display()
    );
    if let Some(first) = &platform.first_start {
        println!();
        println!(
            "First start: created the platform owner {} and a demo household.",
            first.email
        );
        match &first.generated_password {
            Some(password) => println!("  password     {password}   (shown once: note it now)"),
            None => println!("  password     the one in ALYT_OWNER_PASSWORD"),
        }
        println!(
            "Sign in: curl -s {}/auth/login -H 'content-type: application/json' -d '{{\"email\":\"{}\",\"password\":\"...\"}}'",
            platform.base_url(),
            first.email
        );
    }
    println!();
    println!("Try: curl -i {}/capabilities", platform.base_url());
    println!("Press Ctrl-C to stop.");

    stop.received().await;
    println!("Stopping...");
    platform.shutdown().await;
    println!("Stopped.");
    ExitCode::SUCCESS
}

/// Ctrl-C (SIGINT) and, on Unix, SIGTERM (what `docker stop` and service
/// managers send), registered when made so none is missed.
struct StopSignals {
    #[cfg(unix)]
    interrupt: tokio::signal::unix::Signal,
    #[cfg(unix)]
    terminate: tokio::signal::unix::Signal,
}

impl StopSignals {
    #[cfg(unix)]
    fn listen() -> std::io::Result<Self> {
        use tokio::signal::unix::{SignalKind, signal};
        Ok(Self {
            interrupt: signal(SignalKind::interrupt())?,
            terminate: signal(SignalKind::terminate())?,
        })
    }

    #[cfg(not(unix))]
    fn listen() -> std::io::Result<Self> {
        Ok(Self {})
    }

    #[cfg(unix)]
    async fn received(mut self) {
        tokio::select! {
            _ = self.interrupt.recv() => {}
            _ = self.terminate.recv() => {}
        }
    }

    #[cfg(not(unix))]
    async fn received(self) {
        if let Err(e) = tokio::signal::ctrl_c().await {
            eprintln!("alyt: cannot wait for Ctrl-C: {e}");
        }
    }
}

/// The filter of `RUST_LOG` (`info`, `alyt_api=debug,info`; default info):
/// targets and levels. tracing-subscriber's `Targets` decides once per
/// call site; its `EnvFilter` (span and field filters) also looked up
/// every request's span each time the span was entered, a twentieth of
/// serving a warm device list. An unreadable value is returned to be
/// logged.
fn log_filter(given: Option<&str>) -> (Targets, Option<String>) {
    let info = || Targets::new().with_default(LevelFilter::INFO);
    match given.map(str::trim).filter(|g| !g.is_empty()) {
        None => (info(), None),
        Some(given) => match given.parse::<Targets>() {
            Ok(targets) => (targets, None),
            Err(_) => (info(), Some(given.to_owned())),
        },
    }
}
