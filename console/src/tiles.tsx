/**
 * Room tiles and the all-the-house tile: the primary actions the server
 * resolved, drawn with the values it computed (clients draw the aggregates,
 * never compute them), and the per-thing outcome of running one.
 */
import { useState } from "preact/hooks";

import { call, type Control, type Schemas, type Thing } from "./api.js";
import { Icon } from "./icons.js";
import { Alert, count, useProblem } from "./ui.js";

type ActionRef = Schemas["ActionRef"];
type ActionValue = Schemas["ActionValue"];
type AvailableAction = Schemas["AvailableAction"];
type ActionResult = Schemas["ActionResult"];

export type Target = { kind: "room"; roomId: string } | { kind: "house"; propertyId: string };

const TILE_PRIMITIVES = ["toggle", "lock", "slider", "stepper"];

export function ActionTile(props: {
  target: Target;
  tenantId: string;
  title: string;
  icon: string;
  href?: string;
  primary: ActionRef[];
  values: ActionValue[];
  available: AvailableAction[];
  /** The things the action reaches: their descriptors give a number's step and bounds. */
  things: Thing[];
  onRan: () => void;
}) {
  const [result, setResult] = useState<ActionResult | null>(null);
  const [problem, show, clear] = useProblem();

  async function run(ref: ActionRef, value: unknown) {
    clear();
    const body = { capability: ref.capability, action: ref.action, value };
    const query = { tenantId: props.tenantId };
    try {
      const ran =
        props.target.kind === "room"
          ? await call((c) =>
              c.POST("/v1/rooms/{roomId}/actions", {
                params: { path: { roomId: (props.target as { roomId: string }).roomId }, query },
                body,
              }),
            )
          : await call((c) =>
              c.POST("/v1/properties/{propertyId}/actions", {
                params: { path: { propertyId: (props.target as { propertyId: string }).propertyId }, query },
                body,
              }),
            );
      setResult(ran);
      props.onRan();
    } catch (e) {
      show(e);
    }
  }

  return (
    <article class="tile" aria-label={props.title} data-tile={props.target.kind === "room" ? props.target.roomId : "house"}>
      <header>
        <Icon token={props.icon} category="other" />
        {props.href ? (
          <a href={props.href}>
            <h3>{props.title}</h3>
          </a>
        ) : (
          <h3>{props.title}</h3>
        )}
      </header>
      <div class="tile-actions">
        {props.primary.map((ref) => {
          const offered = props.available.find((a) => a.capability === ref.capability && a.action === ref.action);
          if (!offered || !TILE_PRIMITIVES.includes(offered.primitive)) return null;
          const value = props.values.find((v) => v.capability === ref.capability && v.action === ref.action)?.value;
          const control = controlOf(props.things, offered.capability, offered.controlKey);
          return (
            <TileAction
              offered={offered}
              where={props.title}
              control={control}
              value={value}
              onRun={(v) => run(ref, v)}
            />
          );
        })}
      </div>
      <Alert message={problem?.detail ?? null} />
      {result ? <Outcome result={result} /> : null}
    </article>
  );
}

/** The control a room action sets, from the first member that has it. */
function controlOf(things: Thing[], capability: string, key: string): Control | undefined {
  for (const thing of things) {
    const found = thing.capabilities.find((c) => c.id === capability)?.controls.find((c) => c.key === key);
    if (found) return found;
  }
  return undefined;
}

function TileAction(props: {
  offered: AvailableAction;
  /** The tile's title: the house's and each room's Lights are told apart. */
  where: string;
  control: Control | undefined;
  value: unknown;
  onRun: (value: unknown) => void;
}) {
  const { offered, value, control } = props;
  const name = `${offered.label}, ${props.where}`;
  const confirmThen = (v: unknown) => {
    if (offered.confirm && !window.confirm(`${offered.label}: are you sure?`)) return;
    props.onRun(v);
  };
  switch (offered.primitive) {
    case "toggle":
    case "lock": {
      const on = typeof value === "boolean" ? value : null;
      const words = offered.primitive === "lock" ? ["unlocked", "locked"] : ["off", "on"];
      return (
        <button
          type="button"
          role="switch"
          class={`tile-action toggle-${on === null ? "unknown" : on ? "on" : "off"}`}
          aria-checked={on === null ? "mixed" : on ? "true" : "false"}
          aria-label={name}
          onClick={() => confirmThen(on === null ? true : !on)}
        >
          <Icon token={offered.icon} />
          <span>{offered.label}</span>
          <span class="value">{on === null ? "unknown" : on ? words[1] : words[0]}</span>
        </button>
      );
    }
    default: {
      const current = typeof value === "number" ? value : null;
      const step = control?.step || 1;
      const clamp = (n: number) =>
        Math.min(control?.max ?? Number.POSITIVE_INFINITY, Math.max(control?.min ?? Number.NEGATIVE_INFINITY, n));
      const start = current ?? control?.min ?? 0;
      return (
        <span class="tile-action" role="group" aria-label={name}>
          <Icon token={offered.icon} />
          <span>{offered.label}</span>
          <button type="button" aria-label={`${offered.label} down`} onClick={() => confirmThen(clamp(start - step))}>
            −
          </button>
          <span class="value">{current === null ? "–" : count(current)}</span>
          <button type="button" aria-label={`${offered.label} up`} onClick={() => confirmThen(clamp(start + step))}>
            +
          </button>
        </span>
      );
    }
  }
}

/** Applied, skipped and failed, per thing. */
function Outcome(props: { result: ActionResult }) {
  const { result } = props;
  return (
    <ul class="outcome" aria-label="Outcome">
      {result.applied.map((t) => (
        <li class="applied" data-outcome="applied">
          {t.name}: applied
        </li>
      ))}
      {result.skipped.map((t) => (
        <li class="skipped" data-outcome="skipped">
          {t.name}: skipped ({t.reason})
        </li>
      ))}
      {result.failed.map((t) => (
        <li class="failed" data-outcome="failed">
          {t.name}: failed ({t.reason})
        </li>
      ))}
    </ul>
  );
}
