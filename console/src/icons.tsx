/**
 * Icons: one SVG sprite (dist/icons.svg, built from Material Design Icons
 * for every token the platform sends; icons.json lists them), put in the
 * page once. A token the sprite lacks falls back to the thing's category
 * icon, then to a generic one.
 */
declare const __CATEGORY_ICONS__: Record<string, string>;

const CATEGORY_ICONS: Record<string, string> = __CATEGORY_ICONS__;
const GENERIC = "help-circle-outline";
const known = new Set<string>();

/** Loads the sprite into the page (once, before the first render). */
export async function loadIcons(): Promise<void> {
  const response = await fetch("/console/icons.svg");
  const holder = document.createElement("div");
  holder.hidden = true;
  holder.innerHTML = await response.text();
  document.body.prepend(holder);
  for (const symbol of holder.querySelectorAll("symbol")) {
    known.add(symbol.id.replace(/^i-/, ""));
  }
}

/** The token drawn for `token`, given the category it falls back to. */
export function resolveIcon(token: string | undefined | null, category?: string): string {
  if (token && known.has(token)) return token;
  const fallback = category ? CATEGORY_ICONS[category] : undefined;
  if (fallback && known.has(fallback)) return fallback;
  return GENERIC;
}

export function Icon(props: { token?: string | null; category?: string; class?: string }) {
  const drawn = resolveIcon(props.token, props.category);
  return (
    <svg class={`icon ${props.class ?? ""}`} aria-hidden="true" data-icon={drawn}>
      <use href={`#i-${drawn}`} />
    </svg>
  );
}
