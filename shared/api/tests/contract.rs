//! The OpenAPI document is generated from the code; the committed copy at
//! `shared/api/contract/openapi.json` must equal it, so a contract change is
//! always visible in review. Regenerate with `ALYT_UPDATE_CONTRACTS=1`.

use std::collections::BTreeSet;
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
    assert_eq!(doc["info"]["version"], "0.7.1");
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

/// The platform serves the committed copies as compiled in
/// (`alyt_api::openapi::COMMITTED_*`): they must be the generated documents.
/// (Right after `ALYT_UPDATE_CONTRACTS=1` rewrote the files, this binary
/// still holds the old copies; the next build embeds the new ones.)
#[test]
fn the_served_documents_are_the_generated_ones() {
    if std::env::var_os("ALYT_UPDATE_CONTRACTS").is_some() {
        return;
    }
    // Embedded compact (build.rs): the same documents, key order included.
    let embedded = |bytes: &[u8]| serde_json::from_slice::<serde_json::Value>(bytes).unwrap();
    let openapi = alyt_api::openapi::document();
    assert!(
        embedded(alyt_api::openapi::COMMITTED_OPENAPI) == openapi
            && alyt_api::openapi::COMMITTED_OPENAPI == serde_json::to_vec(&openapi).unwrap(),
        "the served OpenAPI document is not the generated one"
    );
    let asyncapi = alyt_device::asyncapi::document();
    assert!(
        embedded(alyt_api::openapi::COMMITTED_ASYNCAPI) == asyncapi
            && alyt_api::openapi::COMMITTED_ASYNCAPI == serde_json::to_vec(&asyncapi).unwrap(),
        "the served AsyncAPI document is not the generated one"
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

/// The names of the component schemas `value` refers to, and theirs.
fn referenced_schemas(doc: &serde_json::Value, value: &serde_json::Value) -> BTreeSet<String> {
    fn walk(value: &serde_json::Value, found: &mut Vec<String>) {
        match value {
            serde_json::Value::Object(map) => {
                if let Some(reference) = map.get("$ref").and_then(|r| r.as_str()) {
                    found.push(reference.rsplit('/').next().unwrap().to_owned());
                }
                map.values().for_each(|v| walk(v, found));
            }
            serde_json::Value::Array(items) => items.iter().for_each(|v| walk(v, found)),
            _ => {}
        }
    }
    let mut seen = BTreeSet::new();
    let mut todo = Vec::new();
    walk(value, &mut todo);
    while let Some(name) = todo.pop() {
        if seen.insert(name.clone()) {
            walk(&doc["components"]["schemas"][&name], &mut todo);
        }
    }
    seen
}

fn is_nullable(schema: &serde_json::Value) -> bool {
    let null = |s: &serde_json::Value| s["type"] == "null";
    schema["type"]
        .as_array()
        .is_some_and(|types| types.iter().any(|t| t == "null"))
        || ["oneOf", "anyOf"]
            .iter()
            .any(|k| schema[*k].as_array().is_some_and(|a| a.iter().any(null)))
}

/// In what the API answers, a field that may be null is always present
/// (required and nullable) and a field that may be absent is never null: a
/// generated client then types each exactly. Request bodies may omit or null
/// their optional fields alike.
#[test]
fn answered_fields_are_either_always_present_or_never_null() {
    let doc = serde_json::to_value(alyt_api::openapi::document()).unwrap();
    let mut answered = BTreeSet::new();
    let mut asked = BTreeSet::new();
    for item in doc["paths"].as_object().unwrap().values() {
        for operation in item.as_object().unwrap().values() {
            answered.extend(referenced_schemas(&doc, &operation["responses"]));
            asked.extend(referenced_schemas(&doc, &operation["requestBody"]));
            asked.extend(referenced_schemas(&doc, &operation["parameters"]));
        }
    }
    assert!(answered.len() > 50, "{answered:?}");
    let mut wrong = Vec::new();
    fn check(path: &str, schema: &serde_json::Value, wrong: &mut Vec<String>) {
        if !schema.is_object() {
            return;
        }
        let required: Vec<&str> = schema["required"]
            .as_array()
            .map(|r| r.iter().filter_map(|n| n.as_str()).collect())
            .unwrap_or_default();
        for (name, property) in schema["properties"].as_object().into_iter().flatten() {
            if is_nullable(property) && !required.contains(&name.as_str()) {
                wrong.push(format!("{path}.{name}"));
            }
            check(&format!("{path}.{name}"), property, wrong);
        }
        for key in ["items", "additionalProperties"] {
            check(path, &schema[key], wrong);
        }
        for key in ["allOf", "oneOf", "anyOf"] {
            for part in schema[key].as_array().into_iter().flatten() {
                check(path, part, wrong);
            }
        }
    }
    for (name, schema) in doc["components"]["schemas"].as_object().unwrap() {
        // Request-only schemas are exempt; every other one is answered
        // somewhere (some only inside an event or a page).
        if asked.contains(name) && !answered.contains(name) {
            continue;
        }
        check(name, schema, &mut wrong);
    }
    assert!(
        wrong.is_empty(),
        "answered fields that are optional and nullable (mark each `required = true` when it is always serialized, or `nullable = false` when it is skipped when empty): {wrong:?}"
    );
}

/// Every operation documents its failures and who may call it, as an SDK
/// reads them: a `default` problem answer and the request rate's 429 (with
/// `Retry-After`); the RateLimit fields on every answer; on a secured
/// operation a 401 and exactly one of `x-session-only: true` and `x-scopes`
/// (the scopes its `bearer` requirement lists).
#[test]
fn every_operation_documents_its_failures_and_who_may_call_it() {
    let doc = alyt_api::openapi::document();
    let resolve = |response: &serde_json::Value| -> serde_json::Value {
        match response["$ref"].as_str() {
            Some(reference) => {
                let name = reference.strip_prefix("#/components/responses/").unwrap();
                doc["components"]["responses"][name].clone()
            }
            None => response.clone(),
        }
    };
    let mut wrong = Vec::new();
    let mut secured = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let Some(id) = operation["operationId"].as_str() else {
                continue;
            };
            let responses = operation["responses"].as_object().unwrap();
            for status in ["default", "429"] {
                let Some(response) = responses.get(status).map(resolve) else {
                    wrong.push(format!("{id}: no {status} answer"));
                    continue;
                };
                if response["content"]["application/problem+json"].is_null() {
                    wrong.push(format!("{id}: its {status} answer is no problem body"));
                }
            }
            if resolve(&responses["429"])["headers"]["Retry-After"].is_null() {
                wrong.push(format!("{id}: its 429 has no Retry-After"));
            }
            for (status, response) in responses {
                for header in ["RateLimit", "RateLimit-Policy"] {
                    if resolve(response)["headers"][header].is_null() {
                        wrong.push(format!("{id} {status}: no {header} header"));
                    }
                }
            }
            let Some(requirements) = operation["security"].as_array() else {
                if operation.get("x-scopes").is_some() || operation.get("x-session-only").is_some()
                {
                    wrong.push(format!("{id}: not secured, yet says who may call it"));
                }
                continue;
            };
            secured += 1;
            if !responses.contains_key("401") {
                wrong.push(format!("{method} {path} ({id}): secured without a 401"));
            }
            let listed: Vec<serde_json::Value> = requirements
                .iter()
                .flat_map(|r| r["bearer"].as_array().cloned().unwrap_or_default())
                .collect();
            match (operation.get("x-session-only"), operation.get("x-scopes")) {
                (Some(serde_json::Value::Bool(true)), None) if listed.is_empty() => {}
                (Some(serde_json::Value::Bool(true)), None) => {
                    wrong.push(format!("{id}: session-only, yet lists scopes {listed:?}"))
                }
                (None, Some(serde_json::Value::Array(scopes))) if *scopes == listed => {}
                (session_only, scopes) => wrong.push(format!(
                    "{id}: x-session-only {session_only:?} and x-scopes {scopes:?} (bearer lists {listed:?})"
                )),
            }
        }
    }
    assert!(secured > 100, "only {secured} secured operations");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The kept releases (`contract/releases/<version>.json`), oldest first.
fn releases() -> Vec<(semver::Version, serde_json::Value)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("contract/releases");
    let mut releases: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .map(|path| {
            let name = path.file_stem().unwrap().to_str().unwrap().to_owned();
            let version = semver::Version::parse(&name)
                .unwrap_or_else(|_| panic!("{} is not named by a version", path.display()));
            let doc: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            assert_eq!(doc["info"]["version"], name, "{}", path.display());
            (version, doc)
        })
        .collect();
    releases.sort_by(|a, b| a.0.cmp(&b.0));
    releases
}

