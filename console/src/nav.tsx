/** Navigation between the pages of one home. */

/** The pages of one home. */
export function HomeNav(props: { tenantId: string; propertyId: string; current: "overview" | "routines" }) {
  const base = `#/homes/${props.tenantId}/${props.propertyId}`;
  const link = (page: "overview" | "routines", href: string, label: string) => (
    <a href={href} aria-current={props.current === page ? "page" : undefined}>
      {label}
    </a>
  );
  return (
    <nav class="home-nav" aria-label="Home">
      {link("overview", base, "Overview")}
      {link("routines", `${base}/routines`, "Routines")}
    </nav>
  );
}
