/**
 * A thing drawn from its capability descriptors with the closed set of
 * primitives, read as clients must read what a newer platform sends: a
 * primitive this build does not know is a read-only labelled row, an
 * undefined toggle is unknown (its first press sends true), unknown enum
 * values are dropped, and a null liveness on an endpoint is not offline.
 */
import { useState } from "preact/hooks";

import { ApiProblem, call, type Control, type Thing } from "./api.js";
import { Icon } from "./icons.js";
import { count, useProblem, words } from "./ui.js";

const PRIMITIVES = [
  "toggle",
  "slider",
  "stepper",
  "color",
  "color_temp",
  "setpoint",
  "select",
  "momentary",
  "readout",
  "text",
] as const;
const GROUPS = ["primary", "settings", "diagnostic"] as const;
type Group = (typeof GROUPS)[number];

/** What a control change sends: a set of one value, or a press. */
type Change = { kind: "set"; value: unknown } | { kind: "press" };

/** A thing's pin on the home's dashboard, where the page offers one. */
export interface PinToggle {
  pinned: boolean;
  toggle: () => Promise<void>;
}

export function ThingCard(props: { thing: Thing; tenantId: string; onChanged: () => void; pin?: PinToggle }) {
  const { thing } = props;
  // What the last change did; its problem is one of the page's (one at a time).
  const [message, setMessage] = useState<string | null>(null);
  const [problem, show, clear] = useProblem();

  async function send(capability: string, control: Control, change: Change) {
    if (control.confirm && !window.confirm(`${control.label}: are you sure?`)) return;
    clear();
    setMessage(null);
    const body =
      change.kind === "press"
        ? ({ command: "press", payload: { capability, key: control.key } } as const)
        : ({ command: "set", payload: { capability, key: control.key, value: change.value } } as const);
    const query = { tenantId: props.tenantId };
    try {
      if (thing.kind === "device") {
        await call((c) =>
          c.POST("/v1/devices/{deviceId}/commands", {
            params: { path: { deviceId: thing.id }, query },
            body,
          }),
        );
        setMessage(`${control.label}: sent`);
      } else {
        await call((c) =>
          c.POST("/v1/endpoints/{endpointId}/commands", {
            params: { path: { endpointId: thing.id }, query },
            body,
          }),
        );
        setMessage(`${control.label}: applied`);
      }
      props.onChanged();
    } catch (e) {
      show(new ApiProblem(e instanceof ApiProblem ? e.status : 0, `${control.label}: ${(e as Error).message}`));
    }
  }

  const rows: Record<Group, preact.JSX.Element[]> = { primary: [], settings: [], diagnostic: [] };
  for (const capability of thing.capabilities) {
    const controls = [...capability.controls].sort((a, b) => a.order - b.order);
    for (const control of controls) {
      const group: Group = (GROUPS as readonly string[]).includes(control.group)
        ? (control.group as Group)
        : "settings";
      const value = thing.state[`${capability.id}.${control.key}`];
      rows[group].push(
        <ControlRow
          key={`${capability.id}.${control.key}`}
          id={`${thing.id}-${capability.id}-${control.key}`}
          thingName={thing.name}
          control={control}
          value={value}
          onChange={(change) => send(capability.id, control, change)}
        />,
      );
    }
  }

  return (
    <article class="thing" data-thing={thing.id} aria-label={thing.name}>
      <header>
        <Icon token={thing.icon} category={thing.category} />
        <h3>{thing.name}</h3>
        <LivenessBadge thing={thing} />
        {props.pin ? (
          <button
            type="button"
            class="pin"
            aria-pressed={props.pin.pinned ? "true" : "false"}
            aria-label={`${props.pin.pinned ? "Unpin" : "Pin"} ${thing.name}`}
            onClick={() =>
              props.pin!.toggle().catch((e) => show(new ApiProblem(0, `Pin: ${(e as Error).message}`)))
            }
          >
            {props.pin.pinned ? "Unpin" : "Pin"}
          </button>
        ) : null}
      </header>
      {GROUPS.map((group) =>
        rows[group].length === 0 ? null : (
          <section class={`group group-${group}`} aria-label={groupLabel(group)}>
            {group === "primary" ? null : <h4>{groupLabel(group)}</h4>}
            {rows[group]}
          </section>
        ),
      )}
      {message ? (
        <p class="notice" role="status">
          {message}
        </p>
      ) : null}
      {problem ? (
        <p class="notice error" role="alert">
          {problem.detail}
        </p>
      ) : null}
    </article>
  );
}

function groupLabel(group: Group): string {
  return { primary: "Controls", settings: "Settings", diagnostic: "Diagnostics" }[group];
}

function LivenessBadge(props: { thing: Thing }) {
  const liveness = props.thing.liveness;
  if (!liveness) {
    // An endpoint's null liveness means not yet checked: never "offline".
    return props.thing.kind === "endpoint" ? (
      <span class="badge" data-liveness="unchecked">
        not checked yet
      </span>
    ) : null;
  }
  const known = ["online", "not_heard_from", "offline", "provisioning", "disabled", "awaiting_replacement"];
  if (!known.includes(liveness.state)) return null; // a state this build does not know: dropped
  const label = words(liveness.state);
  return (
    <span class={`badge badge-${liveness.state}`} data-liveness={liveness.state}>
      {label}
    </span>
  );
}

