//! GET /v1/properties: who sees which homes of a tenant, keys and their scope,
//! and foreign or missing tenants answering alike.

use alyt_tests::developers::{create_key, sign_up_and_verify};
use alyt_tests::principals::{Principals, Who};
use alyt_tests::{TestPlatform, without_request_id};

fn names(body: &serde_json::Value) -> Vec<String> {
    body["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn each_caller_sees_the_homes_of_its_tenant_and_no_other() {
    let t = TestPlatform::start().await;
    let p = Principals::seed(&t).await;
    let demo = t
        .platform
        .first_start
        .as_ref()
        .unwrap()
        .tenant_id
        .to_string();
    let sandbox = p.developer.sandbox_tenant_id.clone();
    let list = |tenant: &str| format!("/properties?tenantId={tenant}");

    for who in [
        Who::PlatformOwner,
        Who::PlatformSupport,
        Who::TenantAdmin,
        Who::TenantInstaller,
        Who::HouseholdOwner,
        Who::HouseholdMember,
        Who::HouseholdGuest,
    ] {
        let (status, body) = t.get_json(&list(&demo), p.token(who)).await;
        assert_eq!(status, 200, "{who:?}: {body}");
        assert_eq!(names(&body), ["Demo home"], "{who:?}");
        assert_eq!(body["items"][0]["tenantId"], demo.as_str());
        assert!(body["nextCursor"].is_null());
    }

    // The developer sees its sandbox home, with a session and with a key.
    let (status, body) = t
        .get_json(&list(&sandbox), Some(&p.developer.access_token))
        .await;
    assert_eq!(
        (status, names(&body)),
        (200, vec!["Sandbox home".to_owned()]),
        "{body}"
    );
    let (_, with_scope) = create_key(&t, &p.developer, &["tenant:read"]).await;
    let (status, body) = t.get_json(&list(&sandbox), Some(&with_scope)).await;
    assert_eq!(
        (status, names(&body)),
        (200, vec!["Sandbox home".to_owned()]),
        "{body}"
    );

    // A key without tenant:read is refused; outside its sandbox it finds nothing.
    let (_, without_scope) = create_key(&t, &p.developer, &["devices:read"]).await;
    let (status, body) = t.get_json(&list(&sandbox), Some(&without_scope)).await;
    assert_eq!(status, 403, "{body}");
    assert!(body["detail"].as_str().unwrap().contains("tenant:read"));
    let (status, _) = t.get_json(&list(&demo), Some(&with_scope)).await;
    assert_eq!(status, 404);

    // A household person and the developer in each other's tenant: the same 404
    // as a tenant that does not exist.
    let (s1, foreign) = t
        .get_json(&list(&sandbox), p.token(Who::HouseholdOwner))
        .await;
    let (s2, missing) = t
        .get_json(
            &list("0190b5a0-0000-7000-8000-000000000000"),
            p.token(Who::HouseholdOwner),
        )
        .await;
    let (s3, foreign_dev) = t
        .get_json(&list(&demo), Some(&p.developer.access_token))
        .await;
    assert_eq!((s1, s2, s3), (404, 404, 404));
    assert_eq!(
        without_request_id(foreign.clone()),
        without_request_id(missing)
    );
    assert_eq!(without_request_id(foreign), without_request_id(foreign_dev));
    // Staff reach any tenant.
    let (status, body) = t
        .get_json(&list(&sandbox), p.token(Who::PlatformStaff))
        .await;
    assert_eq!(
        (status, names(&body)),
        (200, vec!["Sandbox home".to_owned()])
    );
}

#[tokio::test]
async fn bad_queries_are_400s_naming_the_parameter() {
    let t = TestPlatform::start().await;
    let (email, password) = t.owner();
    let pair = t.household_login(&email, &password).await;
    let token = pair["accessToken"].as_str();
    let (status, body) = t.get_json("/properties", token).await;
    assert_eq!(status, 400, "{body}");
    let (status, body) = t.get_json("/properties?tenantId=not-a-uuid", token).await;
    assert_eq!(
        (status, body["field"].as_str()),
        (400, Some("tenantId")),
        "{body}"
    );
    let demo = t.platform.first_start.as_ref().unwrap().tenant_id;
    let (status, body) = t
        .get_json(&format!("/properties?tenantId={demo}&limit=0"), token)
        .await;
    assert_eq!((status, body["field"].as_str()), (400, Some("limit")));
    let (status, body) = t
        .get_json(
            &format!("/properties?tenantId={demo}&cursor=garbage"),
            token,
        )
        .await;
    assert_eq!((status, body["field"].as_str()), (400, Some("cursor")));
}

#[tokio::test]
async fn a_developer_only_reaches_its_own_sandbox() {
    let t = TestPlatform::start().await;
    let a = sign_up_and_verify(&t, "a@example.com").await;
    let b = sign_up_and_verify(&t, "b@example.com").await;
    let (status, _) = t
        .get_json(
            &format!("/properties?tenantId={}", b.sandbox_tenant_id),
            Some(&a.access_token),
        )
        .await;
    assert_eq!(status, 404);
    let (status, _) = t
        .get_json(
            &format!("/properties?tenantId={}", a.sandbox_tenant_id),
            Some(&a.access_token),
        )
        .await;
    assert_eq!(status, 200);
}