/// A kept release never changes once written: each file's SHA-256 is in
/// `releases/SHA256SUMS` (`sha256sum *.json`), written with the release, and
/// every release there still hashes to it. A new release adds its line; an
/// edited one fails here (make a new version instead).
#[test]
fn kept_releases_never_change() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("contract/releases");
    releases_match_their_checksums(&dir);
    releases_match_their_checksums(&dir.join("asyncapi"));
}

/// The `*.json` of `dir`, each as `dir/SHA256SUMS` says, the first being
/// the spec's 0.1.0.
fn releases_match_their_checksums(dir: &std::path::Path) {
    use sha2::{Digest, Sha256};
    let sums =
        std::fs::read_to_string(dir.join("SHA256SUMS")).expect("SHA256SUMS beside the releases");
    let listed: std::collections::BTreeMap<String, String> = sums
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let (sum, file) = line.split_once("  ").expect("`<sha256>  <file>` lines");
            (file.to_owned(), sum.to_owned())
        })
        .collect();
    let kept: BTreeSet<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.ends_with(".json"))
        .collect();
    assert_eq!(
        kept,
        listed.keys().cloned().collect::<BTreeSet<_>>(),
        "every kept release in {}, and only those, has its checksum in its SHA256SUMS",
        dir.display()
    );
    for (file, sum) in &listed {
        let actual = hex::encode(Sha256::digest(std::fs::read(dir.join(file)).unwrap()));
        assert_eq!(
            &actual,
            sum,
            "{} changed after it was released",
            dir.join(file).display()
        );
    }
    assert!(
        listed.contains_key("0.1.0.json"),
        "the first release is the spec's 0.1.0"
    );
}

