//! The built-in capability catalogue.
//!
//! Ids are the lower-cased device capabilities of the spec (`light`,
//! `media_player`, `coffee_machine`, ...), which are also the keys of a
//! device's `settings.byCapability`, plus dotted sensor kinds
//! (`sensor.temperature`, ..., `sensor.vibration`, kept distinct from motion
//! as the home-security part requires) and `generic` for things of category
//! `other`. State is addressed as `capabilityId.controlKey`; the simulator
//! profiles report e.g. `voice.listening`, `voice.micMuted`,
//! `media_player.volume`, `light.brightness`, `thermostat.setpoint`.
//!
//! Room actions: `lights`, `volume`, `thermostat` and `listening` are the
//! names of the spec's default tile order; the others are `switches`,
//! `locks`, `covers`, `fans`, `privacy` and `watering`.
//!
//! A control's `order` is its position in its capability (0, 1, 2, ...).

use std::sync::LazyLock;

use super::types::{
    CapabilityCatalogue, CapabilityDescriptor, Control, ControlOption, Primitive, RoomAction,
    RoomActionPrimitive,
};

/// Version of the catalogue's shape (`schemaVersion` in the response).
pub const SCHEMA_VERSION: u32 = 1;

static CATALOGUE: LazyLock<CapabilityCatalogue> = LazyLock::new(build);

/// The built-in catalogue, built once.
pub fn catalogue() -> &'static CapabilityCatalogue {
    &CATALOGUE
}

/// The built-in descriptor with this id.
pub fn find(id: &str) -> Option<&'static CapabilityDescriptor> {
    catalogue().get(id)
}

fn build() -> CapabilityCatalogue {
    CapabilityCatalogue {
        schema_version: SCHEMA_VERSION,
        items: vec![
            light(),
            switch(),
            thermostat(),
            lock(),
            cover(),
            fan(),
            camera(),
            media_player(),
            audio_out(),
            vacuum(),
            irrigation(),
            hub(),
            voice(),
            network(),
            energy(),
            button(),
            battery(),
            sensor(),
            sensor_temperature(),
            sensor_humidity(),
            sensor_motion(),
            sensor_contact(),
            sensor_vibration(),
            coffee_machine(),
            generic(),
        ],
    }
}

// ---- helpers ---------------------------------------------------------------

fn descriptor(
    id: &str,
    label: &str,
    icon: &str,
    controls: Vec<Control>,
    room_actions: Vec<RoomAction>,
) -> CapabilityDescriptor {
    let controls = controls
        .into_iter()
        .zip(0..)
        .map(|(control, order)| control.with_order(order))
        .collect();
    CapabilityDescriptor {
        id: id.to_owned(),
        version: 1,
        label: label.to_owned(),
        icon: icon.to_owned(),
        controls,
        room_actions,
    }
}

fn room(
    action: &str,
    label: &str,
    primitive: RoomActionPrimitive,
    control_key: &str,
    icon: &str,
) -> RoomAction {
    RoomAction {
        action: action.to_owned(),
        label: label.to_owned(),
        primitive,
        control_key: control_key.to_owned(),
        icon: icon.to_owned(),
        confirm: None,
    }
}

fn toggle(key: &str, label: &str) -> Control {
    Control::new(key, label, Primitive::Toggle)
}

fn slider(key: &str, label: &str) -> Control {
    Control::new(key, label, Primitive::Slider)
}

fn stepper(key: &str, label: &str) -> Control {
    Control::new(key, label, Primitive::Stepper)
}

fn select(key: &str, label: &str, options: Vec<ControlOption>) -> Control {
    Control::new(key, label, Primitive::Select).with_options(options)
}

fn momentary(key: &str, label: &str) -> Control {
    Control::new(key, label, Primitive::Momentary)
}

fn readout(key: &str, label: &str) -> Control {
    Control::new(key, label, Primitive::Readout)
}

fn percent(control: Control) -> Control {
    control.with_unit("%").with_range(0.0, 100.0, 1.0)
}

fn opt(value: impl Into<serde_json::Value>, label: &str) -> ControlOption {
    ControlOption::new(value, label)
}

/// A boolean readout with a label for each value.
fn flag(key: &str, label: &str, on: &str, off: &str) -> Control {
    readout(key, label).with_options(vec![opt(true, on), opt(false, off)])
}

