//! The authorization harness: every operation of the API x every kind of caller
//! (x own or foreign tenant, once operations take tenant objects), each with the
//! status it must answer. Two callers follow one rule each instead of a
//! column in every row: a conditional member away from the home (its
//! household does not exist for them) and a widget token (it reaches only
//! its home's reads and controls: [`WIDGET_TENANT_REACH`]). A guard test fails when the served OpenAPI document
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

/// The harness sends hundreds of requests a minute from one address, most of
/// them unauthenticated (which count against the address): a load test, so it
/// raises the request-rate quota as `ALYT_RATE_LIMIT_QUOTA` would.
async fn harness_platform() -> TestPlatform {
    TestPlatform::start_with(|config| config.rate_limit.quota = 100_000).await
}

fn public(_: Who) -> u16 {
    200
}

/// Household sessions only: people who signed in with /auth/login.
fn household_session(who: Who) -> u16 {
    match who {
        Who::Anonymous | Who::Garbage | Who::ExpiredToken | Who::WrongKindToken => 401,
        Who::DeveloperSession | Who::DevKey | Who::RevokedKey | Who::LiveKey => 401,
        _ => 200,
    }
}

/// A developer session or any live key of the developer.
fn developer_or_key(who: Who) -> u16 {
    match who {
        Who::DeveloperSession | Who::DevKey | Who::LiveKey => 200,
        _ => 401,
    }
}

/// A developer session or any live key of the developer (with the scope),
/// answering `OK`; everyone else 401.
fn developer_or_key_with<const OK: u16>(who: Who) -> u16 {
    match who {
        Who::DeveloperSession | Who::DevKey | Who::LiveKey => OK,
        _ => 401,
    }
}

/// A developer session or a DEV key (with the scope) answering `OK`; a LIVE
/// key, which acts only for its own connector, 403; everyone else 401.
fn developer_or_dev_key_with<const OK: u16>(who: Who) -> u16 {
    match who {
        Who::DeveloperSession | Who::DevKey => OK,
        Who::LiveKey => 403,
        _ => 401,
    }
}

/// Tokens that do not authenticate at all.
fn unauthenticated(who: Who) -> bool {
    matches!(
        who,
        Who::Anonymous | Who::Garbage | Who::ExpiredToken | Who::WrongKindToken | Who::RevokedKey
    )
}

/// Admin reads: any platform role; everyone else sees no such path.
fn staff_read(who: Who) -> u16 {
    match who {
        w if unauthenticated(w) => 401,
        Who::PlatformOwner | Who::PlatformStaff | Who::PlatformSupport => 200,
        _ => 404,
    }
}

/// Admin changes to a developer that does not exist: OWNER and STAFF learn
/// it is missing, SUPPORT is refused first, everyone else sees no such path.
fn staff_write_unknown_developer(who: Who) -> u16 {
    match who {
        w if unauthenticated(w) => 401,
        Who::PlatformSupport => 403,
        _ => 404,
    }
}

/// Operations that authenticate by what is in the body, whoever calls.
fn body_decides<const STATUS: u16>(_: Who) -> u16 {
    STATUS
}

/// Developer-session operations: the developer gets `OK`, its keys 403
/// (keys cannot manage the account), every other caller 401.
fn developer_session<const OK: u16>(who: Who) -> u16 {
    match who {
        Who::DeveloperSession => OK,
        Who::DevKey | Who::LiveKey => 403,
        _ => 401,
    }
}

