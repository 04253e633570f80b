//! Lambda entry of the developers group.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    alyt_aws::lambda::run::<alyt_api::groups::hosted::Developers>().await
}
