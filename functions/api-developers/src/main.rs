//! Lambda entry of the developers group.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    alyt_lambda_http::run::<alyt_api::groups::hosted::Developers>().await
}
