// Cursor pagination shared by every list: newest first, keyset on (createdAt, id), opaque cursor.
import { z } from "zod";
import { errors, parseInput } from "./errors";
import { isUuid } from "./ids";

/** Unknown query parameters are rejected like unknown body fields; lists with filters extend this. */
export const pageQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(200).optional(),
});
export type PageQuery = z.output<typeof pageQuery>;

export interface Page<T> {
  items: T[];
  pagination: { cursor: string | null; hasMore: boolean };
}

type Key = { createdAt: Date; id: string };

function encodeCursor(k: Key) {
  return Buffer.from(JSON.stringify([k.createdAt.toISOString(), k.id])).toString("base64url");
}

/** The cursor that resumes a list after this item (GraphQL edges carry one per node); views may hold ISO strings. */
export function cursorOf(item: { createdAt: Date | string; id: string }): string {
  return encodeCursor({ createdAt: new Date(item.createdAt), id: item.id });
}

/** A cursor read back to its (createdAt, id) key, for keyset statements written with Kysely; 400 when malformed. */
function decodeCursor(cursor: string): Key {
  try {
    const [c, i] = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    const createdAt = new Date(c);
    const year = createdAt.getUTCFullYear();
    if (!isUuid(i) || Number.isNaN(createdAt.getTime()) || year < 1970 || year > 9999) throw new Error("bad cursor");
    return { createdAt, id: i };
  } catch {
    throw errors.validation([{ path: ["query", "cursor"], message: "Invalid cursor" }]);
  }
}

export function parsePage(input: unknown): PageQuery {
  return parseInput(pageQuery, input ?? {}, ["query"]);
}

/** A list query with filters: the page fields plus the filter schema, still strict. */
export function parseListQuery<S extends z.ZodRawShape>(filters: S, input: unknown) {
  return parseInput(pageQuery.extend(filters), input ?? {}, ["query"]);
}

/** Where a page resumes: the (createdAt, id) its cursor names, or null for the first page (hand-written keysets). */
export function pageAfter(page: PageQuery): Key | null {
  return page.cursor ? decodeCursor(page.cursor) : null;
}

/** Prisma `where` and `orderBy` fragments for a keyset page. */
export function keyset(page: PageQuery) {
  const after = page.cursor ? decodeCursor(page.cursor) : null;
  return {
    where: after
      ? { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] }
      : {},
    orderBy: [{ createdAt: "desc" as const }, { id: "desc" as const }],
    take: page.limit + 1,
  };
}

export function toPage<T extends Key>(rows: T[], page: PageQuery): Page<T> {
  const hasMore = rows.length > page.limit;
  const items = hasMore ? rows.slice(0, page.limit) : rows;
  return { items, pagination: { cursor: hasMore ? encodeCursor(items[items.length - 1]) : null, hasMore } };
}

/**
 * Pages of several parents' children from one statement's rows (GraphQL edges such as Customer.orders on a page of
 * customers): `rows` hold at most limit + 1 per parent, newest first (a window function's row_number() <= limit + 1),
 * and every parent gets its page, empty when it has no rows.
 */
export function pagesByParent<T extends Key>(parentIds: readonly string[], rows: T[], parentOf: (row: T) => string | null, page: PageQuery): Map<string, Page<T>> {
  const grouped = new Map<string, T[]>(parentIds.map((id) => [id, []]));
  for (const r of rows) grouped.get(parentOf(r) ?? "")?.push(r);
  return new Map([...grouped].map(([id, rs]) => [id, toPage(rs, page)]));
}
