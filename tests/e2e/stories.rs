//! Stories that need nothing but the API and the mail, so they run on the
//! local platform (by default) and on the hosted stack in the emulated AWS
//! region (`ALYT_E2E_TARGET=emulated`; see `alyt_tests::region`). Each signs
//! up addresses of its own: on the emulated region the stories share one
//! table.

use alyt_tests::Target;
use alyt_tests::developers::{
    PASSWORD, get_me, login, sandbox_home, sign_up, token_of, wait_for_link,
};
use alyt_tests::region::Story;
use serde_json::{Value, json};

/// An address no other story (and no earlier run on a kept region) uses.
fn fresh_address(name: &str) -> String {
    format!("{name}-{}@example.com", uuid::Uuid::now_v7().simple())
}

/// Enters the developers group (sign-up, the mailed link, sign-in), the
/// auth group (the sandbox household's sign-in) and the homes group (the
/// sandbox home and its rooms): on the emulated region, three functions
/// behind their template routes, with the mail read from the emulated SES.
#[tokio::test]
async fn a_developer_signs_up_verifies_by_mail_signs_in_and_finds_the_sandbox_home() {
    let t = Story::start().await;
    let email = fresh_address("ada");

    let response = sign_up(&t, &email, PASSWORD).await;
    assert_eq!(response.status(), 202, "{}", response.text().await.unwrap());
    // Hosted mail leaves after SES accepted it: wait for it.
    let link = wait_for_link(&t, &email, "verify-email")
        .await
        .expect("a verification mail");
    assert!(
        link.starts_with(&t.url("/developers/auth/verify-email?token=")),
        "the link leads back to this API: {link}"
    );

    // The link verifies once, and signs the developer in.
    let (status, session) = t
        .post_json(
            "/developers/auth/verify-email",
            None,
            json!({ "token": token_of(&link) }),
        )
        .await;
    assert_eq!(status, 200, "{session}");
    assert_eq!(session["kind"], "developer");
    let (status, _) = t
        .post_json(
            "/developers/auth/verify-email",
            None,
            json!({ "token": token_of(&link) }),
        )
        .await;
    assert_eq!(status, 410);

    // A fresh sign-in with the password.
    let response = login(&t, &email, PASSWORD, None).await;
    assert_eq!(response.status(), 200, "{}", response.text().await.unwrap());
    let tokens: Value = response.json().await.unwrap();
    let access = tokens["accessToken"].as_str().unwrap().to_owned();
    let me = get_me(&t, &access).await;
    assert_eq!(
        (me["email"].as_str(), me["status"].as_str()),
        (Some(&*email), Some("ACTIVE"))
    );
    let sandbox = me["sandboxTenantId"]
        .as_str()
        .expect("a sandbox")
        .to_owned();

    // The sandbox's home and rooms, read with the developer session.
    let dev = alyt_tests::developers::DeveloperSession {
        email: email.clone(),
        password: PASSWORD.into(),
        access_token: access.clone(),
        refresh_token: tokens["refreshToken"].as_str().unwrap().into(),
        developer_id: me["id"].as_str().unwrap().into(),
        user_id: me["userId"].as_str().unwrap().into(),
        sandbox_tenant_id: sandbox.clone(),
    };
    let home = sandbox_home(&t, &dev).await;
    let (status, rooms) = t
        .get_json(
            &format!("/rooms?tenantId={sandbox}&propertyId={}", home.property_id),
            Some(&access),
        )
        .await;
    assert_eq!(status, 200, "{rooms}");
    let mut names: Vec<&str> = rooms["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["Bedroom", "Kitchen", "Living Room", "Office"]);

    // The developer owns the sandbox household: its sign-in is the auth
    // group's, and that session sees the same home.
    let household = t.household_login(&email, PASSWORD).await;
    let household_token = household["accessToken"].as_str().unwrap();
    let (status, who) = t.get_json("/auth/me", Some(household_token)).await;
    assert_eq!(status, 200, "{who}");
    assert_eq!(who["claims"]["email"], email.as_str());
    assert_eq!(who["homes"][0]["clientId"], home.client_id.as_str());
    assert_eq!(who["homes"][0]["role"], "OWNER");
}
