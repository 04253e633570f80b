/**
 * A device of one's own (a board the household programs itself): register
 * it in a home (`POST /v1/devices/register`), then its broker credential,
 * shown this once with where and how it connects (host, port, protocol,
 * client id, topic prefix, and the API's ready mosquitto_pub /
 * mosquitto_sub commands carrying the credential). The credential lives in
 * this component's state only: closing the panel forgets it.
 */
import { useEffect, useRef, useState } from "preact/hooks";

import { call, session, type Schemas } from "./api.js";
import { CopyButton, FieldProblem, ProblemAlert, clearProblems, invalid, useAction, words } from "./ui.js";

type DeviceKind = Schemas["DeviceKind"];
type DeviceCapability = Schemas["DeviceCapability"];
type RoomView = Schemas["RoomView"];
/** A registration's answer; a replaced credential's answer reads the same. */
export type IssuedCredential = Schemas["RegisteredDevice"] | Schemas["RotatedCredentials"];

/** The contract's device kinds, a board of one's own first (a kind the
 * contract adds or drops fails the console's type check). */
const KINDS: Record<DeviceKind, string> = {
  OTHER: "Other (a board of your own)",
  SENSOR: "Sensor",
  HUB: "Hub",
  VOICE_SATELLITE: "Voice satellite",
  AGENT: "Agent",
};

/** The contract's capabilities, the usual ones of a home-made board first
 * (likewise held to the contract). */
const CAPABILITIES: Record<DeviceCapability, true> = {
  LIGHT: true,
  SWITCH: true,
  SENSOR: true,
  THERMOSTAT: true,
  FAN: true,
  COVER: true,
  LOCK: true,
  BUTTON: true,
  ENERGY: true,
  BATTERY: true,
  CAMERA: true,
  MEDIA_PLAYER: true,
  AUDIO_OUT: true,
  VOICE: true,
  IRRIGATION: true,
  VACUUM: true,
  COFFEE_MACHINE: true,
  NETWORK: true,
  HUB: true,
};

/** The request's fields, each shown at its input. */
const FIELDS = ["name", "kind", "capabilities", "serial", "roomId", "model", "firmware", "macAddress"];

/**
 * Whether to offer registering a device in `tenantId`: the tenant's ADMIN
 * or INSTALLER, platform OWNER or STAFF, and (unsure whether its tenant
 * lets it) the household's OWNER, whom a refusal tells why. A developer's
 * sandbox home is offered too; so is anyone whose claims cannot be read.
 */
export async function mayRegister(tenantId: string): Promise<boolean> {
  if (session()?.kind !== "household") return true;
  try {
    const { claims } = await call((c) => c.GET("/v1/auth/me"));
    if (claims.platformRole === "OWNER" || claims.platformRole === "STAFF") return true;
    if (claims.tenants[tenantId]) return true;
    return Object.values(claims.clients).some((grant) => grant.tenantId === tenantId && grant.role === "OWNER");
  } catch {
    return true;
  }
}

