/**
 * A webhook receiver (Express): checks each delivery's `X-SVC-Signature`
 * against the raw body with the SDK's `verify`, handles each event once, and
 * answers 2xx quickly.
 *
 * - Verify the raw bytes, before any JSON parsing: `express.raw` on this
 *   route (not `express.json`, which would give you a re-serialisable object,
 *   not the bytes that were signed).
 * - A delivery that got no 2xx (a timeout, a crash) is sent again, so the
 *   same event can arrive twice: deduplicate on the envelope's `id` (here a
 *   Set; in production a unique key in your database).
 * - Answer within a few seconds: queue slow work instead of doing it here.
 *
 *   npm install @alyt/sdk express && npm install -D @types/express
 *   ALYT_WEBHOOK_SECRET=whsec_... PORT=3000 node webhook-receiver.js
 *
 * (The secret is the one register-webhook.ts printed.)
 */
import express from "express";
import { type EventEnvelope, SIGNATURE_HEADER, SignatureError, verify } from "@alyt/sdk";

const secret = process.env.ALYT_WEBHOOK_SECRET;
if (!secret) {
  console.error("set ALYT_WEBHOOK_SECRET (see the top of this file)");
  process.exit(2);
}
const port = Number(process.env.PORT ?? 3000);
const handled = new Set<string>();

function handle(event: EventEnvelope): void {
  switch (event.type) {
    case "command.result":
      console.log(`received ${event.type} ${event.id}: command ${event.data.commandId} ${event.data.status}`);
      break;
    default:
      console.log(`received ${event.type} ${event.id}: ${JSON.stringify(event.data)}`);
  }
}

const app = express();
app.post("/webhooks/alyt", express.raw({ type: "*/*" }), (request, response) => {
  const body: Buffer = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
  try {
    verify({ body, header: request.get(SIGNATURE_HEADER), secret });
  } catch (error) {
    if (!(error instanceof SignatureError)) throw error;
    console.warn(`rejected a delivery: ${error.message}`);
    response.sendStatus(400);
    return;
  }
  const event = JSON.parse(body.toString("utf8")) as EventEnvelope;
  if (handled.has(event.id)) {
    console.log(`duplicate ${event.id}: already handled`);
  } else {
    handled.add(event.id);
    handle(event);
  }
  response.sendStatus(204);
});

// Loopback: in production, behind your https proxy.
app.listen(port, "127.0.0.1", (error) => {
  if (error) throw error; // e.g. the port is taken
  console.log(`listening on http://127.0.0.1:${port}/webhooks/alyt`);
});
