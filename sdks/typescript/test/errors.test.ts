/**
 * Typed failures and retries of the client. Problem bodies, an undocumented
 * status and a spent rate limit (429 with Retry-After) come from the real
 * local platform; a stub server stands in where the platform cannot be made
 * to answer so on demand: a 500 with an HTML body, a 503 with Retry-After,
 * a dropped connection.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { AlytProblemError, NetworkError, createAlytClient, parseRetryAfter } from "../src/index.js";
import { type Platform, problem, recordingSleep, startPlatform, startStub } from "./platform.js";

/** A fetch that records its calls and their answers' Retry-After. */
function counting() {
  const calls: string[] = [];
  const retryAfters: (string | null)[] = [];
  const fetch = async (request: Request, init?: RequestInit) => {
    calls.push(request.method);
    const response = await globalThis.fetch(request, init);
    retryAfters.push(response.headers.get("retry-after"));
    return response;
  };
  return { calls, retryAfters, fetch };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  return assert.fail("expected a failure");
}

describe("against the local platform", () => {
  let platform: Platform;
  before(async () => (platform = await startPlatform()));
  after(() => platform.stop());

  test("a refused token is a typed 401 with the platform's problem", async () => {
    const api = createAlytClient(platform.url, "not-a-token");
    const error = await rejection(api.GET("/v1/auth/me"));
    assert.ok(error instanceof AlytProblemError);
    assert.equal(error.status, 401);
    assert.equal(error.type, "urn:alyt:problem:unauthorized");
    assert.equal(error.title, "Authentication required");
    assert.match(error.detail, /Bearer/);
    assert.match(error.requestId ?? "", /^[0-9a-f-]{36}$/);
    assert.equal(error.retryAfter, undefined);
  });

  test("a status the contract does not document (login's 400) is typed too, with its field", async () => {
    const { calls, fetch } = counting();
    const api = createAlytClient(platform.url, undefined, { fetch });
    const error = await rejection(api.POST("/v1/auth/login", { body: { email: "x@example.com" } as never }));
    assert.ok(error instanceof AlytProblemError);
    assert.equal(error.status, 400);
    assert.equal(error.type, "urn:alyt:problem:validation");
    assert.equal(error.field, "body");
    assert.match(error.detail, /password/);
    assert.deepEqual(calls, ["POST"], "a 400 is not retried");
  });

  test("throwOnError: false keeps openapi-fetch's { error, response }", async () => {
    const api = createAlytClient(platform.url, "not-a-token", { throwOnError: false });
    const { data, error, response } = await api.GET("/v1/auth/me");
    assert.equal(data, undefined);
    assert.equal(response.status, 401);
    assert.equal((error as { type?: string }).type, "urn:alyt:problem:unauthorized");
  });
});

describe("against a rate-limited local platform", () => {
  // Three requests per two seconds: the platform's own 429 and Retry-After.
  let platform: Platform;
  before(async () => (platform = await startPlatform({ ALYT_RATE_LIMIT_QUOTA: "3", ALYT_RATE_LIMIT_WINDOW_SECONDS: "2" })));
  after(() => platform.stop());

  test("a spent rate limit is a typed 429; with retries the call waits Retry-After and succeeds", async () => {
    const once = createAlytClient(platform.url, undefined, { retry: false });
    const spend = async () => {
      for (let i = 0; i < 20; i++) {
        const refused = await once.GET("/v1/capabilities").then(
          () => undefined,
          (error: unknown) => error,
        );
        if (refused) return refused;
      }
      return assert.fail("the rate limit was never spent");
    };
    const refused = await spend();
    assert.ok(refused instanceof AlytProblemError, String(refused));
    assert.equal(refused.status, 429);
    assert.equal(refused.type, "urn:alyt:problem:rate-limited");
    // The seconds until the window resets.
    assert.ok(refused.retryAfter === 1 || refused.retryAfter === 2, `Retry-After ${refused.retryAfter}`);

    // While the limit is spent, the retrying client waits what it is told, for real.
    for (let round = 0; ; round++) {
      const { waits, sleep } = recordingSleep(5_000);
      const { calls, retryAfters, fetch } = counting();
      const api = createAlytClient(platform.url, undefined, { fetch, retry: { sleep } });
      const { data } = await api.GET("/v1/capabilities");
      assert.ok(data);
      // The window may have turned over since `spend`: then spend and try again.
      if (calls.length === 1 && round < 3) {
        await new Promise((resolve) => setTimeout(resolve, 2_000));
        await spend();
        continue;
      }
      assert.ok(calls.length >= 2 && calls.length <= 4, `${calls.length} attempts`);
      const asked = retryAfters.slice(0, -1).map((seconds) => Number(seconds) * 1000);
      assert.ok(asked.every((ms) => ms >= 1000));
      assert.deepEqual(waits, asked, "each wait is the server's Retry-After");
      assert.equal(retryAfters.at(-1), null, "the last answer is the success");
      break;
    }
  });
});

