/**
 * A connector's descriptor drawn as households will see it in the catalogue:
 * its card (name, promise, author, connectivity, what it brings, the prose),
 * the connect form they fill in, and a thing of each category it brings drawn
 * with the same capability descriptors and controls as a home's things (read
 * only: no thing is behind them). Staff review a version with it.
 */
import { call, type Schemas, type Thing } from "./api.js";
import { ThingCard } from "./controls.js";
import { Icon } from "./icons.js";
import { Alert, useLoad } from "./ui.js";

type CapabilityDescriptor = Schemas["CapabilityDescriptor"];

/** The spec's connector descriptor, read leniently: it is what a developer
 * sent, so every field is checked before it is drawn. */
export interface Descriptor {
  name?: unknown;
  icon?: unknown;
  promise?: unknown;
  connectivity?: unknown;
  brings?: unknown;
  connect?: { method?: unknown; fields?: unknown; help?: unknown };
  discovery?: { verb?: unknown } | null;
  disconnect?: { consequence?: unknown };
  docsUrl?: unknown;
  pairing?: { intro?: unknown; vendors?: unknown };
  requires?: unknown;
  author?: { kind?: unknown; name?: unknown; url?: unknown };
  verification?: { level?: unknown; note?: unknown };
}

interface Field {
  key: string;
  label: string;
  kind: string;
  required: boolean;
  placeholder?: string;
  help?: string;
  options?: { value: string; label: string }[];
}

