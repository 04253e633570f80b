/** Navigation: the developer's tabs and the pages of one home. */
import type { ComponentChildren } from "preact";

import { session } from "./api.js";

export const DEVELOPER_TABS = [
  ["keys", "Keys"],
  ["webhooks", "Webhooks"],
  ["simulator", "Simulator"],
  ["events", "Events"],
  ["connectors", "Connectors"],
  ["home", "Sandbox home"],
  ["account", "Account"],
] as const;

export type DeveloperTab = (typeof DEVELOPER_TABS)[number][0];

export function DeveloperNav(props: { current: DeveloperTab }) {
  return (
    <nav class="tabs" aria-label="Developer">
      {DEVELOPER_TABS.map(([tab, label]) => (
        <a href={`#/developer/${tab}`} aria-current={props.current === tab ? "page" : undefined}>
          {label}
        </a>
      ))}
    </nav>
  );
}

/** The pages of one home. */
export type HomePage = "overview" | "routines" | "people" | "security";

/** The tabs of one home (none current on a room's page). */
export function HomeNav(props: { tenantId: string; propertyId: string; current?: HomePage }) {
  const base = `#/homes/${props.tenantId}/${props.propertyId}`;
  const link = (page: HomePage, href: string, label: string) => (
    <a href={href} aria-current={props.current === page ? "page" : undefined}>
      {label}
    </a>
  );
  return (
    <nav class="home-nav" aria-label="Home">
      {link("overview", base, "Overview")}
      {link("routines", `${base}/routines`, "Routines")}
      {link("people", `${base}/people`, "People")}
      {link("security", `${base}/security`, "Security")}
    </nav>
  );
}

/**
 * The top of every page of a home: a developer's tabs (a developer's home
 * is the sandbox home, so its tab stays current), the home's name (or the
 * page's own title, e.g. a room's), and the home's tabs.
 */
export function HomeHeader(props: {
  tenantId: string;
  propertyId: string;
  current?: HomePage;
  title: ComponentChildren;
}) {
  return (
    <>
      {session()?.kind === "developer" ? <DeveloperNav current="home" /> : null}
      <h1>{props.title}</h1>
      <HomeNav tenantId={props.tenantId} propertyId={props.propertyId} current={props.current} />
    </>
  );
}
