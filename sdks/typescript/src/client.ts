/**
 * The typed client (openapi-fetch over the generated `paths`), apart from
 * the Node-only webhook helpers so a browser bundle (the console) can
 * import it.
 */
import createClient, { type Client } from "openapi-fetch";

import type { paths } from "./schema.js";

export type AlytClient = Client<paths>;

/**
 * A typed client of the API at `baseUrl` (the host, e.g.
 * `http://127.0.0.1:8080`; paths carry `/v1`). `token`, when given, is sent
 * as the bearer token of every request (a session's access token, a key,
 * its app token or a widget token).
 */
export function createAlytClient(baseUrl: string, token?: string): AlytClient {
  const client = createClient<paths>({ baseUrl: baseUrl.replace(/\/+$/, "") });
  if (token) {
    client.use({
      onRequest({ request }) {
        request.headers.set("authorization", `Bearer ${token}`);
        return request;
      },
    });
  }
  return client;
}