/// Any caller that authenticates gets `STATUS` (the body decides, after
/// authentication).
fn authenticated<const STATUS: u16>(who: Who) -> u16 {
    if unauthenticated(who) { 401 } else { STATUS }
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
            id: "listRoomSuggestions",
            method: "GET",
            path: "/rooms/suggestions",
            body: |_| None,
            expect: authenticated_all,
        },
        Operation {
            id: "getOpenApi",
            method: "GET",
            path: "/openapi.json",
            body: |_| None,
            expect: public,
        },
        Operation {
            id: "getAsyncApi",
            method: "GET",
            path: "/asyncapi.json",
            body: |_| None,
            expect: public,
        },
        Operation {
            id: "listEventTypes",
            method: "GET",
            path: "/event-types",
            body: |_| None,
            expect: public,
        },
        Operation {
            id: "listSampleScripts",
            method: "GET",
            path: "/developers/simulator/sample-scripts",
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
            expect: body_decides::<401>,
        },
        Operation {
            id: "refresh",
            method: "POST",
            path: "/auth/refresh",
            body: |_| Some(json!({ "refreshToken": "rt_unknown" })),
            expect: body_decides::<401>,
        },
        // Internal: platform OWNER and STAFF (who find no such phone here),
        // SUPPORT refused, the path missing for everyone else.
        Operation {
            id: "getPresence",
            method: "GET",
            path: "/properties/0190b5a0-0000-7000-8000-0000000000ab/presence?tenantId=0190b5a0-0000-7000-8000-0000000000ac&endpointId=0190b5a0-0000-7000-8000-0000000000ad",
            body: |_| None,
            expect: staff_write_unknown_developer,
        },
        // No session: the link decides (an unknown one is the dead-link 410).
        Operation {
            id: "readInvitation",
            method: "GET",
            path: "/auth/invitations/an-unknown-invitation-token",
            body: |_| None,
            expect: body_decides::<410>,
        },
        Operation {
            id: "acceptInvitation",
            method: "POST",
            path: "/auth/invitations/an-unknown-invitation-token/accept",
            body: |_| Some(json!({ "password": "plum tractor season" })),
            expect: body_decides::<410>,
        },
        // No session: 202 for any address (each caller its own, so none
        // spends another's mail budget).
        Operation {
            id: "forgotPassword",
            method: "POST",
            path: "/auth/forgot-password",
            body: |who| {
                Some(json!({ "email": format!("nobody-household-forgot-{who:?}@example.com") }))
            },
            expect: body_decides::<202>,
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
            expect: body_decides::<410>,
        },
        Operation {
            id: "getMe",
            method: "GET",
            path: "/auth/me",
            body: |_| None,
            expect: household_session,
        },
        Operation {
            id: "getDeveloperQuota",
            method: "GET",
            path: "/developers/quota",
            body: |_| None,
            expect: developer_or_key,
        },
        Operation {
            id: "getDeveloperUsage",
            method: "GET",
            path: "/developers/usage",
            body: |_| None,
            expect: developer_or_key,
        },
        Operation {
            id: "listAdminDevelopers",
            method: "GET",
            path: "/developers/admin/developers",
            body: |_| None,
            expect: staff_read,
        },
        Operation {
            id: "getAdminQuotaDefaults",
            method: "GET",
            path: "/developers/admin/quota-defaults",
            body: |_| None,
            expect: staff_read,
        },
        Operation {
            id: "getAdminDeveloperQuota",
            method: "GET",
            path: "/developers/admin/developers/0190a0a0-0000-7000-8000-000000000000/quota",
            body: |_| None,
            expect: not_found,
        },
        Operation {
            id: "putAdminDeveloperQuota",
            method: "PUT",
            path: "/developers/admin/developers/0190a0a0-0000-7000-8000-000000000000/quota",
            body: |_| Some(json!({ "kind": "REQUESTS", "ceiling": 10, "window": "day" })),
            expect: staff_write_unknown_developer,
        },
        Operation {
            id: "verifyAdminDeveloper",
            method: "POST",
            path: "/developers/admin/developers/0190a0a0-0000-7000-8000-000000000000/verify",
            body: |_| None,
            expect: staff_write_unknown_developer,
        },
        Operation {
            id: "issueAdminLiveKey",
            method: "POST",
            path: "/developers/admin/developers/0190a0a0-0000-7000-8000-000000000000/live-keys",
            body: |_| {
                Some(
                    json!({ "name": "live", "scopes": ["devices:read"], "definitionId": "acme-lights" }),
                )
            },
            expect: staff_write_unknown_developer,
        },
        Operation {
            id: "developerSignUp",
            method: "POST",
            path: "/developers/auth/signup",
            body: |who| {
                Some(json!({
                    "email": format!("signup-{who:?}@example.com"),
                    "password": "plum tractor season",
                    "displayName": "Harness",
                    "type": "INDIVIDUAL",
                    "botToken": "not-the-test-token",
                }))
            },
            expect: body_decides::<400>,
        },
        Operation {
            id: "developerVerifyEmail",
            method: "POST",
            path: "/developers/auth/verify-email",
            body: |_| Some(json!({ "token": "0123456789abcdef-unknown" })),
            expect: body_decides::<410>,
        },
        Operation {
            id: "developerVerifyEmailLink",
            method: "GET",
            path: "/developers/auth/verify-email?token=0123456789abcdef-unknown",
            body: |_| None,
            expect: body_decides::<410>,
        },
        Operation {
            id: "developerLogin",
            method: "POST",
            path: "/developers/auth/login",
            body: |who| {
                Some(
                    json!({ "email": format!("nobody-dev-{who:?}@example.com"), "password": "wrong password here" }),
                )
            },
            expect: body_decides::<401>,
        },
        Operation {
            id: "developerRefresh",
            method: "POST",
            path: "/developers/auth/refresh",
            body: |_| Some(json!({ "refreshToken": "rt_unknown" })),
            expect: body_decides::<401>,
        },
        Operation {
            id: "developerForgotPassword",
            method: "POST",
            path: "/developers/auth/forgot-password",
            body: |who| Some(json!({ "email": format!("nobody-forgot-{who:?}@example.com") })),
            expect: body_decides::<202>,
        },
        Operation {
            id: "developerResetPassword",
            method: "POST",
            path: "/developers/auth/reset-password",
            body: |_| {
                Some(
                    json!({ "token": "0123456789abcdef-unknown", "password": "plum tractor season" }),
                )
            },
            expect: body_decides::<410>,
        },
        Operation {
            id: "exchangeAppToken",
            method: "POST",
            path: "/developers/apps/token",
            body: |_| {
                Some(
                    json!({ "appId": "0190b5a0-0000-7000-8000-000000000000", "appSecret": "svc_dev_not-a-secret" }),
                )
            },
            expect: body_decides::<401>,
        },
        Operation {
            id: "developerWhoAmI",
            method: "GET",
            path: "/developers/whoami",
            body: |_| None,
            expect: developer_or_key,
        },
        Operation {
            id: "getDeveloperMe",
            method: "GET",
            path: "/developers/me",
            body: |_| None,
            expect: developer_session::<200>,
        },
        Operation {
            id: "listDeveloperKeys",
            method: "GET",
            path: "/developers/keys",
            body: |_| None,
            expect: developer_session::<200>,
        },
        Operation {
            id: "createDeveloperKey",
            method: "POST",
            path: "/developers/keys",
            body: |_| Some(json!({ "name": "harness", "scopes": ["devices:read"] })),
            expect: developer_session::<201>,
        },
        Operation {
            id: "rotateDeveloperKey",
            method: "POST",
            path: "/developers/keys/0190b5a0-0000-7000-8000-000000000000/rotate",
            body: |_| None,
            expect: developer_session::<404>,
        },
        Operation {
            id: "revokeDeveloperKey",
            method: "DELETE",
            path: "/developers/keys/0190b5a0-0000-7000-8000-000000000000",
            body: |_| None,
            expect: developer_session::<404>,
        },
        Operation {
            id: "developerChangePassword",
            method: "POST",
            path: "/developers/auth/change-password",
            // A wrong current password: refused before anything changes.
            body: |_| {
                Some(
                    json!({ "currentPassword": "not the password", "newPassword": "another good phrase" }),
                )
            },
            expect: developer_session::<400>,
        },
        // MFA in order: setup makes a pending secret, a wrong code does not
        // enable it, and disabling what is not on is a conflict.
        Operation {
            id: "developerMfaSetup",
            method: "POST",
            path: "/developers/auth/mfa/setup",
            body: |_| None,
            expect: developer_session::<200>,
        },
        Operation {
            id: "developerMfaEnable",
            method: "POST",
            path: "/developers/auth/mfa/enable",
            body: |_| Some(json!({ "code": "000000" })),
            expect: developer_session::<400>,
        },
        Operation {
            id: "developerMfaDisable",
            method: "POST",
            path: "/developers/auth/mfa/disable",
            body: |_| Some(json!({ "code": "000000" })),
            expect: developer_session::<409>,
        },
        // Last: it ends the harness developer's session.
        Operation {
            id: "createWebhook",
            method: "POST",
            path: "/developers/webhooks",
            body: |_| Some(json!({ "url": "http://127.0.0.1:9/hook", "events": ["webhook.ping"] })),
            expect: developer_or_key_with::<201>,
        },
        Operation {
            id: "listWebhooks",
            method: "GET",
            path: "/developers/webhooks",
            body: |_| None,
            expect: developer_or_key,
        },
        Operation {
            id: "deleteWebhook",
            method: "DELETE",
            path: "/developers/webhooks/0190b5a0-0000-7000-8000-00000000e001",
            body: |_| None,
            expect: developer_or_key_with::<404>,
        },
        Operation {
            id: "testWebhook",
            method: "POST",
            path: "/developers/webhooks/0190b5a0-0000-7000-8000-00000000e001/test",
            body: |_| None,
            expect: developer_or_key_with::<404>,
        },
        Operation {
            id: "listWebhookDeliveries",
            method: "GET",
            path: "/developers/webhooks/0190b5a0-0000-7000-8000-00000000e001/deliveries",
            body: |_| None,
            expect: developer_or_key_with::<404>,
        },
        Operation {
            id: "enableWebhook",
            method: "POST",
            path: "/developers/webhooks/0190b5a0-0000-7000-8000-00000000e001/enable",
            body: |_| None,
            expect: developer_or_key_with::<404>,
        },
        Operation {
            id: "disableWebhook",
            method: "POST",
            path: "/developers/webhooks/0190b5a0-0000-7000-8000-00000000e001/disable",
            body: |_| None,
            expect: developer_or_key_with::<404>,
        },
        Operation {
            id: "replayWebhookDelivery",
            method: "POST",
            path: "/developers/webhooks/0190b5a0-0000-7000-8000-00000000e001/deliveries/0190b5a0-0000-7000-8000-00000000e002/replay",
            body: |_| None,
            expect: developer_or_key_with::<404>,
        },
        Operation {
            id: "recoverWebhook",
            method: "POST",
            path: "/developers/webhooks/0190b5a0-0000-7000-8000-00000000e001/recover",
            body: |_| Some(json!({ "since": "2026-01-01T00:00:00Z" })),
            expect: developer_or_key_with::<404>,
        },
        Operation {
            id: "getWebhookRecovery",
            method: "GET",
            path: "/developers/webhooks/0190b5a0-0000-7000-8000-00000000e001/recovery",
            body: |_| None,
            expect: developer_or_key_with::<404>,
        },
        Operation {
            id: "rotateWebhookSecret",
            method: "POST",
            path: "/developers/webhooks/0190b5a0-0000-7000-8000-00000000e001/rotate-secret",
            body: |_| Some(json!({ "graceSeconds": 60 })),
            expect: developer_or_key_with::<404>,
        },
        Operation {
            id: "updateWebhook",
            method: "PATCH",
            path: "/developers/webhooks/0190b5a0-0000-7000-8000-00000000e001",
            body: |_| Some(json!({ "description": "renamed" })),
            expect: developer_or_key_with::<404>,
        },
        Operation {
            id: "createConnector",
            method: "POST",
            path: "/developers/connectors",
            // One slug per caller: slugs are unique.
            body: |who| {
                Some(json!({
                    "slug": format!("harness-{}", format!("{who:?}").to_lowercase()),
                    "name": "Harness connector",
                    "serverUrl": "http://127.0.0.1:9/",
                }))
            },
            expect: developer_or_dev_key_with::<201>,
        },
        Operation {
            id: "listConnectors",
            method: "GET",
            path: "/developers/connectors",
            body: |_| None,
            expect: developer_or_dev_key_with::<200>,
        },
        Operation {
            // A valid body for a connector that does not exist.
            id: "createSubmission",
            method: "POST",
            path: "/developers/submissions",
            body: |_| {
                Some(json!({
                    "connectorId": "0190b5a0-0000-7000-8000-00000000c001",
                    "semver": "1.0.0",
                    "descriptor": alyt_tests::developers::descriptor("Harness", "1.0.0"),
                    "prose": "Harness",
                    "aiDeclaration": "none",
                }))
            },
            expect: developer_or_dev_key_with::<404>,
        },
        Operation {
            id: "listSubmissions",
            method: "GET",
            path: "/developers/submissions",
            body: |_| None,
            expect: developer_or_dev_key_with::<200>,
        },
        Operation {
            id: "getSubmission",
            method: "GET",
            path: "/developers/submissions/0190b5a0-0000-7000-8000-00000000f001",
            body: |_| None,
            expect: developer_or_dev_key_with::<404>,
        },
        Operation {
            id: "changeSubmission",
            method: "PATCH",
            path: "/developers/submissions/0190b5a0-0000-7000-8000-00000000f001",
            body: |_| Some(json!({ "prose": "Harness" })),
            expect: developer_or_dev_key_with::<404>,
        },
        Operation {
            id: "listAdminSubmissions",
            method: "GET",
            path: "/developers/admin/submissions",
            body: |_| None,
            expect: staff_read,
        },
        Operation {
            // Staff learn it is missing; to anyone else the path is not there.
            id: "getAdminSubmission",
            method: "GET",
            path: "/developers/admin/submissions/0190b5a0-0000-7000-8000-00000000f001",
            body: |_| None,
            expect: authenticated::<404>,
        },
        Operation {
            id: "approveSubmission",
            method: "POST",
            path: "/developers/admin/submissions/0190b5a0-0000-7000-8000-00000000f001/approve",
            body: |_| Some(json!({ "note": "Harness" })),
            expect: staff_write_unknown_developer,
        },
        Operation {
            id: "rejectSubmission",
            method: "POST",
            path: "/developers/admin/submissions/0190b5a0-0000-7000-8000-00000000f001/reject",
            body: |_| Some(json!({ "note": "Harness" })),
            expect: staff_write_unknown_developer,
        },
        Operation {
            id: "requestSubmissionChanges",
            method: "POST",
            path: "/developers/admin/submissions/0190b5a0-0000-7000-8000-00000000f001/request-changes",
            body: |_| Some(json!({ "note": "Harness" })),
            expect: staff_write_unknown_developer,
        },
        Operation {
            id: "publishSubmission",
            method: "POST",
            path: "/developers/admin/submissions/0190b5a0-0000-7000-8000-00000000f001/publish",
            body: |_| Some(json!({ "note": "Harness" })),
            expect: staff_write_unknown_developer,
        },
        Operation {
            id: "deprecateSubmission",
            method: "POST",
            path: "/developers/admin/submissions/0190b5a0-0000-7000-8000-00000000f001/deprecate",
            body: |_| Some(json!({ "note": "Harness" })),
            expect: staff_write_unknown_developer,
        },
        Operation {
            id: "listCatalogueDefinitions",
            method: "GET",
            path: "/catalogue/definitions",
            body: |_| None,
            expect: authenticated::<200>,
        },
        Operation {
            id: "getCatalogueDefinition",
            method: "GET",
            path: "/catalogue/definitions/virtual-bridge",
            body: |_| None,
            expect: authenticated::<200>,
        },
        Operation {
            // A token that was never issued: gone, for whoever answers.
            id: "answerIntegrationChallenge",
            method: "POST",
            path: "/integrations/challenge",
            body: |_| Some(json!({ "token": "harness-never-issued", "input": {} })),
            expect: authenticated::<410>,
        },
        Operation {
            // The status arrives with the headers; the harness drops the stream.
            id: "streamEvents",
            method: "GET",
            path: "/developers/events/stream",
            body: |_| None,
            expect: developer_or_key,
        },
        Operation {
            id: "developerLogout",
            method: "POST",
            path: "/developers/auth/logout",
            body: |_| None,
            expect: developer_session::<204>,
        },
        // Last: it signs every household session of the harness out (and the
        // row above signed the developer's out).
        Operation {
            id: "logout",
            method: "POST",
            path: "/auth/logout",
            body: |_| None,
            expect: |who| match who {
                Who::DevKey | Who::LiveKey => 403,
                Who::DeveloperSession => 401,
                who => match household_session(who) {
                    200 => 204,
                    other => other,
                },
            },
        },
    ]
}

