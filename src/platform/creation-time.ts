/**
 * Creation stamps for records a person makes (dashboards, flags, keys…), listed newest first.
 *
 * Lists order by (created_at, id) and ids are random, so two records made in the same
 * millisecond would list in a random order. Within one process each stamp is therefore later
 * than the one before it: a tie moves the new stamp one millisecond on. The drift is bounded by
 * how many such records are made per second, which a person's clicks keep far below a thousand;
 * ingest-made rows (leads, events) keep the wall clock and are not stamped here.
 */
let last = 0;

export function creationTime(now = Date.now()): string {
  last = now > last ? now : last + 1;
  return new Date(last).toISOString();
}