// ---- descriptors -----------------------------------------------------------

fn light() -> CapabilityDescriptor {
    descriptor(
        "light",
        "Light",
        "lightbulb",
        vec![
            toggle("power", "Power").with_icon("power"),
            percent(slider("brightness", "Brightness")).with_icon("brightness"),
            Control::new("colorTemp", "Colour temperature", Primitive::ColorTemp)
                .with_icon("white-balance")
                .with_unit("K")
                .with_range(2000.0, 6500.0, 50.0)
                .requiring("color_temp"),
            Control::new("color", "Colour", Primitive::Color)
                .with_icon("palette")
                .requiring("color"),
            readout("watts", "Power draw")
                .with_unit("W")
                .with_icon("flash")
                .diagnostic(),
            stepper("transition", "Fade time")
                .with_unit("s")
                .with_range(0.0, 10.0, 0.5)
                .setting(),
        ],
        vec![room(
            "lights",
            "Lights",
            RoomActionPrimitive::Toggle,
            "power",
            "lightbulb",
        )],
    )
}

fn switch() -> CapabilityDescriptor {
    descriptor(
        "switch",
        "Switch",
        "power-socket",
        vec![toggle("power", "Power").with_icon("power")],
        vec![room(
            "switches",
            "Switches",
            RoomActionPrimitive::Toggle,
            "power",
            "power-socket",
        )],
    )
}

fn thermostat() -> CapabilityDescriptor {
    descriptor(
        "thermostat",
        "Thermostat",
        "thermostat",
        vec![
            Control::new("setpoint", "Target temperature", Primitive::Setpoint)
                .with_icon("thermostat")
                .with_unit("°C")
                .with_range(5.0, 30.0, 0.5),
            readout("ambient", "Room temperature")
                .with_icon("thermometer")
                .with_unit("°C"),
            flag("heating", "Heating", "Heating", "Idle").with_icon("fire"),
            select(
                "mode",
                "Mode",
                vec![
                    opt("heat", "Heat").with_icon("fire"),
                    opt("auto", "Auto").with_icon("calendar-clock"),
                    opt("eco", "Eco").with_icon("leaf"),
                    opt("off", "Off").with_icon("power-off"),
                ],
            ),
        ],
        vec![room(
            "thermostat",
            "Heating",
            RoomActionPrimitive::Stepper,
            "setpoint",
            "thermostat",
        )],
    )
}

fn lock() -> CapabilityDescriptor {
    descriptor(
        "lock",
        "Lock",
        "lock",
        vec![
            toggle("locked", "Locked").with_icon("lock").confirmed(),
            flag("jammed", "Jammed", "Jammed", "OK")
                .with_icon("lock-alert")
                .diagnostic(),
            stepper("autoLockSeconds", "Lock again after")
                .with_unit("s")
                .with_range(0.0, 600.0, 10.0)
                .setting(),
        ],
        vec![RoomAction {
            confirm: Some(true),
            ..room(
                "locks",
                "Locks",
                RoomActionPrimitive::Lock,
                "locked",
                "lock",
            )
        }],
    )
}

fn cover() -> CapabilityDescriptor {
    descriptor(
        "cover",
        "Blinds and covers",
        "blinds",
        vec![
            percent(slider("position", "Position")).with_icon("blinds-open"),
            momentary("open", "Open").with_icon("arrow-up"),
            momentary("close", "Close").with_icon("arrow-down"),
            momentary("stop", "Stop").with_icon("stop"),
        ],
        vec![room(
            "covers",
            "Blinds",
            RoomActionPrimitive::Slider,
            "position",
            "blinds",
        )],
    )
}

fn fan() -> CapabilityDescriptor {
    descriptor(
        "fan",
        "Fan",
        "fan",
        vec![
            toggle("power", "Power").with_icon("power"),
            percent(slider("speed", "Speed")).with_icon("fan"),
            toggle("oscillating", "Oscillate")
                .with_icon("arrow-left-right")
                .requiring("oscillation"),
        ],
        vec![room(
            "fans",
            "Fans",
            RoomActionPrimitive::Toggle,
            "power",
            "fan",
        )],
    )
}

