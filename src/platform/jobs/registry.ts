import type { TSchema } from "@sinclair/typebox";
import { compileSchema, type SchemaCheck } from "../validation.js";
import { defineJob, exponentialBackoff, type JobDefinition } from "./kinds.js";
import {
  DISPATCH_JOB,
  type ServiceEvent,
  type ServiceEventSubscriber,
  type ServiceEventType,
} from "./service-events.js";

interface Registered {
  def: JobDefinition;
  check: SchemaCheck;
}

export class JobRegistry {
  private defs = new Map<string, Registered>();
  private subscribers: ServiceEventSubscriber[] = [];

  constructor() {
    this.define(
      defineJob(DISPATCH_JOB, {
        retry: exponentialBackoff(8, 2),
        run: async ({ eventId }, ctx) => {
          const row = await ctx.handle.db
            .selectFrom("service_events")
            .selectAll()
            .where("id", "=", eventId)
            .executeTakeFirst();
          if (!row) return;
          const event: ServiceEvent = {
            id: row.id,
            workspaceId: row.workspace_id,
            projectId: row.project_id,
            type: row.type as ServiceEventType,
            data: JSON.parse(row.data),
            createdAt: row.created_at,
          };
          for (const s of this.subscribers) await s(event, ctx);
        },
      }),
    );
  }

  define<S extends TSchema>(def: JobDefinition<S>): void {
    this.defs.set(def.kind.type, {
      def: def as unknown as JobDefinition,
      check: compileSchema(def.kind.payload),
    });
  }
  get(type: string): Registered | undefined {
    return this.defs.get(type);
  }
  /** Subscribers must be idempotent: a dispatch is retried as a whole when one of them throws. */
  onServiceEvent(fn: ServiceEventSubscriber): void {
    this.subscribers.push(fn);
  }
}
