/**
 * The SDK as a user installs it, against a running local platform (both
 * set up by sdks/smoke/run): a developer signs up and in, lists the
 * sandbox's devices, sends its virtual light a command and sees the result on
 * the event stream, and verifies a real webhook delivery with the SDK's
 * helper.
 *
 * It imports `@alyt/sdk` by name only: sdks/smoke/run compiles and runs it in
 * a fresh npm project outside the repository that installed the packed
 * tarball (`npm pack`), and the first check is that the package resolved
 * there, at the contract's version. With ALYT_SMOKE_CREDENTIALS it writes the
 * developer's email, password and key there (JSON), for the examples that
 * sdks/smoke/run runs next.
 *
 *   ALYT_SMOKE_URL=http://127.0.0.1:PORT ALYT_SMOKE_OUTBOX=DIR \
 *     ALYT_SMOKE_CONTRACT_VERSION=X.Y.Z ALYT_SMOKE_REPO=DIR \
 *     [ALYT_SMOKE_CREDENTIALS=FILE] node smoke.js
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

import { CONTRACT_VERSION, SIGNATURE_HEADER, createAlytClient, eventStream, verify } from "@alyt/sdk";

const base = process.env.ALYT_SMOKE_URL ?? assert.fail("ALYT_SMOKE_URL is not set");
const outbox = process.env.ALYT_SMOKE_OUTBOX ?? assert.fail("ALYT_SMOKE_OUTBOX is not set");
const email = `smoke-ts-${Date.now()}@example.com`;
const password = "plum tractor season";

function step(what: string): void {
  console.log(`typescript smoke: ${what}`);
}

/** The newest verification link mailed to `to` (the local outbox). */
function verificationLink(to: string): string {
  for (const file of readdirSync(outbox).filter((f) => f.endsWith(".eml")).sort().reverse()) {
    const text = readFileSync(join(outbox, file), "utf8");
    if (!text.toLowerCase().includes(`to: ${to}`)) continue;
    const link = text.split(/\s+/).find((w) => w.startsWith("http") && w.includes("verify-email"));
    if (link) return link;
  }
  return assert.fail(`no verification mail to ${to}`);
}

/** `dir` is `parent` or inside it. */
function within(dir: string, parent: string): boolean {
  const path = relative(parent, dir);
  return path === "" || (path !== ".." && !path.startsWith(`..${sep}`));
}

/** The SDK came from the installed tarball, not the repository, at the contract's version. */
function checkInstalled(): void {
  const entry = fileURLToPath(import.meta.resolve("@alyt/sdk"));
  const manifest = fileURLToPath(import.meta.resolve("@alyt/sdk/package.json"));
  step(`@alyt/sdk from ${entry}`);
  const installed = fileURLToPath(new URL("node_modules/@alyt/sdk/", import.meta.url));
  assert.ok(within(entry, installed), `@alyt/sdk is not the one installed in ${installed}`);
  const repo = process.env.ALYT_SMOKE_REPO;
  if (repo) assert.ok(!within(entry, repo), `@alyt/sdk resolved inside the repository (${repo})`);
  const { version } = JSON.parse(readFileSync(manifest, "utf8")) as { version: string };
  const contract = process.env.ALYT_SMOKE_CONTRACT_VERSION ?? assert.fail("ALYT_SMOKE_CONTRACT_VERSION is not set");
  assert.equal(version, contract, "the installed package's version is the contract's");
  assert.equal(CONTRACT_VERSION, contract, "the installed package's CONTRACT_VERSION is the contract's");
}

