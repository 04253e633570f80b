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
    assert_eq!(doc["info"]["version"], "0.3.0");
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

/// What the runtime routes (read from each handler's path and methods only,
/// without building the contract: `alyt_api::routing`) is exactly what the
/// contract documents, and the rate limiter's view of which operations
/// authenticate their caller matches the contract's security requirements.
#[test]
fn the_routed_operations_are_the_documented_ones() {
    use std::collections::BTreeSet;

    let operations = alyt_api::openapi::all_operations();
    let routed: Vec<(String, String)> = operations
        .endpoints()
        .into_iter()
        .map(|(method, path)| (method.as_str().to_owned(), path))
        .collect();
    let unique: BTreeSet<_> = routed.iter().cloned().collect();
    assert_eq!(unique.len(), routed.len(), "an operation is routed twice");

    let doc = serde_json::to_value(alyt_api::openapi::document()).unwrap();
    let mut documented = BTreeSet::new();
    let mut secured = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let key = (method.to_uppercase(), path.clone());
            if operation["security"]
                .as_array()
                .is_some_and(|s| !s.is_empty())
            {
                secured.insert(key.clone());
            }
            documented.insert(key);
        }
    }
    assert_eq!(unique, documented);
    assert!(secured.len() > 50 && secured.len() < documented.len());

    let lazy = operations.secured();
    for (method, path) in &documented {
        let method: axum::http::Method = method.parse().unwrap();
        assert_eq!(
            lazy.authenticates(&method, path),
            secured.contains(&(method.as_str().to_owned(), path.clone())),
            "{method} {path}"
        );
    }
}

/// Every security requirement names a scheme the document defines (a
/// generated client would otherwise know no way to authenticate).
#[test]
fn every_security_requirement_names_a_defined_scheme() {
    let doc = serde_json::to_value(alyt_api::openapi::document()).unwrap();
    let defined: Vec<&str> = doc["components"]["securitySchemes"]
        .as_object()
        .map(|schemes| schemes.keys().map(String::as_str).collect())
        .unwrap_or_default();
    assert_eq!(
        doc["components"]["securitySchemes"]["bearer"]["scheme"],
        "bearer"
    );
    let mut checked = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            for requirement in operation["security"].as_array().into_iter().flatten() {
                for scheme in requirement.as_object().unwrap().keys() {
                    assert!(
                        defined.contains(&scheme.as_str()),
                        "{method} {path} names the undefined scheme {scheme:?}"
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 100, "only {checked} requirements seen");
}
