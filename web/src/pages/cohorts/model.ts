import { useQuery } from "@tanstack/react-query";
import { api, call } from "../../api/client";
import type { Condition } from "../../components/filter";

export const fetchCohorts = () => call(api.GET("/api/cohorts"));
export type Cohort = Awaited<ReturnType<typeof fetchCohorts>>[number];
export type Definition = Cohort["definition"];

/**
 * Query keys. The list's key is the prefix of all the others, so a save or a delete that
 * invalidates it refreshes each cohort, its count and its members too.
 */
export const cohortKeys = {
  all: ["cohorts"] as const,
  detail: (id: string) => ["cohorts", id] as const,
  count: (id: string) => ["cohorts", id, "count"] as const,
  members: (id: string) => ["cohorts", id, "members"] as const,
  preview: (definition: Definition | null) => ["cohorts", "preview", definition] as const,
};

/** The project's cohorts (the list page; the flags' "is in cohort" picker). */
export const useCohorts = () => useQuery({ queryKey: cohortKeys.all, queryFn: fetchCohorts });

export const fetchCohort = (id: string) => call(api.GET("/api/cohorts/{id}", { params: { path: { id } } }));
export const fetchCount = (id: string) =>
  call(api.GET("/api/cohorts/{id}/count", { params: { path: { id } } }));
export const fetchMembers = (id: string) =>
  call(api.GET("/api/cohorts/{id}/members", { params: { path: { id }, query: { limit: 100 } } }));
export const previewCount = (definition: Definition) =>
  call(api.POST("/api/cohorts/preview", { body: { definition } }));

/** A condition being edited: an event done (or not), or a lead property (a filter row `lead.<name>`). */
export type DraftCondition =
  | { type: "event"; did: boolean; event: string; atLeast: string; withinDays: string; where: Condition[] }
  | { type: "property"; row: Condition };

export const newEventCondition = (): DraftCondition => ({
  type: "event",
  did: true,
  event: "",
  atLeast: "1",
  withinDays: "30",
  where: [],
});
export const newPropertyCondition = (): DraftCondition => ({
  type: "property",
  row: { key: "lead.", op: "is", value: "" },
});

export function toDraft(def: Definition): DraftCondition[] {
  return def.conditions.map((c) =>
    c.type === "event"
      ? {
          type: "event",
          did: c.did !== false,
          event: c.event,
          atLeast: String(c.atLeast ?? 1),
          withinDays: String(c.withinDays ?? 30),
          where: (c.where ?? []) as Condition[],
        }
      : { type: "property", row: { key: `lead.${c.property}`, op: c.op, value: c.value } },
  );
}

/** The definition the API takes, or null while a condition is incomplete. */
export function toDefinition(draft: DraftCondition[]): Definition | null {
  if (draft.length === 0) return null;
  const out: Definition["conditions"] = [];
  for (const c of draft) {
    if (c.type === "event") {
      const atLeast = Number(c.atLeast);
      const withinDays = Number(c.withinDays);
      if (
        !c.event.trim() ||
        !Number.isInteger(atLeast) ||
        atLeast < 1 ||
        !Number.isInteger(withinDays) ||
        withinDays < 1
      )
        return null;
      const where = c.where.filter(
        (w) => !w.key.endsWith(".") && w.value !== undefined && String(w.value) !== "",
      );
      out.push({
        type: "event",
        did: c.did,
        event: c.event.trim(),
        atLeast,
        withinDays,
        ...(where.length ? { where } : {}),
      });
    } else {
      const property = c.row.key.slice(5);
      const valued =
        c.row.op === "set" ||
        c.row.op === "not_set" ||
        (c.row.value !== undefined && String(c.row.value) !== "");
      if (!property || !valued) return null;
      out.push({
        type: "property",
        property,
        op: c.row.op,
        ...(c.row.value !== undefined && c.row.op !== "set" && c.row.op !== "not_set"
          ? { value: c.row.value }
          : {}),
      });
    }
  }
  return { conditions: out };
}
