//! Classifies the change between two OpenAPI 3.1 documents of the API and
//! holds the newer one's `info.version` to it (the SDKs carry that version).
//!
//! - **major**: an operation removed; its scopes (or whether it is secured)
//!   changed; a request field or parameter newly required, removed, or no
//!   longer accepting a value it accepted (type, null, enum value, a
//!   tighter bound); an answered field removed, made optional, newly null or
//!   retyped; a success status removed.
//! - **minor**: an operation added, and every other change of shape (new
//!   optional request fields, new answered fields or enum values: clients
//!   drop unknown enum values).
//! - **patch**: prose only (descriptions, summaries, titles, examples).
//!
//! Why not an existing tool: oasdiff (the best-kept OpenAPI diff) is a Go
//! program, and this machine's registries carry no Go modules; the npm and
//! PyPI diff tools found either fetch a native binary at install or do not
//! read OpenAPI 3.1. The rules above are the spec's, and few.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use semver::Version;
use serde_json::{Map, Value};

/// How large a change is, smallest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Change {
    None,
    Patch,
    Minor,
    Major,
}

/// One change found, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub change: Change,
    pub what: String,
}

/// Every change found between two documents.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    pub findings: Vec<Finding>,
}

impl Report {
    /// The largest change found.
    pub fn change(&self) -> Change {
        self.findings
            .iter()
            .map(|f| f.change)
            .max()
            .unwrap_or(Change::None)
    }

    /// The findings of exactly `change`.
    pub fn of(&self, change: Change) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(move |f| f.change == change)
    }
}

/// The change from `old` to `new` (their `info.version` aside).
pub fn classify(old: &Value, new: &Value) -> Report {
    classify_with(old, new, |diff| {
        diff.operations();
        diff.servers();
        diff.unreached_schemas();
    })
}

/// No change, prose only, or the same shapes written with other references
/// (patch); otherwise what `compare` finds, at least minor (a change of
/// shape no rule names).
fn classify_with(old: &Value, new: &Value, compare: impl FnOnce(&mut Diff)) -> Report {
    let mut report = Report::default();
    let (old_bare, new_bare) = (without_version(old), without_version(new));
    if old_bare == new_bare {
        return report;
    }
    let patch = if without_prose(&old_bare) == without_prose(&new_bare) {
        Some("descriptions, summaries or examples changed")
    } else if without_prose(&inlined(&old_bare)) == without_prose(&inlined(&new_bare)) {
        Some(
            "the same shapes, written with other references (a schema named instead of repeated, or the reverse)",
        )
    } else {
        None
    };
    if let Some(what) = patch {
        report.findings.push(Finding {
            change: Change::Patch,
            what: what.into(),
        });
        return report;
    }
    let mut diff = Diff {
        old,
        new,
        findings: Vec::new(),
        seen: HashSet::new(),
    };
    compare(&mut diff);
    report.findings = diff.findings;
    if report.change() < Change::Minor {
        report.findings.push(Finding {
            change: Change::Minor,
            what: "a change of shape no rule names (components, servers or metadata)".into(),
        });
    }
    report
}

/// The change from one AsyncAPI 3.0 document of the device broker to the
/// next (`info.version` aside), by the same rules read from a device's
/// side: a channel, operation or message removed, an address, action or
/// channel changed, or a payload that accepts less of what a device sends
/// (or answers less of what the platform sends: `commands`) is **major**;
/// anything added or otherwise reshaped **minor**; prose **patch**.
pub fn classify_asyncapi(old: &Value, new: &Value) -> Report {
    classify_with(old, new, |diff| {
        diff.broker_operations();
        diff.channels();
    })
}

/// The version a document must carry after `change` from `last`.
pub fn next_version(last: &Version, change: Change) -> Version {
    match change {
        Change::None => last.clone(),
        Change::Patch => Version::new(last.major, last.minor, last.patch + 1),
        Change::Minor => Version::new(last.major, last.minor + 1, 0),
        Change::Major => Version::new(last.major + 1, 0, 0),
    }
}

