//! Lambda entry of the home-security group (a home's status, modes,
//! settings and selections, incidents, authority and delegations).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    alyt_lambda_http::run::<alyt_api::groups::hosted::Security>().await
}
