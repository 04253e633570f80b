/**
 * The event stream helper. The real local platform (one stream per caller,
 * ALYT_STREAMS_PER_CALLER=1) produces the stream cap's 429, a 401 for a
 * token it does not accept, a revoked session (sign-out ends the open
 * stream within its recheck) and a 400; its demo home's event history
 * gives real ids to resume from. A stub server stands in where the platform
 * cannot be made to act on demand: a connection dropped mid-way, a 500 or
 * 503, a token that expires during a stream, a 403.
 */
import assert from "node:assert/strict";
import type { ServerResponse } from "node:http";
import { after, before, describe, test } from "node:test";

import {
  AlytProblemError,
  CredentialRevokedError,
  StreamEndedError,
  type StreamEvent,
  type StreamOptions,
  eventStream,
  sessionToken,
} from "../src/index.js";
import { type Platform, problem, recordingSleep, signInOwner, startPlatform, startStub } from "./platform.js";

/** The first `n` events of `stream`, which is closed after them. */
async function take(stream: AsyncGenerator<StreamEvent>, n: number): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of stream) {
    events.push(event);
    if (events.length === n) break;
  }
  return events;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  return assert.fail("expected the stream to end with an error");
}

/** Reads `stream` to its end (an error, here). */
async function drain(stream: AsyncGenerator<StreamEvent>): Promise<number> {
  let count = 0;
  for await (const _ of stream) count++;
  return count;
}

const ids = (events: StreamEvent[]) => events.map((e) => e.id);

/** The owner's home stream on `platform`, with `extra` options. */
async function ownerStreams(platform: Platform) {
  const owner = await signInOwner(platform.url);
  return (extra: Partial<StreamOptions> = {}): StreamOptions => ({
    baseUrl: platform.url,
    token: owner.accessToken,
    home: { tenantId: owner.tenantId, propertyId: owner.propertyId },
    // A stream closed just before may hold its slot a moment: no 30 s waits here.
    retry: { sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.min(ms, 200))) },
    ...extra,
  });
}

describe("against the local platform", () => {
  let platform: Platform;
  let options: (extra?: Partial<StreamOptions>) => StreamOptions;
  before(async () => {
    platform = await startPlatform();
    options = await ownerStreams(platform);
  });
  after(() => platform.stop());

  test("resumes after the last id it handed out: no gap, no duplicate", async () => {
    const reference = await take(eventStream(options()), 8);
    const first = await take(eventStream(options()), 3);
    const rest = await take(eventStream(options({ lastEventId: first.at(-1)?.id })), 5);
    assert.deepEqual(ids([...first, ...rest]), ids(reference));
    assert.equal(new Set(ids(reference)).size, 8);
  });

  test("a token the platform refuses (401) is refreshed through /v1/auth/refresh and the stream goes on", async () => {
    const session = await signInOwner(platform.url);
    const asked: boolean[] = [];
    const refreshed: string[] = [];
    const tokens = sessionToken({
      baseUrl: platform.url,
      // As after its expiry: a token the platform does not accept.
      session: { accessToken: `${session.accessToken.slice(0, -4)}AAAA`, refreshToken: session.refreshToken },
      onRefresh: (pair) => refreshed.push(pair.refreshToken),
    });
    const { waits, sleep } = recordingSleep();
    const events = await take(
      eventStream(
        options({
          token: (expired) => {
            asked.push(expired);
            return tokens(expired);
          },
          retry: { sleep },
        }),
      ),
      3,
    );
    assert.equal(events.length, 3);
    assert.deepEqual(asked, [false, true]);
    assert.equal(refreshed.length, 1);
    assert.notEqual(refreshed[0], session.refreshToken, "the refresh token rotated");
    assert.deepEqual(waits, [], "a refresh is not a failure: no wait");
  });

  test("a revoked session ends the stream with CredentialRevokedError, not a reconnect loop", async () => {
    const session = await signInOwner(platform.url);
    const tokens = sessionToken({ baseUrl: platform.url, session });
    const stream = eventStream(options({ token: tokens }));
    await stream.next();
    const signedOut = await fetch(`${platform.url}/v1/auth/logout`, {
      method: "POST",
      headers: { authorization: `Bearer ${session.accessToken}` },
    });
    assert.equal(signedOut.status, 204);
    const started = Date.now();
    // The platform checks an open stream's caller every 5 s and ends it;
    // the reconnect is refused, and so is the refresh.
    const error = await rejection(drain(stream));
    assert.ok(error instanceof CredentialRevokedError, String(error));
    assert.ok(error.problem instanceof AlytProblemError);
    assert.equal(error.problem.status, 401);
    assert.ok(error.lastEventId, "says where to resume");
    assert.ok(Date.now() - started < 15_000);

    // A fixed token: the first 401 is the end.
    const { waits, sleep } = recordingSleep();
    const fixed = await rejection(take(eventStream(options({ token: session.accessToken, retry: { sleep } })), 1));
    assert.ok(fixed instanceof CredentialRevokedError);
    assert.equal(fixed.problem?.type, "urn:alyt:problem:unauthorized");
    assert.deepEqual(waits, []);
  });

  test("a wrong parameter (400) ends the stream with the problem, without retrying", async () => {
    const { waits, sleep } = recordingSleep();
    const error = await rejection(take(eventStream(options({ events: ["no.such.kind"], retry: { sleep } })), 1));
    assert.ok(error instanceof StreamEndedError && !(error instanceof CredentialRevokedError), String(error));
    assert.equal(error.problem?.status, 400);
    assert.equal(error.problem?.field, "events");
    assert.deepEqual(waits, []);
  });
});