/// `new`'s version, when it is the next one from `old`'s for the change the
/// report found (or for a larger one: a deliberate bump); otherwise what is
/// wrong.
pub fn check_version(old: &Value, new: &Value, report: &Report) -> Result<Version, String> {
    let version = |doc: &Value, which: &str| {
        doc["info"]["version"]
            .as_str()
            .and_then(|v| Version::parse(v).ok())
            .ok_or_else(|| format!("the {which} document has no semver info.version"))
    };
    let (last, current) = (version(old, "older")?, version(new, "newer")?);
    let needed = report.change();
    let allowed: Vec<Version> = [Change::None, Change::Patch, Change::Minor, Change::Major]
        .into_iter()
        .filter(|c| *c >= needed)
        .map(|c| next_version(&last, c))
        .collect();
    if allowed.contains(&current) {
        return Ok(current);
    }
    let why: Vec<&str> = report.of(needed).take(5).map(|f| f.what.as_str()).collect();
    Err(format!(
        "the contract changed since {last} by a {needed:?} change ({}): info.version must be {}, not {current}",
        if why.is_empty() {
            "nothing".to_owned()
        } else {
            why.join("; ")
        },
        next_version(&last, needed)
    ))
}

fn without_version(doc: &Value) -> Value {
    let mut doc = doc.clone();
    if let Some(info) = doc.get_mut("info").and_then(Value::as_object_mut) {
        info.remove("version");
    }
    doc
}

/// Keys whose values are prose for people, never shape.
const PROSE: [&str; 6] = [
    "description",
    "summary",
    "title",
    "example",
    "examples",
    "externalDocs",
];

/// `value` without its prose. The keys of a `properties` map are field
/// names (a field may be called `description`), so they stay.
fn without_prose(value: &Value) -> Value {
    fn strip(value: &Value, names: bool) -> Value {
        match value {
            Value::Object(map) => Value::Object(
                map.iter()
                    .filter(|(k, _)| names || !PROSE.contains(&k.as_str()))
                    .map(|(k, v)| (k.clone(), strip(v, !names && k == "properties")))
                    .collect(),
            ),
            Value::Array(items) => Value::Array(items.iter().map(|v| strip(v, false)).collect()),
            other => other.clone(),
        }
    }
    strip(value, false)
}

/// `doc` with every local schema reference replaced by what it names
/// (a reference back into a schema being inlined stays: recursive types).
/// Two documents equal this way describe the same wire shapes.
fn inlined(doc: &Value) -> Value {
    fn inline(doc: &Value, value: &Value, open: &mut Vec<String>) -> Value {
        match value {
            Value::Object(map) => {
                if let Some(reference) = map.get("$ref").and_then(Value::as_str)
                    && !open.iter().any(|o| o == reference)
                    && let Some(target) = reference
                        .strip_prefix('#')
                        .and_then(|pointer| doc.pointer(pointer))
                {
                    open.push(reference.to_owned());
                    let mut expanded = inline(doc, target, open);
                    open.pop();
                    // Siblings of a `$ref` (3.1 allows a description beside it).
                    if let Value::Object(expanded) = &mut expanded {
                        for (k, v) in map.iter().filter(|(k, _)| *k != "$ref") {
                            expanded.insert(k.clone(), inline(doc, v, open));
                        }
                    }
                    return expanded;
                }
                Value::Object(
                    map.iter()
                        .map(|(k, v)| (k.clone(), inline(doc, v, open)))
                        .collect(),
                )
            }
            Value::Array(items) => {
                Value::Array(items.iter().map(|v| inline(doc, v, open)).collect())
            }
            other => other.clone(),
        }
    }
    inline(doc, doc, &mut Vec::new())
}

/// Which side of the wire a schema is on: what a client sends may only
/// loosen, what it reads may only grow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Side {
    Request,
    Response,
}

struct Diff<'a> {
    old: &'a Value,
    new: &'a Value,
    findings: Vec<Finding>,
    /// Pairs of referenced schemas already compared, per side.
    seen: HashSet<(String, String, Side)>,
}

const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "patch", "head", "options", "trace",
];

