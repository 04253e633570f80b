//! The capability catalogue against the spec: a hand-written JSON Schema of
//! the wire shape, the validation rules, the category mapping, and the names
//! the spec uses elsewhere (simulator profiles, room tiles, home security).

use std::collections::HashSet;

use alyt_domain::capability::{
    CapabilityCatalogue, CapabilityDescriptor, CatalogueError, Control, ControlBinding,
    ControlGroup, ControlOption, Primitive, RoomAction, RoomActionPrimitive, SCHEMA_VERSION,
    ThingCategory, catalogue, find, is_kebab_token, is_valid_capability_id, room_action_accepts,
    validate, validate_catalogue,
};
use proptest::prelude::*;
use serde_json::{Value, json};

const SCHEMA: &str = include_str!("schema/capabilities.schema.json");

fn schema() -> jsonschema::Validator {
    let schema: Value = serde_json::from_str(SCHEMA).expect("schema file is JSON");
    jsonschema::draft202012::meta::validate(&schema).expect("schema is a valid 2020-12 schema");
    jsonschema::draft202012::new(&schema).expect("schema compiles")
}

/// Every schema error as "path: message", one per line.
fn schema_errors(validator: &jsonschema::Validator, instance: &Value) -> Vec<String> {
    validator
        .iter_errors(instance)
        .map(|e| format!("{}: {}", e.instance_path(), e))
        .collect()
}

fn catalogue_json() -> Value {
    serde_json::to_value(catalogue()).expect("catalogue serializes")
}

// ---- the wire shape ----------------------------------------------------------

#[test]
fn catalogue_matches_the_hand_written_schema() {
    let errors = schema_errors(&schema(), &catalogue_json());
    assert!(
        errors.is_empty(),
        "catalogue does not match the spec's schema:\n{}",
        errors.join("\n")
    );
}

/// A small valid response, used as the base of the negative schema cases.
fn good_response() -> Value {
    json!({
        "schemaVersion": 1,
        "items": [{
            "id": "sensor.vibration",
            "version": 0,
            "label": "Vibration",
            "icon": "vibrate",
            "controls": [{
                "key": "power", "primitive": "toggle", "label": "Power",
                "icon": "power-2", "unit": "%", "min": 0, "max": 100, "step": 0.5,
                "options": [{ "value": true, "label": "On", "icon": "x" }],
                "readable": true, "writable": true, "binding": "state",
                "group": "primary", "order": -1, "requires": "color", "confirm": false
            }],
            "roomActions": [{
                "action": "lights", "label": "Lights", "primitive": "lock",
                "controlKey": "power", "icon": "lightbulb", "confirm": true
            }]
        }]
    })
}

