//! `bench-hello`: `GET /json` answers `{"message":"Hello, World!"}`. It
//! listens on `BENCH_HELLO_ADDR` (default 127.0.0.1:0, a free port) and
//! prints `listening on http://{addr}` once it accepts connections, the same
//! moment `alyt` prints its address, so start-up times compare.
//!
//! `GET /large` answers a JSON document of `BENCH_HELLO_LARGE_BYTES` bytes
//! (default 16384; bench/run gives the device list's size), made once at
//! start: what serving an answer the size of a device list costs when
//! nothing is computed, the ceiling M1 sits under.

use axum::body::Bytes;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{Value, json};

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let addr = std::env::var("BENCH_HELLO_ADDR").unwrap_or_else(|_| "127.0.0.1:0".into());
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    println!("listening on http://{}", listener.local_addr()?);
    let size = std::env::var("BENCH_HELLO_LARGE_BYTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(16_384);
    let large = large_document(size);
    let app = Router::new().route("/json", get(hello)).route(
        "/large",
        get(move || {
            let body = large.clone();
            async move { ([(header::CONTENT_TYPE, "application/json")], body).into_response() }
        }),
    );
    axum::serve(listener, app).await
}

/// `{"items":["xxx…", …]}` of exactly `size` bytes (at least the frame).
fn large_document(size: usize) -> Bytes {
    let mut text = String::from("{\"items\":[");
    while text.len() + 64 + 3 < size {
        text.push('"');
        text.push_str(&"x".repeat(60));
        text.push_str("\",");
    }
    text.push('"');
    let rest = size.saturating_sub(text.len() + 3);
    text.push_str(&"x".repeat(rest));
    text.push_str("\"]}");
    Bytes::from(text)
}

async fn hello() -> Json<Value> {
    Json(json!({ "message": "Hello, World!" }))
}
