//! `bench-hello`: `GET /json` answers `{"message":"Hello, World!"}`. It
//! listens on `BENCH_HELLO_ADDR` (default 127.0.0.1:0, a free port) and
//! prints `listening on http://{addr}` once it accepts connections, the same
//! moment `alyt` prints its address, so start-up times compare.

use axum::routing::get;
use axum::{Json, Router};
use serde_json::{Value, json};

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let addr = std::env::var("BENCH_HELLO_ADDR").unwrap_or_else(|_| "127.0.0.1:0".into());
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    println!("listening on http://{}", listener.local_addr()?);
    let app = Router::new().route("/json", get(hello));
    axum::serve(listener, app).await
}

async fn hello() -> Json<Value> {
    Json(json!({ "message": "Hello, World!" }))
}