#[test]
fn schema_accepts_the_good_base_case() {
    let errors = schema_errors(&schema(), &good_response());
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

#[test]
fn schema_rejects_bad_input() {
    type Mutation = fn(&mut Value);
    let cases: Vec<(&str, Mutation)> = vec![
        ("unknown primitive", |v| {
            v["items"][0]["controls"][0]["primitive"] = json!("gauge")
        }),
        ("uppercase id", |v| v["items"][0]["id"] = json!("Light")),
        ("id with two dots", |v| v["items"][0]["id"] = json!("a.b.c")),
        ("id with a digit", |v| v["items"][0]["id"] = json!("light2")),
        ("missing control binding", |v| {
            v["items"][0]["controls"][0]
                .as_object_mut()
                .unwrap()
                .remove("binding");
        }),
        ("missing roomActions", |v| {
            v["items"][0].as_object_mut().unwrap().remove("roomActions");
        }),
        ("missing room action icon", |v| {
            v["items"][0]["roomActions"][0]
                .as_object_mut()
                .unwrap()
                .remove("icon");
        }),
        ("missing schemaVersion", |v| {
            v.as_object_mut().unwrap().remove("schemaVersion");
        }),
        ("extra capability field", |v| {
            v["items"][0]["extra"] = json!(1)
        }),
        ("extra control field", |v| {
            v["items"][0]["controls"][0]["hint"] = json!("x")
        }),
        ("extra room action field", |v| {
            v["items"][0]["roomActions"][0]["value"] = json!(1)
        }),
        ("extra option field", |v| {
            v["items"][0]["controls"][0]["options"][0]["x"] = json!(1)
        }),
        ("extra top-level field", |v| v["next"] = json!(null)),
        ("icon not kebab-case", |v| {
            v["items"][0]["icon"] = json!("Light_Bulb")
        }),
        ("control icon not kebab-case", |v| {
            v["items"][0]["controls"][0]["icon"] = json!("a--b")
        }),
        ("negative step", |v| {
            v["items"][0]["controls"][0]["step"] = json!(-1)
        }),
        ("negative version", |v| v["items"][0]["version"] = json!(-1)),
        ("fractional order", |v| {
            v["items"][0]["controls"][0]["order"] = json!(1.5)
        }),
        ("empty capability label", |v| {
            v["items"][0]["label"] = json!("")
        }),
        ("empty control key", |v| {
            v["items"][0]["controls"][0]["key"] = json!("")
        }),
        ("room action primitive outside its set", |v| {
            v["items"][0]["roomActions"][0]["primitive"] = json!("momentary")
        }),
        ("unknown binding", |v| {
            v["items"][0]["controls"][0]["binding"] = json!("config")
        }),
        ("unknown group", |v| {
            v["items"][0]["controls"][0]["group"] = json!("advanced")
        }),
        ("null optional field", |v| {
            v["items"][0]["controls"][0]["unit"] = json!(null)
        }),
    ];
    let validator = schema();
    for (name, mutate) in cases {
        let mut bad = good_response();
        mutate(&mut bad);
        assert!(
            !validator.is_valid(&bad),
            "schema accepted bad input ({name}): {bad}"
        );
        assert!(
            !schema_errors(&validator, &bad).is_empty(),
            "schema reported no error for bad input ({name})"
        );
    }
}

#[test]
fn optional_fields_are_left_out_not_null() {
    fn no_nulls(v: &Value, path: &str) {
        match v {
            Value::Null => panic!("null at {path}"),
            Value::Array(a) => a
                .iter()
                .enumerate()
                .for_each(|(i, x)| no_nulls(x, &format!("{path}/{i}"))),
            Value::Object(o) => o
                .iter()
                .for_each(|(k, x)| no_nulls(x, &format!("{path}/{k}"))),
            _ => {}
        }
    }
    no_nulls(&catalogue_json(), "");
}

#[test]
fn catalogue_round_trips_through_json() {
    let text = serde_json::to_string(catalogue()).unwrap();
    let back: CapabilityCatalogue = serde_json::from_str(&text).unwrap();
    assert_eq!(&back, catalogue());
}

#[test]
fn openapi_schemas_match_the_spec_field_sets() {
    fn schema_of<T: utoipa::PartialSchema>() -> Value {
        serde_json::to_value(T::schema()).unwrap()
    }
    fn required(v: &Value) -> HashSet<String> {
        v["required"]
            .as_array()
            .map(|a| a.iter().map(|s| s.as_str().unwrap().to_owned()).collect())
            .unwrap_or_default()
    }
    fn properties(v: &Value) -> HashSet<String> {
        v["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect()
    }
    fn set(names: &[&str]) -> HashSet<String> {
        names.iter().map(|s| (*s).to_owned()).collect()
    }

    let control = schema_of::<Control>();
    assert_eq!(
        required(&control),
        set(&[
            "key",
            "primitive",
            "label",
            "readable",
            "writable",
            "binding",
            "group",
            "order"
        ])
    );
    assert_eq!(
        properties(&control),
        set(&[
            "key",
            "primitive",
            "label",
            "icon",
            "unit",
            "min",
            "max",
            "step",
            "options",
            "readable",
            "writable",
            "binding",
            "group",
            "order",
            "requires",
            "confirm"
        ])
    );
    let room = schema_of::<RoomAction>();
    assert_eq!(
        required(&room),
        set(&["action", "label", "primitive", "controlKey", "icon"])
    );
    assert_eq!(
        properties(&room),
        set(&[
            "action",
            "label",
            "primitive",
            "controlKey",
            "icon",
            "confirm"
        ])
    );
    let item = schema_of::<CapabilityDescriptor>();
    let item_fields = set(&["id", "version", "label", "icon", "controls", "roomActions"]);
    assert_eq!(required(&item), item_fields);
    assert_eq!(properties(&item), item_fields);
    assert_eq!(
        item["properties"]["id"]["pattern"],
        "^[a-z_]+(\\.[a-z_]+)?$"
    );
    assert_eq!(
        item["properties"]["icon"]["pattern"],
        "^[a-z0-9]+(-[a-z0-9]+)*$"
    );
    assert_eq!(item["properties"]["version"]["minimum"], 0);
    assert_eq!(control["properties"]["step"]["minimum"], 0);
    let option = schema_of::<ControlOption>();
    assert_eq!(required(&option), set(&["value", "label"]));
    let response = schema_of::<CapabilityCatalogue>();
    assert_eq!(required(&response), set(&["schemaVersion", "items"]));

    // The OpenAPI document shows the closed set, never the reading fallback.
    let primitive = schema_of::<Primitive>();
    let names: Vec<&str> = primitive["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "toggle",
            "slider",
            "stepper",
            "color",
            "color_temp",
            "setpoint",
            "select",
            "momentary",
            "readout",
            "text"
        ]
    );
    let categories = schema_of::<ThingCategory>();
    assert_eq!(categories["enum"].as_array().unwrap().len(), 17);
}

// ---- content -------------------------------------------------------------------

#[test]
fn the_built_in_catalogue_is_valid() {
    for item in &catalogue().items {
        validate(item).unwrap_or_else(|e| panic!("{}: {e}", item.id));
    }
    validate_catalogue(catalogue()).unwrap();
    assert_eq!(catalogue().schema_version, SCHEMA_VERSION);
    let ids: HashSet<&str> = catalogue().items.iter().map(|d| d.id.as_str()).collect();
    assert_eq!(ids.len(), catalogue().items.len(), "ids are unique");
    assert!(
        catalogue()
            .items
            .iter()
            .flat_map(|d| &d.controls)
            .all(|c| c.primitive.is_known()),
        "the served catalogue never carries an unknown primitive"
    );
}

#[test]
fn find_returns_the_descriptor_or_none() {
    assert_eq!(find("light").map(|d| d.label.as_str()), Some("Light"));
    assert!(std::ptr::eq(
        find("voice").unwrap(),
        catalogue().get("voice").unwrap()
    ));
    assert!(find("sensor.vibration").is_some());
    assert!(find("nope").is_none());
    assert!(find("").is_none());
}

#[test]
fn every_category_maps_to_catalogue_capabilities() {
    let all: HashSet<ThingCategory> = ThingCategory::ALL.into_iter().collect();
    assert_eq!(all.len(), 17);
    for category in ThingCategory::ALL {
        let ids = category.capability_ids();
        assert!(!ids.is_empty(), "{category} has no capability");
        for id in ids {
            assert!(
                find(id).is_some(),
                "{category} names unknown capability {id}"
            );
        }
        assert!(is_kebab_token(category.icon()), "{category} icon");
        let wire = serde_json::to_value(category).unwrap();
        assert_eq!(wire, json!(category.as_str()));
        assert_eq!(
            serde_json::from_value::<ThingCategory>(wire).unwrap(),
            category
        );
        assert_eq!(ThingCategory::from_wire(category.as_str()), Some(category));
    }
    let spec = [
        "light",
        "switch",
        "thermostat",
        "lock",
        "cover",
        "fan",
        "camera",
        "speaker",
        "vacuum",
        "irrigation",
        "hub",
        "voice",
        "energy",
        "button",
        "sensor",
        "appliance",
        "other",
    ];
    let ours: Vec<&str> = ThingCategory::ALL.iter().map(|c| c.as_str()).collect();
    assert_eq!(ours, spec);
}

/// Every device capability of the spec's Device resource has a descriptor
/// under its lower-cased name (the key of settings.byCapability), except
/// SENSOR and BATTERY whose names are also ids here.
#[test]
fn device_capabilities_have_descriptors() {
    for name in [
        "VOICE",
        "AUDIO_OUT",
        "HUB",
        "SENSOR",
        "COFFEE_MACHINE",
        "NETWORK",
        "LIGHT",
        "SWITCH",
        "THERMOSTAT",
        "LOCK",
        "COVER",
        "FAN",
        "CAMERA",
        "MEDIA_PLAYER",
        "ENERGY",
        "BUTTON",
        "VACUUM",
        "IRRIGATION",
        "BATTERY",
    ] {
        let id = name.to_lowercase();
        assert!(
            find(&id).is_some(),
            "no descriptor for device capability {name}"
        );
    }
}

fn control(capability: &str, key: &str) -> &'static Control {
    find(capability)
        .unwrap_or_else(|| panic!("no capability {capability}"))
        .control(key)
        .unwrap_or_else(|| panic!("no control {capability}.{key}"))
}

