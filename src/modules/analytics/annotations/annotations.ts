import { creationTime } from "../../../platform/creation-time.js";
import type { ProjectRef } from "../../../platform/auth/principal.js";
import { newId } from "../../../platform/crypto.js";
import type { DbOrTrx } from "../../../platform/db/index.js";
import { notFound, validation } from "../../../platform/errors.js";
import type {
  AnnotationListQueryT,
  AnnotationT,
  CreateAnnotationBodyT,
  PatchAnnotationBodyT,
} from "./schema.js";
import type { AnnotationTable } from "../tables.js";
import "../tables.js";

/**
 * Annotations: a project's dated notes, drawn on every time chart. Dates are UTC days
 * as text (YYYY-MM-DD), which sort and compare as the days they name.
 */

/** Who made it: `apiKey:<id>` or `user:<id>`, as erasure records name their requester. */
export type Author = { kind: "apiKey" | "user"; id: string };

function toAnnotation(r: AnnotationTable): AnnotationT {
  const [kind, ...rest] = r.created_by.split(":");
  return {
    id: r.id,
    date: r.date,
    endDate: r.end_date,
    text: r.text,
    createdBy: { kind: kind === "user" ? "user" : "apiKey", id: rest.join(":") },
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** The schema checks the shape; this checks the day exists (2026-02-30 does not). */
function checkDay(value: string, field: string): void {
  const d = new Date(`${value}T00:00:00Z`);
  if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== value)
    throw validation(`${field} must be a calendar date (YYYY-MM-DD)`);
}

/** endDate ≥ date; the error names the field the caller changed. */
function checkRange(date: string, endDate: string | null, changed: "body.date" | "body.endDate"): void {
  if (endDate === null || endDate >= date) return;
  throw validation(
    changed === "body.endDate"
      ? "body.endDate must not be before the date"
      : `body.date must not be after the endDate (${endDate})`,
  );
}

export async function createAnnotation(
  db: DbOrTrx,
  project: ProjectRef,
  author: Author,
  body: CreateAnnotationBodyT,
): Promise<AnnotationT> {
  checkDay(body.date, "body.date");
  const endDate = body.endDate ?? null;
  if (endDate !== null) checkDay(endDate, "body.endDate");
  checkRange(body.date, endDate, "body.endDate");
  const now = creationTime();
  const row: AnnotationTable = {
    id: newId("ann"),
    project_id: project.id,
    date: body.date,
    end_date: endDate,
    text: body.text,
    created_by: `${author.kind}:${author.id}`,
    created_at: now,
    updated_at: now,
  };
  await db.insertInto("analytics_annotations").values(row).execute();
  return toAnnotation(row);
}

/**
 * Newest first (by the day marked, then by creation). With `from`/`to`: those overlapping the
 * days [from, to], which is what a chart of that period draws.
 */
export async function listAnnotations(
  db: DbOrTrx,
  project: ProjectRef,
  q: AnnotationListQueryT,
): Promise<AnnotationT[]> {
  if (q.from !== undefined) checkDay(q.from, "query.from");
  if (q.to !== undefined) checkDay(q.to, "query.to");
  if (q.from !== undefined && q.to !== undefined && q.from > q.to)
    throw validation("query.from must not be after query.to");
  let query = db
    .selectFrom("analytics_annotations")
    .selectAll()
    .where("project_id", "=", project.id)
    .orderBy("date", "desc")
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(q.limit ?? 200);
  if (q.to !== undefined) query = query.where("date", "<=", q.to);
  if (q.from !== undefined) {
    const from = q.from;
    query = query.where((eb) =>
      eb.or([eb("date", ">=", from), eb.and([eb("end_date", "is not", null), eb("end_date", ">=", from)])]),
    );
  }
  return (await query.execute()).map(toAnnotation);
}

async function findAnnotation(db: DbOrTrx, project: ProjectRef, id: string): Promise<AnnotationTable> {
  const row = await db
    .selectFrom("analytics_annotations")
    .selectAll()
    .where("project_id", "=", project.id)
    .where("id", "=", id)
    .executeTakeFirst();
  if (!row) throw notFound("annotation", id);
  return row;
}

export async function getAnnotation(db: DbOrTrx, project: ProjectRef, id: string): Promise<AnnotationT> {
  return toAnnotation(await findAnnotation(db, project, id));
}

export async function updateAnnotation(
  db: DbOrTrx,
  project: ProjectRef,
  id: string,
  patch: PatchAnnotationBodyT,
): Promise<AnnotationT> {
  const row = await findAnnotation(db, project, id);
  if (patch.date !== undefined) checkDay(patch.date, "body.date");
  if (patch.endDate) checkDay(patch.endDate, "body.endDate");
  const next: AnnotationTable = {
    ...row,
    date: patch.date ?? row.date,
    end_date: patch.endDate === undefined ? row.end_date : patch.endDate,
    text: patch.text ?? row.text,
    updated_at: new Date().toISOString(),
  };
  // A new date alone may fall after the stored end: the error names what the caller sent.
  checkRange(next.date, next.end_date, patch.endDate === undefined ? "body.date" : "body.endDate");
  await db
    .updateTable("analytics_annotations")
    .set({ date: next.date, end_date: next.end_date, text: next.text, updated_at: next.updated_at })
    .where("project_id", "=", project.id)
    .where("id", "=", id)
    .execute();
  return toAnnotation(next);
}

export async function deleteAnnotation(
  db: DbOrTrx,
  project: ProjectRef,
  id: string,
): Promise<{ id: string; deleted: true }> {
  const res = await db
    .deleteFrom("analytics_annotations")
    .where("project_id", "=", project.id)
    .where("id", "=", id)
    .executeTakeFirst();
  if (Number(res.numDeletedRows) === 0) throw notFound("annotation", id);
  return { id, deleted: true };
}
