//! The pure device model, driven with explicit instants (no broker, no
//! sleeping): examples per profile and scenario, then properties over
//! arbitrary command and scenario sequences.

use std::time::Duration;

use alyt_device::{Availability, CommandMessage, JsonObject, Telemetry};
use alyt_domain::capability;
use alyt_domain::device::{CommandId, DEFAULT_HEARTBEAT_WINDOW_SECONDS};
use proptest::prelude::*;
use serde_json::{Value, json};
use time::OffsetDateTime;
use time::macros::datetime;

use crate::device::{LOW_BATTERY_LEVEL, Output, Timing, VirtualDevice};
use crate::profile::Profile;
use crate::scenario::{Scenario, ScenarioSetting};

const T0: OffsetDateTime = datetime!(2030-01-01 12:00 UTC);

fn at(ms: u64) -> OffsetDateTime {
    T0 + Duration::from_millis(ms)
}

fn connected(profile: Profile, scenario: Scenario) -> VirtualDevice {
    let mut device = VirtualDevice::new(
        profile,
        ScenarioSetting::permanent(scenario),
        7,
        Timing::default(),
        T0,
    );
    device.connected(T0);
    device
}

fn command(id: u64, verb: &str, payload: Value) -> CommandMessage {
    CommandMessage {
        command_id: CommandId::new(id).unwrap(),
        command: verb.to_owned(),
        payload: payload.as_object().cloned(),
    }
}

fn set(id: u64, capability: &str, key: &str, value: Value) -> CommandMessage {
    command(
        id,
        "set",
        json!({ "capability": capability, "key": key, "value": value }),
    )
}

fn responses(out: &[Output]) -> Vec<(u64, String)> {
    out.iter()
        .filter_map(|o| match o {
            Output::Response(r) => Some((r.command_id.get(), r.status.clone())),
            _ => None,
        })
        .collect()
}

fn statuses(out: &[Output]) -> Vec<&JsonObject> {
    out.iter()
        .filter_map(|o| match o {
            Output::Status(s) => Some(&s.payload),
            _ => None,
        })
        .collect()
}

fn telemetry(out: &[Output]) -> Vec<std::collections::BTreeMap<String, f64>> {
    out.iter()
        .filter_map(|o| match o {
            Output::Telemetry(Telemetry::Metrics(m)) => Some(m.clone()),
            _ => None,
        })
        .collect()
}

fn get<'a>(state: &'a JsonObject, capability: &str, key: &str) -> &'a Value {
    &state[capability][key]
}

#[test]
fn connecting_announces_online_and_the_state() {
    let mut device = VirtualDevice::new(
        Profile::Light,
        ScenarioSetting::default(),
        1,
        Timing::default(),
        T0,
    );
    let out = device.connected(T0);
    assert_eq!(out[0], Output::Availability(Availability::Online));
    let Output::Status(status) = &out[1] else {
        panic!("status expected: {out:?}")
    };
    assert_eq!(
        status.payload["light"],
        json!({ "power": false, "brightness": 80, "colorTemp": 2700, "watts": 0 })
    );
    assert_eq!(status.features, Some(vec!["color_temp".to_owned()]));
    assert_eq!(status.payload["firmware"], "1.0.0-sim");
}

#[test]
fn the_light_reports_a_set_value_then_answers_ok() {
    let mut light = connected(Profile::Light, Scenario::Normal);
    let out = light.command(at(10), set(1, "light", "brightness", json!(40)));
    assert_eq!(out.len(), 2, "{out:?}");
    assert_eq!(get(statuses(&out)[0], "light", "brightness"), &json!(40));
    assert_eq!(responses(&out), [(1, "ok".to_owned())]);
    assert!(
        matches!(out[0], Output::Status(_)),
        "status before response"
    );

    let out = light.command(at(20), set(2, "light", "power", json!(true)));
    let state = statuses(&out)[0];
    assert_eq!(get(state, "light", "power"), &json!(true));
    assert!(get(state, "light", "watts").as_f64().unwrap() > 0.5);

    let out = light.command(at(30), set(3, "light", "colorTemp", json!(4000)));
    assert_eq!(get(statuses(&out)[0], "light", "colorTemp"), &json!(4000));
}

