/**
 * Registering a webhook endpoint: the platform POSTs the events you choose to
 * your URL, signed with the endpoint's secret. The secret is shown once, in
 * this answer: store it where your receiver reads it (webhook-receiver.ts).
 *
 *   ALYT_BASE_URL=http://127.0.0.1:8080 ALYT_KEY=svc_dev_... \
 *   ALYT_WEBHOOK_URL=http://127.0.0.1:3000/webhooks/alyt node register-webhook.js
 *
 * The key needs the scope webhooks:write; the endpoint is bound to it. The
 * hosted platform takes https URLs only (the local one also http://127.0.0.1).
 * `POST /v1/developers/webhooks/{webhookId}/test` sends it a `webhook.ping`.
 */
import { AlytProblemError, createAlytClient } from "@alyt/sdk";

const base = process.env.ALYT_BASE_URL ?? "http://127.0.0.1:8080";
const key = process.env.ALYT_KEY;
const url = process.env.ALYT_WEBHOOK_URL;
if (!key || !url) {
  console.error("set ALYT_KEY and ALYT_WEBHOOK_URL (see the top of this file)");
  process.exit(2);
}

const api = createAlytClient(base, key);
try {
  const { data: endpoint } = await api.POST("/v1/developers/webhooks", {
    body: { url, events: ["command.result", "thing.state"], description: "example receiver" },
  });
  console.log(`endpoint ${endpoint!.id} receives ${endpoint!.events.join(", ")} at ${endpoint!.url}`);
  console.log(`ALYT_WEBHOOK_SECRET=${endpoint!.secret}`);
} catch (error) {
  if (!(error instanceof AlytProblemError)) throw error;
  // e.g. 400 with field `url` for a URL the platform does not deliver to.
  console.error(`refused: ${error.status} ${error.detail}${error.field ? ` (field ${error.field})` : ""}`);
  process.exit(1);
}