/** The descriptor's name, when it has one. */
export function descriptorName(d: Descriptor): string | undefined {
  return text(d.name);
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() ? value : undefined;
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

const CONNECTIVITY: Record<string, string> = {
  local: "Works on your home network",
  cloud: "Works through the maker's cloud",
  "cloud-then-local": "Connects through the cloud, then works on your home network",
};

/** The catalogue capabilities a thing of each category typically carries,
 * most characteristic first (the domain's `ThingCategory::capability_ids`). */
const CATEGORY_CAPABILITIES: Record<string, string[]> = {
  light: ["light"],
  switch: ["switch", "energy"],
  thermostat: ["thermostat"],
  lock: ["lock", "battery"],
  cover: ["cover"],
  fan: ["fan"],
  camera: ["camera"],
  speaker: ["media_player"],
  vacuum: ["vacuum", "battery"],
  irrigation: ["irrigation"],
  hub: ["hub", "voice", "network"],
  voice: ["voice", "audio_out"],
  energy: ["energy"],
  button: ["button", "battery"],
  sensor: ["sensor", "sensor.temperature", "sensor.humidity", "sensor.motion", "sensor.contact", "sensor.vibration", "battery"],
  appliance: ["coffee_machine"],
  other: ["generic"],
};

function title(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

export function CatalogueCard(props: { descriptor: Descriptor; prose: string }) {
  const d = props.descriptor;
  const brings = list(d.brings).filter((b): b is string => typeof b === "string");
  const known = brings.filter((b) => b in CATEGORY_CAPABILITIES);
  const name = text(d.name) ?? "(no name)";
  const author = text(d.author?.name);
  const level = text(d.verification?.level);
  const docs = text(d.docsUrl);
  return (
    <section class="endpoint" aria-label="As households will see it">
      <h2>As households will see it</h2>
      <article class="thing catalogue-card" aria-label={name}>
        <header>
          <Icon token={text(d.icon)} category={known[0] ?? "other"} />
          <h3>{name}</h3>
          {level ? <span class="badge">{level === "proven" ? "proven" : "declared by its maker"}</span> : null}
        </header>
        {text(d.promise) ? <p>{text(d.promise)}</p> : null}
        <p class="value">
          {author ? `By ${author}` : null}
          {author && CONNECTIVITY[String(d.connectivity)] ? " · " : null}
          {CONNECTIVITY[String(d.connectivity)] ?? null}
        </p>
        {brings.length > 0 ? (
          <ul class="row brings" aria-label="What it brings">
            {brings.map((category) => (
              <li>
                <Icon category={category in CATEGORY_CAPABILITIES ? category : "other"} /> {title(category)}
              </li>
            ))}
          </ul>
        ) : null}
        <p class="prose">{props.prose}</p>
        {docs ? (
          <p>
            <a href={docs} rel="noopener noreferrer" target="_blank">
              Documentation
            </a>
          </p>
        ) : null}
      </article>
      <ConnectPreview descriptor={d} name={name} />
      {known.length > 0 ? <ThingPreviews categories={known} /> : null}
    </section>
  );
}

/** The connect form the household fills in, drawn but not usable here. */
function ConnectPreview(props: { descriptor: Descriptor; name: string }) {
  const d = props.descriptor;
  const fields: Field[] = list(d.connect?.fields).flatMap((f) => {
    const field = f as Record<string, unknown>;
    const key = text(field.key);
    const label = text(field.label);
    if (!key || !label) return [];
    return [
      {
        key,
        label,
        kind: text(field.kind) ?? "text",
        required: field.required === true,
        placeholder: text(field.placeholder),
        help: text(field.help),
        options: list(field.options).flatMap((o) => {
          const option = o as Record<string, unknown>;
          const value = text(option.value);
          return value ? [{ value, label: text(option.label) ?? value }] : [];
        }),
      },
    ];
  });
  const verb = text(d.discovery?.verb);
  const consequence = text(d.disconnect?.consequence);
  const intro = text(d.pairing?.intro);
  const vendors = list(d.pairing?.vendors).flatMap((v) => {
    const name = text((v as Record<string, unknown>).name);
    return name ? [name] : [];
  });
  const requires = list(d.requires).filter((r): r is string => typeof r === "string");
  return (
    <section aria-label="Connecting">
      <h3>Connecting {props.name}</h3>
      {text(d.connect?.help) ? <p>{text(d.connect?.help)}</p> : null}
      {requires.length > 0 ? <p>Needs: {requires.join(", ")}</p> : null}
      <form aria-label="Connect form (preview)" onSubmit={(e) => e.preventDefault()}>
        <fieldset disabled class="preview">
          <legend>Connect form (preview; the household fills it in)</legend>
          {fields.length === 0 ? <p>No fields to fill in.</p> : null}
          {fields.map((field) => {
            const id = `preview-field-${field.key}`;
            return (
              <div class="preview-field">
                <label for={id}>
                  {field.label}
                  {field.required ? " (required)" : ""}
                </label>
                {field.kind === "select" ? (
                  <select id={id}>
                    {(field.options ?? []).map((o) => (
                      <option value={o.value}>{o.label}</option>
                    ))}
                  </select>
                ) : field.kind === "password" ? (
                  <input id={id} type="password" placeholder={field.placeholder} />
                ) : field.kind === "email" ? (
                  <input id={id} type="email" placeholder={field.placeholder} />
                ) : (
                  <input id={id} type="text" placeholder={field.placeholder} />
                )}
                {field.help ? <small>{field.help}</small> : null}
              </div>
            );
          })}
          <button type="submit">Connect</button>
          {verb ? <button type="button">{verb}</button> : null}
        </fieldset>
      </form>
      {intro ? (
        <p>
          Pairing: {intro}
          {vendors.length > 0 ? ` (${vendors.join(", ")})` : ""}
        </p>
      ) : null}
      {consequence ? <p>Disconnecting: {consequence}</p> : null}
    </section>
  );
}

/** A thing of each category the connector brings, drawn with the
 * capability descriptors a household's things are drawn with (read only:
 * no thing is behind them). */
function ThingPreviews(props: { categories: string[] }) {
  const [catalogue, error] = useLoad(async () => (await call((c) => c.GET("/v1/capabilities"))).items, []);
  if (error) return <Alert message={error} />;
  if (!catalogue) return <p aria-busy="true">Loading…</p>;
  const things = props.categories.map((category) => previewThing(category, catalogue));
  return (
    <section aria-label="Things it brings">
      <h3>Things it brings, as a home shows them</h3>
      <div class="things">
        {things.map((thing) => (
          <ThingCard thing={thing} tenantId="" onChanged={() => undefined} />
        ))}
      </div>
    </section>
  );
}

function previewThing(category: string, catalogue: CapabilityDescriptor[]): Thing {
  const capabilities = (CATEGORY_CAPABILITIES[category] ?? [])
    .flatMap((id) => catalogue.filter((c) => c.id === id))
    .map((c) => ({ ...c, controls: c.controls.map((control) => ({ ...control, writable: false })) }));
  return {
    id: `preview-${category}`,
    kind: "device",
    name: `${title(category)} (example)`,
    category: category as Thing["category"],
    icon: capabilities[0]?.icon ?? "",
    capabilities,
    liveness: null,
    presentable: false,
    presentedAs: null,
    roomId: null,
    settings: {},
    state: {},
    stateUpdatedAt: null,
  };
}