#[test]
fn out_of_range_and_unknown_commands_are_rejected_without_change() {
    let mut light = connected(Profile::Light, Scenario::Normal);
    let before = light.state(at(5));
    for (id, message) in [
        (1, set(1, "light", "brightness", json!(150))),
        (2, set(2, "light", "brightness", json!(40.5))),
        (3, set(3, "light", "brightness", json!("40"))),
        (4, set(4, "light", "colorTemp", json!(9000))),
        (5, set(5, "light", "watts", json!(3))),
        // Colour needs a feature the light does not report.
        (6, set(6, "light", "color", json!("#ff0000"))),
        // A setting is never sent to a device.
        (7, set(7, "light", "transition", json!(2))),
        (8, set(8, "thermostat", "setpoint", json!(20))),
        (9, command(9, "dance", json!({}))),
        (10, command(10, "set", json!({ "capability": "light" }))),
        (11, command(11, "identify", Value::Null)),
    ] {
        let out = light.command(at(5), message);
        assert_eq!(responses(&out), [(id, "rejected".to_owned())]);
        assert!(statuses(&out).is_empty());
    }
    assert_eq!(light.state(at(5)), before);
}

#[test]
fn a_malformed_command_with_an_id_is_rejected_and_garbage_ignored() {
    let mut light = connected(Profile::Light, Scenario::Normal);
    let out = light.command_bytes(at(1), br#"{"commandId":"42","command":"set","payload":7}"#);
    assert_eq!(responses(&out), [(42, "rejected".to_owned())]);
    assert!(light.command_bytes(at(1), b"not json").is_empty());
    assert!(
        light
            .command_bytes(at(1), br#"{"command":"set"}"#)
            .is_empty()
    );
    let good = br#"{"commandId":"43","command":"set","payload":{"capability":"light","key":"power","value":true}}"#;
    assert_eq!(
        responses(&light.command_bytes(at(2), good)),
        [(43, "ok".to_owned())]
    );
}

#[test]
fn the_hub_honours_listening_identify_and_reboot() {
    let mut hub = connected(Profile::Hub, Scenario::Normal);
    // The room stops listening: the hub mutes its mic and says so.
    let out = hub.command(at(1_000), set(1, "voice", "listening", json!(false)));
    let state = statuses(&out)[0];
    assert_eq!(get(state, "voice", "listening"), &json!(false));
    assert_eq!(get(state, "voice", "micMuted"), &json!(true));
    assert_eq!(responses(&out), [(1, "ok".to_owned())]);
    // Listening again unmutes what the room muted.
    let out = hub.command(at(1_100), set(10, "voice", "listening", json!(true)));
    assert_eq!(get(statuses(&out)[0], "voice", "micMuted"), &json!(false));

    // Identify, as a press or in the flat form: answered, nothing to report.
    let pressed = hub.command(
        at(2_000),
        command(
            2,
            "press",
            json!({ "capability": "hub", "key": "identify" }),
        ),
    );
    assert_eq!(pressed, responses_only(2, "press", "ok"));
    let flat = hub.command(at(2_000), command(3, "identify", Value::Null));
    assert_eq!(flat, responses_only(3, "identify", "ok"));

    assert_eq!(get(&hub.state(at(90_000)), "hub", "uptime"), &json!(90));
    let out = hub.command(at(90_000), command(4, "reboot", Value::Null));
    assert_eq!(get(statuses(&out)[0], "hub", "uptime"), &json!(0));
    // The mute switch is physical: no command moves it directly.
    let out = hub.command(at(91_000), set(5, "voice", "micMuted", json!(true)));
    assert_eq!(responses(&out), [(5, "rejected".to_owned())]);
}

#[test]
fn a_mic_a_person_muted_stays_muted_whatever_the_room_chooses() {
    let mut hub = connected(Profile::Hub, Scenario::Normal);
    // A person mutes by hand: reported at once.
    let out = hub.flip_mute_switch(at(1_000));
    assert_eq!(get(statuses(&out)[0], "voice", "micMuted"), &json!(true));
    // The room stops and starts listening: the person's mute stands.
    hub.command(at(2_000), set(1, "voice", "listening", json!(false)));
    let out = hub.command(at(3_000), set(2, "voice", "listening", json!(true)));
    let state = statuses(&out)[0];
    assert_eq!(get(state, "voice", "listening"), &json!(true));
    assert_eq!(get(state, "voice", "micMuted"), &json!(true));
    // The room muted it, then a person unmuted by hand: listening false
    // again mutes (a new choice of the room), and a person's unmute after
    // that is not undone by anything but the next choice.
    hub.flip_mute_switch(at(4_000));
    let out = hub.command(at(5_000), set(3, "voice", "listening", json!(false)));
    assert_eq!(get(statuses(&out)[0], "voice", "micMuted"), &json!(true));
    let out = hub.flip_mute_switch(at(6_000));
    assert_eq!(get(statuses(&out)[0], "voice", "micMuted"), &json!(false));
    let out = hub.command(at(7_000), set(4, "voice", "listening", json!(true)));
    assert_eq!(get(statuses(&out)[0], "voice", "micMuted"), &json!(false));
}

fn responses_only(id: u64, verb: &str, status: &str) -> Vec<Output> {
    vec![Output::Response(alyt_device::CommandResponse {
        command_id: CommandId::new(id).unwrap(),
        command: verb.to_owned(),
        status: status.to_owned(),
    })]
}

#[test]
fn the_speaker_plays_pauses_skips_and_sets_volume_or_mute() {
    let mut speaker = connected(Profile::Speaker, Scenario::Normal);
    let playing = |out: &[Output]| get(statuses(out)[0], "media_player", "playing").clone();
    assert_eq!(
        playing(&speaker.command(at(1), command(1, "play", Value::Null))),
        json!(true)
    );
    assert_eq!(
        playing(&speaker.command(
            at(2),
            command(
                2,
                "press",
                json!({ "capability": "media_player", "key": "pause" })
            )
        )),
        json!(false)
    );
    assert_eq!(
        playing(&speaker.command(at(3), command(3, "next", Value::Null))),
        json!(true)
    );
    let out = speaker.command(at(4), set(4, "media_player", "volume", json!(65)));
    assert_eq!(get(statuses(&out)[0], "media_player", "volume"), &json!(65));
    let out = speaker.command(at(5), set(5, "media_player", "muted", json!(true)));
    assert_eq!(
        get(statuses(&out)[0], "media_player", "muted"),
        &json!(true)
    );
    let out = speaker.command(at(6), set(6, "media_player", "volume", json!(101)));
    assert_eq!(responses(&out), [(6, "rejected".to_owned())]);
}

#[test]
fn the_thermostat_takes_setpoints_on_its_grid_and_known_modes() {
    let mut thermostat = connected(Profile::Thermostat, Scenario::Normal);
    let out = thermostat.command(at(1), set(1, "thermostat", "setpoint", json!(22.5)));
    assert_eq!(
        get(statuses(&out)[0], "thermostat", "setpoint"),
        &json!(22.5)
    );
    let out = thermostat.command(at(2), set(2, "thermostat", "setpoint", json!(22.3)));
    assert_eq!(responses(&out), [(2, "rejected".to_owned())]);
    let out = thermostat.command(at(3), set(3, "thermostat", "mode", json!("eco")));
    assert_eq!(get(statuses(&out)[0], "thermostat", "mode"), &json!("eco"));
    let out = thermostat.command(at(4), set(4, "thermostat", "mode", json!("turbo")));
    assert_eq!(responses(&out), [(4, "rejected".to_owned())]);
}

#[test]
fn the_sensor_takes_no_commands() {
    let mut sensor = connected(Profile::Sensor, Scenario::Normal);
    for (id, message) in [
        (1, set(1, "sensor", "reportInterval", json!(60))),
        (2, set(2, "battery", "level", json!(50))),
        (3, command(3, "identify", Value::Null)),
    ] {
        assert_eq!(
            responses(&sensor.command(at(1), message)),
            [(id, "rejected".to_owned())]
        );
    }
}

#[test]
fn defaults_report_well_inside_the_heartbeat_window() {
    let timing = Timing::default();
    let window = Duration::from_secs(u64::from(DEFAULT_HEARTBEAT_WINDOW_SECONDS));
    assert!(timing.heartbeat * 3 <= window);
    assert!(timing.telemetry * 3 <= window);
    assert_eq!(timing.slow_delay, Duration::from_secs(5));
    assert_eq!(timing.flap_period, Duration::from_secs(30));
    assert_eq!(timing.burst_interval * 20, Duration::from_secs(1));

    let mut sensor = connected(Profile::Sensor, Scenario::Normal);
    assert_eq!(sensor.next_wake(), Some(at(20_000)));
    let out = sensor.tick(at(20_000));
    assert_eq!(telemetry(&out).len(), 1);
    assert!(statuses(&out).is_empty());
    assert_eq!(sensor.next_wake(), Some(at(30_000)));
    let out = sensor.tick(at(30_000));
    assert_eq!(statuses(&out).len(), 1);
    assert!(telemetry(&out).is_empty());
}

#[test]
fn slow_answers_after_five_seconds() {
    let mut light = connected(Profile::Light, Scenario::Slow);
    assert!(
        light
            .command(at(1_000), set(1, "light", "power", json!(true)))
            .is_empty()
    );
    assert_eq!(light.next_wake(), Some(at(6_000)));
    assert!(responses(&light.tick(at(5_999))).is_empty());
    assert_eq!(
        get(&light.state(at(5_999)), "light", "power"),
        &json!(false),
        "nothing changes before the answer"
    );
    let out = light.tick(at(6_000));
    assert_eq!(get(statuses(&out)[0], "light", "power"), &json!(true));
    assert_eq!(responses(&out), [(1, "ok".to_owned())]);
}

#[test]
fn offline_is_silent_until_it_reverts() {
    let mut light = VirtualDevice::new(
        Profile::Light,
        ScenarioSetting::for_seconds(Scenario::Offline, 120, T0),
        1,
        Timing::default(),
        T0,
    );
    assert!(light.connected(T0).is_empty());
    let mut t = T0;
    while t < at(120_000) {
        t = light.next_wake().unwrap();
        let out = light.tick(t);
        if t < at(120_000) {
            assert!(out.is_empty(), "{out:?}");
            assert!(
                light
                    .command(t, set(1, "light", "power", json!(true)))
                    .is_empty()
            );
        } else {
            assert_eq!(out[0], Output::Availability(Availability::Online));
            assert_eq!(statuses(&out).len(), 1);
        }
    }
    assert_eq!(light.scenario(), Scenario::Normal);
    assert_eq!(get(&light.state(t), "light", "power"), &json!(false));
}

#[test]
fn low_battery_reads_eight_percent_while_it_lasts() {
    let mut sensor = connected(Profile::Sensor, Scenario::Normal);
    let out = sensor.set_scenario(
        ScenarioSetting::for_seconds(Scenario::LowBattery, 60, at(1_000)),
        at(1_000),
    );
    let state = statuses(&out)[0];
    assert_eq!(
        get(state, "battery", "level"),
        &json!(LOW_BATTERY_LEVEL as i64)
    );
    assert_eq!(get(state, "battery", "low"), &json!(true));
    let out = sensor.tick(at(20_000));
    assert_eq!(telemetry(&out)[0]["battery"], LOW_BATTERY_LEVEL);
    let out = sensor.tick(at(61_000));
    assert_eq!(sensor.scenario(), Scenario::Normal);
    assert_eq!(get(statuses(&out)[0], "battery", "low"), &json!(false));
}

#[test]
fn sensor_error_faults_the_status_and_stops_the_failed_metric() {
    for profile in Profile::ALL {
        let mut device = connected(profile, Scenario::SensorError);
        let out = device.tick(at(30_000));
        let status = statuses(&out)[0];
        assert_eq!(status["fault"], "sensor_error", "{profile}");
        let metrics = &telemetry(&device.tick(at(40_000)))[0];
        assert!(!metrics.contains_key(profile.failing_metric()), "{profile}");
        assert_eq!(metrics.len(), profile.metrics().len() - 1, "{profile}");
    }
    let sensor = connected(Profile::Sensor, Scenario::SensorError);
    assert_eq!(
        get(&sensor.state(T0), "sensor", "fault"),
        &json!("sensor_error")
    );
}

#[test]
fn burst_sends_twenty_telemetry_messages_a_second() {
    let mut light = connected(Profile::Light, Scenario::Normal);
    light.set_scenario(ScenarioSetting::permanent(Scenario::Burst), at(1_000));
    let mut count = 0;
    while let Some(t) = light.next_wake().filter(|t| *t < at(2_000)) {
        count += telemetry(&light.tick(t)).len();
    }
    assert_eq!(count, 20);
}

fn events(out: &[Output]) -> Vec<&JsonObject> {
    out.iter()
        .filter_map(|o| match o {
            Output::Event(e) => Some(e),
            _ => None,
        })
        .collect()
}

/// The events a device publishes from `from` to before `to` (ms).
fn events_between(device: &mut VirtualDevice, from: u64, to: u64) -> Vec<JsonObject> {
    let mut seen = Vec::new();
    while let Some(t) = device.next_wake().filter(|t| *t < at(to)) {
        if t >= at(from) {
            seen.extend(events(&device.tick(t)).into_iter().cloned());
        } else {
            device.tick(t);
        }
    }
    seen
}

#[test]
fn detectors_and_the_lock_are_quiet_in_normal() {
    for profile in [Profile::Motion, Profile::Contact, Profile::Lock] {
        let mut device = connected(profile, Scenario::Normal);
        assert_eq!(
            events_between(&mut device, 0, 120_000),
            Vec::<JsonObject>::new(),
            "{profile}"
        );
    }
}

#[test]
fn burst_trips_a_motion_sensor_once_a_second_with_its_state() {
    let mut motion = connected(Profile::Motion, Scenario::Normal);
    assert_eq!(
        get(&motion.state(T0), "sensor.motion", "motion"),
        &json!(false)
    );
    let out = motion.set_scenario(ScenarioSetting::permanent(Scenario::Burst), at(1_000));
    assert_eq!(statuses(&out).len(), 1);
    let first = motion.tick(at(1_000));
    assert_eq!(
        get(statuses(&first)[0], "sensor.motion", "motion"),
        &json!(true)
    );
    let seen = events_between(&mut motion, 1_001, 4_000);
    let values: Vec<(&Value, &Value)> = events(&first)
        .into_iter()
        .chain(seen.iter())
        .map(|e| (&e["type"], &e["value"]))
        .collect();
    assert_eq!(
        values,
        [
            (&json!("motion"), &json!(true)),
            (&json!("motion"), &json!(false)),
            (&json!("motion"), &json!(true)),
        ]
    );
    // Each detection has its own id, and when it happened.
    let ids: std::collections::BTreeSet<String> =
        seen.iter().map(|e| e["id"].to_string()).collect();
    assert_eq!(ids.len(), seen.len());
    assert!(seen.iter().all(|e| {
        e["at"]
            .as_str()
            .is_some_and(|a| a.starts_with("2030-01-01T12:00:0"))
    }));
    // Back to NORMAL: the detections stop.
    motion.set_scenario(ScenarioSetting::permanent(Scenario::Normal), at(4_500));
    assert!(events_between(&mut motion, 4_500, 10_000).is_empty());
}

#[test]
fn burst_opens_and_closes_a_door_contact() {
    let mut contact = connected(Profile::Contact, Scenario::Burst);
    let seen = events_between(&mut contact, 0, 2_500);
    let opened: Vec<&Value> = seen.iter().map(|e| &e["value"]).collect();
    assert_eq!(opened, [&json!(true), &json!(false), &json!(true)]);
    assert!(seen.iter().all(|e| e["type"] == "contact"));
    assert_eq!(
        get(&contact.state(at(2_500)), "sensor.contact", "open"),
        &json!(true)
    );
}

#[test]
fn the_lock_is_opened_at_its_keypad_in_burst_and_remotely_by_command() {
    let mut lock = connected(Profile::Lock, Scenario::Normal);
    assert_eq!(get(&lock.state(T0), "lock", "locked"), &json!(true));
    // A command that opens it is a remote unlock; locking says nothing more.
    let out = lock.command(at(100), set(1, "lock", "locked", json!(false)));
    assert_eq!(responses(&out), [(1, "ok".to_owned())]);
    assert_eq!(get(statuses(&out)[0], "lock", "locked"), &json!(false));
    assert_eq!(
        events(&out),
        [&object(
            json!({ "type": "lock", "action": "remote-unlock" })
        )]
    );
    let out = lock.command(at(200), set(2, "lock", "locked", json!(true)));
    assert_eq!(responses(&out), [(2, "ok".to_owned())]);
    assert!(events(&out).is_empty());

    lock.set_scenario(ScenarioSetting::permanent(Scenario::Burst), at(1_000));
    let actions: Vec<Value> = events_between(&mut lock, 1_000, 3_500)
        .iter()
        .map(|e| e["action"].clone())
        .collect();
    assert_eq!(
        actions,
        [
            json!("keypad-unlock"),
            json!("keypad-lock"),
            json!("keypad-unlock")
        ]
    );
}

fn object(value: Value) -> JsonObject {
    value.as_object().cloned().unwrap()
}

#[test]
fn a_late_tick_skips_missed_periods() {
    let mut light = connected(Profile::Light, Scenario::Burst);
    assert_eq!(telemetry(&light.tick(at(1_000))).len(), 1);
    assert!(light.next_wake().unwrap() > at(1_000));
}

#[test]
fn flapping_drops_the_connection_every_thirty_seconds() {
    let mut light = connected(Profile::Light, Scenario::Flapping);
    let mut drops = Vec::new();
    for _ in 0..2 {
        let dropped_at = loop {
            let t = light.next_wake().unwrap();
            if light.tick(t).contains(&Output::DropConnection) {
                break t;
            }
        };
        drops.push(dropped_at);
        light.disconnected();
        let back = dropped_at + Duration::from_secs(1);
        assert_eq!(statuses(&light.connected(back)).len(), 1);
    }
    assert_eq!(drops, [at(30_000), at(61_000)]);
}

#[test]
fn a_seed_fixes_the_telemetry() {
    let run = |seed: u64| {
        let mut device = VirtualDevice::new(
            Profile::Sensor,
            ScenarioSetting::default(),
            seed,
            Timing::default(),
            T0,
        );
        device.connected(T0);
        (1..=10)
            .flat_map(|k| telemetry(&device.tick(at(k * 20_000))))
            .collect::<Vec<_>>()
    };
    assert_eq!(run(42), run(42));
    assert_ne!(run(42), run(43));
}

// ---- properties ------------------------------------------------------------

#[derive(Debug, Clone)]
enum Step {
    Command(Value, Value),
    Wait(u64),
    Scenario(Scenario, Option<u32>),
    Reconnect,
}

fn capability_id() -> impl Strategy<Value = String> {
    let ids: Vec<String> = capability::catalogue()
        .items
        .iter()
        .map(|d| d.id.clone())
        .collect();
    prop_oneof![4 => proptest::sample::select(ids), 1 => "[a-z.]{0,12}"]
}

fn control_key() -> impl Strategy<Value = String> {
    let keys: Vec<String> = capability::catalogue()
        .items
        .iter()
        .flat_map(|d| d.controls.iter().map(|c| c.key.clone()))
        .collect();
    prop_oneof![4 => proptest::sample::select(keys), 1 => "[a-zA-Z]{0,10}"]
}

fn value() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<bool>().prop_map(Value::from),
        (-100i64..10_000).prop_map(Value::from),
        (-100.0f64..10_000.0).prop_map(Value::from),
        proptest::sample::select(vec!["heat", "auto", "eco", "off", "#ff0000", "x"])
            .prop_map(Value::from),
        Just(Value::Null),
        Just(json!({ "r": 1, "g": 2, "b": 3 })),
    ]
}