async function main(): Promise<void> {
  checkInstalled();
  const anonymous = createAlytClient(base);
  step("sign up");
  const signup = await anonymous.POST("/v1/developers/auth/signup", {
    body: { email, password, displayName: "SDK Smoke", type: "INDIVIDUAL", botToken: "XXXX.DUMMY.TOKEN.XXXX" },
  });
  assert.equal(signup.response.status, 202, JSON.stringify(signup.error));
  const verified = await fetch(verificationLink(email));
  assert.equal(verified.status, 200);

  step("sign in");
  const login = await anonymous.POST("/v1/developers/auth/login", { body: { email, password } });
  assert.equal(login.response.status, 200, JSON.stringify(login.error));
  const token = login.data?.accessToken ?? assert.fail("no access token");
  const api = createAlytClient(base, token);
  const me = await api.GET("/v1/developers/me");
  const tenantId = me.data?.sandboxTenantId ?? assert.fail("no sandbox");
  const key = await api.POST("/v1/developers/keys", {
    body: { name: "smoke", scopes: ["devices:read", "devices:commands", "events:read", "webhooks:write"] },
  });
  assert.equal(key.response.status, 201, JSON.stringify(key.error));
  const credentials = process.env.ALYT_SMOKE_CREDENTIALS;
  if (credentials) writeFileSync(credentials, JSON.stringify({ email, password, key: key.data?.secret }));

  step("list devices");
  const devices = await api.GET("/v1/devices", { params: { query: { tenantId, limit: 200 } } });
  assert.equal(devices.response.status, 200, JSON.stringify(devices.error));
  const light = devices.data?.items.find((d) => d.capabilities.includes("LIGHT")) ?? assert.fail("no virtual light");

  step("a webhook receiver on loopback");
  const deliveries: { body: string; signature: string | undefined }[] = [];
  const receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (c: Buffer) => chunks.push(c));
    request.on("end", () => {
      const header = request.headers[SIGNATURE_HEADER.toLowerCase()];
      deliveries.push({ body: Buffer.concat(chunks).toString("utf8"), signature: Array.isArray(header) ? header[0] : header });
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const port = (receiver.address() as AddressInfo).port;
  const hook = await api.POST("/v1/developers/webhooks", {
    body: { url: `http://127.0.0.1:${port}/hook`, events: ["command.result"] },
  });
  assert.equal(hook.response.status, 201, JSON.stringify(hook.error));
  const secret = hook.data?.secret ?? assert.fail("no webhook secret");

  step("send the light a command and see its result on the stream");
  const abort = new AbortController();
  const stream = eventStream({ baseUrl: base, token, events: ["command.result"], signal: abort.signal });
  // The stream is open once its first read is under way.
  const first = stream.next();
  await new Promise((r) => setTimeout(r, 500));
  const sent = await api.POST("/v1/devices/{deviceId}/commands", {
    params: { path: { deviceId: light.id }, query: { tenantId } },
    body: { command: "set", payload: { capability: "light", key: "power", value: true } },
  });
  assert.equal(sent.response.status, 202, JSON.stringify(sent.error));
  const commandId = sent.data?.commandId ?? assert.fail("no command id");
  const deadline = setTimeout(() => abort.abort(), 20_000);
  let result = (await first).value;
  while (result && result.envelope.data["commandId"] !== commandId) {
    result = (await stream.next()).value;
  }
  clearTimeout(deadline);
  abort.abort();
  assert.ok(result, `no command.result for ${commandId} within 20 s`);
  assert.equal(result.kind, "command.result");

  step("verify the webhook delivery of that result");
  const until = Date.now() + 20_000;
  let delivery;
  while (!(delivery = deliveries.find((d) => d.body.includes(commandId))) && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 100));
  }
  receiver.close();
  assert.ok(delivery, "the webhook got no delivery of the command's result");
  verify({ body: delivery.body, header: delivery.signature, secret });
  assert.throws(() => verify({ body: delivery.body.replace(commandId, "forged"), header: delivery.signature, secret }));

  step("remove the webhook endpoint");
  const webhookId = hook.data?.id ?? assert.fail("no webhook id");
  const removed = await api.DELETE("/v1/developers/webhooks/{webhookId}", { params: { path: { webhookId } } });
  assert.equal(removed.response.status, 204);
  step("ok");
}

await main();
