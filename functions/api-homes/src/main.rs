//! Lambda entry of the homes group (properties, rooms, things, capabilities).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    alyt_lambda_http::run::<alyt_api::groups::hosted::Homes>().await
}