fn payload() -> impl Strategy<Value = Value> {
    prop_oneof![
        6 => (capability_id(), control_key(), proptest::option::of(value())).prop_map(
            |(capability, key, value)| {
                let mut p = json!({ "capability": capability, "key": key });
                if let Some(v) = value {
                    p["value"] = v;
                }
                p
            }
        ),
        1 => Just(Value::Null),
        1 => Just(json!({ "unexpected": true })),
    ]
}

fn verb() -> impl Strategy<Value = Value> {
    prop_oneof![
        6 => Just(json!("set")),
        2 => Just(json!("press")),
        2 => proptest::sample::select(vec!["identify", "reboot", "play", "pause", "next", "dance"])
            .prop_map(Value::from),
        1 => "\\PC{0,70}".prop_map(Value::from),
    ]
}

fn scenario() -> impl Strategy<Value = Scenario> {
    proptest::sample::select(Scenario::ALL.to_vec())
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        8 => (verb(), payload()).prop_map(|(v, p)| Step::Command(v, p)),
        4 => (0u64..40_000).prop_map(Step::Wait),
        2 => (scenario(), proptest::option::of(0u32..120)).prop_map(|(s, secs)| Step::Scenario(s, secs)),
        1 => Just(Step::Reconnect),
    ]
}

