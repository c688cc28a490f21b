// The outbox as CTEs of the statement that makes the change: the events (Event rows), one delivery per subscribed
// active endpoint of the environment (only `onlyEndpointId` when given), and the queued emails (mail.service.ts). A
// command composes them explicitly: `writingOutbox(tx.sql, outbox).insertInto(…)` is one statement that writes the
// change and its events, so a reader sees what the statement writes. Inside a transaction, what is left is written
// at commit (events.service.ts), in one statement too.
import { type Expression, expressionBuilder, type QueryCreator, type SqlBool, sql } from "kysely";
import { insertSelect } from "../db/insert-select";
import type { DB } from "../db/sql";
import type { PendingEvent } from "../shared/context";
import { emailRows, emailRowsInsert, type EmailRow, type PendingEmail } from "../mail/mail.service";
import { slotsOf } from "../db/template";

/** What a statement writes to the outbox. */
export interface Outbox {
  events: PendingEvent[];
  emails: PendingEmail[];
}

/** An outbox as the rows its CTEs write: plain values, so a statement template can bind them (src/db/template.ts). */
export interface OutboxRows {
  events: Omit<PendingEvent, "onlyEndpointId">[];
  emails: EmailRow[];
  /** the events delivered to one endpoint only (pings), whatever it subscribes to */
  only: { id: string; to: string }[];
}

export function outboxRows(outbox: Outbox | null): OutboxRows {
  if (!outbox) return { events: [], emails: [], only: [] };
  return {
    events: outbox.events.map(({ onlyEndpointId: _, ...e }) => e),
    emails: emailRows(outbox.emails),
    only: outbox.events.filter((e) => e.onlyEndpointId).map((e) => ({ id: e.id, to: e.onlyEndpointId! })),
  };
}

/** What of an outbox changes a statement's text: a template's key names it. */
export function outboxShape(rows: OutboxRows): string {
  return `ox${rows.events.length}.${rows.emails.length}.${rows.only.length}`;
}

/** An outbox's rows as template slots, at `path` in the template's values. */
export function outboxSlots(rows: OutboxRows, path: string): OutboxRows {
  return {
    events: rows.events.map((e, i) => slotsOf(e, `${path}.events.${i}`)),
    emails: rows.emails.map((e, i) => slotsOf(e, `${path}.emails.${i}`)),
    only: rows.only.map((o, i) => slotsOf(o, `${path}.only.${i}`)),
  };
}

/**
 * `qc` with the outbox's CTEs (ox_em, ox_ev, ox_wd) added: the statement built on the result writes them. `when`, a
 * condition on the statement's earlier CTEs, writes them only if it holds (a command that may refuse its own write).
 * Unchanged when the outbox is empty. PostgreSQL runs every CTE of a statement on one snapshot: a delivery reads the
 * endpoints, and an email addressed from a payment reads that payment and its order, as they were before the
 * statement, so those must have been written by an earlier statement.
 */
export function writingOutbox<Q extends QueryCreator<any>>(qc: Q, outbox: Outbox | null, when?: Expression<SqlBool>): Q {
  return writingOutboxRows(qc, outboxRows(outbox), when);
}

/** writingOutbox from the outbox's rows (or their slots). */
export function writingOutboxRows<Q extends QueryCreator<any>>(qc: Q, rows: OutboxRows, when?: Expression<SqlBool>): Q {
  if (!rows.events.length && !rows.emails.length) return qc;
  let q = qc as QueryCreator<any>;
  if (rows.emails.length) q = q.with("ox_em", (db) => emailRowsInsert(db, rows.emails, when));
  if (rows.events.length) {
    q = q
      .with("ox_ev", (db) => insertSelect(db, "Event", { data: rows.events, where: when }).returning(["id", "type", "applicationId", "environmentId", "createdAt"]))
      .with("ox_wd", (db) => {
        // the events just written (x) and the environment's endpoints (e), named through typed refs
        const eb = expressionBuilder<{ x: Pick<DB["Event"], "id" | "type" | "applicationId" | "environmentId" | "createdAt">; e: DB["WebhookEndpoint"] }, "x" | "e">();
        const subscribed = eb.and([eb.ref("e.isActive"), sql<SqlBool>`${eb.ref("x.type")} = ANY (${eb.ref("e.enabledEvents")})`]);
        const onlyTo = sql<string | null>`(SELECT (o ->> 'to')::uuid FROM jsonb_array_elements(${JSON.stringify(rows.only)}::jsonb) o WHERE o ->> 'id' = ${eb.ref("x.id")}::text)`;
        const deliverTo = rows.only.length ? eb.case().when(onlyTo, "is", null).then(subscribed).else(eb(eb.ref("e.id"), "=", onlyTo)).end() : subscribed;
        return insertSelect(db, "WebhookDelivery", {
          data: null,
          set: { id: sql`gen_random_uuid()`, endpointId: eb.ref("e.id"), eventId: eb.ref("x.id"), nextAttemptAt: eb.ref("x.createdAt") },
          from: ["ox_ev as x", "WebhookEndpoint as e"],
          where: eb.and([
            eb(eb.ref("e.applicationId"), "=", eb.ref("x.applicationId")),
            eb(eb.ref("e.environmentId"), "=", eb.ref("x.environmentId")),
            eb(eb.ref("e.deletedAt"), "is", null),
            deliverTo,
          ]),
        });
      });
  }
  return q as Q;
}
