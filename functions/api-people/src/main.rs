//! Lambda entry of the people group (a household's members, grants and ends
//! of membership).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    alyt_lambda_http::run::<alyt_api::groups::hosted::People>().await
}
