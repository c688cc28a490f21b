// The API-key principal cache: a keyed request resolves its key from memory instead of the database, and every
// process drops an entry the moment the key (or anything the principal carries) changes anywhere.
//
// Invalidation. A change that makes a cached principal wrong (a key revoked, an environment archived, an application
// renamed) calls invalidatePrincipals() inside its transaction. On PostgreSQL that sends
// `NOTIFY principal_cache` in the same transaction, so every process listening hears it exactly when the change
// commits, and never for a change that rolled back; the process that made the change also drops the entries itself
// after commit. On the embedded database there is only one process, so the after-commit drop is the whole story.
//
// Safety rules:
// - Only API keys are cached (dashboard sessions carry member roles and grants, and are not on the hot path).
// - Entries live at most PRINCIPAL_CACHE_TTL (30 s by default) even if a notification were missed.
// - On PostgreSQL nothing is cached while the LISTEN connection is down: the cache is emptied when it drops and
//   refilled only after LISTEN succeeds again, so a notification sent while it was away cannot be missed.
// - A lookup that raced with an invalidation is not stored (a generation counter): a key read as valid just before
//   its revocation committed cannot be cached after the revocation's notification arrived.
// - The process that made the change answers only once every listening process has applied it (at most
//   ACK_TIMEOUT_MS): each listener acknowledges a notification on a second channel after dropping the entries, and
//   the changing transaction counted the listening sessions (pg_stat_activity, application_name principal-cache)
//   in the statement that sent it. So a caller that hears "revoked" and goes straight to another process is refused
//   there too, even when that process was busy. A listener that died meanwhile only costs the timeout.
import { sql } from "kysely";
import { randomUUID } from "node:crypto";
import { Client } from "pg";
import type { Ctx } from "./context";
import type { Principal } from "./principal";

const PRINCIPAL_CHANNEL = "principal_cache";
const ACK_CHANNEL = "principal_cache_ack";
const LISTENER_NAME = "principal-cache";
const MAX_ENTRIES = 10_000;
const ACK_TIMEOUT_MS = 2_000;

export class PrincipalCache {
  private readonly entries = new Map<string, { principal: Principal; until: number }>();
  /** bumped by every invalidation: a lookup started before it must not store its result */
  private generation = 0;
  private listener: Client | null = null;
  private closed = false;
  private retry: NodeJS.Timeout | null = null;
  /** false on PostgreSQL until LISTEN succeeds (nothing is cached meanwhile); always true on the embedded database */
  live: boolean;
  hits = 0;
  misses = 0;
  /** this instance's name in acknowledgements */
  private readonly listenerId = randomUUID();
  /** changes this process made and waits to see applied everywhere: nonce -> the listeners that acknowledged */
  private readonly waits = new Map<string, { acked: Set<string>; expected: number; done: () => void }>();

  constructor(
    private readonly ttlMs: number,
    private readonly listenUrl?: string,
  ) {
    this.live = !listenUrl;
  }

  /** Starts listening (PostgreSQL); resolves once LISTEN is in place or has failed (then it retries in the background). */
  async start(): Promise<void> {
    if (!this.listenUrl || this.ttlMs <= 0) return;
    await this.connect();
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const client = new Client({ connectionString: this.listenUrl, application_name: LISTENER_NAME });
    const down = () => {
      if (this.listener !== client) return;
      this.listener = null;
      this.live = false;
      this.clear();
      client.removeAllListeners();
      void client.end().catch(() => undefined);
      if (!this.closed) this.retry = setTimeout(() => void this.connect(), 1_000);
    };
    try {
      client.on("error", down);
      client.on("end", down);
      client.on("notification", (n) => {
        const payload = n.payload ?? "all";
        if (n.channel === ACK_CHANNEL) return this.acked(payload);
        this.apply(payload);
        const nonce = /#(.+)$/.exec(payload)?.[1];
        if (nonce) client.query("SELECT pg_notify($1, $2)", [ACK_CHANNEL, `${nonce}|${this.listenerId}`]).catch(() => undefined);
      });
      await client.connect();
      await client.query(`LISTEN ${PRINCIPAL_CHANNEL}; LISTEN ${ACK_CHANNEL}`);
      if (this.closed) {
        // close() ran while this (re)connect was under way: it could not see this client, so nothing else ends it
        client.removeAllListeners();
        await client.end().catch(() => undefined);
        return;
      }
      this.listener = client;
      this.clear(); // whatever changed while no one listened
      this.live = true;
    } catch (e) {
      console.error("[principal-cache] LISTEN failed; keys are looked up on every request until it succeeds:", e instanceof Error ? e.message : e);
      client.removeAllListeners();
      void client.end().catch(() => undefined);
      if (!this.closed) this.retry = setTimeout(() => void this.connect(), 1_000);
    }
  }

