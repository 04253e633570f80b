/**
 * A home's dashboard pins (`GET`/`PUT /v1/properties/{id}/dashboard`): the
 * things and routines a household keeps at the top of its overview. Saving
 * needs the household's OWNER (the server refuses anyone else; the page
 * shows why).
 */
import { call, type Schemas, type Thing } from "./api.js";
import { useLoad } from "./ui.js";

type Pin = Schemas["Pin"];

export interface Pins {
  pins: Pin[];
  error: string | null;
  thingPinned: (thing: Thing) => boolean;
  routinePinned: (routineId: string) => boolean;
  /** Pins or unpins; throws the API's problem when refused. */
  toggleThing: (thing: Thing) => Promise<void>;
  toggleRoutine: (routineId: string) => Promise<void>;
}

const isThing = (pin: Pin, id: string) => pin.kind === "thing" && pin.thing.id === id;
const isRoutine = (pin: Pin, id: string) => pin.kind === "routine" && pin.routineId === id;

export function usePins(tenantId: string, propertyId: string): Pins {
  const params = { path: { propertyId }, query: { tenantId } };
  const [dashboard, error, reload] = useLoad(
    () => call((c) => c.GET("/v1/properties/{propertyId}/dashboard", { params })),
    [tenantId, propertyId],
  );
  const pins = dashboard?.pins ?? [];
  async function save(next: Pin[]) {
    try {
      await call((c) => c.PUT("/v1/properties/{propertyId}/dashboard", { params, body: { pins: next } }));
    } finally {
      reload();
    }
  }
  return {
    pins,
    error,
    thingPinned: (thing) => pins.some((p) => isThing(p, thing.id)),
    routinePinned: (id) => pins.some((p) => isRoutine(p, id)),
    toggleThing: (thing) =>
      save(
        pins.some((p) => isThing(p, thing.id))
          ? pins.filter((p) => !isThing(p, thing.id))
          : [...pins, { kind: "thing", thing: { kind: thing.kind, id: thing.id } }],
      ),
    toggleRoutine: (id) =>
      save(
        pins.some((p) => isRoutine(p, id))
          ? pins.filter((p) => !isRoutine(p, id))
          : [...pins, { kind: "routine", routineId: id }],
      ),
  };
}