describe("against a stub", () => {
  test("a 500 with a body that is not a problem keeps its status and an excerpt; it is not retried", async () => {
    const stub = await startStub((_, response) => {
      response.writeHead(500, { "content-type": "text/html" }).end("<html><body>Internal error at the proxy</body></html>");
    });
    try {
      const api = createAlytClient(stub.url, "t");
      const error = await rejection(api.GET("/v1/capabilities"));
      assert.ok(error instanceof AlytProblemError);
      assert.equal(error.status, 500);
      assert.equal(error.type, "about:blank");
      assert.equal(error.title, "Internal Server Error");
      assert.match(error.detail, /Internal error at the proxy/);
      assert.equal(stub.requests.length, 1);
    } finally {
      await stub.close();
    }
  });

  test("a 503 is retried (a POST too, body intact) after its Retry-After, then succeeds", async () => {
    let answered = 0;
    const stub = await startStub((_, response, body) => {
      if (++answered < 3) return problem(response, 503, "unavailable", { "retry-after": "2" });
      response.writeHead(200, { "content-type": "application/json" }).end(body);
    });
    try {
      const { waits, sleep } = recordingSleep();
      const api = createAlytClient(stub.url, "t", { retry: { sleep } });
      const { data } = await api.POST("/v1/auth/refresh", { body: { refreshToken: "rt_1" } });
      assert.deepEqual(data, { refreshToken: "rt_1" } as never);
      assert.deepEqual(waits, [2000, 2000]);
      assert.deepEqual(
        stub.requests.map((r) => r.body),
        Array(3).fill('{"refreshToken":"rt_1"}'),
      );
    } finally {
      await stub.close();
    }
  });

  test("Retry-After as an HTTP date; without one, exponential backoff; then the typed 503", async () => {
    const stub = await startStub((request, response) => {
      const at = new Date(Date.now() + 5_000).toUTCString();
      problem(response, 503, "unavailable", request.url?.includes("dated") ? { "retry-after": at } : {});
    });
    try {
      const { waits, sleep } = recordingSleep();
      const api = createAlytClient(stub.url, "t", { retry: { sleep, random: () => 0.5, retries: 3 } });
      const error = await rejection(api.GET("/v1/capabilities"));
      assert.ok(error instanceof AlytProblemError);
      assert.equal(error.status, 503);
      assert.equal(error.requestId, "stub-1");
      // 500 ms doubled at each retry, half of it jittered (random 0.5 here).
      assert.deepEqual(waits, [375, 750, 1500]);
      assert.equal(stub.requests.length, 4);

      const dated = recordingSleep();
      const datedApi = createAlytClient(stub.url, "t", { retry: { sleep: dated.sleep, retries: 1 } });
      await rejection(datedApi.GET("/v1/capabilities", { params: { query: { dated: 1 } as never } }));
      const wait = dated.waits[0] ?? -1;
      // An HTTP date has whole seconds: 4 to 5 s from the answer.
      assert.ok(wait > 3_000 && wait <= 5_000, `waited ${wait} ms`);
    } finally {
      await stub.close();
    }
  });

  test("a Retry-After longer than maxDelayMs is not waited for: the error says when", async () => {
    const stub = await startStub((_, response) => problem(response, 429, "rate-limited", { "retry-after": "120" }));
    try {
      const { waits, sleep } = recordingSleep();
      const api = createAlytClient(stub.url, "t", { retry: { sleep, maxDelayMs: 30_000 } });
      const error = await rejection(api.GET("/v1/capabilities"));
      assert.ok(error instanceof AlytProblemError);
      assert.equal(error.retryAfter, 120);
      assert.deepEqual(waits, []);
      assert.equal(stub.requests.length, 1);
    } finally {
      await stub.close();
    }
  });

  test("a dropped connection: a GET is retried, a POST is not (it may have been applied)", async () => {
    let answered = 0;
    const stub = await startStub((request, response) => {
      if (++answered % 3 !== 0) return request.socket.destroy();
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
    try {
      const { waits, sleep } = recordingSleep();
      const api = createAlytClient(stub.url, "t", { retry: { sleep } });
      await api.GET("/v1/capabilities");
      assert.equal(stub.requests.length, 3);
      assert.equal(waits.length, 2);

      const error = await rejection(api.POST("/v1/auth/refresh", { body: { refreshToken: "rt" } }));
      assert.ok(error instanceof NetworkError, String(error));
      assert.ok(error.cause instanceof Error);
      assert.equal(stub.requests.length, 4, "the POST was sent once");

      const off = createAlytClient(stub.url, "t", { retry: { retries: 0 } });
      assert.ok((await rejection(off.GET("/v1/capabilities"))) instanceof NetworkError);
      assert.equal(stub.requests.length, 5, "retries: 0 sends once");
    } finally {
      await stub.close();
    }
  });
});

test("Retry-After: seconds, an HTTP date, nonsense", () => {
  const now = Date.parse("2026-01-01T00:00:00Z");
  assert.equal(parseRetryAfter("7", now), 7000);
  assert.equal(parseRetryAfter("Thu, 01 Jan 2026 00:00:09 GMT", now), 9000);
  assert.equal(parseRetryAfter("Wed, 31 Dec 2025 00:00:00 GMT", now), 0);
  assert.equal(parseRetryAfter("soon", now), undefined);
  assert.equal(parseRetryAfter(null, now), undefined);
});