describe("against the local platform, one stream per caller", () => {
  let platform: Platform;
  let options: (extra?: Partial<StreamOptions>) => StreamOptions;
  before(async () => {
    platform = await startPlatform({ ALYT_STREAMS_PER_CALLER: "1" });
    options = await ownerStreams(platform);
  });
  after(() => platform.stop());

  test("the stream cap's 429 is waited out (Retry-After, capped) and the stream starts when a slot frees", async () => {
    const reference = await take(eventStream(options()), 5);
    const hold = new AbortController();
    const holder = eventStream(options({ signal: hold.signal }));
    await holder.next();
    const retryAfters: (string | null)[] = [];
    const waits: number[] = [];
    const stream = eventStream(
      options({
        fetch: async (input, init) => {
          const response = await fetch(input, init);
          retryAfters.push(response.headers.get("retry-after"));
          return response;
        },
        retry: {
          // The first wait lets the holder go; then the slot is free.
          sleep: async (ms) => {
            waits.push(ms);
            hold.abort();
            await new Promise((resolve) => setTimeout(resolve, 100));
          },
        },
      }),
    );
    const events = await take(stream, 5);
    assert.deepEqual(ids(events), ids(reference));
    const refused = retryAfters.filter((r) => r !== null).map(Number);
    assert.ok(refused.length >= 1 && refused.every((s) => s >= 1), `Retry-After ${refused}`);
    // The platform asks for when the slot frees at the latest; the helper waits at most 30 s.
    assert.deepEqual(
      waits,
      refused.map((s) => Math.min(s * 1000, 30_000)),
    );
  });
});

/** Writes events `from`..`to` (ids are their numbers) as the platform frames them. */
function send(response: ServerResponse, from: number, to: number): void {
  for (let n = from; n <= to; n++) {
    response.write(`event: device.online\nid: ${n}\ndata: {"id":"${n}","type":"device.online","data":{}}\n\n`);
  }
}

function open(response: ServerResponse, retryMs = 250): void {
  response.writeHead(200, { "content-type": "text/event-stream" });
  response.write(`retry: ${retryMs}\n: connected\n\n`);
}