/// Each event of the two streams is typed: `x-item-schema` (OpenAPI 3.2's
/// `itemSchema`) says its `data:` is the event envelope.
#[test]
fn stream_events_are_typed_as_the_envelope() {
    let doc = alyt_api::openapi::document();
    for path in [
        "/v1/developers/events/stream",
        "/v1/properties/{propertyId}/events/stream",
    ] {
        let item = &doc["paths"][path]["get"]["responses"]["200"]["content"]["text/event-stream"]["x-item-schema"];
        assert_eq!(
            item["properties"]["data"]["contentSchema"]["$ref"],
            "#/components/schemas/EventEnvelope",
            "{path}"
        );
    }
}

/// Spec Versioning 2: the contract's version moves with what changed since
/// the last kept release (a removed operation, a newly required request
/// field or a changed scope: major; an added operation: minor; prose:
/// patch), and so did every release from the one before.
#[test]
fn the_contract_version_moves_with_its_changes_since_the_last_release() {
    let releases = releases();
    assert!(!releases.is_empty(), "the releases are kept");
    for pair in releases.windows(2) {
        let ((_, older), (version, newer)) = (&pair[0], &pair[1]);
        let report = alyt_contract_diff::classify(older, newer);
        alyt_contract_diff::check_version(older, newer, &report)
            .unwrap_or_else(|wrong| panic!("release {version}: {wrong}"));
    }
    let (_, last) = releases.last().unwrap();
    let current = serde_json::to_value(alyt_api::openapi::document()).unwrap();
    let report = alyt_contract_diff::classify(last, &current);
    if let Err(wrong) = alyt_contract_diff::check_version(last, &current, &report) {
        panic!(
            "{wrong}\nevery change found:\n{}",
            report
                .findings
                .iter()
                .map(|f| format!("  {:?}: {}", f.change, f.what))
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}

/// The device broker's AsyncAPI document follows the same rule: kept
/// releases in `contract/releases/asyncapi/`, and its `info.version` moves
/// with what changed since the last one (`classify_asyncapi`).
#[test]
fn the_broker_contract_version_moves_with_its_changes_since_the_last_release() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("contract/releases/asyncapi");
    let mut releases: Vec<(semver::Version, serde_json::Value)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .map(|path| {
            let name = path.file_stem().unwrap().to_str().unwrap().to_owned();
            let doc: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            assert_eq!(doc["info"]["version"], name, "{}", path.display());
            (semver::Version::parse(&name).unwrap(), doc)
        })
        .collect();
    releases.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        releases[0].0.to_string(),
        "0.1.0",
        "the first release is 0.1.0"
    );
    for pair in releases.windows(2) {
        let report = alyt_contract_diff::classify_asyncapi(&pair[0].1, &pair[1].1);
        alyt_contract_diff::check_version(&pair[0].1, &pair[1].1, &report)
            .unwrap_or_else(|wrong| panic!("release {}: {wrong}", pair[1].0));
    }
    let current = alyt_device::asyncapi::document();
    assert_eq!(current["info"]["version"], alyt_device::asyncapi::VERSION);
    let last = &releases.last().unwrap().1;
    let report = alyt_contract_diff::classify_asyncapi(last, &current);
    alyt_contract_diff::check_version(last, &current, &report)
        .unwrap_or_else(|wrong| panic!("{wrong}\n{:?}", report.findings));
}

/// Which hosted function serves each operation, committed beside the
/// contract (`contract/groups.json`: each group's binary and its `METHOD
/// /path` list). The emulated region holds the template's routes to it:
/// an operation whose route leads to another group's function is a 404
/// there (infra/emulator.py `misrouted_operations`).
#[test]
fn hosted_groups_match_the_committed_map() {
    let groups: std::collections::BTreeMap<String, BTreeSet<String>> = alyt_api::Group::ALL
        .into_iter()
        .map(|group| {
            let binary = format!("alyt-api-{}", format!("{group:?}").to_lowercase());
            let endpoints = group
                .routes()
                .endpoints()
                .into_iter()
                .map(|(method, path)| format!("{method} {path}"))
                .collect();
            (binary, endpoints)
        })
        .collect();
    let generated = serde_json::to_string_pretty(&groups).unwrap() + "\n";
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("contract/groups.json");
    if std::env::var_os("ALYT_UPDATE_CONTRACTS").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "the hosted groups drifted from {}; review and regenerate with ALYT_UPDATE_CONTRACTS=1 cargo test -p alyt-api --test contract",
        path.display()
    );
}
