//! The OpenAPI document is generated from the code; the committed copy at
//! `shared/api/contract/openapi.json` must equal it, so a contract change is
//! always visible in review. Regenerate with `ALYT_UPDATE_CONTRACTS=1`.

use std::path::PathBuf;

fn committed_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("contract/openapi.json")
}

#[test]
fn openapi_document_matches_the_committed_contract() {
    let generated = serde_json::to_string_pretty(&alyt_api::openapi::document()).unwrap() + "\n";
    let path = committed_path();
    if std::env::var_os("ALYT_UPDATE_CONTRACTS").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "the OpenAPI document drifted from {}; review the change and regenerate with ALYT_UPDATE_CONTRACTS=1 cargo test -p alyt-api --test contract",
        path.display()
    );
}

#[test]
fn openapi_document_is_3_1_with_the_contract_version() {
    let doc = serde_json::to_value(alyt_api::openapi::document()).unwrap();
    assert_eq!(doc["openapi"], "3.1.0");
    assert_eq!(doc["info"]["version"], alyt_api::openapi::API_VERSION);
    assert_eq!(doc["info"]["version"], "0.1.0");
    assert!(doc["paths"]["/v1/capabilities"]["get"].is_object());
    assert!(doc["components"]["schemas"]["CapabilityCatalogue"].is_object());
}

/// The AsyncAPI document of the broker channels, committed beside the OpenAPI one.
#[test]
fn asyncapi_document_matches_the_committed_contract() {
    let generated =
        serde_json::to_string_pretty(&alyt_device::asyncapi::document()).unwrap() + "\n";
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("contract/asyncapi.json");
    if std::env::var_os("ALYT_UPDATE_CONTRACTS").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "the AsyncAPI document drifted from {}; review and regenerate with ALYT_UPDATE_CONTRACTS=1",
        path.display()
    );
}