describe("against a stub", () => {
  test("a connection dropped mid-way or ended is resumed from the last id, after backoff or `retry:`", async () => {
    // The platform never drops a connection on demand; the stub does.
    let connection = 0;
    const stub = await startStub((request, response) => {
      connection++;
      open(response, 250);
      if (connection === 1) {
        send(response, 1, 3);
        setTimeout(() => request.socket.destroy(), 50);
      } else if (connection === 2) {
        send(response, 4, 6);
        response.end();
      } else {
        send(response, 7, 9);
      }
    });
    try {
      const { waits, sleep } = recordingSleep();
      const events = await take(
        eventStream({ baseUrl: stub.url, token: "t", retry: { sleep, random: () => 0.5 } }),
        9,
      );
      assert.deepEqual(ids(events), ["1", "2", "3", "4", "5", "6", "7", "8", "9"]);
      assert.deepEqual(
        stub.requests.map((r) => r.headers["last-event-id"]),
        [undefined, "3", "6"],
      );
      // A dropped connection: a backoff from the stream's `retry:` (250 ms,
      // jittered); a clean end: `retry:` itself.
      assert.deepEqual(waits, [188, 250]);
    } finally {
      await stub.close();
    }
  });

  test("a 500, then a 503 with Retry-After, are waited out; then the stream resumes", async () => {
    let connection = 0;
    const stub = await startStub((request, response) => {
      connection++;
      if (connection === 1) {
        open(response);
        send(response, 1, 2);
        return void response.end();
      }
      if (connection === 2) return problem(response, 500, "internal");
      if (connection === 3) return problem(response, 503, "unavailable", { "retry-after": "3" });
      open(response);
      send(response, Number(request.headers["last-event-id"]) + 1, 4);
    });
    try {
      const { waits, sleep } = recordingSleep();
      const events = await take(eventStream({ baseUrl: stub.url, token: "t", retry: { sleep, random: () => 0.5 } }), 4);
      assert.deepEqual(ids(events), ["1", "2", "3", "4"]);
      // `retry:` after the clean end, a backoff after the 500, Retry-After after the 503.
      assert.deepEqual(waits, [250, 188, 3000]);
      assert.equal(stub.requests.at(-1)?.headers["last-event-id"], "2");
    } finally {
      await stub.close();
    }
  });

  test("a token that expires during the stream is refreshed at the reconnect", async () => {
    // The platform ends a session's stream when its access token expires
    // (15 minutes); the stub does it after two events.
    let expired = false;
    const stub = await startStub((request, response) => {
      const token = request.headers.authorization;
      if (token === "Bearer t1" && expired) return problem(response, 401, "unauthorized");
      open(response);
      if (token === "Bearer t1") {
        send(response, 1, 2);
        expired = true;
        return void response.end();
      }
      send(response, Number(request.headers["last-event-id"]) + 1, 4);
    });
    try {
      const asked: boolean[] = [];
      let current = "t1";
      const { sleep } = recordingSleep();
      const events = await take(
        eventStream({
          baseUrl: stub.url,
          token: async (refresh) => {
            asked.push(refresh);
            if (refresh) current = "t2";
            return current;
          },
          retry: { sleep },
        }),
        4,
      );
      assert.deepEqual(ids(events), ["1", "2", "3", "4"]);
      assert.deepEqual(asked, [false, false, true]);
      assert.deepEqual(
        stub.requests.map((r) => [r.headers.authorization, r.headers["last-event-id"]]),
        [
          ["Bearer t1", undefined],
          ["Bearer t1", "2"],
          ["Bearer t2", "2"],
        ],
      );
    } finally {
      await stub.close();
    }
  });

  test("a 421 is followed to the host its location names, with the query kept", async () => {
    // A hosted stack's HTTP API answers the stream with 421; no local platform does.
    const stub = await startStub((request, response) => {
      if (!request.url?.startsWith("/streams/")) {
        response.writeHead(421, { "content-type": "application/problem+json" });
        return void response.end(
          JSON.stringify({ type: "urn:alyt:problem:misdirected", title: "Misdirected", status: 421, detail: "elsewhere",
            location: `${stub.url}/streams/v1/developers/events/stream?events=device.online` }),
        );
      }
      open(response);
      send(response, 1, 1);
    });
    try {
      const events = await take(eventStream({ baseUrl: stub.url, token: "t", events: ["device.online"] }), 1);
      assert.deepEqual(ids(events), ["1"]);
      // (Node's fetch itself sends a request answered 421 once more, on a new connection.)
      const paths = stub.requests.map((r) => r.url);
      assert.equal(paths.pop(), "/streams/v1/developers/events/stream?events=device.online");
      assert.ok(paths.length >= 1 && paths.every((p) => p === "/v1/developers/events/stream?events=device.online"));
    } finally {
      await stub.close();
    }
  });

  test("after maxReconnects failures in a row the stream ends, typed", async () => {
    const stub = await startStub((_, response) => problem(response, 503, "unavailable"));
    try {
      const { waits, sleep } = recordingSleep();
      const error = await rejection(
        take(eventStream({ baseUrl: stub.url, token: "t", maxReconnects: 2, retry: { sleep, random: () => 0 } }), 1),
      );
      assert.ok(error instanceof StreamEndedError, String(error));
      assert.equal(error.problem?.status, 503);
      assert.equal(stub.requests.length, 3);
      // Doubling from the stream's 1 s (random 0: the fixed half).
      assert.deepEqual(waits, [500, 1000]);
    } finally {
      await stub.close();
    }
  });

  test("a 403 (a key without the scope) ends the stream at once", async () => {
    const stub = await startStub((_, response) => problem(response, 403, "forbidden"));
    try {
      const error = await rejection(take(eventStream({ baseUrl: stub.url, token: async () => "t" }), 1));
      assert.ok(error instanceof CredentialRevokedError);
      assert.equal(error.problem?.status, 403);
      assert.equal(stub.requests.length, 1);
    } finally {
      await stub.close();
    }
  });
});