fn operations(doc: &Value) -> BTreeMap<String, &Value> {
    let mut found = BTreeMap::new();
    for (path, item) in doc["paths"].as_object().into_iter().flatten() {
        for method in METHODS {
            if let Some(operation) = item.get(method) {
                found.insert(format!("{} {path}", method.to_uppercase()), operation);
            }
        }
    }
    found
}

/// One security requirement: each scheme it names, with its scopes.
type Requirement = Vec<(String, BTreeSet<String>)>;

/// The security requirements of an operation (none: not secured).
fn scopes(operation: &Value) -> Option<BTreeSet<Requirement>> {
    let requirements = operation.get("security")?.as_array()?;
    Some(
        requirements
            .iter()
            .map(|requirement| {
                requirement
                    .as_object()
                    .into_iter()
                    .flatten()
                    .map(|(scheme, scopes)| {
                        let scopes = scopes
                            .as_array()
                            .into_iter()
                            .flatten()
                            .filter_map(|s| s.as_str().map(str::to_owned))
                            .collect();
                        (scheme.clone(), scopes)
                    })
                    .collect()
            })
            .collect(),
    )
}

fn is_required(value: &Value) -> bool {
    value["required"].as_bool().unwrap_or(false)
}

fn json_schema(body: &Value) -> Option<&Value> {
    body["content"]
        .as_object()?
        .iter()
        .find(|(media, _)| media.contains("json"))
        .map(|(_, content)| &content["schema"])
}

fn type_set(schema: &Value) -> Option<BTreeSet<String>> {
    match &schema["type"] {
        Value::String(t) if t != "null" => Some(BTreeSet::from([t.clone()])),
        Value::Array(types) => Some(
            types
                .iter()
                .filter_map(Value::as_str)
                .filter(|t| *t != "null")
                .map(str::to_owned)
                .collect(),
        )
        .filter(|set: &BTreeSet<String>| !set.is_empty()),
        _ => None,
    }
}

fn is_nullable(schema: &Value) -> bool {
    let null = |s: &Value| s["type"] == "null";
    schema["type"]
        .as_array()
        .is_some_and(|types| types.iter().any(|t| t == "null"))
        || schema["type"] == "null"
        || ["oneOf", "anyOf"]
            .iter()
            .any(|k| schema[*k].as_array().is_some_and(|a| a.iter().any(null)))
}

fn names(list: &Value) -> BTreeSet<String> {
    list.as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect()
}