fn camera() -> CapabilityDescriptor {
    descriptor(
        "camera",
        "Camera",
        "cctv",
        vec![
            flag("streaming", "Stream", "Live", "Off").with_icon("video"),
            toggle("privacy", "Privacy mode").with_icon("eye-off"),
        ],
        vec![room(
            "privacy",
            "Camera privacy",
            RoomActionPrimitive::Toggle,
            "privacy",
            "eye-off",
        )],
    )
}

fn media_player() -> CapabilityDescriptor {
    descriptor(
        "media_player",
        "Media player",
        "speaker",
        vec![
            percent(slider("volume", "Volume")).with_icon("volume-high"),
            toggle("muted", "Mute").with_icon("volume-off"),
            flag("playing", "Playback", "Playing", "Paused").with_icon("music-note"),
            momentary("play", "Play").with_icon("play"),
            momentary("pause", "Pause").with_icon("pause"),
            momentary("next", "Next").with_icon("skip-next"),
        ],
        vec![room(
            "volume",
            "Volume",
            RoomActionPrimitive::Slider,
            "volume",
            "volume-high",
        )],
    )
}

fn audio_out() -> CapabilityDescriptor {
    descriptor(
        "audio_out",
        "Audio output",
        "speaker",
        vec![
            percent(slider("volume", "Volume")).with_icon("volume-high"),
            toggle("muted", "Mute").with_icon("volume-off"),
        ],
        vec![],
    )
}

fn vacuum() -> CapabilityDescriptor {
    descriptor(
        "vacuum",
        "Robot vacuum",
        "robot-vacuum",
        vec![
            readout("status", "Status").with_options(vec![
                opt("cleaning", "Cleaning"),
                opt("returning", "Returning to dock"),
                opt("docked", "Docked").with_icon("home"),
                opt("paused", "Paused"),
                opt("error", "Needs attention").with_icon("alert"),
            ]),
            momentary("start", "Start").with_icon("play"),
            momentary("stop", "Stop").with_icon("stop"),
            momentary("dock", "Return to dock").with_icon("home"),
            select(
                "suction",
                "Suction",
                vec![
                    opt("quiet", "Quiet"),
                    opt("standard", "Standard"),
                    opt("max", "Max"),
                ],
            )
            .setting(),
        ],
        vec![],
    )
}

fn irrigation() -> CapabilityDescriptor {
    descriptor(
        "irrigation",
        "Irrigation",
        "sprinkler",
        vec![
            toggle("valve", "Watering").with_icon("water"),
            stepper("duration", "Run time")
                .with_icon("timer")
                .with_unit("min")
                .with_range(1.0, 120.0, 1.0)
                .setting(),
        ],
        vec![room(
            "watering",
            "Watering",
            RoomActionPrimitive::Toggle,
            "valve",
            "sprinkler",
        )],
    )
}

fn hub() -> CapabilityDescriptor {
    descriptor(
        "hub",
        "Hub",
        "hub",
        vec![
            momentary("identify", "Identify").with_icon("flash"),
            // Opens the hub's radio for a new device; the hub reports what
            // joined on its events channel (`child.paired`).
            momentary("pair", "Pair a device").with_icon("link-variant"),
            readout("uptime", "Uptime")
                .with_icon("timer")
                .with_unit("s")
                .diagnostic(),
            readout("rssi", "Signal strength")
                .with_icon("wifi")
                .with_unit("dBm")
                .diagnostic(),
            readout("firmware", "Firmware")
                .with_icon("chip")
                .diagnostic(),
            momentary("reboot", "Restart")
                .with_icon("restart")
                .confirmed()
                .diagnostic(),
        ],
        vec![],
    )
}

fn voice() -> CapabilityDescriptor {
    descriptor(
        "voice",
        "Voice",
        "microphone",
        vec![
            toggle("listening", "Listen for the wake word").with_icon("microphone"),
            // The mute switch: moved by the room's `listening` (off mutes, on
            // unmutes what the room muted) or by hand; reported back, never
            // set from the app.
            flag("micMuted", "Microphone", "Muted", "On").with_icon("microphone-off"),
            readout("wakeWords", "Wake words heard")
                .with_icon("account-voice")
                .diagnostic(),
        ],
        vec![room(
            "listening",
            "Listening",
            RoomActionPrimitive::Toggle,
            "listening",
            "microphone",
        )],
    )
}