#[test]
fn room_actions_use_the_spec_names() {
    for (capability, action, primitive, key) in [
        ("light", "lights", RoomActionPrimitive::Toggle, "power"),
        (
            "media_player",
            "volume",
            RoomActionPrimitive::Slider,
            "volume",
        ),
        (
            "thermostat",
            "thermostat",
            RoomActionPrimitive::Stepper,
            "setpoint",
        ),
        (
            "voice",
            "listening",
            RoomActionPrimitive::Toggle,
            "listening",
        ),
        ("lock", "locks", RoomActionPrimitive::Lock, "locked"),
        ("switch", "switches", RoomActionPrimitive::Toggle, "power"),
        ("cover", "covers", RoomActionPrimitive::Slider, "position"),
    ] {
        let room = find(capability)
            .unwrap()
            .room_action(action)
            .unwrap_or_else(|| panic!("{capability} lacks room action {action}"));
        assert_eq!(room.primitive, primitive, "{capability}/{action}");
        assert_eq!(room.control_key, key, "{capability}/{action}");
    }
    // Each of the spec's default tile names is offered by exactly one
    // capability, so the computed defaults are unambiguous.
    for action in ["lights", "volume", "thermostat", "listening"] {
        let offering = catalogue()
            .items
            .iter()
            .filter(|d| d.room_action(action).is_some())
            .count();
        assert_eq!(offering, 1, "{action}");
    }
    assert_eq!(find("lock").unwrap().room_actions[0].confirm, Some(true));
}