/// An operation on a tenant's objects: `{tenantId}` in its path is the caller's
/// own tenant (the demo tenant for people, the sandbox for the developer and its
/// keys), another tenant, or one that does not exist.
struct TenantOperation {
    id: &'static str,
    method: &'static str,
    path: &'static str,
    /// A JSON body template: `{tenantId}`, `{propertyId}` (a home of that
    /// tenant) and `{serial}` (fresh for every request) are filled in; the
    /// path also takes `{clientId}` (that home's household).
    body: Option<&'static str>,
    own: fn(Who) -> u16,
    foreign: fn(Who) -> u16,
}

fn authenticated_all(who: Who) -> u16 {
    if unauthenticated(who) { 401 } else { 200 }
}

/// Everyone who sees the tenant, but a LIVE key: it acts only for its own
/// connector's integrations and endpoints, so the tenant's homes, rooms,
/// devices and virtual devices are refused to it (403).
fn authenticated_but_live(who: Who) -> u16 {
    match who {
        Who::LiveKey => 403,
        w => authenticated_all(w),
    }
}

/// An object that does not exist (404), of a kind a LIVE key never reaches:
/// the key is refused before anything is looked up (403).
fn not_found_but_live_refused(who: Who) -> u16 {
    match who {
        Who::LiveKey => 403,
        w => not_found(w),
    }
}

/// Staff read every tenant; to anyone else another tenant does not exist.
fn staff_only(who: Who) -> u16 {
    match who {
        w if unauthenticated(w) => 401,
        Who::PlatformOwner | Who::PlatformStaff | Who::PlatformSupport => 200,
        _ => 404,
    }
}

/// A tenant's notifications: everyone who sees the tenant but a guest (who
/// controls the pinned home and does not read its notifications).
fn notifications_own(who: Who) -> u16 {
    match who {
        w if unauthenticated(w) => 401,
        Who::HouseholdGuest | Who::LiveKey => 403,
        _ => 200,
    }
}

/// A household's people in the caller's own tenant: its OWNER, the
/// tenant's ADMIN (the developer in its sandbox) and platform OWNER/STAFF
/// get `OK`; other people of the tenant and keys are refused (403).
fn people_own<const OK: u16>(who: Who) -> u16 {
    match who {
        w if unauthenticated(w) => 401,
        Who::HouseholdOwner
        | Who::TenantAdmin
        | Who::PlatformOwner
        | Who::PlatformStaff
        | Who::DeveloperSession => OK,
        _ => 403,
    }
}

/// Widget tokens: the people who hold the home (the platform owner holds
/// the demo household); keys and developer sessions in their sandbox are
/// refused; everyone else finds no such home.
fn widget_own<const OK: u16>(who: Who) -> u16 {
    match who {
        w if unauthenticated(w) => 401,
        Who::HouseholdOwner | Who::HouseholdMember | Who::HouseholdGuest | Who::PlatformOwner => OK,
        Who::DeveloperSession | Who::DevKey | Who::LiveKey => 403,
        _ => 404,
    }
}

/// A household's guest stays: its people managers, and a DEV key with
/// guests:write in its sandbox; a LIVE key acts only for its connector.
fn guests_own<const OK: u16>(who: Who) -> u16 {
    match who {
        Who::DevKey => OK,
        Who::LiveKey => 403,
        w => people_own::<OK>(w),
    }
}

/// Another tenant's household: platform OWNER/STAFF get `OK`, SUPPORT sees
/// it but may not (403); to anyone else it does not exist.
fn people_foreign<const OK: u16>(who: Who) -> u16 {
    match who {
        w if unauthenticated(w) => 401,
        Who::PlatformOwner | Who::PlatformStaff => OK,
        Who::PlatformSupport => 403,
        _ => 404,
    }
}

/// Adding by user id: the demo household's people managers reach the body
/// (400); the developer's own tenant is a sandbox, which refuses grants by
/// user id (403).
fn add_member_own(who: Who) -> u16 {
    match who {
        Who::DeveloperSession => 403,
        w => people_own::<400>(w),
    }
}

/// The foreign tenant of household callers is the sandbox: platform
/// OWNER/STAFF reach it and are refused there (403) like everyone allowed.
fn add_member_foreign(who: Who) -> u16 {
    match who {
        Who::PlatformOwner | Who::PlatformStaff => 403,
        w => people_foreign::<400>(w),
    }
}

/// What `who` must get from a tenant operation on the `label` tenant (own,
/// foreign or missing). The two callers that are not rows of the table
/// follow one rule each: a conditional member away from the home is a
/// stranger to the household (its objects do not exist for them); a widget
/// token reaches only [`WIDGET_TENANT_REACH`].
fn tenant_expectation(op: &TenantOperation, who: Who, label: &str) -> u16 {
    match (who, label) {
        (Who::WidgetToken, _) => widget_answer(op.id, label),
        (Who::ConditionalMember, "own") => 404,
        (_, "own") => (op.own)(who),
        (_, "foreign") => (op.foreign)(who),
        _ if unauthenticated(who) => 401,
        _ => 404,
    }
}

/// A widget token on the operations without tenant objects: what the row
/// says for it (a widget is no session and no key: 401 where only those
/// authenticate), but where its own refusal (403, not a session's
/// operation) comes first.
fn widget_expects(op: &Operation) -> u16 {
    match op.id {
        "listCatalogueDefinitions"
        | "getCatalogueDefinition"
        | "answerIntegrationChallenge"
        | "logout" => 403,
        "getMe" => 401,
        _ => (op.expect)(Who::WidgetToken),
    }
}

