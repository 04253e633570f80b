import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { SignatureError, sign, verify } from "../src/index.js";

// The platform's own signature of one delivery (a Rust test holds it).
const vector = JSON.parse(
  readFileSync(new URL("../../../fixtures/webhook-signature.json", import.meta.url), "utf8"),
) as { secret: string; timestamp: number; body: string; header: string };

test("a delivery the platform signed verifies at its time", () => {
  const at = verify({ body: vector.body, header: vector.header, secret: vector.secret, now: vector.timestamp + 60 });
  assert.equal(at, vector.timestamp);
  assert.equal(sign(vector.secret, vector.timestamp, vector.body), vector.header);
});

test("a changed body, another secret or a changed signature are refused", () => {
  const now = vector.timestamp;
  const refused = (body: string, header: string, secret: string) =>
    assert.throws(() => verify({ body, header, secret, now }), SignatureError);
  refused(vector.body.replace("webhook.ping", "webhook.pong"), vector.header, vector.secret);
  refused(vector.body, vector.header, vector.secret + "0");
  refused(vector.body, vector.header.replace(/.$/, (c) => (c === "0" ? "1" : "0")), vector.secret);
});

test("outside five minutes either way is refused as a replay", () => {
  const at = (now: number) => verify({ body: vector.body, header: vector.header, secret: vector.secret, now });
  assert.equal(at(vector.timestamp + 300), vector.timestamp);
  assert.equal(at(vector.timestamp - 300), vector.timestamp);
  assert.throws(() => at(vector.timestamp + 301), /tolerance/);
  assert.throws(() => at(vector.timestamp - 301), /tolerance/);
});

test("during a secret rotation any listed signature may match", () => {
  const rotated = `t=${vector.timestamp},v1=${"0".repeat(64)},${vector.header.split(",")[1]}`;
  assert.equal(verify({ body: vector.body, header: rotated, secret: vector.secret, now: vector.timestamp }), vector.timestamp);
});

test("missing and malformed headers are refused", () => {
  for (const header of [undefined, "", "v1=abc", `t=${vector.timestamp}`, "t=soon,v1=00", "x".repeat(5000)]) {
    assert.throws(() => verify({ body: vector.body, header, secret: vector.secret, now: vector.timestamp }), SignatureError);
  }
});

test("a rotation's header verifies with either secret, or both held", () => {
  // During a rotation's grace period a delivery carries a v1 per secret
  // (the new and the replaced one): a receiver holding either verifies it.
  const body = '{"id":"1","type":"webhook.ping"}';
  const t = 1_764_115_200;
  const header = `${sign("whsec_new", t, body)},${sign("whsec_old", t, body).split(",")[1]}`;
  assert.equal(header.match(/v1=/g)?.length, 2);
  for (const held of ["whsec_new", "whsec_old", ["whsec_new", "whsec_old"], ["whsec_old"]]) {
    assert.equal(verify({ body, header, secret: held, now: t }), t);
  }
  assert.throws(() => verify({ body, header, secret: ["whsec_other"], now: t }), SignatureError);
  assert.throws(() => verify({ body, header, secret: [], now: t }), SignatureError);
});
