// Statements built and compiled once per shape. The hot writes (a cart line, an order, the outbox beside them) are
// Kysely queries of several CTEs; building and compiling one costs more CPU than PostgreSQL spends running it. A
// template builds the statement once with placeholders (`Slot`s) where the values go, compiles it with Kysely's
// public compile(), and afterwards only binds the call's values into the compiled parameters and runs it with
// Kysely's public executeQuery(). The same SQL text is sent every time, so src/db/prepared.ts names it at once.
//
// A Slot stands for a value by its path in the call's values (`cartId`, `line.unitPrice`, `events.0.data`). It is
// passed to Kysely as a value (a parameter), or inside a row that insertSelect serialises to its one jsonb parameter:
// there its JSON is a marker string that binding replaces with the value's JSON. So a builder must not branch on a
// value, only place it; whatever changes the statement's text (how many events, which optional CTE) goes in the key.
import { type Compilable, CompiledQuery, type QueryResult } from "kysely";
import type { Sql } from "./sql";

const MARK = "\u0001";

/** A value's place in a template, by its path in the call's values. */
export class Slot {
  constructor(readonly path: string) {}
  toJSON(): string {
    return `${MARK}${this.path}${MARK}`;
  }
}

/**
 * Slots for a record's fields, typed as the fields (so a builder passes them where the values would go): `row`
 * gives the field names, `path` where the record sits in the call's values.
 */
export function slotsOf<T extends object>(row: T, path: string): T {
  return Object.fromEntries(Object.keys(row).map((k) => [k, new Slot(`${path}.${k}`)])) as unknown as T;
}

type Scalar = string | number | boolean | bigint | Date | null | undefined;
declare const slotted: unique symbol;
/** The slot of a record or list: a value to place whole (a jsonb parameter), with no fields to reach into. */
export type SlotOf<T> = { readonly [slotted]: T };
/**
 * The call's values as a builder sees them: a scalar field is its slot, typed as the value; a record or list is
 * one slot with no fields (slotsOf gives a record's fields their own slots), so `p.row.id` fails tsc.
 */
export type Slots<V> = { readonly [K in keyof V]: V[K] extends Scalar ? V[K] : SlotOf<V[K]> };

function slots<V extends Record<string, unknown>>(values: V): Slots<V> {
  return Object.fromEntries(Object.keys(values).map((k) => [k, new Slot(k)])) as unknown as Slots<V>;
}

/** A compiled parameter: a slot's path, a JSON text cut at its slots (text, path, text, ...), or a constant. */
type Part = { slot: string[] } | { json: (string | string[])[] } | { value: unknown };
interface Compiled {
  sql: string;
  parts: Part[];
}

// a marker inside a JSON text: the quoted marker string, as JSON.stringify writes it (the control character escaped)
const JSON_MARK = /"\\u0001([^"\\]+)\\u0001"/g;
const HAS_JSON_MARK = /"\\u0001[^"\\]+\\u0001"/;

function at(values: Record<string, unknown>, path: readonly string[]): unknown {
  let v: unknown = values;
  for (const k of path) v = (v as Record<string, unknown> | null | undefined)?.[k];
  return v;
}

/** A JSON text with slots, cut into its constant texts and the slots' paths. */
function cutJson(text: string): (string | string[])[] {
  const pieces: (string | string[])[] = [];
  let last = 0;
  for (const m of text.matchAll(JSON_MARK)) {
    pieces.push(text.slice(last, m.index), m[1].split("."));
    last = m.index + m[0].length;
  }
  pieces.push(text.slice(last));
  return pieces;
}

function bindJson(pieces: readonly (string | string[])[], values: Record<string, unknown>): string {
  let out = "";
  for (const p of pieces) out += typeof p === "string" ? p : (JSON.stringify(at(values, p)) ?? "null");
  return out;
}

/** Templates per key; a key names a statement and its shape, so the set is small and fixed by the code. */
const compiled = new Map<string, Compiled>();
const MAX_TEMPLATES = 1000;

function compile(query: Compilable<unknown>): Compiled {
  const c = query.compile();
  const parts = c.parameters.map((p): Part => {
    if (p instanceof Slot) return { slot: p.path.split(".") };
    if (typeof p === "string" && HAS_JSON_MARK.test(p)) return { json: cutJson(p) };
    return { value: p };
  });
  return { sql: c.sql, parts };
}

/**
 * Runs the statement `key` with `values`: built by `build(slots, values)` and compiled on the key's first use, then
 * bound and sent. The builder places `slots`; it may read `values` for their shape only (a record's field names,
 * with slotsOf), never for what they hold. `db` is where it runs (the root, or the command's transaction).
 */
export async function runTemplate<R, V extends Record<string, unknown>>(db: Sql, key: string, values: V, build: (slots: Slots<V>, shape: V) => Compilable<R>): Promise<QueryResult<R>> {
  let t = compiled.get(key);
  if (!t) {
    t = compile(build(slots(values), values));
    if (compiled.size >= MAX_TEMPLATES) compiled.clear();
    compiled.set(key, t);
  }
  const parameters = t.parts.map((p) => ("slot" in p ? at(values, p.slot) : "json" in p ? bindJson(p.json, values) : p.value));
  return db.executeQuery(CompiledQuery.raw(t.sql, parameters) as CompiledQuery<R>);
}
