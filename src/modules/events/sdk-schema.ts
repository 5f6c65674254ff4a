import { Type } from "@sinclair/typebox";
import { NO_CONTROL_CHARS } from "../../platform/control-chars.js";
import { X_ERROR } from "../../platform/validation.js";

/** Fields the tracking APIs of other tools (Segment's, PostHog's) share: a required id and a time. */

export const SDK_TEXT_MAX = 200;

/** An id the SDK sends as a string or a number (stored as text), never empty. */
export const SdkId = (description: string) =>
  Type.Unsafe<string | number>({
    type: ["string", "number"],
    minLength: 1,
    maxLength: SDK_TEXT_MAX,
    // named later in URLs (a journey, an erasure): no control characters
    pattern: NO_CONTROL_CHARS,
    [X_ERROR]: `must be a non-empty string of at most ${SDK_TEXT_MAX} characters without control characters`,
    description,
  });

/** A time as the SDKs send it: ISO 8601 text (numbers and null are read as absent). */
export const SdkTime = (description: string) =>
  Type.Optional(
    Type.Unsafe<string | number | null>({
      type: ["string", "number", "null"],
      [X_ERROR]: "must be an ISO 8601 date-time",
      description,
    }),
  );