/** "Add your own device": the button, its form, then the credential once. */
export function AddDevice(props: { tenantId: string; propertyId: string; rooms: RoomView[]; onAdded: () => void }) {
  const { tenantId, propertyId } = props;
  const [open, setOpen] = useState(false);
  const [issued, setIssued] = useState<IssuedCredential | null>(null);
  const { fault, act } = useAction();
  const field = (name: string) => invalid(fault, name, `device-${name}`);
  // Opening or leaving the form is the person's next action: the last
  // refusal goes.
  const toggle = (to: boolean) => {
    clearProblems();
    setOpen(to);
  };
  return (
    <section aria-label="A device of your own">
      <h2>A device of your own</h2>
      <p class="value">
        A board you program yourself (an ESP32, a Raspberry Pi…) gets a broker credential of its own, shown once, to
        publish its readings and receive its commands over MQTT.
      </p>
      {issued ? <CredentialOnce issued={issued} onDone={() => setIssued(null)} /> : null}
      {open ? (
        <form
          class="create"
          aria-label="Add your own device"
          onSubmit={(e) => {
            e.preventDefault();
            const target = e.currentTarget;
            const form = new FormData(target);
            const text = (name: string) => String(form.get(name) ?? "");
            const optional = (name: string) => (text(name).trim() ? text(name).trim() : undefined);
            act(async () => {
              const registered = await call((c) =>
                c.POST("/v1/devices/register", {
                  body: {
                    tenantId,
                    propertyId,
                    name: text("name"),
                    kind: text("kind") as DeviceKind,
                    capabilities: form.getAll("capabilities").map(String) as DeviceCapability[],
                    serial: text("serial"),
                    roomId: optional("roomId"),
                    model: optional("model"),
                    firmware: optional("firmware"),
                    macAddress: optional("macAddress"),
                  },
                }),
              );
              target.reset();
              setOpen(false);
              setIssued(registered);
              props.onAdded();
            });
          }}
        >
          <h3>Add your own device</h3>
          <label for="device-name">Name</label>
          <input id="device-name" name="name" required maxLength={120} {...field("name")} />
          <FieldProblem problem={fault} field="name" id="device-name" />
          <label for="device-kind">Kind</label>
          <select id="device-kind" name="kind" {...field("kind")}>
            {Object.entries(KINDS).map(([kind, label]) => (
              <option value={kind}>{label}</option>
            ))}
          </select>
          <FieldProblem problem={fault} field="kind" id="device-kind" />
          <fieldset class="checks" {...field("capabilities")}>
            <legend>Capabilities (at least one)</legend>
            {Object.keys(CAPABILITIES).map((capability) => (
              <label>
                <input type="checkbox" name="capabilities" value={capability} /> {words(capability)}
              </label>
            ))}
          </fieldset>
          <FieldProblem problem={fault} field="capabilities" id="device-capabilities" />
          <label for="device-serial">Serial (printed on the board; unique)</label>
          <input id="device-serial" name="serial" required maxLength={64} autocomplete="off" {...field("serial")} />
          <FieldProblem problem={fault} field="serial" id="device-serial" />
          <label for="device-roomId">Room</label>
          <select id="device-roomId" name="roomId" {...field("roomId")}>
            <option value="">Not in a room</option>
            {props.rooms.map((room) => (
              <option value={room.id}>{room.name}</option>
            ))}
          </select>
          <FieldProblem problem={fault} field="roomId" id="device-roomId" />
          <label for="device-model">Model (optional)</label>
          <input id="device-model" name="model" maxLength={64} {...field("model")} />
          <FieldProblem problem={fault} field="model" id="device-model" />
          <label for="device-firmware">Firmware (optional)</label>
          <input id="device-firmware" name="firmware" maxLength={64} {...field("firmware")} />
          <FieldProblem problem={fault} field="firmware" id="device-firmware" />
          <label for="device-macAddress">MAC address (optional)</label>
          <input
            id="device-macAddress"
            name="macAddress"
            placeholder="AA:BB:CC:DD:EE:FF"
            autocomplete="off"
            {...field("macAddress")}
          />
          <FieldProblem problem={fault} field="macAddress" id="device-macAddress" />
          <ProblemAlert problem={fault} fields={FIELDS} />
          <div class="row">
            <button type="submit">Register device</button>
            <button type="button" onClick={() => toggle(false)}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <button type="button" onClick={() => toggle(true)}>
          Add your own device
        </button>
      )}
    </section>
  );
}

/**
 * A device's new broker credential, shown this once, with where and how it
 * connects. `onDone` forgets it (the caller drops its state; nothing else
 * keeps it).
 */
