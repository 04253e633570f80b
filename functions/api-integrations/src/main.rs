//! Lambda entry of the integrations group (connecting connectors to homes,
//! challenges, discovery, an integration's endpoints).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    alyt_lambda_http::run::<alyt_api::groups::hosted::Integrations>().await
}
