//! The authorization harness: every operation of the API x every kind of caller
//! (x own or foreign tenant, once operations take tenant objects), each with the
//! status it must answer. A guard test fails when the served OpenAPI document
//! has an operation the table does not cover, so no operation ships unchecked.
//! A foreign tenant's object must answer exactly like a missing one (404).

use std::collections::BTreeSet;

use alyt_tests::TestPlatform;
use alyt_tests::principals::{Principals, Who};
use serde_json::{Value, json};

/// How an operation is called in the harness.
struct Operation {
    id: &'static str,
    method: &'static str,
    path: &'static str,
    /// The body sent by each caller (`None` for no body).
    body: fn(Who) -> Option<Value>,
    /// The status each caller must get.
    expect: fn(Who) -> u16,
}

fn public(_: Who) -> u16 {
    200
}

/// Household sessions only: people who signed in with /auth/login.
fn household_session(who: Who) -> u16 {
    match who {
        Who::Anonymous | Who::Garbage | Who::ExpiredToken | Who::WrongKindToken => 401,
        _ => 200,
    }
}

/// Operations that authenticate by what is in the body, whoever calls.
fn body_decides(status: u16) -> fn(Who) -> u16 {
    match status {
        401 => |_| 401,
        410 => |_| 410,
        _ => unreachable!("add a case"),
    }
}

fn operations() -> Vec<Operation> {
    vec![
        Operation {
            id: "getCapabilities",
            method: "GET",
            path: "/capabilities",
            body: |_| None,
            expect: public,
        },
        Operation {
            id: "getOpenApi",
            method: "GET",
            path: "/openapi.json",
            body: |_| None,
            expect: public,
        },
        Operation {
            id: "login",
            method: "POST",
            path: "/auth/login",
            // One address per caller: the failed-attempt limit is per address.
            body: |who| {
                Some(
                    json!({ "email": format!("nobody-{who:?}@example.com"), "password": "wrong password here" }),
                )
            },
            expect: body_decides(401),
        },
        Operation {
            id: "refresh",
            method: "POST",
            path: "/auth/refresh",
            body: |_| Some(json!({ "refreshToken": "rt_unknown" })),
            expect: body_decides(401),
        },
        Operation {
            id: "resetPassword",
            method: "POST",
            path: "/auth/reset-password",
            body: |_| {
                Some(
                    json!({ "token": "0123456789abcdef-unknown", "password": "plum tractor season" }),
                )
            },
            expect: body_decides(410),
        },
        Operation {
            id: "getMe",
            method: "GET",
            path: "/auth/me",
            body: |_| None,
            expect: household_session,
        },
    ]
}

#[tokio::test]
async fn every_operation_answers_every_caller_as_the_table_says() {
    let t = TestPlatform::start().await;
    let principals = Principals::seed(&t).await;
    let mut failures = Vec::new();
    for op in operations() {
        for who in Who::ALL {
            let url = t.url(op.path);
            let mut request = match op.method {
                "GET" => t.http.get(&url),
                "POST" => t.http.post(&url),
                "PUT" => t.http.put(&url),
                "PATCH" => t.http.patch(&url),
                "DELETE" => t.http.delete(&url),
                other => panic!("method {other}"),
            };
            if let Some(body) = (op.body)(who) {
                request = request.json(&body);
            }
            if let Some(token) = principals.token(who) {
                request = request.bearer_auth(token);
            }
            let status = request.send().await.unwrap().status().as_u16();
            let expected = (op.expect)(who);
            if status != expected {
                failures.push(format!(
                    "{} as {who:?}: got {status}, expected {expected}",
                    op.id
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "authorization table violations:\n{}",
        failures.join("\n")
    );
}

/// Every operation in the served contract has a row: adding an operation
/// without deciding who may call it fails here.
#[tokio::test]
async fn the_table_covers_every_operation_of_the_contract() {
    let t = TestPlatform::start().await;
    let (_, doc) = t.get_json("/openapi.json", None).await;
    let served: BTreeSet<String> = doc["paths"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|item| item.as_object().unwrap().values())
        .filter_map(|op| op["operationId"].as_str().map(str::to_owned))
        .collect();
    let covered: BTreeSet<String> = operations().iter().map(|o| o.id.to_owned()).collect();
    let missing: Vec<_> = served.difference(&covered).collect();
    assert!(
        missing.is_empty(),
        "operations without authorization rows: {missing:?}"
    );
}
