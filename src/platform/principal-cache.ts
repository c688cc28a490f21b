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
import { Client } from "pg";
import type { Ctx } from "../shared/context";
import type { Principal } from "./principal";

export const PRINCIPAL_CHANNEL = "principal_cache";
const MAX_ENTRIES = 10_000;

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
    const client = new Client({ connectionString: this.listenUrl, application_name: "principal-cache" });
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
      client.on("notification", (n) => this.apply(n.payload ?? "all"));
      await client.connect();
      await client.query(`LISTEN ${PRINCIPAL_CHANNEL}`);
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

  /** `key:<id>` drops that key's entry; anything else drops them all. */
  apply(payload: string) {
    this.generation++;
    const m = /^key:(.+)$/.exec(payload);
    if (!m) return this.clear();
    for (const [hash, e] of this.entries) if (e.principal.apiKey?.id === m[1]) this.entries.delete(hash);
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
 * Call inside the transaction of any change that makes cached principals wrong: `{ keyId }` for one key, `"all"`
 * for changes that touch many (an environment archived, an application renamed). Every process drops the entries
 * when the transaction commits (PostgreSQL NOTIFY is transactional), this one included.
 */
export async function invalidatePrincipals(ctx: Ctx, what: { keyId: string } | "all") {
  const payload = what === "all" ? "all" : `key:${what.keyId}`;
  const cache = ctx.deps.principals;
  if (ctx.deps.dbKind === "pg") await ctx.db.$executeRaw`SELECT pg_notify(${PRINCIPAL_CHANNEL}, ${payload})`;
  if (!cache) return;
  if (ctx.afterCommit) ctx.afterCommit.push(() => cache.apply(payload));
  else cache.apply(payload);
}