export function CredentialOnce(props: { issued: IssuedCredential; onDone: () => void }) {
  const { device, credentials, topicPrefix, connection } = props.issued;
  const heading = useRef<HTMLHeadingElement>(null);
  // Brought into view and focus: the person copies it now or never.
  useEffect(() => heading.current?.focus(), []);
  return (
    <section class="secret" role="region" aria-label="Device credential">
      <h3 ref={heading} tabIndex={-1}>
        {device.name}: its credential
      </h3>
      <p role="note">
        <strong>Copy it now:</strong> the credential is shown <strong>this once</strong> and will not be shown
        again. A lost one is replaced through the API (<samp>POST /v1/devices/{"{deviceId}"}/credentials</samp>), and
        the old one then stops working.
      </p>
      <dl class="facts" aria-label="How it connects">
        {connection ? (
          <>
            <dt>Host</dt>
            <dd>
              <code data-host>{connection.host}</code>
            </dd>
            <dt>Port</dt>
            <dd>
              <code data-port>{connection.port}</code>
            </dd>
            <dt>Protocol</dt>
            <dd>
              <code data-protocol>{connection.protocol}</code>
            </dd>
          </>
        ) : null}
        <dt>Client id</dt>
        <dd>
          <code data-client-id>{connection?.clientId ?? credentials.clientId}</code>
        </dd>
        {credentials.kind === "password" ? (
          <>
            <dt>Username</dt>
            <dd>
              <code>{credentials.username}</code>
            </dd>
            <dt>Password</dt>
            <dd>
              <code data-secret data-password>
                {credentials.password}
              </code>
              <CopyButton text={credentials.password} what="password" />
            </dd>
          </>
        ) : (
          <>
            <dt>Certificate id</dt>
            <dd>
              <code>{credentials.certificateId}</code>
            </dd>
            {credentials.endpoint ? (
              <>
                <dt>Endpoint</dt>
                <dd>
                  <code>{credentials.endpoint}</code>
                </dd>
              </>
            ) : null}
            <dt>Certificate</dt>
            <dd>
              <pre>
                <code data-certificate>{credentials.certificatePem}</code>
              </pre>
              <CopyButton text={credentials.certificatePem} what="certificate" />
            </dd>
            <dt>Private key</dt>
            <dd>
              <pre>
                <code data-secret data-private-key>
                  {credentials.privateKey}
                </code>
              </pre>
              <CopyButton text={credentials.privateKey} what="private key" />
            </dd>
          </>
        )}
        <dt>Topic prefix</dt>
        <dd>
          <code data-topic-prefix>{topicPrefix}</code>
          <CopyButton text={topicPrefix} what="topic prefix" />
        </dd>
      </dl>
      {connection ? (
        <>
          <div role="group" aria-labelledby="device-publish">
            <h4 id="device-publish">Publish a reading (mosquitto_pub)</h4>
            <pre>
              <code data-secret data-example="publish">
                {connection.examples.publish}
              </code>
            </pre>
            <CopyButton text={connection.examples.publish} what="publish example" />
          </div>
          <div role="group" aria-labelledby="device-subscribe">
            <h4 id="device-subscribe">Listen for commands (mosquitto_sub)</h4>
            <pre>
              <code data-secret data-example="subscribe">
                {connection.examples.subscribe}
              </code>
            </pre>
            <CopyButton text={connection.examples.subscribe} what="subscribe example" />
          </div>
          <p data-hint="one-session">
            Run one at a time: they share the device's one session (its client id), and a second connection takes
            the session over from the first.
          </p>
        </>
      ) : (
        <p data-hint="no-broker">
          This platform does not know its broker's address: connect to the broker you were given with the client id
          and the credential above.
        </p>
      )}
      <p>
        The device publishes on the topic prefix followed by <samp>/{"{channel}"}</samp> and receives its commands
        on <samp>/commands</samp>: the channels and their messages are in the{" "}
        <a href="/v1/asyncapi.json" target="_blank" rel="noopener">
          broker contract (AsyncAPI)
        </a>
        .
      </p>
      <div class="row">
        <button type="button" onClick={props.onDone}>
          I have stored it
        </button>
      </div>
    </section>
  );
}
