/**
 * Live updates: the developer event stream or a home's, through the SDK's
 * resumable helper (Last-Event-ID on every reconnect), never a polling loop.
 */
import { useEffect, useRef, useState } from "preact/hooks";

import { eventStream, type StreamEvent } from "../../sdks/typescript/src/stream.js";
import { session, streamToken, type Schemas } from "./api.js";
import { Empty, Time } from "./ui.js";

/** What changes a home's views (overview, room, security): its things'
 * state, command results and liveness, from the home's own stream. */
export const HOME_VIEW_KINDS = ["thing.state", "command.result", "device.online", "device.offline"];

/** A home whose stream a view follows (instead of the developer stream). */
export interface Home {
  tenantId: string;
  propertyId: string;
}

/** Calls `onEvent` for every event of `kinds` while the component lives
 * (of `home`'s stream when given); after a failure, starts again after the
 * last event. */
export function useLiveEvents(
  kinds: string[],
  onEvent: (event: StreamEvent) => void,
  enabled = true,
  home?: Home,
) {
  const handler = useRef(onEvent);
  handler.current = onEvent;
  // Kept across pauses and filter changes: the stream resumes after it.
  const lastSeen = useRef<string | undefined>(undefined);
  const key = `${kinds.join(",")}|${home?.tenantId ?? ""}|${home?.propertyId ?? ""}`;
  useEffect(() => {
    if (!enabled) return;
    const stop = new AbortController();
    (async () => {
      while (!stop.signal.aborted) {
        try {
          for await (const event of eventStream({
            baseUrl: location.origin,
            // The session's token; refreshed when the stream answers 401.
            token: streamToken,
            home,
            events: kinds,
            lastEventId: lastSeen.current,
            signal: stop.signal,
          })) {
            lastSeen.current = event.id;
            handler.current(event);
          }
        } catch {
          // Signed out (the refresh failed): nothing more to hear.
          if (stop.signal.aborted || !session()) return;
          await new Promise((r) => setTimeout(r, 2000));
        }
      }
    })();
    return () => stop.abort();
  }, [key, enabled]);
}

/** The event kinds, as the contract types them. */
export const EVENT_KINDS: Schemas["EventKind"][] = [
  "device.online",
  "device.offline",
  "device.telemetry",
  "command.result",
  "thing.state",
  "notification.raised",
  "submission.state",
  "webhook.ping",
  "guest.invited",
  "guest.checked_in",
  "guest.checked_out",
];

/** The live event stream: filter by kind, pause and resume where it left off. */
export function EventsView() {
  const [kinds, setKinds] = useState<string[]>(EVENT_KINDS.filter((k) => k !== "device.telemetry"));
  const [running, setRunning] = useState(true);
  const [events, setEvents] = useState<StreamEvent[]>([]);
  useLiveEvents(kinds, (event) => setEvents((list) => [event, ...list].slice(0, 100)), running && kinds.length > 0);
  // The filter applies to what is shown, not only to what arrives next.
  const shown = events.filter((event) => kinds.includes(event.envelope.type));
  return (
    <section aria-label="Live events">
      <fieldset class="checks">
        <legend>Kinds</legend>
        {EVENT_KINDS.map((kind) => (
          <label>
            <input
              type="checkbox"
              checked={kinds.includes(kind)}
              onChange={(e) => {
                // Read now: the event is gone when the state updater runs.
                const checked = e.currentTarget.checked;
                setKinds((now) => (checked ? [...now, kind] : now.filter((k) => k !== kind)));
              }}
            />{" "}
            {kind}
          </label>
        ))}
      </fieldset>
      <div class="row">
        <button type="button" onClick={() => setRunning((r) => !r)}>
          {running ? "Pause" : "Resume"}
        </button>
        <span class="value" role="status">
          {running ? "listening" : "paused"} · {shown.length} shown
        </span>
      </div>
      {shown.length === 0 ? (
        <Empty>
          {running
            ? "Listening: events show here as they happen (the simulator's virtual devices report every few seconds)."
            : "Paused: resume to see the events since the last one shown."}
        </Empty>
      ) : null}
      <ol class="events" aria-label="Events">
        {shown.map((event) => (
          <li data-event={event.envelope.type}>
            <code>{event.envelope.type}</code>{" "}
            <span class="value">
              <Time at={event.envelope.createdAt} />
            </span>
            <pre>{JSON.stringify(event.envelope.data)}</pre>
          </li>
        ))}
      </ol>
    </section>
  );
}