/// Simulator profiles: telemetry is readable, commands are writable, under
/// `capabilityId.controlKey`.
#[test]
fn simulator_profiles_are_covered() {
    let readable = [
        ("hub", "uptime"),
        ("hub", "rssi"),
        ("voice", "wakeWords"),
        ("voice", "micMuted"),
        ("voice", "listening"),
        ("media_player", "volume"),
        ("media_player", "playing"),
        ("media_player", "muted"),
        ("light", "power"),
        ("light", "brightness"),
        ("light", "watts"),
        ("light", "colorTemp"),
        ("sensor.temperature", "temperature"),
        ("sensor.humidity", "humidity"),
        ("battery", "level"),
        ("thermostat", "setpoint"),
        ("thermostat", "ambient"),
        ("thermostat", "heating"),
        ("thermostat", "mode"),
        ("sensor", "fault"),
    ];
    for (capability, key) in readable {
        assert!(control(capability, key).readable, "{capability}.{key}");
    }
    let writable = [
        ("hub", "identify"),
        ("hub", "pair"),
        ("hub", "reboot"),
        ("voice", "listening"),
        ("media_player", "play"),
        ("media_player", "pause"),
        ("media_player", "next"),
        ("media_player", "volume"),
        ("media_player", "muted"),
        ("light", "power"),
        ("light", "brightness"),
        ("light", "colorTemp"),
        ("thermostat", "setpoint"),
        ("thermostat", "mode"),
    ];
    for (capability, key) in writable {
        assert!(control(capability, key).writable, "{capability}.{key}");
    }
    // Reported back, not commanded.
    assert!(!control("voice", "micMuted").writable);
    assert_eq!(control("hub", "reboot").confirm, Some(true));
    assert_eq!(control("hub", "reboot").primitive, Primitive::Momentary);
    let brightness = control("light", "brightness");
    assert_eq!((brightness.min, brightness.max), (Some(0.0), Some(100.0)));
    assert_eq!(brightness.unit.as_deref(), Some("%"));
    let setpoint = control("thermostat", "setpoint");
    assert_eq!(setpoint.primitive, Primitive::Setpoint);
    assert_eq!(setpoint.step, Some(0.5));
    assert_eq!(setpoint.unit.as_deref(), Some("°C"));
    let fault = control("sensor", "fault");
    assert!(
        fault
            .options
            .as_ref()
            .unwrap()
            .iter()
            .any(|o| o.value == json!("sensor_error"))
    );
}