/// The tenant operations a widget token is let into (it reads its home and
/// controls its things), with the answer in its own home (the harness names
/// things that do not exist: 404); in any other home nothing exists for it
/// (404).
const WIDGET_TENANT_REACH: &[(&str, u16)] = &[
    ("listRooms", 200),
    ("listRoutines", 200),
    ("getRoutineMusic", 200),
    ("getPropertyOverview", 200),
    ("getDashboard", 200),
    ("streamHomeEvents", 200),
    ("runPropertyAction", 200),
    ("refreshProperty", 200),
    ("listDevices", 200),
    ("getRoutine", 404),
    ("runRoutine", 404),
    ("listRoutineRuns", 404),
    ("getRoom", 404),
    ("runRoomAction", 404),
    ("getEndpoint", 404),
    ("refreshEndpoint", 404),
    ("sendEndpointCommand", 404),
    ("getDevice", 404),
    ("sendDeviceCommand", 404),
    ("listDeviceCommands", 404),
    ("listDeviceEvents", 404),
    ("listDeviceAlerts", 404),
];

/// Operations on a home's people, security and widgets that refuse a
/// widget in its own home (403) after finding the home, so another home
/// does not exist for it (404).
const WIDGET_REFUSED_AT_HOME: &[&str] = &[
    "acknowledgeHomeSecurityIncident",
    "addMember",
    "changeHomeSecurityAuthority",
    "changeHomeSecuritySettings",
    "changeMember",
    "checkOutGuest",
    "createInvitation",
    "createWidgetToken",
    "delegateHomeSecurity",
    "getGuest",
    "getHomeSecurity",
    "listAudit",
    "listHomeSecurityIncidents",
    "listInvitations",
    "listMemberPhones",
    "listMembers",
    "listWidgetTokens",
    "putGuest",
    "removeMember",
    "resendInvitation",
    "revokeHomeSecurityDelegation",
    "revokeWidgetToken",
    "selectHomeSecurityThing",
    "setHomeSecurityMode",
    "withdrawInvitation",
];

/// A widget token's answer to a tenant operation on the `label` tenant:
/// [`WIDGET_TENANT_REACH`] and [`WIDGET_REFUSED_AT_HOME`]; every other
/// operation refuses it (403) before it looks at any object, so the
/// refusal tells nothing about what exists.
fn widget_answer(id: &str, label: &str) -> u16 {
    let own = label == "own";
    match WIDGET_TENANT_REACH.iter().find(|(op, _)| *op == id) {
        Some((_, status)) if own => *status,
        Some(_) => 404,
        None if WIDGET_REFUSED_AT_HOME.contains(&id) && !own => 404,
        None => 403,
    }
}

/// Nobody finds a device that does not exist, in any tenant.
fn not_found(who: Who) -> u16 {
    if unauthenticated(who) { 401 } else { 404 }
}

/// Registering in the caller's own tenant: tenant ADMIN/INSTALLER (keys and
/// the developer act as their sandbox's ADMIN), platform OWNER/STAFF; people
/// who see the tenant without such a role get 403.
fn register_own(who: Who) -> u16 {
    match who {
        w if unauthenticated(w) => 401,
        Who::PlatformSupport
        | Who::HouseholdOwner
        | Who::HouseholdMember
        | Who::HouseholdGuest
        | Who::LiveKey => 403,
        _ => 201,
    }
}

/// Registering in another tenant: only platform OWNER/STAFF; SUPPORT sees
/// the tenant but may not; to anyone else it does not exist.
fn register_foreign(who: Who) -> u16 {
    match who {
        w if unauthenticated(w) => 401,
        Who::PlatformOwner | Who::PlatformStaff => 201,
        Who::PlatformSupport => 403,
        _ => 404,
    }
}

/// Managing (deleting, replacing a board, rotating credentials) a device
/// that does not exist in the caller's own tenant: whoever may register
/// finds no device; people who see the tenant without that role get 403.
fn manage_missing_own(who: Who) -> u16 {
    match who {
        w if unauthenticated(w) => 401,
        Who::PlatformSupport
        | Who::HouseholdOwner
        | Who::HouseholdMember
        | Who::HouseholdGuest
        | Who::LiveKey => 403,
        _ => 404,
    }
}

/// The same in another tenant: SUPPORT sees it and may not; to everyone
/// else the device does not exist.
fn manage_missing_foreign(who: Who) -> u16 {
    match who {
        w if unauthenticated(w) => 401,
        Who::PlatformSupport => 403,
        _ => 404,
    }
}

/// Virtual devices are made and changed only by a sandbox's ADMIN (the
/// developer and its keys); everyone else who sees the tenant gets 403 (a
/// real tenant holds no virtual devices, and staff may look, not change).
fn sandbox_admin_own(who: Who) -> u16 {
    match who {
        w if unauthenticated(w) => 401,
        Who::DeveloperSession | Who::DevKey => 201,
        _ => 403,
    }
}

/// The same with a body that names an object the sandbox does not hold
/// (400 naming the field, once the caller may write).
fn sandbox_admin_refused_own(who: Who) -> u16 {
    match who {
        w if unauthenticated(w) => 401,
        Who::DeveloperSession | Who::DevKey => 400,
        _ => 403,
    }
}

/// The same on a virtual device that does not exist.
fn sandbox_admin_missing_own(who: Who) -> u16 {
    match who {
        w if unauthenticated(w) => 401,
        Who::DeveloperSession | Who::DevKey => 404,
        _ => 403,
    }
}

/// Another tenant: staff see it and may not change it; to everyone else it
/// does not exist.
fn sandbox_admin_foreign(who: Who) -> u16 {
    match who {
        w if unauthenticated(w) => 401,
        Who::PlatformOwner | Who::PlatformStaff | Who::PlatformSupport => 403,
        _ => 404,
    }
}

/// Configuring a home (rooms, dashboard) in the caller's own tenant: the
/// household OWNER, tenant ADMIN/INSTALLER (keys and the developer act as
/// their sandbox's ADMIN), platform OWNER/STAFF; people who only see or
/// control the home get 403.
fn configure_own<const OK: u16>(who: Who) -> u16 {
    match who {
        w if unauthenticated(w) => 401,
        Who::PlatformSupport | Who::HouseholdMember | Who::HouseholdGuest | Who::LiveKey => 403,
        _ => OK,
    }
}

/// Configuring or controlling a home of another tenant: platform
/// OWNER/STAFF may, SUPPORT sees it and may not, to anyone else it does
/// not exist.
fn staff_change_foreign<const OK: u16>(who: Who) -> u16 {
    match who {
        w if unauthenticated(w) => 401,
        Who::PlatformOwner | Who::PlatformStaff => OK,
        Who::PlatformSupport => 403,
        _ => 404,
    }
}

/// Controlling a home (room and property actions) in the caller's own
/// tenant: any membership (a guest in its pinned home), tenant roles, keys,
/// platform OWNER/STAFF; SUPPORT only sees.
fn control_own(who: Who) -> u16 {
    match who {
        w if unauthenticated(w) => 401,
        Who::PlatformSupport | Who::LiveKey => 403,
        _ => 200,
    }
}

/// Reading a home's security in the caller's own tenant: every person who
/// sees the home; keys have no home-security access.
fn security_see_own(who: Who) -> u16 {
    match who {
        w if unauthenticated(w) => 401,
        Who::DevKey | Who::LiveKey => 403,
        _ => 200,
    }
}

/// Controlling a home's security in the caller's own tenant: the
/// household's owners and members (the first owner owns the demo
/// household; a developer owns its sandbox's), answering `OK`; everyone
/// else who sees the home, the tenant's ADMIN without a household grant
/// too, 403.
fn security_control_own<const OK: u16>(who: Who) -> u16 {
    match who {
        w if unauthenticated(w) => 401,
        Who::HouseholdOwner | Who::HouseholdMember | Who::PlatformOwner | Who::DeveloperSession => {
            OK
        }
        _ => 403,
    }
}

/// Configuring a home's security: the household's owners.
fn security_configure_own<const OK: u16>(who: Who) -> u16 {
    match who {
        Who::HouseholdMember => 403,
        w => security_control_own::<OK>(w),
    }
}

/// Another tenant's home security: platform staff see it and may not
/// change it; to anyone else it does not exist.
fn security_change_foreign(who: Who) -> u16 {
    match who {
        w if unauthenticated(w) => 401,
        Who::PlatformOwner | Who::PlatformStaff | Who::PlatformSupport => 403,
        _ => 404,
    }
}