fn profile() -> impl Strategy<Value = Profile> {
    proptest::sample::select(Profile::ALL.to_vec())
}

/// Every number in the state within its control's min/max.
fn check_ranges(profile: Profile, state: &JsonObject) -> Result<(), TestCaseError> {
    for (capability, controls) in state {
        let Some(controls) = controls.as_object() else {
            continue;
        };
        let descriptor = capability::find(capability).expect("a catalogue capability");
        for (key, value) in controls {
            let control = descriptor.control(key).expect("a catalogue control");
            if let Some(v) = value.as_f64() {
                prop_assert!(
                    control.min.is_none_or(|min| v >= min),
                    "{profile} {capability}.{key}={v}"
                );
                prop_assert!(
                    control.max.is_none_or(|max| v <= max),
                    "{profile} {capability}.{key}={v}"
                );
            }
        }
    }
    Ok(())
}

fn check_metrics(profile: Profile, out: &[Output]) -> Result<(), TestCaseError> {
    for metrics in telemetry(out) {
        for (name, v) in metrics {
            prop_assert!(v.is_finite());
            let (capability, key) = profile.metric_control(&name).expect("a known metric");
            let control = capability::find(capability).unwrap().control(key).unwrap();
            prop_assert!(
                control.min.is_none_or(|min| v >= min),
                "{profile} {name}={v}"
            );
            prop_assert!(
                control.max.is_none_or(|max| v <= max),
                "{profile} {name}={v}"
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any sequence of commands, waits, scenario changes and reconnects:
    /// no panic, every answer is ok or rejected and names a sent command,
    /// a rejected command changes nothing, and every value stays within
    /// its descriptor's range.
    #[test]
    fn any_sequence_is_handled(profile in profile(), seed in any::<u64>(), steps in proptest::collection::vec(step(), 0..60)) {
        let mut device = VirtualDevice::new(profile, ScenarioSetting::default(), seed, Timing::default(), T0);
        let mut now = T0;
        let mut out = device.connected(now);
        let mut next_id = 1u64;
        for step in steps {
            check_metrics(profile, &out)?;
            check_ranges(profile, &device.state(now))?;
            match step {
                Step::Command(verb, payload) => {
                    let id = next_id;
                    next_id += 1;
                    let body = json!({ "commandId": id.to_string(), "command": &verb, "payload": payload });
                    let before = device.state(now);
                    let scenario = device.scenario();
                    out = device.command_bytes(now, &serde_json::to_vec(&body).unwrap());
                    for (answered, status) in responses(&out) {
                        prop_assert!(answered <= id);
                        prop_assert!(status == "ok" || status == "rejected");
                        // (A revert noticed on arrival changes the report, not the command.)
                        if answered == id && status == "rejected" && device.scenario() == scenario {
                            prop_assert_eq!(&device.state(now), &before);
                        }
                    }
                    // One answer, unless the verb cannot be echoed (not 1-64 characters).
                    let answerable = verb.as_str().is_some_and(|v| (1..=64).contains(&v.chars().count()));
                    if scenario == Scenario::Normal && answerable {
                        prop_assert_eq!(responses(&out).len(), 1);
                    }
                }
                Step::Wait(ms) => {
                    // Wake at every due instant up to the end, like the runner.
                    let end = now + Duration::from_millis(ms);
                    out = Vec::new();
                    while let Some(t) = device.next_wake().filter(|t| *t <= end) {
                        now = now.max(t);
                        let ticked = device.tick(now);
                        let dropped = ticked.contains(&Output::DropConnection);
                        out.extend(ticked);
                        if dropped {
                            device.disconnected();
                            out.extend(device.connected(now));
                        }
                    }
                    now = end;
                }
                Step::Scenario(scenario, seconds) => {
                    let setting = match seconds {
                        Some(s) => ScenarioSetting::for_seconds(scenario, s, now),
                        None => ScenarioSetting::permanent(scenario),
                    };
                    out = device.set_scenario(setting, now);
                }
                Step::Reconnect => {
                    device.disconnected();
                    out = device.connected(now);
                }
            }
        }
        check_metrics(profile, &out)?;
        check_ranges(profile, &device.state(now))?;
    }

    /// A scenario set with seconds reverts: the device wakes by `until`,
    /// and from then on it is NORMAL, whatever happened in between.
    #[test]
    fn a_timed_scenario_always_reverts(profile in profile(), scenario in scenario(), seconds in 0u32..600, commands in proptest::collection::vec(0u64..600_000, 0..10)) {
        let mut device = connected(profile, Scenario::Normal);
        let setting = ScenarioSetting::for_seconds(scenario, seconds, at(500));
        let until = setting.until.unwrap();
        device.set_scenario(setting, at(500));
        let mut now = at(500);
        let mut commands = commands;
        commands.sort_unstable();
        let mut commands = commands.into_iter().map(at).peekable();
        while now < until {
            let wake = device.next_wake().expect("a timed scenario keeps the device awake");
            prop_assert!(wake <= until || device.scenario() == Scenario::Normal);
            if let Some(t) = commands.next_if(|t| *t < wake) {
                now = now.max(t);
                device.command(now, set(1, "light", "power", json!(true)));
                continue;
            }
            now = now.max(wake);
            if device.tick(now).contains(&Output::DropConnection) {
                device.disconnected();
                device.connected(now);
            }
        }
        device.tick(now);
        prop_assert_eq!(device.scenario(), Scenario::Normal);
    }

    /// The same seed and the same events give the same telemetry.
    #[test]
    fn telemetry_is_reproducible(profile in profile(), seed in any::<u64>(), ticks in 1usize..30) {
        let run = || {
            let mut device = VirtualDevice::new(profile, ScenarioSetting::default(), seed, Timing::default(), T0);
            device.connected(T0);
            let mut all = Vec::new();
            for _ in 0..ticks {
                let t = device.next_wake().unwrap();
                all.extend(telemetry(&device.tick(t)));
            }
            all
        };
        prop_assert_eq!(run(), run());
    }
}