/// Home security: vibration stays distinct and is not folded into motion.
#[test]
fn security_signals_are_distinct_capabilities() {
    let ids = ["sensor.motion", "sensor.contact", "sensor.vibration"];
    for id in ids {
        assert!(find(id).is_some(), "{id}");
    }
    let vibration = find("sensor.vibration").unwrap();
    assert!(vibration.control("motion").is_none());
    assert!(
        find("sensor.motion")
            .unwrap()
            .control("vibration")
            .is_none()
    );
    assert!(find("lock").is_some() && find("camera").is_some());
}

#[test]
fn orders_unique_and_settings_binding_only_in_settings_group() {
    for item in &catalogue().items {
        let orders: HashSet<i32> = item.controls.iter().map(|c| c.order).collect();
        assert_eq!(orders.len(), item.controls.len(), "{}", item.id);
        for c in &item.controls {
            if c.binding == ControlBinding::Settings {
                assert_eq!(c.group, ControlGroup::Settings, "{}.{}", item.id, c.key);
            }
        }
    }
}

// ---- validate(): one test per rule -------------------------------------------

fn base() -> CapabilityDescriptor {
    CapabilityDescriptor {
        id: "test_cap".into(),
        version: 1,
        label: "Test".into(),
        icon: "test-icon".into(),
        controls: vec![
            Control::new("power", "Power", Primitive::Toggle).with_order(0),
            Control::new("level", "Level", Primitive::Slider)
                .with_range(0.0, 10.0, 1.0)
                .with_order(1),
            Control::new("mode", "Mode", Primitive::Select)
                .with_options(vec![
                    ControlOption::new("a", "A"),
                    ControlOption::new(1, "One"),
                ])
                .with_order(2),
            Control::new("reading", "Reading", Primitive::Readout).with_order(3),
            Control::new("press", "Press", Primitive::Momentary).with_order(4),
            Control::new("interval", "Interval", Primitive::Stepper)
                .setting()
                .with_order(5),
            Control::new("target", "Target", Primitive::Setpoint).with_order(6),
        ],
        room_actions: vec![RoomAction {
            action: "tests".into(),
            label: "Tests".into(),
            primitive: RoomActionPrimitive::Toggle,
            control_key: "power".into(),
            icon: "test-icon".into(),
            confirm: None,
        }],
    }
}

fn rejected(mutate: impl FnOnce(&mut CapabilityDescriptor)) -> CatalogueError {
    let mut d = base();
    mutate(&mut d);
    match validate(&d) {
        Ok(()) => panic!("validate accepted {d:#?}"),
        Err(e) => {
            assert!(!e.to_string().is_empty());
            e
        }
    }
}

#[test]
fn base_descriptor_is_valid() {
    validate(&base()).unwrap();
}

#[test]
fn rule_id_pattern() {
    for id in [
        "", "Light", "light.", ".light", "a.b.c", "light-1", "li ght", "light2", "ä",
    ] {
        let e = rejected(|d| d.id = id.into());
        assert!(matches!(e, CatalogueError::InvalidId { .. }), "{id}: {e}");
    }
    for id in ["light", "_", "sensor.vibration", "a_b.c_d", "__.__"] {
        let mut d = base();
        d.id = id.into();
        validate(&d).unwrap_or_else(|e| panic!("{id}: {e}"));
    }
}

#[test]
fn rule_labels_not_empty() {
    let e = rejected(|d| d.label.clear());
    assert!(matches!(e, CatalogueError::EmptyLabel { .. }), "{e}");
    let e = rejected(|d| d.controls[0].label.clear());
    assert!(matches!(e, CatalogueError::EmptyLabel { .. }), "{e}");
    let e = rejected(|d| d.room_actions[0].label.clear());
    assert!(matches!(e, CatalogueError::EmptyLabel { .. }), "{e}");
    let e = rejected(|d| d.controls[2].options.as_mut().unwrap()[0].label.clear());
    assert!(matches!(e, CatalogueError::EmptyLabel { .. }), "{e}");
}