fn network() -> CapabilityDescriptor {
    descriptor(
        "network",
        "Network",
        "wifi",
        vec![
            readout("rssi", "Signal strength")
                .with_icon("wifi")
                .with_unit("dBm")
                .diagnostic(),
            readout("link", "Connection")
                .with_options(vec![
                    opt("wifi", "Wi-Fi").with_icon("wifi"),
                    opt("ethernet", "Ethernet").with_icon("ethernet"),
                    opt("thread", "Thread"),
                    opt("zigbee", "Zigbee"),
                ])
                .diagnostic(),
        ],
        vec![],
    )
}

fn energy() -> CapabilityDescriptor {
    descriptor(
        "energy",
        "Energy",
        "lightning-bolt",
        vec![
            readout("power", "Power").with_icon("flash").with_unit("W"),
            readout("energy", "Energy used")
                .with_icon("lightning-bolt")
                .with_unit("kWh"),
            readout("voltage", "Voltage").with_unit("V").diagnostic(),
        ],
        vec![],
    )
}

fn button() -> CapabilityDescriptor {
    descriptor(
        "button",
        "Button",
        "gesture-tap-button",
        vec![readout("lastPress", "Last press").with_options(vec![
            opt("single", "Single press"),
            opt("double", "Double press"),
            opt("long", "Long press"),
        ])],
        vec![],
    )
}

fn battery() -> CapabilityDescriptor {
    descriptor(
        "battery",
        "Battery",
        "battery",
        vec![
            percent(readout("level", "Battery")).with_icon("battery"),
            flag("low", "Battery low", "Low", "OK").with_icon("battery-alert"),
        ],
        vec![],
    )
}

fn sensor() -> CapabilityDescriptor {
    descriptor(
        "sensor",
        "Sensor",
        "motion-sensor",
        vec![
            readout("fault", "Fault")
                .with_icon("alert")
                .with_options(vec![opt("sensor_error", "Sensor error").with_icon("alert")])
                .diagnostic(),
            stepper("reportInterval", "Report every")
                .with_icon("timer")
                .with_unit("s")
                .with_range(10.0, 3600.0, 10.0)
                .setting(),
        ],
        vec![],
    )
}

fn sensor_temperature() -> CapabilityDescriptor {
    descriptor(
        "sensor.temperature",
        "Temperature",
        "thermometer",
        vec![
            readout("temperature", "Temperature")
                .with_icon("thermometer")
                .with_unit("°C"),
        ],
        vec![],
    )
}

fn sensor_humidity() -> CapabilityDescriptor {
    descriptor(
        "sensor.humidity",
        "Humidity",
        "water-percent",
        vec![percent(readout("humidity", "Humidity")).with_icon("water-percent")],
        vec![],
    )
}

fn sensor_motion() -> CapabilityDescriptor {
    descriptor(
        "sensor.motion",
        "Motion",
        "motion-sensor",
        vec![flag("motion", "Motion", "Motion detected", "Clear").with_icon("motion-sensor")],
        vec![],
    )
}

fn sensor_contact() -> CapabilityDescriptor {
    descriptor(
        "sensor.contact",
        "Door or window",
        "door-open",
        vec![flag("open", "Contact", "Open", "Closed").with_icon("door-open")],
        vec![],
    )
}

fn sensor_vibration() -> CapabilityDescriptor {
    descriptor(
        "sensor.vibration",
        "Vibration",
        "vibrate",
        vec![flag("vibration", "Vibration", "Vibration detected", "Still").with_icon("vibrate")],
        vec![],
    )
}

fn coffee_machine() -> CapabilityDescriptor {
    descriptor(
        "coffee_machine",
        "Coffee machine",
        "coffee-maker",
        vec![
            readout("state", "Status").with_options(vec![
                opt("off", "Off"),
                opt("heating", "Heating up"),
                opt("ready", "Ready"),
                opt("brewing", "Brewing").with_icon("coffee"),
                opt("error", "Needs attention").with_icon("alert"),
            ]),
            momentary("brew", "Brew").with_icon("coffee"),
            select(
                "strength",
                "Strength",
                vec![
                    opt("mild", "Mild"),
                    opt("normal", "Normal"),
                    opt("strong", "Strong"),
                ],
            )
            .setting(),
        ],
        vec![],
    )
}

fn generic() -> CapabilityDescriptor {
    descriptor(
        "generic",
        "Device",
        "devices",
        vec![readout("status", "Status").with_icon("information")],
        vec![],
    )
}
