// The quote page's and request form's posted fields as the services' bodies.
import { MAX_ROWS } from "./request-form";

export const str = (v: unknown) => (typeof v === "string" && v.trim() !== "" ? v.trim() : undefined);

/** The form's fields as the accept body: every optional line listed (unchecked = deselected), quantities changed. */
export function selectionsFromForm(body: Record<string, unknown>) {
  const selections = new Map<string, { itemId: string; selected?: boolean; quantity?: number }>();
  const get = (id: string) => selections.get(id) ?? (selections.set(id, { itemId: id }), selections.get(id)!);
  for (const [k, v] of Object.entries(body)) {
    const m = /^(optional|include|qty)\.(.{1,100})$/.exec(k);
    if (!m) continue;
    if (m[1] === "optional") get(m[2]).selected = body[`include.${m[2]}`] !== undefined;
    if (m[1] === "qty" && typeof v === "string" && v.trim() !== "") get(m[2]).quantity = Number(v);
  }
  return [...selections.values()];
}

/** The request body of a posted request form, in the shape of POST /quote-requests (rows without a name dropped). */
export function requestBodyFromForm(formToken: string, b: Record<string, unknown>, currencyDigits = 2) {
  const items: { name: string; quantity?: number; targetUnitPrice?: number }[] = [];
  for (let n = 0; n < MAX_ROWS; n++) {
    const name = str(b[`items.${n}.name`]);
    if (!name) continue;
    const qty = str(b[`items.${n}.quantity`]);
    const target = str(b[`items.${n}.targetPrice`]);
    items.push({ name, ...(qty ? { quantity: Number(qty) } : {}), ...(target ? { targetUnitPrice: Math.round(Number(target) * 10 ** currencyDigits) } : {}) });
  }
  return {
    formToken,
    email: str(b.email),
    name: str(b.name),
    phone: str(b.phone),
    companyName: str(b.companyName),
    message: str(b.message),
    ...(items.length ? { items } : {}),
    formLoadedAt: Number(b.formLoadedAt),
    website: typeof b.website === "string" ? b.website : undefined,
    botChallengeToken: str(b.botChallengeToken),
  };
}

/** The posted values with item row `n` taken out (the no-JavaScript "Remove"): later rows move up by one. */
export function withoutRow(b: Record<string, unknown>, n: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(b)) {
    const m = /^items\.(\d{1,3})\.(.+)$/.exec(k);
    if (!m) out[k] = v;
    else if (Number(m[1]) < n) out[k] = v;
    else if (Number(m[1]) > n) out[`items.${Number(m[1]) - 1}.${m[2]}`] = v;
  }
  return out;
}
