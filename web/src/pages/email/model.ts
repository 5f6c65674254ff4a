import type { ApiData } from "../../api/client";

/** The email area's query keys, in one place: a mutation invalidates what its key names here. */
export const emailKeys = {
  all: ["email"] as const,
  templates: ["email", "templates"] as const,
  template: (id: string) => ["email", "templates", id] as const,
  preview: (input: unknown) => ["email", "preview", input] as const,
  sends: ["email", "sends"] as const,
  send: (id: string) => ["email", "sends", id] as const,
  suppressions: ["email", "suppressions"] as const,
  keys: ["email", "keys"] as const,
};

export type Communication = ApiData<"/api/communications/{id}", "get">;
export type Block = Communication["blocks"][number];
/** A template being edited, before it is saved. */
export interface Draft {
  name: string;
  commType: Communication["commType"];
  slots: Record<string, string>;
  blocks: Block[];
}