#[test]
fn rule_icons_kebab_case() {
    for icon in ["", "Bulb", "light_bulb", "-a", "a-", "a--b", "a b"] {
        let e = rejected(|d| d.icon = icon.into());
        assert!(
            matches!(e, CatalogueError::InvalidIcon { .. }),
            "{icon}: {e}"
        );
    }
    let e = rejected(|d| d.controls[0].icon = Some("Power".into()));
    assert!(matches!(e, CatalogueError::InvalidIcon { .. }), "{e}");
    let e = rejected(|d| d.room_actions[0].icon = "tile_icon".into());
    assert!(matches!(e, CatalogueError::InvalidIcon { .. }), "{e}");
    let e = rejected(|d| {
        d.controls[2].options.as_mut().unwrap()[0].icon = Some("X".into());
    });
    assert!(matches!(e, CatalogueError::InvalidIcon { .. }), "{e}");
}

#[test]
fn rule_control_key_not_empty() {
    let e = rejected(|d| d.controls[1].key.clear());
    assert!(matches!(e, CatalogueError::EmptyControlKey { .. }), "{e}");
}

#[test]
fn rule_control_keys_unique() {
    let e = rejected(|d| d.controls[1].key = "power".into());
    assert!(
        matches!(e, CatalogueError::DuplicateControlKey { .. }),
        "{e}"
    );
}

#[test]
fn rule_orders_unique() {
    let e = rejected(|d| d.controls[3].order = 1);
    assert!(
        matches!(e, CatalogueError::DuplicateOrder { order: 1, .. }),
        "{e}"
    );
}

#[test]
fn rule_step_not_negative() {
    let e = rejected(|d| d.controls[1].step = Some(-0.5));
    assert!(matches!(e, CatalogueError::NegativeStep { .. }), "{e}");
    let mut d = base();
    d.controls[1].step = Some(0.0);
    validate(&d).unwrap();
}

#[test]
fn rule_min_not_above_max() {
    let e = rejected(|d| {
        d.controls[1].min = Some(11.0);
    });
    assert!(matches!(e, CatalogueError::MinGreaterThanMax { .. }), "{e}");
    let mut d = base();
    d.controls[1].min = Some(10.0);
    validate(&d).unwrap();
}

#[test]
fn rule_numbers_finite() {
    let e = rejected(|d| d.controls[1].max = Some(f64::INFINITY));
    assert!(
        matches!(e, CatalogueError::NonFiniteNumber { field: "max", .. }),
        "{e}"
    );
    let e = rejected(|d| d.controls[1].step = Some(f64::NAN));
    assert!(
        matches!(e, CatalogueError::NonFiniteNumber { field: "step", .. }),
        "{e}"
    );
}

#[test]
fn rule_select_has_options() {
    let e = rejected(|d| d.controls[2].options = None);
    assert!(
        matches!(e, CatalogueError::SelectWithoutOptions { .. }),
        "{e}"
    );
    let e = rejected(|d| d.controls[2].options = Some(vec![]));
    assert!(
        matches!(e, CatalogueError::SelectWithoutOptions { .. }),
        "{e}"
    );
}

#[test]
fn rule_option_values_scalar_and_unique() {
    let e = rejected(|d| {
        d.controls[2].options.as_mut().unwrap()[0].value = json!({ "a": 1 });
    });
    assert!(
        matches!(e, CatalogueError::InvalidOptionValue { .. }),
        "{e}"
    );
    let e = rejected(|d| {
        d.controls[2].options.as_mut().unwrap()[0].value = Value::Null;
    });
    assert!(
        matches!(e, CatalogueError::InvalidOptionValue { .. }),
        "{e}"
    );
    let e = rejected(|d| {
        d.controls[2].options.as_mut().unwrap()[1].value = json!("a");
    });
    assert!(
        matches!(e, CatalogueError::DuplicateOptionValue { .. }),
        "{e}"
    );
}

#[test]
fn rule_unknown_primitive_rejected() {
    let e = rejected(|d| d.controls[3].primitive = Primitive::Unknown("gauge".into()));
    assert!(
        matches!(&e, CatalogueError::UnknownPrimitive { primitive, .. } if primitive == "gauge"),
        "{e}"
    );
}

#[test]
fn rule_settings_binding_only_in_settings_group() {
    let e = rejected(|d| d.controls[5].group = ControlGroup::Primary);
    assert!(
        matches!(
            e,
            CatalogueError::SettingsBindingOutsideSettingsGroup { .. }
        ),
        "{e}"
    );
    // The other way round is allowed: a state value shown among settings.
    let mut d = base();
    d.controls[5].binding = ControlBinding::State;
    validate(&d).unwrap();
}