  get(keyHash: string, now: number): Principal | null {
    if (!this.live || this.ttlMs <= 0) return null;
    const e = this.entries.get(keyHash);
    if (!e) {
      this.misses++;
      return null;
    }
    if (e.until <= now) {
      this.entries.delete(keyHash);
      this.misses++;
      return null;
    }
    this.hits++;
    return e.principal;
  }

  /** The generation to pass back to set(): read it before the lookup. */
  mark(): number {
    return this.generation;
  }

  set(keyHash: string, principal: Principal, now: number, generation: number) {
    if (!this.live || this.ttlMs <= 0 || generation !== this.generation) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(keyHash, { principal, until: now + this.ttlMs });
  }

  /**
   * Waits for the change `nonce` to be applied by `listeners()` listening sessions (each acknowledges it), or for
   * the timeout; at once when this process is not listening. Call it before the notifying transaction commits (so no
   * acknowledgement is missed) and await `until` after: `listeners` is read in the transaction.
   */
  awaitApplied(nonce: string): { setExpected(n: number): void; until: Promise<void> } {
    let expected = Number.POSITIVE_INFINITY;
    if (!this.listener || !this.live) return { setExpected: () => undefined, until: Promise.resolve() };
    let done!: () => void;
    const until = new Promise<void>((resolve) => {
      const timer = setTimeout(() => done(), ACK_TIMEOUT_MS);
      timer.unref();
      done = () => {
        clearTimeout(timer);
        this.waits.delete(nonce);
        resolve();
      };
    });
    const w = { acked: new Set<string>(), expected, done };
    this.waits.set(nonce, w);
    return {
      setExpected: (n: number) => {
        expected = w.expected = n;
        if (w.acked.size >= expected) done();
      },
      until,
    };
  }

  private acked(payload: string) {
    const [nonce, listener] = payload.split("|");
    const w = this.waits.get(nonce);
    if (!w || !listener) return;
    w.acked.add(listener);
    if (w.acked.size >= w.expected) w.done();
  }

  /**
   * `key:<id>` drops that key's entry, `member:<id>` every principal of that member (roles, grants or removal
   * changed), `ws:<id>` every principal of that workspace (its billing changed); each optionally `#<nonce>`.
   * Anything else drops them all.
   */
  apply(payload: string) {
    this.generation++;
    const m = /^(key|member|ws):([^#]+)(?:#.*)?$/.exec(payload);
    if (!m) return this.clear();
    const [, kind, id] = m;
    for (const [hash, e] of this.entries) {
      const hit = kind === "key" ? e.principal.apiKey?.id === id : kind === "member" ? e.principal.member?.id === id : e.principal.workspace.id === id;
      if (hit) this.entries.delete(hash);
    }
  }

  clear() {
    this.generation++;
    this.entries.clear();
  }

  get size() {
    return this.entries.size;
  }

  async close() {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    const l = this.listener;
    this.listener = null;
    this.live = false;
    if (l) {
      l.removeAllListeners();
      await l.end().catch(() => undefined);
    }
  }
}

/**
 * Call inside the transaction of any change that makes cached principals wrong: `{ keyId }` for one key,
 * `{ memberId }` for a member whose roles or grants changed or who was removed, `{ workspaceId }` for one
 * workspace's principals (its billing changed), `"all"` for changes that touch many (an environment archived, an
 * application renamed). Every process drops the entries when the transaction commits (PostgreSQL NOTIFY is
 * transactional), this one included.
 */
export async function invalidatePrincipals(ctx: Ctx, what: { keyId: string } | { memberId: string } | { workspaceId: string } | "all") {
  // The nonce names this change in the listeners' acknowledgements.
  const nonce = randomUUID();
  const target = what === "all" ? "all" : "keyId" in what ? `key:${what.keyId}` : "memberId" in what ? `member:${what.memberId}` : `ws:${what.workspaceId}`;
  const payload = `${target}#${nonce}`;
  const cache = ctx.deps.principals;
  const applied = ctx.deps.dbKind === "pg" && cache ? cache.awaitApplied(nonce) : null;
  if (ctx.deps.dbKind === "pg") {
    // pg_stat_activity is PostgreSQL's catalogue, outside the schema's types
    const { listeners } = await ctx.sql
      .selectNoFrom([
        sql<number>`(SELECT count(*)::int FROM pg_stat_activity WHERE datname = current_database() AND application_name = ${LISTENER_NAME})`.as("listeners"),
        sql<string>`pg_notify(${PRINCIPAL_CHANNEL}, ${payload})::text`.as("sent"),
      ])
      .executeTakeFirstOrThrow();
    applied?.setExpected(listeners);
  }
  if (!cache) return;
  const finish = async () => {
    cache.apply(payload);
    await applied?.until;
  };
  if (ctx.afterCommit) ctx.afterCommit.push(finish);
  else await finish();
}
