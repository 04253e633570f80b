/**
 * The event stream: every event of your sandbox as it happens, resumed
 * after any disconnect without losing or repeating one.
 *
 * It saves the id of each event it has handled (ALYT_STREAM_STATE), so
 * started again it resumes after that one, and gets what happened in between.
 * It ends with a typed error when it cannot go on: CredentialRevokedError
 * (the key was revoked) or StreamEndedError (a refusal, e.g. an unknown
 * event kind), both with the id to resume from.
 *
 *   ALYT_BASE_URL=http://127.0.0.1:8080 ALYT_KEY=svc_dev_... node stream.js
 *
 * Optional: ALYT_STREAM_EVENTS (kinds, comma-separated; default
 * command.result,thing.state), ALYT_STREAM_STATE (default last-event-id.txt),
 * ALYT_LAST_EVENT_ID (resume after this id instead), ALYT_STREAM_LIMIT (stop
 * after that many events; default: until Ctrl-C). The key needs events:read.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";

import { CredentialRevokedError, StreamEndedError, eventStream } from "@alyt/sdk";

const base = process.env.ALYT_BASE_URL ?? "http://127.0.0.1:8080";
const key = process.env.ALYT_KEY;
if (!key) {
  console.error("set ALYT_KEY (see the top of this file)");
  process.exit(2);
}
const events = (process.env.ALYT_STREAM_EVENTS ?? "command.result,thing.state").split(",");
const state = process.env.ALYT_STREAM_STATE ?? "last-event-id.txt";
const limit = Number(process.env.ALYT_STREAM_LIMIT ?? Infinity);
const lastEventId =
  process.env.ALYT_LAST_EVENT_ID || (existsSync(state) ? readFileSync(state, "utf8").trim() : undefined);

const stop = new AbortController();
process.on("SIGINT", () => stop.abort());

console.log(lastEventId ? `resuming after ${lastEventId}` : "from now on");
let seen = 0;
try {
  for await (const { envelope } of eventStream({ baseUrl: base, token: key, events, lastEventId, signal: stop.signal })) {
    if (envelope.type === "command.result") {
      console.log(`${envelope.id} command ${envelope.data.commandId} on ${envelope.data.deviceId}: ${envelope.data.status}`);
    } else {
      console.log(`${envelope.id} ${envelope.type}: ${JSON.stringify(envelope.data)}`);
    }
    writeFileSync(state, envelope.id); // handled: a restart resumes after it
    if (++seen >= limit) break;
  }
} catch (error) {
  // CredentialRevokedError is a StreamEndedError: test it first.
  if (error instanceof CredentialRevokedError) console.error("the key no longer works: make a new one");
  else if (!(error instanceof StreamEndedError)) throw error;
  console.error(`the stream ended: ${error.message}`);
  if (error.problem) console.error(`  ${error.problem.type}, request ${error.problem.requestId}`);
  console.error(`  resume after ${error.lastEventId ?? "the last id saved"}`);
  process.exitCode = 1;
}