#[test]
fn rule_access_consistent() {
    let e = rejected(|d| d.controls[3].writable = true);
    assert!(
        matches!(e, CatalogueError::InconsistentAccess { .. }),
        "{e}"
    );
    let e = rejected(|d| d.controls[4].writable = false);
    assert!(
        matches!(e, CatalogueError::InconsistentAccess { .. }),
        "{e}"
    );
    let e = rejected(|d| {
        d.controls[0].writable = false;
        d.controls[0].readable = false;
        d.room_actions.clear();
    });
    assert!(
        matches!(e, CatalogueError::InconsistentAccess { .. }),
        "{e}"
    );
}

#[test]
fn rule_unit_and_requires_not_empty() {
    let e = rejected(|d| d.controls[1].unit = Some(String::new()));
    assert!(
        matches!(e, CatalogueError::EmptyField { field: "unit", .. }),
        "{e}"
    );
    let e = rejected(|d| d.controls[1].requires = Some(String::new()));
    assert!(
        matches!(
            e,
            CatalogueError::EmptyField {
                field: "requires",
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn rule_room_action_name_not_empty_and_unique() {
    let e = rejected(|d| d.room_actions[0].action.clear());
    assert!(matches!(e, CatalogueError::EmptyRoomAction { .. }), "{e}");
    let e = rejected(|d| {
        let again = d.room_actions[0].clone();
        d.room_actions.push(again);
    });
    assert!(
        matches!(e, CatalogueError::DuplicateRoomAction { .. }),
        "{e}"
    );
}

#[test]
fn rule_room_action_control_exists() {
    let e = rejected(|d| d.room_actions[0].control_key = "nope".into());
    assert!(
        matches!(e, CatalogueError::RoomActionUnknownControl { .. }),
        "{e}"
    );
}

#[test]
fn rule_room_action_control_writable_state() {
    let e = rejected(|d| {
        d.room_actions[0].primitive = RoomActionPrimitive::Stepper;
        d.room_actions[0].control_key = "interval".into();
    });
    assert!(
        matches!(e, CatalogueError::RoomActionControlNotWritable { .. }),
        "{e}"
    );
    let e = rejected(|d| d.controls[0].writable = false);
    assert!(
        matches!(e, CatalogueError::RoomActionControlNotWritable { .. }),
        "{e}"
    );
}

#[test]
fn rule_room_action_primitive_compatible() {
    let cases = [
        (RoomActionPrimitive::Toggle, "level"),
        (RoomActionPrimitive::Lock, "mode"),
        (RoomActionPrimitive::Slider, "power"),
        (RoomActionPrimitive::Stepper, "press"),
    ];
    for (primitive, key) in cases {
        let e = rejected(|d| {
            d.room_actions[0].primitive = primitive;
            d.room_actions[0].control_key = key.into();
        });
        assert!(
            matches!(e, CatalogueError::RoomActionIncompatiblePrimitive { .. }),
            "{primitive}->{key}: {e}"
        );
    }
    for (primitive, key) in [
        (RoomActionPrimitive::Toggle, "power"),
        (RoomActionPrimitive::Lock, "power"),
        (RoomActionPrimitive::Slider, "level"),
        (RoomActionPrimitive::Stepper, "target"),
    ] {
        let mut d = base();
        d.room_actions[0].primitive = primitive;
        d.room_actions[0].control_key = key.into();
        validate(&d).unwrap_or_else(|e| panic!("{primitive}->{key}: {e}"));
    }
    assert!(room_action_accepts(
        RoomActionPrimitive::Slider,
        &Primitive::ColorTemp
    ));
    assert!(room_action_accepts(
        RoomActionPrimitive::Stepper,
        &Primitive::Stepper
    ));
    assert!(!room_action_accepts(
        RoomActionPrimitive::Toggle,
        &Primitive::Unknown("toggle2".into())
    ));
}

#[test]
fn rule_ids_unique_across_catalogue() {
    let twice = CapabilityCatalogue {
        schema_version: 1,
        items: vec![base(), base()],
    };
    let e = validate_catalogue(&twice).unwrap_err();
    assert!(matches!(e, CatalogueError::DuplicateId { .. }), "{e}");
    let mut other = base();
    other.id = "other".into();
    validate_catalogue(&CapabilityCatalogue {
        schema_version: 1,
        items: vec![base(), other],
    })
    .unwrap();
}

// ---- client compatibility ----------------------------------------------------

fn foreign_descriptor() -> Value {
    json!({
        "id": "air_quality",
        "version": 3,
        "label": "Air quality",
        "icon": "air-filter",
        "controls": [
            { "key": "co2", "primitive": "gauge", "label": "CO2", "unit": "ppm",
              "readable": true, "writable": true, "binding": "state",
              "group": "primary", "order": 0 },
            { "key": "fan", "primitive": "toggle", "label": "Fan",
              "readable": true, "writable": true, "binding": "state",
              "group": "primary", "order": 1 }
        ],
        "roomActions": []
    })
}

#[test]
fn unknown_primitive_reads_and_is_shown_read_only() {
    let d: CapabilityDescriptor = serde_json::from_value(foreign_descriptor())
        .expect("an unknown primitive must not fail the read");
    let co2 = d.control("co2").unwrap();
    assert_eq!(co2.primitive, Primitive::Unknown("gauge".into()));
    assert!(!co2.primitive.is_known());
    assert!(co2.writable, "the stored flag is kept as read");
    assert!(
        !co2.is_client_writable(),
        "unknown primitives are read-only"
    );
    assert!(d.control("fan").unwrap().is_client_writable());

    // The raw token survives a store round trip.
    assert_eq!(serde_json::to_value(&d).unwrap(), foreign_descriptor());

    // But it is never accepted into a served catalogue.
    let e = validate(&d).unwrap_err();
    assert!(matches!(e, CatalogueError::UnknownPrimitive { .. }), "{e}");
}

#[test]
fn a_whole_catalogue_with_an_unknown_primitive_reads() {
    let mut wire = catalogue_json();
    wire["items"]
        .as_array_mut()
        .unwrap()
        .push(foreign_descriptor());
    let read: CapabilityCatalogue = serde_json::from_value(wire).unwrap();
    assert_eq!(read.items.len(), catalogue().items.len() + 1);
    assert!(validate_catalogue(&read).is_err());
}

#[test]
fn primitive_wire_names() {
    for p in Primitive::KNOWN {
        let wire = serde_json::to_value(&p).unwrap();
        assert_eq!(wire, json!(p.as_str()));
        assert_eq!(serde_json::from_value::<Primitive>(wire).unwrap(), p);
        assert!(p.is_known());
    }
    assert_eq!(Primitive::ColorTemp.as_str(), "color_temp");
    assert_eq!(
        Primitive::from_wire("Toggle"),
        Primitive::Unknown("Toggle".into())
    );
    assert!(serde_json::from_value::<Primitive>(json!(1)).is_err());
}

// ---- property tests ------------------------------------------------------------

/// An independent oracle: the spec's pattern run by the JSON Schema engine.
fn pattern_oracle(pattern: &str) -> jsonschema::Validator {
    jsonschema::draft202012::new(&json!({ "type": "string", "pattern": pattern })).unwrap()
}

fn with_id(id: &str) -> CapabilityDescriptor {
    let mut d = base();
    d.id = id.to_owned();
    d
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn id_check_agrees_with_the_spec_pattern(
        id in prop_oneof![
            "[a-z_]{1,6}(\\.[a-z_]{1,6})?",
            "[a-zA-Z0-9_.\\- ]{0,10}",
            "\\PC{0,8}",
        ]
    ) {
        let oracle = pattern_oracle("^[a-z_]+(\\.[a-z_]+)?$");
        let expected = oracle.is_valid(&json!(id));
        prop_assert_eq!(is_valid_capability_id(&id), expected);
        match validate(&with_id(&id)) {
            Ok(()) => prop_assert!(expected),
            Err(CatalogueError::InvalidId { .. }) => prop_assert!(!expected),
            Err(other) => prop_assert!(false, "unexpected error {}", other),
        }
    }

    #[test]
    fn icon_check_agrees_with_the_spec_pattern(
        icon in prop_oneof![
            "[a-z0-9]{1,4}(-[a-z0-9]{1,4}){0,3}",
            "[a-zA-Z0-9_\\- ]{0,10}",
            "\\PC{0,8}",
        ]
    ) {
        let oracle = pattern_oracle("^[a-z0-9]+(-[a-z0-9]+)*$");
        prop_assert_eq!(is_kebab_token(&icon), oracle.is_valid(&json!(icon)));
    }
}