impl Diff<'_> {
    fn found(&mut self, change: Change, what: String) {
        self.findings.push(Finding { change, what });
    }

    /// AsyncAPI: each operation keeps its action and channel.
    fn broker_operations(&mut self) {
        let (old, new) = (&self.old["operations"], &self.new["operations"]);
        for (name, old_op) in old.as_object().into_iter().flatten() {
            let Some(new_op) = new.get(name) else {
                self.found(Change::Major, format!("operation {name} removed"));
                continue;
            };
            for key in ["action", "channel"] {
                if old_op[key] != new_op[key] {
                    self.found(
                        Change::Major,
                        format!(
                            "operation {name}: {key} changed from {} to {}",
                            old_op[key], new_op[key]
                        ),
                    );
                }
            }
        }
        for name in new.as_object().into_iter().flatten().map(|(k, _)| k) {
            if old.get(name).is_none() {
                self.found(Change::Minor, format!("operation {name} added"));
            }
        }
    }

    /// AsyncAPI: each channel keeps its address and messages; a message a
    /// device sends is compared as a request (what the platform accepts),
    /// one it receives as an answer.
    fn channels(&mut self) {
        let receives: BTreeSet<String> = self.old["operations"]
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(_, op)| op["action"] == "receive")
            .filter_map(|(_, op)| op["channel"]["$ref"].as_str())
            .filter_map(|r| r.strip_prefix("#/channels/").map(str::to_owned))
            .collect();
        let (old, new) = (self.old["channels"].clone(), self.new["channels"].clone());
        for (name, old_channel) in old.as_object().into_iter().flatten() {
            let Some(new_channel) = new.get(name) else {
                self.found(Change::Major, format!("channel {name} removed"));
                continue;
            };
            if old_channel["address"] != new_channel["address"] {
                self.found(
                    Change::Major,
                    format!(
                        "channel {name}: address changed from {} to {}",
                        old_channel["address"], new_channel["address"]
                    ),
                );
            }
            let side = if receives.contains(name) {
                Side::Response
            } else {
                Side::Request
            };
            for (message, old_message) in old_channel["messages"].as_object().into_iter().flatten()
            {
                let at = format!("channel {name}: message {message}");
                let Some(new_message) = new_channel["messages"].get(message) else {
                    self.found(Change::Major, format!("{at} removed"));
                    continue;
                };
                let old_payload = resolve(self.old, old_message)["payload"].clone();
                let new_payload = resolve(self.new, new_message)["payload"].clone();
                self.schema(&at, &old_payload, &new_payload, side);
            }
            for message in new_channel["messages"]
                .as_object()
                .into_iter()
                .flatten()
                .map(|(k, _)| k)
            {
                if old_channel["messages"].get(message).is_none() {
                    self.found(
                        Change::Minor,
                        format!("channel {name}: message {message} added"),
                    );
                }
            }
        }
        for name in new.as_object().into_iter().flatten().map(|(k, _)| k) {
            if old.get(name).is_none() {
                self.found(Change::Minor, format!("channel {name} added"));
            }
        }
    }

    fn operations(&mut self) {
        let (old, new) = (operations(self.old), operations(self.new));
        for (key, old_op) in &old {
            match new.get(key) {
                None => self.found(Change::Major, format!("{key}: operation removed")),
                Some(new_op) => self.operation(key, old_op, new_op),
            }
        }
        for key in new.keys().filter(|k| !old.contains_key(*k)) {
            self.found(Change::Minor, format!("{key}: operation added"));
        }
    }

    /// Component schemas no operation refers to are compared as answers:
    /// they are an event's payload or a type utoipa also copies inline
    /// into a page (every request body is referred to by its operation).
    fn unreached_schemas(&mut self) {
        let reached: BTreeSet<String> = self
            .seen
            .iter()
            .flat_map(|(o, n, _)| [o.clone(), n.clone()])
            .collect();
        let (old, new) = (
            self.old["components"]["schemas"].clone(),
            self.new["components"]["schemas"].clone(),
        );
        for (name, old_schema) in old.as_object().into_iter().flatten() {
            let reference = format!("#/components/schemas/{name}");
            if reached.contains(&reference) {
                continue;
            }
            match new.get(name) {
                None => self.found(Change::Minor, format!("schema {name} removed")),
                Some(new_schema) => {
                    self.schema(
                        &format!("schema {name}"),
                        old_schema,
                        new_schema,
                        Side::Response,
                    );
                }
            }
        }
    }

    fn servers(&mut self) {
        if without_prose(&self.old["servers"]) != without_prose(&self.new["servers"]) {
            self.found(Change::Minor, "servers changed".into());
        }
    }

    fn operation(&mut self, key: &str, old: &Value, new: &Value) {
        let (old_scopes, new_scopes) = (scopes(old), scopes(new));
        if old_scopes != new_scopes {
            self.found(
                Change::Major,
                format!(
                    "{key}: security changed from {} to {}",
                    old.get("security").unwrap_or(&Value::Null),
                    new.get("security").unwrap_or(&Value::Null)
                ),
            );
        }
        self.parameters(key, old, new);
        self.request_body(key, old, new);
        self.responses(key, old, new);
    }

    fn parameters(&mut self, key: &str, old: &Value, new: &Value) {
        let list = |doc: &Value, op: &Value| -> BTreeMap<(String, String), Value> {
            op["parameters"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|p| resolve(doc, p).clone())
                .map(|p| {
                    let id = (
                        p["in"].as_str().unwrap_or_default().to_owned(),
                        p["name"].as_str().unwrap_or_default().to_owned(),
                    );
                    (id, p)
                })
                .collect()
        };
        let (old_params, new_params) = (list(self.old, old), list(self.new, new));
        for ((place, name), old_param) in &old_params {
            let at = format!("{key}: {place} parameter {name}");
            match new_params.get(&(place.clone(), name.clone())) {
                None => self.found(Change::Major, format!("{at} removed")),
                Some(new_param) => {
                    match (is_required(old_param), is_required(new_param)) {
                        (false, true) => self.found(Change::Major, format!("{at} newly required")),
                        (true, false) => self.found(Change::Minor, format!("{at} made optional")),
                        _ => {}
                    }
                    self.schema(
                        &at,
                        &old_param["schema"],
                        &new_param["schema"],
                        Side::Request,
                    );
                }
            }
        }
        for ((place, name), new_param) in &new_params {
            if !old_params.contains_key(&(place.clone(), name.clone())) {
                let at = format!("{key}: {place} parameter {name}");
                if is_required(new_param) {
                    self.found(Change::Major, format!("{at} added, required"));
                } else {
                    self.found(Change::Minor, format!("{at} added"));
                }
            }
        }
    }

    fn request_body(&mut self, key: &str, old: &Value, new: &Value) {
        let at = format!("{key}: request body");
        let (old_body, new_body) = (&old["requestBody"], &new["requestBody"]);
        match (old_body.is_object(), new_body.is_object()) {
            (false, false) => {}
            (true, false) => self.found(Change::Major, format!("{at} removed")),
            (false, true) if is_required(new_body) => {
                self.found(Change::Major, format!("{at} added, required"))
            }
            (false, true) => self.found(Change::Minor, format!("{at} added")),
            (true, true) => {
                if !is_required(old_body) && is_required(new_body) {
                    self.found(Change::Major, format!("{at} newly required"));
                }
                if let (Some(o), Some(n)) = (json_schema(old_body), json_schema(new_body)) {
                    self.schema(&at, o, n, Side::Request);
                }
            }
        }
    }

    fn responses(&mut self, key: &str, old: &Value, new: &Value) {
        let (old_responses, new_responses) = (&old["responses"], &new["responses"]);
        for (status, old_response) in old_responses.as_object().into_iter().flatten() {
            let at = format!("{key}: response {status}");
            match new_responses.get(status) {
                None if status.starts_with('2') => {
                    self.found(Change::Major, format!("{at} removed"))
                }
                None => self.found(Change::Minor, format!("{at} removed")),
                Some(new_response) => {
                    match (json_schema(old_response), json_schema(new_response)) {
                        (Some(o), Some(n)) => self.schema(&at, o, n, Side::Response),
                        (Some(_), None) if status.starts_with('2') => {
                            self.found(Change::Major, format!("{at}: JSON body removed"))
                        }
                        _ => {}
                    }
                }
            }
        }
        for status in new_responses
            .as_object()
            .into_iter()
            .flatten()
            .map(|(s, _)| s)
        {
            if old_responses.get(status).is_none() {
                self.found(Change::Minor, format!("{key}: response {status} added"));
            }
        }
    }

    /// Compares one schema on one side of the wire, following references.
    fn schema(&mut self, at: &str, old: &Value, new: &Value, side: Side) {
        if let (Some(o), Some(n)) = (old["$ref"].as_str(), new["$ref"].as_str())
            && !self.seen.insert((o.to_owned(), n.to_owned(), side))
        {
            return;
        }
        let (old, old_null) = nullable_of(self.old, old);
        let (new, new_null) = nullable_of(self.new, new);
        // An `allOf` of objects is the one object it means (a generator-
        // friendly rewrite of one into the other is no change).
        let (old, new) = (&all_of_merged(self.old, old), &all_of_merged(self.new, new));
        // Equal here is equal all the way down only without references (a
        // referenced schema may have changed).
        if old_null == new_null && !has_ref(old) && without_prose(old) == without_prose(new) {
            return;
        }
        // `narrowed`: accepts less than before (breaks what a client sends);
        // `widened`: allows more than before (breaks what a client reads).
        let (narrowed, widened) = match side {
            Side::Request => (Change::Major, Change::Minor),
            Side::Response => (Change::Minor, Change::Major),
        };

        match (old_null, new_null) {
            (true, false) => self.found(narrowed, format!("{at}: no longer null")),
            (false, true) => self.found(widened, format!("{at}: may now be null")),
            _ => {}
        }
        match (type_set(old), type_set(new)) {
            (Some(o), Some(n)) if o != n => {
                self.found(Change::Major, format!("{at}: type {o:?} became {n:?}"))
            }
            (Some(_), None) if !is_composite(new) => {
                self.found(widened, format!("{at}: now any value"))
            }
            (None, Some(_)) if !is_composite(old) => {
                self.found(narrowed, format!("{at}: no longer any value"))
            }
            _ => {}
        }
        if old["format"] != new["format"] {
            self.found(
                Change::Major,
                format!("{at}: format {} became {}", old["format"], new["format"]),
            );
        }
        self.enumeration(at, old, new, narrowed, widened);
        self.bounds(at, old, new, narrowed);
        self.properties(at, old, new, side);
        if old["items"].is_object() && new["items"].is_object() {
            self.schema(&format!("{at}[]"), &old["items"], &new["items"], side);
        }
        if old["additionalProperties"].is_object() && new["additionalProperties"].is_object() {
            self.schema(
                &format!("{at}{{}}"),
                &old["additionalProperties"],
                &new["additionalProperties"],
                side,
            );
        }
        for key in ["oneOf", "anyOf", "allOf"] {
            let (o, n) = (
                old[key].as_array().cloned().unwrap_or_default(),
                new[key].as_array().cloned().unwrap_or_default(),
            );
            for (i, (o, n)) in o.iter().zip(n.iter()).enumerate() {
                self.schema(&format!("{at} ({key} {i})"), o, n, side);
            }
            match key {
                "allOf" if o.len() != n.len() => {
                    self.found(Change::Major, format!("{at}: {key} parts changed"))
                }
                // Like unknown enum values, unknown variants are for clients
                // to tolerate.
                _ if n.len() > o.len() => {
                    self.found(Change::Minor, format!("{at}: {key} variant added"))
                }
                _ if n.len() < o.len() => {
                    self.found(narrowed, format!("{at}: {key} variant removed"))
                }
                _ => {}
            }
        }
    }

    fn enumeration(
        &mut self,
        at: &str,
        old: &Value,
        new: &Value,
        narrowed: Change,
        widened: Change,
    ) {
        let values = |s: &Value| -> Option<BTreeSet<String>> {
            Some(s["enum"].as_array()?.iter().map(Value::to_string).collect())
        };
        match (values(old), values(new)) {
            (Some(o), Some(n)) => {
                for removed in o.difference(&n) {
                    self.found(narrowed, format!("{at}: enum value {removed} removed"));
                }
                for added in n.difference(&o) {
                    // Clients drop enum values they do not know, so a new
                    // answered value is additive.
                    let change = if widened == Change::Major {
                        Change::Minor
                    } else {
                        widened
                    };
                    self.found(change, format!("{at}: enum value {added} added"));
                }
            }
            (None, Some(_)) => self.found(narrowed, format!("{at}: now an enumeration")),
            (Some(_), None) => self.found(Change::Minor, format!("{at}: no longer an enumeration")),
            (None, None) => {}
        }
    }

    /// Numeric, length and pattern bounds: tighter ones refuse requests
    /// that passed.
    fn bounds(&mut self, at: &str, old: &Value, new: &Value, narrowed: Change) {
        const LOWER: [&str; 4] = ["minimum", "exclusiveMinimum", "minLength", "minItems"];
        const UPPER: [&str; 4] = ["maximum", "exclusiveMaximum", "maxLength", "maxItems"];
        for key in LOWER.iter().chain(UPPER.iter()).chain(["pattern"].iter()) {
            let (o, n) = (&old[*key], &new[*key]);
            if o == n {
                continue;
            }
            let tighter = match (o.as_f64(), n.as_f64()) {
                (Some(o), Some(n)) if LOWER.contains(key) => n > o,
                (Some(o), Some(n)) => n < o,
                (None, Some(_)) => true,
                (Some(_), None) => false,
                // A pattern added or changed.
                (None, None) => !n.is_null(),
            };
            let change = if tighter { narrowed } else { Change::Minor };
            self.found(change, format!("{at}: {key} {o} became {n}"));
        }
    }

    fn properties(&mut self, at: &str, old: &Value, new: &Value, side: Side) {
        let empty = Map::new();
        let old_props = old["properties"].as_object().unwrap_or(&empty);
        let new_props = new["properties"].as_object().unwrap_or(&empty);
        let (old_required, new_required) = (names(&old["required"]), names(&new["required"]));
        for (name, old_prop) in old_props {
            let field = format!("{at}.{name}");
            let Some(new_prop) = new_props.get(name) else {
                self.found(Change::Major, format!("{field}: field removed"));
                continue;
            };
            match (
                old_required.contains(name),
                new_required.contains(name),
                side,
            ) {
                (false, true, Side::Request) => {
                    self.found(Change::Major, format!("{field}: newly required"))
                }
                (true, false, Side::Response) => {
                    self.found(Change::Major, format!("{field}: no longer always present"))
                }
                (false, true, Side::Response) | (true, false, Side::Request) => {
                    self.found(Change::Minor, format!("{field}: required changed"))
                }
                _ => {}
            }
            self.schema(&field, old_prop, new_prop, side);
        }
        for name in new_props.keys().filter(|n| !old_props.contains_key(*n)) {
            let field = format!("{at}.{name}");
            if side == Side::Request && new_required.contains(name) {
                self.found(Change::Major, format!("{field}: field added, required"));
            } else {
                self.found(Change::Minor, format!("{field}: field added"));
            }
        }
    }
}

