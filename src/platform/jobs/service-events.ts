import { Type } from "@sinclair/typebox";
import { sql } from "kysely";
import { newId } from "../crypto.js";
import { type DbOrTrx, isPostgresDb } from "../db/index.js";
import { enqueueJob } from "./enqueue.js";
import { type JobContext, jobKind } from "./kinds.js";

export interface ServiceEvent {
  id: string;
  workspaceId: string;
  projectId: string | null;
  type: ServiceEventType;
  data: unknown;
  createdAt: string;
}
export const SERVICE_EVENT_TYPES = [
  "lead.created",
  "lead.updated",
  "experiment.started",
  "experiment.completed",
  "goal.reached",
  "connector.synced",
  "connector.error",
  "flag.updated",
  "alert.fired",
] as const;
export type ServiceEventType = (typeof SERVICE_EVENT_TYPES)[number];
export type ServiceEventSubscriber = (event: ServiceEvent, ctx: JobContext) => Promise<void>;

/**
 * Writes a service event in the caller's transaction (transactional outbox) and a job that hands it
 * to the subscribers (webhook fan-out) after commit.
 */
export async function emitServiceEvent(
  db: DbOrTrx,
  scope: { workspaceId: string; projectId?: string | null } | { id: string; workspaceId: string },
  type: ServiceEventType,
  data: unknown,
): Promise<string> {
  const id = newId("evt");
  const projectId = "id" in scope ? scope.id : (scope.projectId ?? null);
  await db
    .insertInto("service_events")
    .values({
      id,
      workspace_id: scope.workspaceId,
      project_id: projectId,
      type,
      data: JSON.stringify(data),
      created_at: new Date().toISOString(),
    })
    .execute();
  await enqueueJob(db, DISPATCH_JOB, { eventId: id });
  return id;
}

/**
 * Erasure: deletes the project's service events about one subject (`data.id`, e.g. a lead's
 * lead.created / lead.updated, which carry its email and properties) and returns their ids. A
 * dispatch still queued for one of them finds nothing and stops.
 */
export async function eraseServiceEventsAbout(
  db: DbOrTrx,
  projectId: string,
  typePrefix: string,
  subjectId: string,
): Promise<string[]> {
  const idOf = isPostgresDb(db) ? sql`(data::jsonb ->> 'id')` : sql`json_extract(data, '$.id')`;
  const rows = await db
    .selectFrom("service_events")
    .select("id")
    .where("project_id", "=", projectId)
    .where("type", "like", `${typePrefix}%`)
    .where(sql<boolean>`${idOf} = ${subjectId}`)
    .execute();
  const ids = rows.map((r) => r.id);
  for (let i = 0; i < ids.length; i += 400)
    await db
      .deleteFrom("service_events")
      .where("id", "in", ids.slice(i, i + 400))
      .execute();
  return ids;
}

export const DISPATCH_JOB = jobKind("service-event.dispatch", Type.Object({ eventId: Type.String() }));
