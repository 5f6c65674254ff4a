import { defineJob, PermanentJobError } from "../../platform/jobs/index.js";
import type { SecretBox } from "../../platform/crypto.js";
import { classify, type Mailer, type OutgoingMessage } from "../../platform/mail/smtp.js";
import { deleteExpiredKeys } from "./idempotency.js";
import { addEvent, getSendRow, recordOutcome, recordPermanentFailure, updateSend } from "./records.js";
import { CLEANUP_JOB, DELIVER_JOB } from "./schema.js";

/** Seconds between background attempts after the in-request ones (about 15 hours in all). */
export const DELIVERY_RETRY = [30, 120, 600, 1800, 3600, 7200, 14_400, 28_800];

/** The email module's jobs: delivery retries and the hourly sweep of expired idempotency keys. */
export function emailJobs(mailer: () => Mailer, secrets: SecretBox) {
  return [
    deliveryJob(mailer, secrets),
    defineJob(CLEANUP_JOB, {
      retry: [60],
      run: async (_p, ctx) => void (await deleteExpiredKeys(ctx.handle.db)),
    }),
  ];
}

/** Retries a transiently failed send; safe to run twice (it acts only on a queued record). */
function deliveryJob(mailer: () => Mailer, secrets: SecretBox) {
  return defineJob(DELIVER_JOB, {
    retry: DELIVERY_RETRY,
    async run({ sendId }, ctx) {
      const db = ctx.handle.db;
      const rec = await getSendRow(db, sendId);
      if (rec?.status !== "queued" || !rec.pending_message) return;
      const msg = JSON.parse(secrets.decrypt(rec.pending_message)) as OutgoingMessage;
      const attempts = rec.attempts + 1;
      try {
        const reply = await mailer().send(msg);
        await recordOutcome(db, sendId, "sent", { attempts, pending_message: null }, [
          { type: "sent", detail: { reply } },
        ]);
        return;
      } catch (err) {
        const o = classify(err);
        if (!o.transient) {
          await recordPermanentFailure(db, rec, o.reply, o.hardBounce, attempts);
          throw new PermanentJobError(o.reply);
        }
        if (ctx.attempt > DELIVERY_RETRY.length) {
          await recordOutcome(db, sendId, "failed", { attempts, pending_message: null, error: o.reply }, [
            { type: "failed", detail: { reply: o.reply, gaveUp: true } },
          ]);
          return;
        }
        await updateSend(db, sendId, { attempts });
        await addEvent(db, sendId, "deferred", { reply: o.reply });
        throw new Error(`transient SMTP failure: ${o.reply}`);
      }
    },
  });
}
