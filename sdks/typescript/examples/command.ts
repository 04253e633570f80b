/**
 * A command to a virtual device: find the sandbox's virtual light, set one of
 * its controls, and read the command's result.
 *
 * A command is accepted at once (202, state `sent`, or `pending` while the
 * device is offline); the device's answer comes later. This polls the
 * device's command history for it; the `command.result` event carries the
 * same answer on the event stream and to webhooks (see stream.ts,
 * webhook-receiver.ts).
 *
 *   ALYT_BASE_URL=http://127.0.0.1:8080 ALYT_KEY=svc_dev_... node command.js power=true
 *   node command.js brightness=40
 *   node command.js brightness=150      # refused: the problem names the field
 *
 * The key needs the scopes devices:read and devices:commands.
 */
import { AlytProblemError, type components, createAlytClient } from "@alyt/sdk";

type CommandRow = components["schemas"]["CommandRow"];

const base = process.env.ALYT_BASE_URL ?? "http://127.0.0.1:8080";
const key = process.env.ALYT_KEY;
if (!key) {
  console.error("set ALYT_KEY (see the top of this file)");
  process.exit(2);
}
// `key=value` of the light's controls: power=true, brightness=40, colorTemp=3000.
const [control = "power", text = "true"] = (process.argv[2] ?? "power=true").split("=", 2);
let value: unknown;
try {
  value = JSON.parse(text);
} catch {
  value = text;
}

// The client throws AlytProblemError for every failure, so when a call
// returns, its `data` is there.
const api = createAlytClient(base, key);

// A DEV key reaches one tenant: its developer's sandbox.
const tenantId = (await api.GET("/v1/developers/whoami")).data!.tenants[0]!;
const devices = (await api.GET("/v1/devices", { params: { query: { tenantId, limit: 200 } } })).data!;
const light = devices.items.find((device) => device.capabilities.includes("LIGHT"));
if (!light) {
  console.error("no light in the sandbox");
  process.exit(1);
}

let command: CommandRow;
try {
  command = (await api.POST("/v1/devices/{deviceId}/commands", {
    params: { path: { deviceId: light.id }, query: { tenantId } },
    body: { command: "set", payload: { capability: "light", key: control, value } },
  })).data!;
} catch (error) {
  if (!(error instanceof AlytProblemError)) throw error;
  // e.g. 400 urn:alyt:problem:validation, field payload.value: "must be at most 100".
  console.error(`refused (${error.status} ${error.type}): ${error.detail}`);
  console.error(`  field ${error.field ?? "-"}, request ${error.requestId}`);
  process.exit(1);
}
console.log(`${light.name}: ${control}=${JSON.stringify(value)} is command ${command.commandId} (${command.state})`);

// Wait for the device's answer (the virtual light answers in milliseconds).
const deadline = Date.now() + 15_000;
while (Date.now() < deadline) {
  const history = (await api.GET("/v1/devices/{deviceId}/commands", {
    params: { path: { deviceId: light.id }, query: { tenantId, limit: 20 } },
  })).data!;
  const row = history.items.find((r) => r.commandId === command.commandId);
  if (row?.state === "answered") {
    console.log(`command ${row.commandId} answered: ${row.resultStatus}`);
    process.exit(row.resultStatus === "ok" ? 0 : 1);
  }
  if (row?.state === "undeliverable") {
    console.error(`command ${row.commandId} undeliverable: ${row.undeliverableReason}`);
    process.exit(1);
  }
  await new Promise((resolve) => setTimeout(resolve, 250));
}
console.error(`command ${command.commandId}: no answer within 15 s`);
process.exit(1);