function ControlRow(props: {
  id: string;
  thingName: string;
  control: Control;
  value: unknown;
  onChange: (change: Change) => void;
}) {
  const { control, value, id } = props;
  // Two lights each have a Power switch: the thing's name tells them apart.
  const name = `${control.label}, ${props.thingName}`;
  const primitive = control.primitive as string;
  const known = (PRIMITIVES as readonly string[]).includes(primitive);
  const label = (
    <label for={id} class="control-label">
      {control.icon ? <Icon token={control.icon} /> : null}
      {control.label}
    </label>
  );
  if (!known) {
    // A primitive from a newer platform: shown, never operated.
    return (
      <div class="control control-unknown" data-primitive={primitive}>
        {label}
        <output id={id}>{display(value, control)}</output>
      </div>
    );
  }
  const readOnly = !control.writable;
  const unit = control.unit ? <span class="unit">{control.unit}</span> : null;
  let input: preact.JSX.Element;
  switch (primitive) {
    case "toggle": {
      const on = typeof value === "boolean" ? value : null;
      input = (
        <button
          id={id}
          type="button"
          role="switch"
          class={`toggle toggle-${on === null ? "unknown" : on ? "on" : "off"}`}
          aria-checked={on === null ? "mixed" : on ? "true" : "false"}
          aria-label={name}
          disabled={readOnly}
          onClick={() => props.onChange({ kind: "set", value: on === null ? true : !on })}
        >
          {on === null ? "unknown" : on ? "on" : "off"}
        </button>
      );
      break;
    }
    case "slider":
    case "color_temp": {
      const current = typeof value === "number" ? value : (control.min ?? 0);
      input = (
        <span class="range">
          <input
            id={id}
            type="range"
            min={control.min ?? 0}
            max={control.max ?? 100}
            step={control.step ?? 1}
            value={current}
            aria-label={name}
            disabled={readOnly}
            onChange={(e) => props.onChange({ kind: "set", value: Number(e.currentTarget.value) })}
          />
          <output>{typeof value === "number" ? count(value) : "–"}</output>
          {unit}
        </span>
      );
      break;
    }
    case "stepper":
    case "setpoint": {
      const step = control.step || (primitive === "setpoint" ? 0.5 : 1);
      const current = typeof value === "number" ? value : null;
      const clamp = (n: number) =>
        Math.min(control.max ?? Number.POSITIVE_INFINITY, Math.max(control.min ?? Number.NEGATIVE_INFINITY, n));
      const start = current ?? control.min ?? 0;
      input = (
        <span class="stepper" id={id} role="group" aria-label={name}>
          <button
            type="button"
            aria-label={`${control.label} down`}
            disabled={readOnly}
            onClick={() => props.onChange({ kind: "set", value: clamp(start - step) })}
          >
            −
          </button>
          <output>{current === null ? "–" : count(current)}</output>
          {unit}
          <button
            type="button"
            aria-label={`${control.label} up`}
            disabled={readOnly}
            onClick={() => props.onChange({ kind: "set", value: clamp(start + step) })}
          >
            +
          </button>
        </span>
      );
      break;
    }
    case "color":
      input = (
        <input
          id={id}
          type="color"
          value={typeof value === "string" && /^#[0-9a-f]{6}$/i.test(value) ? value : "#ffffff"}
          aria-label={name}
          disabled={readOnly}
          onChange={(e) => props.onChange({ kind: "set", value: e.currentTarget.value })}
        />
      );
      break;
    case "select":
      input = (
        <select
          id={id}
          aria-label={name}
          disabled={readOnly}
          onChange={(e) => {
            const chosen = (control.options ?? [])[Number(e.currentTarget.value)];
            if (chosen) props.onChange({ kind: "set", value: chosen.value });
          }}
        >
          {value === undefined || value === null ? <option selected>–</option> : null}
          {(control.options ?? []).map((option, index) => (
            <option value={index} selected={option.value === value}>
              {option.label}
            </option>
          ))}
        </select>
      );
      break;
    case "momentary":
      input = (
        <button id={id} type="button" class="momentary" disabled={readOnly} onClick={() => props.onChange({ kind: "press" })}>
          {control.label}
        </button>
      );
      break;
    case "text":
      input = readOnly ? (
        <output id={id}>{display(value, control)}</output>
      ) : (
        <TextInput id={id} value={typeof value === "string" ? value : ""} onSave={(v) => props.onChange({ kind: "set", value: v })} />
      );
      break;
    default: // readout
      input = (
        <output id={id}>
          {display(value, control)}
          {value === undefined || value === null ? null : unit}
        </output>
      );
  }
  return (
    <div class={`control control-${primitive}`} data-primitive={primitive}>
      {label}
      {input}
    </div>
  );
}

function TextInput(props: { id: string; value: string; onSave: (value: string) => void }) {
  const [text, setText] = useState(props.value);
  return (
    <form
      class="text-input"
      onSubmit={(e) => {
        e.preventDefault();
        props.onSave(text);
      }}
    >
      <input id={props.id} value={text} onInput={(e) => setText(e.currentTarget.value)} />
      <button type="submit">Save</button>
    </form>
  );
}

/** A value as text: an option's label when one names it, else the value. */
function display(value: unknown, control: Control): string {
  if (value === undefined || value === null) return "–";
  const option = (control.options ?? []).find((o) => o.value === value);
  if (option) return option.label;
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (typeof value === "number") return count(value);
  if (typeof value === "string" && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(value) && !Number.isNaN(Date.parse(value))) {
    return new Date(value).toLocaleString();
  }
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}
