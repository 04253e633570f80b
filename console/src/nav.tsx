/** Navigation between the pages of one home. */

/** The pages of one home. */
export type HomePage = "overview" | "routines" | "people" | "security";

export function HomeNav(props: { tenantId: string; propertyId: string; current: HomePage }) {
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
