import { Type } from "@sinclair/typebox";
import { FlagKeyParams, EvaluateBody, PatchFlagBody } from "../flags/service.js";

/**
 * The arguments of the tools whose HTTP route splits them between the path and the body: one
 * object of the route's own parts, so its schema stays the one source. Every other tool takes its
 * route's query or body schema as it is (service.ts).
 */

const closed = { additionalProperties: false } as const;

/** POST /api/flags/:key/evaluate: the path's `key` beside the body's `attributes`. */
export const EvaluateFlagArgs = Type.Object(
  { ...FlagKeyParams.properties, ...EvaluateBody.properties },
  closed,
);

/** PATCH /api/flags/:key with `enabled` alone, required: the kill switch and its undoing. */
export const SetFlagEnabledArgs = Type.Object(
  {
    ...FlagKeyParams.properties,
    ...Type.Required(Type.Pick(PatchFlagBody, ["enabled"])).properties,
  },
  closed,
);
