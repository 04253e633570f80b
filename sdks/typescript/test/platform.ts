/**
 * Test support (no tests here): the real local platform, started on free
 * ports with a fresh data directory as sdks/smoke/run does, and a stub HTTP
 * server for what the platform cannot be made to do on demand.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { type IncomingMessage, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("../../../../", import.meta.url));
export const OWNER_EMAIL = "owner@alyt.local";
export const OWNER_PASSWORD = "sdk tests owner password";

export interface Platform {
  url: string;
  stop(): Promise<void>;
}

/** The `alyt` binary on free ports with `env` (built first when missing). */
export async function startPlatform(env: Record<string, string> = {}): Promise<Platform> {
  const binary = join(process.env.CARGO_TARGET_DIR ?? join(repo, "target"), "debug", "alyt");
  if (!existsSync(binary)) {
    const built = spawnSync("cargo", ["build", "--quiet", "--bin", "alyt"], { cwd: repo, stdio: "inherit" });
    if (built.status !== 0) throw new Error("cargo build --bin alyt failed");
  }
  const data = mkdtempSync(join(tmpdir(), "alyt-sdk-test-"));
  const child = spawn(binary, [], {
    env: {
      ...process.env,
      ALYT_DATA_DIR: data,
      ALYT_HTTP_ADDR: "127.0.0.1:0",
      ALYT_MQTT_ADDR: "127.0.0.1:0",
      ALYT_OWNER_PASSWORD: OWNER_PASSWORD,
      RUST_LOG: "warn",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`alyt did not start:\n${stderr}`)), 30_000);
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /HTTP API\s+(\S+)\/v1/.exec(stdout);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.on("exit", (code) => reject(new Error(`alyt exited (${code}):\n${stderr}`)));
  });
  return {
    url,
    async stop() {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGINT");
      await exited;
      rmSync(data, { recursive: true, force: true });
    },
  };
}

export interface Owner {
  accessToken: string;
  refreshToken: string;
  tenantId: string;
  propertyId: string;
}

/** Signs the platform's owner in; their demo home is the one streamed. */
export async function signInOwner(url: string): Promise<Owner> {
  const login = await fetch(`${url}/v1/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: OWNER_EMAIL, password: OWNER_PASSWORD }),
  });
  if (!login.ok) throw new Error(`owner login: ${login.status} ${await login.text()}`);
  const { accessToken, refreshToken } = (await login.json()) as { accessToken: string; refreshToken: string };
  const claims = JSON.parse(Buffer.from(accessToken.split(".")[1] ?? "", "base64url").toString()) as {
    tenants: Record<string, string>;
  };
  const tenantId = Object.keys(claims.tenants)[0] ?? "";
  const homes = await fetch(`${url}/v1/properties?tenantId=${tenantId}`, {
    headers: { authorization: `Bearer ${accessToken}` },
  });
  const { items } = (await homes.json()) as { items: { id: string }[] };
  return { accessToken, refreshToken, tenantId, propertyId: items[0]?.id ?? "" };
}

export type Handler = (request: IncomingMessage, response: ServerResponse, body: string) => void;

export interface Stub {
  url: string;
  /** Every request, as received. */
  requests: { method: string; url: string; headers: IncomingMessage["headers"]; body: string }[];
  close(): Promise<void>;
}

/** An HTTP server on 127.0.0.1:0 answering with `handler`. */
export async function startStub(handler: Handler): Promise<Stub> {
  const requests: Stub["requests"] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString();
      requests.push({ method: request.method ?? "", url: request.url ?? "", headers: request.headers, body });
      handler(request, response, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A problem body as the platform writes it. */
export function problem(
  response: ServerResponse,
  status: number,
  name: string,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { "content-type": "application/problem+json", ...headers });
  response.end(
    JSON.stringify({ type: `urn:alyt:problem:${name}`, title: name, status, detail: `stub ${name}`, requestId: "stub-1" }),
  );
}

/** A sleep that records what it was asked and waits `realMs` at most. */
export function recordingSleep(realMs = 0): { waits: number[]; sleep: (ms: number) => Promise<void> } {
  const waits: number[] = [];
  return {
    waits,
    sleep: (ms) => {
      waits.push(ms);
      return new Promise((resolve) => setTimeout(resolve, Math.min(ms, realMs)));
    },
  };
}
