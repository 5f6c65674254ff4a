import type { ProjectRef } from "../../../platform/auth/principal.js";
import type { Db } from "../../../platform/db/index.js";

/** What an incoming platform event means for Lift, before it touches identity or events. */
export type Action =
  | { kind: "lead"; email: string; name?: string; properties?: Record<string, unknown> }
  | {
      kind: "event";
      type: string;
      /** Links the event to the lead with this email (created when missing). */
      email?: string;
      /** Used when there is no email. */
      visitorId?: string;
      url?: string;
      data: Record<string, unknown>;
      /** epoch ms */
      timestamp?: number;
      /**
       * Counts only the first time this key is seen per workspace and source: one payment that
       * reaches us through several platform events (a charge and its checkout session).
       */
      once?: string;
    };

export interface IncomingRequest {
  method: string;
  /** The URL the platform called (public base URL + path and query): HubSpot signs it. */
  uri: string;
  rawBody: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  /** epoch ms */
  now: number;
}

/** One platform event with its id (the replay key). */
export interface Unit {
  id: string;
  payload: unknown;
}

export interface SourceAdapter {
  /**
   * Checks that need no secret (signature header present and well-formed, timestamp within the
   * replay window) and returns the signature check for one candidate secret. Throws UNAUTHORIZED.
   */
  signatureCheck(req: IncomingRequest): (secret: string) => boolean;
  /** Splits the verified payload into events with ids. Throws VALIDATION_ERROR. */
  units(req: IncomingRequest): Unit[];
  extract(unit: Unit, ctx: { db: Db; project: ProjectRef }): Promise<Action[]>;
}

export function header(req: IncomingRequest, name: string): string | undefined {
  const v = req.headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function str(v: unknown): string | undefined {
  return typeof v === "string" && v.length > 0 ? v : typeof v === "number" ? String(v) : undefined;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export function email(v: unknown): string | undefined {
  const s = str(v)?.trim();
  return s && EMAIL.test(s) && s.length <= 320 ? s : undefined;
}