fn tenant_operations() -> Vec<TenantOperation> {
    vec![
        TenantOperation {
            id: "getHomeSecurity",
            method: "GET",
            path: "/home-security/{propertyId}?tenantId={tenantId}",
            body: None,
            own: security_see_own,
            foreign: staff_only,
        },
        TenantOperation {
            id: "setHomeSecurityMode",
            method: "POST",
            path: "/home-security/{propertyId}/mode",
            body: Some(
                r#"{"tenantId":"{tenantId}","mode":"off","requestId":"0190b5a0-0000-7000-8000-0000000005ec","revision":0,"generation":0}"#,
            ),
            own: security_control_own::<200>,
            foreign: security_change_foreign,
        },
        TenantOperation {
            id: "changeHomeSecuritySettings",
            method: "PATCH",
            path: "/home-security/{propertyId}/settings",
            body: Some(r#"{"tenantId":"{tenantId}","exitDelaySeconds":20}"#),
            own: security_configure_own::<200>,
            foreign: security_change_foreign,
        },
        TenantOperation {
            id: "selectHomeSecurityThing",
            method: "PUT",
            path: "/home-security/{propertyId}/devices/endpoint/0190b5a0-0000-7000-8000-00000000e001",
            body: Some(r#"{"tenantId":"{tenantId}","selection":"exclude"}"#),
            own: security_configure_own::<404>,
            foreign: security_change_foreign,
        },
        TenantOperation {
            id: "changeHomeSecurityAuthority",
            method: "PUT",
            path: "/home-security/{propertyId}/authority",
            body: Some(r#"{"tenantId":"{tenantId}","authority":"builtin","reviewed":true}"#),
            own: security_configure_own::<200>,
            foreign: security_change_foreign,
        },
        TenantOperation {
            id: "delegateHomeSecurity",
            method: "PUT",
            path: "/home-security/{propertyId}/delegations/0190b5a0-0000-7000-8000-00000000e002",
            body: Some(r#"{"tenantId":"{tenantId}","until":"2099-01-01T00:00:00Z"}"#),
            own: security_control_own::<400>,
            foreign: security_change_foreign,
        },
        TenantOperation {
            id: "revokeHomeSecurityDelegation",
            method: "DELETE",
            path: "/home-security/{propertyId}/delegations/0190b5a0-0000-7000-8000-00000000e002?tenantId={tenantId}",
            body: None,
            own: security_control_own::<204>,
            foreign: security_change_foreign,
        },
        TenantOperation {
            id: "listHomeSecurityIncidents",
            method: "GET",
            path: "/home-security/{propertyId}/incidents?tenantId={tenantId}",
            body: None,
            own: security_see_own,
            foreign: staff_only,
        },
        TenantOperation {
            id: "acknowledgeHomeSecurityIncident",
            method: "POST",
            path: "/home-security/{propertyId}/incidents/1/acknowledge",
            body: Some(r#"{"tenantId":"{tenantId}"}"#),
            own: security_control_own::<404>,
            foreign: security_change_foreign,
        },
        TenantOperation {
            id: "listProperties",
            method: "GET",
            path: "/properties?tenantId={tenantId}",
            body: None,
            own: authenticated_but_live,
            foreign: staff_only,
        },
        TenantOperation {
            id: "listRooms",
            method: "GET",
            path: "/rooms?tenantId={tenantId}&propertyId={propertyId}",
            body: None,
            own: authenticated_but_live,
            foreign: staff_only,
        },
        TenantOperation {
            id: "createRoom",
            method: "POST",
            path: "/rooms",
            body: Some(
                r#"{"tenantId":"{tenantId}","propertyId":"{propertyId}","name":"Harness room"}"#,
            ),
            own: configure_own::<201>,
            foreign: staff_change_foreign::<201>,
        },
        TenantOperation {
            id: "createRoutine",
            method: "POST",
            path: "/properties/{propertyId}/routines?tenantId={tenantId}",
            body: Some(r#"{"name":"Harness routine","do":[{"kind":"delay","seconds":1}]}"#),
            own: configure_own::<201>,
            foreign: staff_change_foreign::<201>,
        },
        TenantOperation {
            id: "listRoutines",
            method: "GET",
            path: "/properties/{propertyId}/routines?tenantId={tenantId}",
            body: None,
            own: authenticated_but_live,
            foreign: staff_only,
        },
        TenantOperation {
            id: "getRoutine",
            method: "GET",
            path: "/routines/0190b5a0-0000-7000-8000-00000000e007?tenantId={tenantId}",
            body: None,
            own: not_found_but_live_refused,
            foreign: not_found,
        },
        TenantOperation {
            id: "changeRoutine",
            method: "PATCH",
            path: "/routines/0190b5a0-0000-7000-8000-00000000e007?tenantId={tenantId}",
            body: Some(r#"{"name":"Harness"}"#),
            own: not_found_but_live_refused,
            foreign: not_found,
        },
        TenantOperation {
            id: "runRoutine",
            method: "POST",
            path: "/routines/0190b5a0-0000-7000-8000-00000000e007/run?tenantId={tenantId}",
            body: None,
            own: not_found_but_live_refused,
            foreign: not_found,
        },
        TenantOperation {
            id: "listRoutineRuns",
            method: "GET",
            path: "/routines/0190b5a0-0000-7000-8000-00000000e007/runs?tenantId={tenantId}",
            body: None,
            own: not_found_but_live_refused,
            foreign: not_found,
        },
        TenantOperation {
            id: "getRoutineMusic",
            method: "GET",
            path: "/properties/{propertyId}/routines/music?tenantId={tenantId}",
            body: None,
            own: authenticated_but_live,
            foreign: staff_only,
        },
        TenantOperation {
            id: "deleteRoutine",
            method: "DELETE",
            path: "/routines/0190b5a0-0000-7000-8000-00000000e007?tenantId={tenantId}",
            body: None,
            own: not_found_but_live_refused,
            foreign: not_found,
        },
        TenantOperation {
            id: "getRoom",
            method: "GET",
            path: "/rooms/0190b5a0-0000-7000-8000-00000000e001?tenantId={tenantId}",
            body: None,
            own: not_found_but_live_refused,
            foreign: not_found,
        },
        TenantOperation {
            id: "patchRoom",
            method: "PATCH",
            path: "/rooms/0190b5a0-0000-7000-8000-00000000e001?tenantId={tenantId}",
            body: Some(r#"{"name":"Harness"}"#),
            own: not_found_but_live_refused,
            foreign: not_found,
        },
        TenantOperation {
            id: "deleteRoom",
            method: "DELETE",
            path: "/rooms/0190b5a0-0000-7000-8000-00000000e001?tenantId={tenantId}",
            body: None,
            own: not_found_but_live_refused,
            foreign: not_found,
        },
        TenantOperation {
            id: "mergeRooms",
            method: "POST",
            path: "/rooms/0190b5a0-0000-7000-8000-00000000e001/merge",
            body: Some(
                r#"{"tenantId":"{tenantId}","from":["0190b5a0-0000-7000-8000-00000000e002"]}"#,
            ),
            own: not_found_but_live_refused,
            foreign: not_found,
        },
        TenantOperation {
            id: "runRoomAction",
            method: "POST",
            path: "/rooms/0190b5a0-0000-7000-8000-00000000e001/actions",
            body: Some(
                r#"{"tenantId":"{tenantId}","capability":"light","action":"lights","value":true}"#,
            ),
            own: not_found_but_live_refused,
            foreign: not_found,
        },
        TenantOperation {
            id: "getPropertyOverview",
            method: "GET",
            path: "/properties/{propertyId}/overview?tenantId={tenantId}",
            body: None,
            own: authenticated_but_live,
            foreign: staff_only,
        },
        TenantOperation {
            id: "getDashboard",
            method: "GET",
            path: "/properties/{propertyId}/dashboard?tenantId={tenantId}",
            body: None,
            own: authenticated_but_live,
            foreign: staff_only,
        },
        TenantOperation {
            // The status arrives with the headers; the harness drops the stream.
            id: "streamHomeEvents",
            method: "GET",
            path: "/properties/{propertyId}/events/stream?tenantId={tenantId}",
            body: None,
            own: authenticated_but_live,
            foreign: staff_only,
        },
        TenantOperation {
            id: "putDashboard",
            method: "PUT",
            path: "/properties/{propertyId}/dashboard?tenantId={tenantId}",
            body: Some(r#"{"pins":[]}"#),
            own: configure_own::<200>,
            foreign: staff_change_foreign::<200>,
        },
        TenantOperation {
            id: "runPropertyAction",
            method: "POST",
            path: "/properties/{propertyId}/actions",
            body: Some(
                r#"{"tenantId":"{tenantId}","capability":"light","action":"lights","value":false}"#,
            ),
            own: control_own,
            foreign: staff_change_foreign::<200>,
        },
        TenantOperation {
            id: "refreshProperty",
            method: "POST",
            path: "/properties/{propertyId}/refresh?tenantId={tenantId}",
            body: Some("{}"),
            own: control_own,
            foreign: staff_change_foreign::<200>,
        },
        TenantOperation {
            id: "getEndpoint",
            method: "GET",
            path: "/endpoints/0190b5a0-0000-7000-8000-00000000f001?tenantId={tenantId}",
            body: None,
            own: not_found,
            foreign: not_found,
        },
        TenantOperation {
            id: "patchEndpoint",
            method: "PATCH",
            path: "/endpoints/0190b5a0-0000-7000-8000-00000000f001?tenantId={tenantId}",
            body: Some(r#"{"presentedAs":"light"}"#),
            own: not_found_but_live_refused,
            foreign: not_found,
        },
        TenantOperation {
            id: "refreshEndpoint",
            method: "POST",
            path: "/endpoints/0190b5a0-0000-7000-8000-00000000f001/refresh?tenantId={tenantId}",
            body: Some("{}"),
            own: not_found,
            foreign: not_found,
        },
        TenantOperation {
            id: "sendEndpointCommand",
            method: "POST",
            path: "/endpoints/0190b5a0-0000-7000-8000-00000000f001/commands?tenantId={tenantId}",
            body: Some(
                r#"{"command":"set","payload":{"capability":"light","key":"power","value":true}}"#,
            ),
            own: not_found,
            foreign: not_found,
        },
        TenantOperation {
            id: "registerDevice",
            method: "POST",
            path: "/devices/register",
            body: Some(
                r#"{"tenantId":"{tenantId}","propertyId":"{propertyId}","name":"Harness light","kind":"OTHER","capabilities":["LIGHT"],"serial":"{serial}"}"#,
            ),
            own: register_own,
            foreign: register_foreign,
        },
        TenantOperation {
            id: "listDevices",
            method: "GET",
            path: "/devices?tenantId={tenantId}",
            body: None,
            own: authenticated_but_live,
            foreign: staff_only,
        },
        TenantOperation {
            id: "getDevice",
            method: "GET",
            path: "/devices/0190b5a0-0000-7000-8000-00000000d001?tenantId={tenantId}",
            body: None,
            own: not_found_but_live_refused,
            foreign: not_found,
        },
        TenantOperation {
            id: "patchDeviceSettings",
            method: "PATCH",
            path: "/devices/0190b5a0-0000-7000-8000-00000000d001/settings?tenantId={tenantId}",
            body: Some(r#"{"byCapability":{}}"#),
            own: not_found_but_live_refused,
            foreign: not_found,
        },
        TenantOperation {
            id: "sendDeviceCommand",
            method: "POST",
            path: "/devices/0190b5a0-0000-7000-8000-00000000d001/commands?tenantId={tenantId}",
            body: Some(
                r#"{"command":"set","payload":{"capability":"light","key":"power","value":true}}"#,
            ),
            own: not_found_but_live_refused,
            foreign: not_found,
        },
        TenantOperation {
            id: "listDeviceCommands",
            method: "GET",
            path: "/devices/0190b5a0-0000-7000-8000-00000000d001/commands?tenantId={tenantId}",
            body: None,
            own: not_found_but_live_refused,
            foreign: not_found,
        },
        TenantOperation {
            id: "listDeviceTelemetry",
            method: "GET",
            path: "/devices/0190b5a0-0000-7000-8000-00000000d001/telemetry?tenantId={tenantId}&metric=temperature",
            body: None,
            own: not_found_but_live_refused,
            foreign: not_found,
        },
        TenantOperation {
            id: "listDeviceEvents",
            method: "GET",
            path: "/devices/0190b5a0-0000-7000-8000-00000000d001/events?tenantId={tenantId}",
            body: None,
            own: not_found_but_live_refused,
            foreign: not_found,
        },
        TenantOperation {
            id: "listDeviceAlerts",
            method: "GET",
            path: "/devices/0190b5a0-0000-7000-8000-00000000d001/alerts?tenantId={tenantId}",
            body: None,
            own: not_found_but_live_refused,
            foreign: not_found,
        },
        TenantOperation {
            id: "deleteDevice",
            method: "DELETE",
            path: "/devices/0190b5a0-0000-7000-8000-00000000d001?tenantId={tenantId}",
            body: None,
            own: manage_missing_own,
            foreign: manage_missing_foreign,
        },
        TenantOperation {
            id: "replaceDeviceUnit",
            method: "POST",
            path: "/devices/0190b5a0-0000-7000-8000-00000000d001/units?tenantId={tenantId}",
            body: Some(r#"{"serial":"{serial}"}"#),
            own: manage_missing_own,
            foreign: manage_missing_foreign,
        },
        TenantOperation {
            id: "rotateDeviceCredentials",
            method: "POST",
            path: "/devices/0190b5a0-0000-7000-8000-00000000d001/credentials?tenantId={tenantId}",
            body: None,
            own: manage_missing_own,
            foreign: manage_missing_foreign,
        },
        TenantOperation {
            id: "listMembers",
            method: "GET",
            path: "/tenants/{tenantId}/clients/{clientId}/members",
            body: None,
            own: people_own::<200>,
            foreign: people_foreign::<200>,
        },
        // An account that does not exist: authorized callers learn that
        // (400), but in a sandbox, which adds people by invitation only (403).
        TenantOperation {
            id: "addMember",
            method: "POST",
            path: "/tenants/{tenantId}/clients/{clientId}/members",
            body: Some(r#"{"userId":"0190b5a0-0000-7000-8000-0000000000aa","role":"MEMBER"}"#),
            own: add_member_own,
            foreign: add_member_foreign,
        },
        TenantOperation {
            id: "changeMember",
            method: "PATCH",
            path: "/tenants/{tenantId}/clients/{clientId}/members/0190b5a0-0000-7000-8000-0000000000aa",
            body: Some(r#"{"role":"MEMBER"}"#),
            own: people_own::<404>,
            foreign: people_foreign::<404>,
        },
        TenantOperation {
            id: "removeMember",
            method: "DELETE",
            path: "/tenants/{tenantId}/clients/{clientId}/members/0190b5a0-0000-7000-8000-0000000000aa",
            body: None,
            own: people_own::<404>,
            foreign: people_foreign::<404>,
        },
        TenantOperation {
            id: "listMemberPhones",
            method: "GET",
            path: "/tenants/{tenantId}/clients/{clientId}/members/phones",
            body: None,
            own: people_own::<200>,
            foreign: people_foreign::<200>,
        },
        TenantOperation {
            id: "listInvitations",
            method: "GET",
            path: "/tenants/{tenantId}/clients/{clientId}/invitations",
            body: None,
            own: people_own::<200>,
            foreign: people_foreign::<200>,
        },
        // A malformed address: authorized callers learn that (400), and
        // nobody invites anyone.
        TenantOperation {
            id: "createInvitation",
            method: "POST",
            path: "/tenants/{tenantId}/clients/{clientId}/invitations",
            body: Some(r#"{"email":"not-an-address","role":"MEMBER"}"#),
            own: people_own::<400>,
            foreign: people_foreign::<400>,
        },
        TenantOperation {
            id: "resendInvitation",
            method: "POST",
            path: "/tenants/{tenantId}/clients/{clientId}/invitations/0190b5a0-0000-7000-8000-0000000000aa/resend",
            body: None,
            own: people_own::<404>,
            foreign: people_foreign::<404>,
        },
        TenantOperation {
            id: "withdrawInvitation",
            method: "DELETE",
            path: "/tenants/{tenantId}/clients/{clientId}/invitations/0190b5a0-0000-7000-8000-0000000000aa",
            body: None,
            own: people_own::<404>,
            foreign: people_foreign::<404>,
        },
        // A key with guests:write books stays in its sandbox; people as for
        // the household's people (a missing stay is 404 to those let in).
        TenantOperation {
            id: "getGuest",
            method: "GET",
            path: "/tenants/{tenantId}/clients/{clientId}/guests/NO-SUCH-STAY",
            body: None,
            own: guests_own::<404>,
            foreign: people_foreign::<404>,
        },
        // A stay that ends before it starts: those let in learn that (400).
        TenantOperation {
            id: "putGuest",
            method: "PUT",
            path: "/tenants/{tenantId}/clients/{clientId}/guests/BK-HARNESS",
            body: Some(
                r#"{"email":"g@example.com","propertyId":"{propertyId}","checkIn":"2099-01-02T00:00:00Z","checkOut":"2099-01-01T00:00:00Z"}"#,
            ),
            own: guests_own::<400>,
            foreign: people_foreign::<400>,
        },
        TenantOperation {
            id: "checkOutGuest",
            method: "DELETE",
            path: "/tenants/{tenantId}/clients/{clientId}/guests/NO-SUCH-STAY",
            body: None,
            own: guests_own::<404>,
            foreign: people_foreign::<404>,
        },
        TenantOperation {
            id: "listAudit",
            method: "GET",
            path: "/tenants/{tenantId}/clients/{clientId}/audit",
            body: None,
            own: people_own::<200>,
            foreign: people_foreign::<200>,
        },
        // Widget tokens: household people who hold the home (an empty name
        // tells those let in what is wrong); keys and developers are refused.
        TenantOperation {
            id: "createWidgetToken",
            method: "POST",
            path: "/properties/{propertyId}/widget-tokens?tenantId={tenantId}",
            body: Some(r#"{"name":""}"#),
            own: widget_own::<400>,
            foreign: not_found,
        },
        TenantOperation {
            id: "listWidgetTokens",
            method: "GET",
            path: "/properties/{propertyId}/widget-tokens?tenantId={tenantId}",
            body: None,
            own: widget_own::<200>,
            foreign: not_found,
        },
        TenantOperation {
            id: "revokeWidgetToken",
            method: "DELETE",
            path: "/properties/{propertyId}/widget-tokens/0190b5a0-0000-7000-8000-0000000000aa?tenantId={tenantId}",
            body: None,
            own: widget_own::<404>,
            foreign: not_found,
        },
        TenantOperation {
            id: "listNotifications",
            method: "GET",
            path: "/notifications?tenantId={tenantId}",
            body: None,
            own: notifications_own,
            foreign: staff_only,
        },
        TenantOperation {
            id: "listVirtualDevices",
            method: "GET",
            path: "/developers/simulator/devices?tenantId={tenantId}",
            body: None,
            own: authenticated_but_live,
            foreign: staff_only,
        },
        TenantOperation {
            id: "listSimulationScripts",
            method: "GET",
            path: "/developers/simulator/scripts?tenantId={tenantId}",
            body: None,
            own: authenticated_but_live,
            foreign: staff_only,
        },
        TenantOperation {
            id: "createSimulationScript",
            method: "POST",
            path: "/developers/simulator/scripts",
            body: Some(
                r#"{"tenantId":"{tenantId}","script":{"name":"authz","roles":[{"name":"a","profile":"LIGHT"}],"durationMs":1000}}"#,
            ),
            own: sandbox_admin_own,
            foreign: sandbox_admin_foreign,
        },
        TenantOperation {
            id: "getSimulationScript",
            method: "GET",
            path: "/developers/simulator/scripts/0190b5a0-0000-7000-8000-00000000d001?tenantId={tenantId}",
            body: None,
            own: not_found_but_live_refused,
            foreign: not_found,
        },
        TenantOperation {
            id: "deleteSimulationScript",
            method: "DELETE",
            path: "/developers/simulator/scripts/0190b5a0-0000-7000-8000-00000000d001?tenantId={tenantId}",
            body: None,
            own: sandbox_admin_missing_own,
            foreign: sandbox_admin_foreign,
        },
        TenantOperation {
            id: "listScriptRuns",
            method: "GET",
            path: "/developers/simulator/runs?tenantId={tenantId}",
            body: None,
            own: authenticated_but_live,
            foreign: staff_only,
        },
        TenantOperation {
            id: "startScriptRun",
            method: "POST",
            path: "/developers/simulator/runs",
            body: Some(
                r#"{"tenantId":"{tenantId}","scriptId":"0190b5a0-0000-7000-8000-00000000d001","devices":{}}"#,
            ),
            own: sandbox_admin_refused_own,
            foreign: sandbox_admin_foreign,
        },
        TenantOperation {
            id: "getScriptRun",
            method: "GET",
            path: "/developers/simulator/runs/0190b5a0-0000-7000-8000-00000000d001?tenantId={tenantId}",
            body: None,
            own: not_found_but_live_refused,
            foreign: not_found,
        },
        TenantOperation {
            id: "stopScriptRun",
            method: "POST",
            path: "/developers/simulator/runs/0190b5a0-0000-7000-8000-00000000d001/stop?tenantId={tenantId}",
            body: None,
            own: sandbox_admin_missing_own,
            foreign: sandbox_admin_foreign,
        },
        TenantOperation {
            id: "createVirtualDevice",
            method: "POST",
            path: "/developers/simulator/devices",
            body: Some(
                r#"{"tenantId":"{tenantId}","propertyId":"{propertyId}","profile":"LIGHT"}"#,
            ),
            own: sandbox_admin_own,
            foreign: sandbox_admin_foreign,
        },
        TenantOperation {
            id: "setVirtualDeviceScenario",
            method: "POST",
            path: "/developers/simulator/devices/0190b5a0-0000-7000-8000-00000000d001/scenario",
            body: Some(r#"{"tenantId":"{tenantId}","scenario":"BURST","seconds":5}"#),
            own: sandbox_admin_missing_own,
            foreign: sandbox_admin_foreign,
        },
        TenantOperation {
            id: "deleteVirtualDevice",
            method: "DELETE",
            path: "/developers/simulator/devices/0190b5a0-0000-7000-8000-00000000d001?tenantId={tenantId}",
            body: None,
            own: sandbox_admin_missing_own,
            foreign: sandbox_admin_foreign,
        },
        TenantOperation {
            id: "detachVirtualDevice",
            method: "POST",
            path: "/developers/simulator/devices/0190b5a0-0000-7000-8000-00000000d001/detach?tenantId={tenantId}",
            body: None,
            own: sandbox_admin_missing_own,
            foreign: sandbox_admin_foreign,
        },
        TenantOperation {
            id: "attachVirtualDevice",
            method: "POST",
            path: "/developers/simulator/devices/0190b5a0-0000-7000-8000-00000000d001/attach?tenantId={tenantId}",
            body: None,
            own: sandbox_admin_missing_own,
            foreign: sandbox_admin_foreign,
        },
        TenantOperation {
            id: "listIntegrations",
            method: "GET",
            path: "/integrations?tenantId={tenantId}",
            body: None,
            own: authenticated_all,
            foreign: staff_only,
        },
        TenantOperation {
            // A home that does not exist: who may configure which home is
            // tested in e2e/integrations.rs.
            id: "connectIntegration",
            method: "POST",
            path: "/integrations",
            body: Some(
                r#"{"tenantId":"{tenantId}","propertyId":"0190b5a0-0000-7000-8000-00000000e001","connectorId":"0190b5a0-0000-7000-8000-00000000e002","input":{}}"#,
            ),
            own: not_found_but_live_refused,
            foreign: not_found,
        },
        TenantOperation {
            id: "searchMusic",
            method: "GET",
            path: "/integrations/0190b5a0-0000-7000-8000-00000000e001/search?tenantId={tenantId}&q=jazz&type=track",
            body: None,
            own: not_found,
            foreign: not_found,
        },
        TenantOperation {
            id: "getIntegration",
            method: "GET",
            path: "/integrations/0190b5a0-0000-7000-8000-00000000e001?tenantId={tenantId}",
            body: None,
            own: not_found,
            foreign: not_found,
        },
        TenantOperation {
            id: "deleteIntegration",
            method: "DELETE",
            path: "/integrations/0190b5a0-0000-7000-8000-00000000e001?tenantId={tenantId}",
            body: None,
            own: not_found_but_live_refused,
            foreign: not_found,
        },
        TenantOperation {
            id: "discoverIntegration",
            method: "POST",
            path: "/integrations/0190b5a0-0000-7000-8000-00000000e001/discover",
            body: Some(r#"{"tenantId":"{tenantId}","propertyId":"{propertyId}"}"#),
            own: not_found_but_live_refused,
            foreign: not_found,
        },
        TenantOperation {
            id: "listIntegrationEndpoints",
            method: "GET",
            path: "/integrations/0190b5a0-0000-7000-8000-00000000e001/endpoints?tenantId={tenantId}",
            body: None,
            own: not_found,
            foreign: not_found,
        },
    ]
}

#[tokio::test]
async fn tenant_objects_answer_foreign_callers_like_missing_ones() {
    let t = harness_platform().await;
    let principals = Principals::seed(&t).await;
    let demo = t
        .platform
        .first_start
        .as_ref()
        .unwrap()
        .tenant_id
        .to_string();
    let sandbox = principals.developer.sandbox_tenant_id.clone();
    let missing = "0190b5a0-0000-7000-8000-000000000000".to_owned();
    // A home of each tenant, for bodies that name one.
    let demo_home = t
        .platform
        .first_start
        .as_ref()
        .unwrap()
        .property_id
        .to_string();
    let (_, homes) = t
        .get_json(
            &format!("/properties?tenantId={sandbox}"),
            Some(&principals.developer.access_token),
        )
        .await;
    let sandbox_home = homes["items"][0]["id"].as_str().unwrap().to_owned();
    let sandbox_household = homes["items"][0]["clientId"].as_str().unwrap().to_owned();
    let demo_household = t
        .platform
        .first_start
        .as_ref()
        .unwrap()
        .client_id
        .to_string();
    let home_of = |tenant: &str| {
        if *tenant == demo {
            demo_home.clone()
        } else if *tenant == sandbox {
            sandbox_home.clone()
        } else {
            missing.clone()
        }
    };
    let household_of = |tenant: &str| {
        if *tenant == demo {
            demo_household.clone()
        } else if *tenant == sandbox {
            sandbox_household.clone()
        } else {
            missing.clone()
        }
    };
    let mut serial = 0;
    let mut failures = Vec::new();
    for op in tenant_operations() {
        for who in Who::ALL {
            let developer_side = matches!(
                who,
                Who::DeveloperSession | Who::DevKey | Who::RevokedKey | Who::LiveKey
            );
            let (own, foreign) = if developer_side {
                (&sandbox, &demo)
            } else {
                (&demo, &sandbox)
            };
            let mut answers = Vec::new();
            for (label, tenant) in [("own", own), ("foreign", foreign), ("missing", &missing)] {
                let expected = tenant_expectation(&op, who, label);
                let url = t.url(
                    &op.path
                        .replace("{tenantId}", tenant)
                        .replace("{propertyId}", &home_of(tenant))
                        .replace("{clientId}", &household_of(tenant)),
                );
                let mut request = t.http.request(op.method.parse().unwrap(), &url);
                if let Some(template) = op.body {
                    serial += 1;
                    let body = template
                        .replace("{tenantId}", tenant)
                        .replace("{propertyId}", &home_of(tenant))
                        .replace("{serial}", &format!("HARNESS-{serial}"));
                    request = request
                        .header("content-type", "application/json")
                        .body(body);
                }
                if let Some(token) = principals.token(who) {
                    request = request.bearer_auth(token);
                }
                let response = request.send().await.unwrap();
                let status = response.status().as_u16();
                // A stream's body never ends: its status is the answer.
                let streamed = response
                    .headers()
                    .get("content-type")
                    .is_some_and(|t| t.as_bytes().starts_with(b"text/event-stream"));
                let body: Value = match streamed {
                    true => Value::Null,
                    false => response.json().await.unwrap_or(Value::Null),
                };
                if status != expected {
                    failures.push(format!(
                        "{} {label} as {who:?}: got {status}, expected {expected}",
                        op.id
                    ));
                }
                answers.push((status, alyt_tests::without_request_id(body)));
            }
            if answers[1].0 == 404 && answers[1] != answers[2] {
                failures.push(format!(
                    "{} as {who:?}: a foreign tenant answers differently from a missing one",
                    op.id
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "tenant authorization violations:\n{}",
        failures.join("\n")
    );
}

#[tokio::test]
async fn every_operation_answers_every_caller_as_the_table_says() {
    let t = harness_platform().await;
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
            let expected = match who {
                Who::WidgetToken => widget_expects(&op),
                _ => (op.expect)(who),
            };
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
    let covered: BTreeSet<String> = operations()
        .iter()
        .map(|o| o.id.to_owned())
        .chain(tenant_operations().iter().map(|o| o.id.to_owned()))
        .collect();
    let missing: Vec<_> = served.difference(&covered).collect();
    assert!(
        missing.is_empty(),
        "operations without authorization rows: {missing:?}"
    );
}

/// One request of either table as the developer's side would send it (its
/// own tenant: the sandbox), with `token`.
struct Sender<'a> {
    t: &'a TestPlatform,
    sandbox: String,
    home: String,
    household: String,
    serial: std::cell::Cell<u32>,
}

async fn status_of(request: reqwest::RequestBuilder, token: &str) -> u16 {
    let response = request.bearer_auth(token).send().await.unwrap();
    response.status().as_u16()
}

impl Sender<'_> {
    async fn fixed(&self, op: &Operation, token: &str) -> u16 {
        let mut request = self
            .t
            .http
            .request(op.method.parse().unwrap(), self.t.url(op.path));
        if let Some(body) = (op.body)(Who::DevKey) {
            request = request.json(&body);
        }
        status_of(request, token).await
    }

    async fn tenant(&self, op: &TenantOperation, token: &str) -> u16 {
        let fill = |text: &str| {
            self.serial.set(self.serial.get() + 1);
            text.replace("{tenantId}", &self.sandbox)
                .replace("{propertyId}", &self.home)
                .replace("{clientId}", &self.household)
                .replace("{serial}", &format!("SCOPES-{}", self.serial.get()))
        };
        let mut request = self
            .t
            .http
            .request(op.method.parse().unwrap(), self.t.url(&fill(op.path)));
        if let Some(template) = op.body {
            request = request
                .header("content-type", "application/json")
                .body(fill(template));
        }
        status_of(request, token).await
    }
}

/// The scopes each operation names in the contract are exactly what a key
/// needs: a DEV key holding only them is served as a key with every scope
/// is, and (when any are named) a key holding every other scope is refused
/// (403). An operation marked `x-session-only` refuses even a key with
/// every scope (401 or 403, or 404 where the path exists only for staff);
/// one with `x-scopes` (even `[]`: any key) does not refuse it.
#[tokio::test]
async fn every_operation_names_the_scopes_a_key_needs() {
    use alyt_domain::access::Scope;
    use std::collections::HashMap;

    let t = harness_platform().await;
    let principals = Principals::seed(&t).await;
    let sandbox = principals.developer.sandbox_tenant_id.clone();
    let (_, homes) = t
        .get_json(
            &format!("/properties?tenantId={sandbox}"),
            Some(&principals.developer.access_token),
        )
        .await;
    let sender = Sender {
        t: &t,
        sandbox,
        home: homes["items"][0]["id"].as_str().unwrap().to_owned(),
        household: homes["items"][0]["clientId"].as_str().unwrap().to_owned(),
        serial: std::cell::Cell::new(0),
    };
    // Thousands of keyed requests: no burst limit for this developer.
    let owner = principals.token(Who::PlatformOwner).unwrap();
    let response = t
        .http
        .put(t.url(&format!(
            "/developers/admin/developers/{}/quota",
            principals.developer.developer_id
        )))
        .bearer_auth(owner)
        .json(&json!({ "kind": "REQUESTS", "ceiling": 10_000_000, "window": "day" }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);

    let (_, doc) = t.get_json("/openapi.json", None).await;
    let mut named: HashMap<String, Option<Vec<String>>> = HashMap::new();
    let mut session_only: BTreeSet<String> = BTreeSet::new();
    for item in doc["paths"].as_object().unwrap().values() {
        for operation in item.as_object().unwrap().values() {
            let id = operation["operationId"].as_str().unwrap().to_owned();
            let scopes = operation["security"].as_array().map(|_| {
                operation["x-scopes"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|s| s.as_str().unwrap().to_owned())
                    .collect()
            });
            if operation["x-session-only"] == json!(true) {
                session_only.insert(id.clone());
            }
            named.insert(id, scopes);
        }
    }
    let every_scope: Vec<&str> = Scope::ALL.iter().map(|s| s.as_str()).collect();
    let mut keys: HashMap<Vec<String>, String> = HashMap::new();
    let mut key_with = async |scopes: Vec<String>| -> String {
        if let Some(key) = keys.get(&scopes) {
            return key.clone();
        }
        let list: Vec<&str> = scopes.iter().map(String::as_str).collect();
        let (_, key) = alyt_tests::developers::create_key(&t, &principals.developer, &list).await;
        keys.insert(scopes, key.clone());
        key
    };
    let all = principals.token(Who::DevKey).unwrap().to_owned();
    let mut failures = Vec::new();
    let mut checked = 0;
    let fixed = operations().into_iter().map(|op| (op.id, Some(op), None));
    let tenant = tenant_operations()
        .into_iter()
        .map(|op| (op.id, None, Some(op)));
    for (id, fixed, tenant) in fixed.chain(tenant) {
        let Some(Some(scopes)) = named.get(id) else {
            continue; // not secured: no key is asked for
        };
        let (only, others): (Vec<String>, Vec<String>) = if scopes.is_empty() {
            (vec!["firmware:read".to_owned()], vec![])
        } else {
            let others = every_scope
                .iter()
                .filter(|s| !scopes.iter().any(|n| n == *s))
                .map(|s| s.to_string())
                .collect();
            (scopes.clone(), others)
        };
        let send = async |token: &str| match (&fixed, &tenant) {
            (Some(op), _) => sender.fixed(op, token).await,
            (_, Some(op)) => sender.tenant(op, token).await,
            _ => unreachable!(),
        };
        let with_all = send(&all).await;
        let refused = matches!(with_all, 401 | 403 | 404);
        if session_only.contains(id) {
            if !refused {
                failures.push(format!(
                    "{id}: x-session-only, yet a key with every scope got {with_all}"
                ));
            }
            checked += 1;
            continue;
        }
        if matches!(with_all, 401 | 403) {
            failures.push(format!(
                "{id}: x-scopes {scopes:?}, yet a key with every scope got {with_all} (x-session-only?)"
            ));
        }
        let only_key = key_with(only.clone()).await;
        let with_only = send(&only_key).await;
        if (with_all == 403) != (with_only == 403) {
            failures.push(format!(
                "{id}: a key with every scope got {with_all}, one with only {only:?} got {with_only}"
            ));
        }
        if !others.is_empty() && with_all != 403 {
            let others_key = key_with(others).await;
            let without = send(&others_key).await;
            if without != 403 {
                failures.push(format!(
                    "{id}: a key without {scopes:?} got {without}, not 403"
                ));
            }
        }
        checked += 1;
    }
    assert!(checked > 100, "only {checked} secured operations checked");
    assert!(
        failures.is_empty(),
        "scopes the contract names differ from what keys need:\n{}",
        failures.join("\n")
    );
}
