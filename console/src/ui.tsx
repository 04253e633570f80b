/** What every page shares: loading, problems, and running a change. */
import { useEffect, useState } from "preact/hooks";

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

/**
 * Runs one change a person asked for: its problem (if any) is kept for
 * `<Alert>`, and `after` (a reload) runs either way.
 */
export function useAction(after: () => void = () => undefined) {
  const [problem, setProblem] = useState<string | null>(null);
  async function act(work: () => Promise<unknown>) {
    setProblem(null);
    try {
      await work();
    } catch (e) {
      setProblem((e as Error).message);
    }
    after();
  }
  return { problem, act };
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
