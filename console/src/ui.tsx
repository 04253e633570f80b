/** What every page shares: loading, problems, running a change, and how
 * values read (instants, numbers, enum words). */
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";

import { ApiProblem } from "./api.js";

/** Loads on mount and whenever `reload` is called; shows errors. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): [T | null, string | null, () => void] {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    load().then(
      (d) => live && (setData(d), setError(null)),
      (e) => live && setError((e as Error).message),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  return [data, error, () => setTick((t) => t + 1)];
}

/** A problem the API answered, shown where the person acted. */
export function Alert(props: { message: string | null }) {
  return props.message ? (
    <p class="notice error" role="alert">
      {props.message}
    </p>
  ) : null;
}

/** Every problem shown now (one at a time: showing one clears the rest). */
const shown = new Set<(problem: ApiProblem | null) => void>();

/** Clears every problem on the page: the person acted again. */
export function clearProblems() {
  for (const clear of shown) clear(null);
}

/** A problem as an ApiProblem (a failure of the page's own is one too). */
function asProblem(e: unknown): ApiProblem {
  return e instanceof ApiProblem ? e : new ApiProblem(0, (e as Error).message);
}

/**
 * The problem of one place on the page: `show` clears every other problem
 * first (the page shows one at a time), `clear` clears them all (the next
 * action begins).
 */
export function useProblem(): [ApiProblem | null, (e: unknown) => void, () => void] {
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  useEffect(() => {
    shown.add(setProblem);
    return () => void shown.delete(setProblem);
  }, []);
  const show = (e: unknown) => {
    clearProblems();
    setProblem(asProblem(e));
  };
  return [problem, show, clearProblems];
}

/**
 * Runs one change a person asked for: its problem (if any) is kept (shown
 * at its field by `<FieldProblem>`, else by `<ProblemAlert>`), every shown
 * problem is cleared when the next action begins, and `after` (a reload)
 * runs either way.
 */
export function useAction(after: () => void = () => undefined) {
  const [problem, show, clear] = useProblem();
  async function act(work: () => Promise<unknown>) {
    clear();
    try {
      await work();
    } catch (e) {
      show(e);
    }
    after();
  }
  return { problem: problem?.detail ?? null, fault: problem, act };
}

/** Whether a problem's `field` (a JSON path such as `descriptor.kind` or
 * `triggers[0].at`) is about `field`. */
function about(problem: ApiProblem | null, field: string): boolean {
  const at = problem?.field;
  return !!at && (at === field || at.startsWith(`${field}.`) || at.startsWith(`${field}[`));
}

/** The attributes tying an input to its problem, for assistive technology. */
export function invalid(problem: ApiProblem | null, field: string, id: string) {
  return about(problem, field) ? { "aria-invalid": true as const, "aria-describedby": `${id}-problem` } : {};
}

/** The problem about `field`, under that field's input (`id`). */
export function FieldProblem(props: { problem: ApiProblem | null; field: string; id: string }) {
  return about(props.problem, props.field) ? (
    <p id={`${props.id}-problem`} class="notice error" role="alert">
      {props.problem!.detail}
    </p>
  ) : null;
}

/** A problem that none of `fields` (the form's, each shown at its input)
 * is about. */
export function ProblemAlert(props: { problem: ApiProblem | null; fields?: string[] }) {
  const { problem } = props;
  if (!problem || (props.fields ?? []).some((f) => about(problem, f))) return null;
  return <Alert message={problem.detail} />;
}

/** Copies `text` to the clipboard; reads "Copied" once it has. `what`
 * names it where a page has more than one ("Copy password"). */
export function CopyButton(props: { text: string; what?: string }) {
  const [copied, setCopied] = useState(false);
  const label = copied ? "Copied" : "Copy";
  return (
    <button
      type="button"
      aria-label={props.what ? `${label} ${props.what}` : undefined}
      onClick={async () => {
        await navigator.clipboard?.writeText(props.text).catch(() => undefined);
        setCopied(true);
      }}
    >
      {label}
    </button>
  );
}

/** What to do next, where a list is empty. */
export function Empty(props: { children: ComponentChildren }) {
  return <p class="empty">{props.children}</p>;
}

export function Loading() {
  return (
    <main>
      <p aria-busy="true">Loading…</p>
    </main>
  );
}

export function Failure(props: { message: string }) {
  return (
    <main>
      <Alert message={props.message} />
    </main>
  );
}

/** An instant as the person's locale writes it; empty when there is none. */
export function when(at: string | null | undefined): string {
  return at ? new Date(at).toLocaleString() : "";
}

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["year", 365 * 86400],
  ["month", 30 * 86400],
  ["week", 7 * 86400],
  ["day", 86400],
  ["hour", 3600],
  ["minute", 60],
  ["second", 1],
];

/** An instant relative to now ("3 minutes ago", "in 2 days"). */
export function relative(at: string, now = Date.now()): string {
  const seconds = Math.round((Date.parse(at) - now) / 1000);
  const format = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
  if (Math.abs(seconds) < 10) return format.format(0, "second");
  const [unit, size] = UNITS.find(([, size]) => Math.abs(seconds) >= size) ?? ["second", 1];
  return format.format(Math.round(seconds / size), unit);
}

/** An instant as people read it: relative to now, the local date and time
 * on hover (`title`); `fallback` when there is none. */
export function Time(props: { at: string | null | undefined; fallback?: string }) {
  const { at } = props;
  if (!at || Number.isNaN(Date.parse(at))) return <>{props.fallback ?? ""}</>;
  return (
    <time dateTime={at} title={when(at)}>
      {relative(at)}
    </time>
  );
}

/** A count with the locale's separators (12,345). */
export function count(n: number | null | undefined): string {
  return typeof n === "number" ? n.toLocaleString() : "–";
}

/** An enum word in sentence case: PENDING_EMAIL, not_heard_from and
 * checked-out read "Pending email", "Not heard from", "Checked out". */
export function words(value: string | null | undefined): string {
  if (!value) return "";
  const spaced = value.replace(/[_-]+/g, " ").trim().toLowerCase();
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}
