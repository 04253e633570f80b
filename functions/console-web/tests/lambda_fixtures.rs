//! The sample API Gateway events in events/console-web fed through the
//! function's handler (lambda_http's adapter, as `lambda_http::run` uses
//! it): the page and a file arrive as API Gateway answers them, the binary
//! sprite base64-encoded as API Gateway requires.

use std::path::PathBuf;

use lambda_http::request::LambdaRequest;
use lambda_http::{Adapter, Context, LambdaEvent, Service};
use serde_json::Value;

async fn through_lambda(name: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../events/console-web")
        .join(name);
    let event: LambdaRequest =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut handler = Adapter::from(alyt_console::routes::<()>());
    let response = handler
        .call(LambdaEvent::new(event, Context::default()))
        .await
        .unwrap();
    serde_json::to_value(response).unwrap()
}

#[tokio::test]
async fn the_page_and_its_files_come_back_through_api_gateway() {
    let page = through_lambda("get-page.json").await;
    assert_eq!(page["statusCode"], 200);
    assert_eq!(page["headers"]["content-type"], "text/html; charset=utf-8");
    assert!(page["body"].as_str().unwrap().contains("/console/app.js"));

    let icons = through_lambda("get-icons.json").await;
    assert_eq!(icons["statusCode"], 200);
    assert_eq!(icons["headers"]["content-type"], "image/svg+xml");
    let body = icons["body"].as_str().unwrap();
    let svg = if icons["isBase64Encoded"] == true {
        use base64::Engine;
        String::from_utf8(
            base64::engine::general_purpose::STANDARD
                .decode(body)
                .unwrap(),
        )
        .unwrap()
    } else {
        body.to_owned()
    };
    assert!(
        svg.contains(r#"<symbol id="i-lightbulb""#),
        "the sprite has the light icon"
    );
}