/// A schema as its value's shape and whether it may be null: utoipa writes
/// a nullable reference as `oneOf: [{type: null}, {$ref}]` and a nullable
/// plain type as `type: [T, null]`.
fn nullable_of<'a>(doc: &'a Value, schema: &'a Value) -> (&'a Value, bool) {
    let schema = resolve(doc, schema);
    for key in ["oneOf", "anyOf"] {
        if let Some([a, b]) = schema[key].as_array().map(Vec::as_slice) {
            let null = |s: &Value| s["type"] == "null";
            if null(a) && !null(b) {
                return (resolve(doc, b), true);
            }
            if null(b) && !null(a) {
                return (resolve(doc, a), true);
            }
        }
    }
    (schema, is_nullable(schema))
}

/// `schema` with an `allOf` of object schemas (references followed) written
/// as one object: the parts' properties and required lists together.
fn all_of_merged(doc: &Value, schema: &Value) -> Value {
    let Some(parts) = schema["allOf"].as_array() else {
        return schema.clone();
    };
    let parts: Vec<Value> = parts
        .iter()
        .map(|p| all_of_merged(doc, resolve(doc, p)))
        .collect();
    if parts.iter().any(|p| p["properties"].as_object().is_none()) {
        return schema.clone();
    }
    let mut properties = Map::new();
    let mut required = Vec::new();
    for part in &parts {
        properties.extend(part["properties"].as_object().cloned().unwrap_or_default());
        required.extend(part["required"].as_array().cloned().unwrap_or_default());
    }
    let mut merged = serde_json::json!({
        "type": "object",
        "required": required,
        "properties": properties,
    });
    for (key, value) in schema.as_object().into_iter().flatten() {
        if key != "allOf" {
            merged[key] = value.clone();
        }
    }
    merged
}

fn has_ref(value: &Value) -> bool {
    match value {
        Value::Object(map) => map.contains_key("$ref") || map.values().any(has_ref),
        Value::Array(items) => items.iter().any(has_ref),
        _ => false,
    }
}

fn is_composite(schema: &Value) -> bool {
    ["oneOf", "anyOf", "allOf", "$ref"]
        .iter()
        .any(|k| schema.get(*k).is_some())
}

/// Follows `$ref`s within `doc` (a few levels; a missing target is `null`).
fn resolve<'a>(doc: &'a Value, mut value: &'a Value) -> &'a Value {
    for _ in 0..8 {
        let Some(reference) = value["$ref"].as_str() else {
            break;
        };
        let Some(pointer) = reference.strip_prefix('#') else {
            break;
        };
        value = doc.pointer(pointer).unwrap_or(&Value::Null);
    }
    value
}
