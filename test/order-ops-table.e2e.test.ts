// Every (order status x operation) pair of the lifecycle and hold tables of commerce.md part 3, against the expected
// result or error code, on an order brought to that status (and, for the holdable statuses, also while held). An
// error writes nothing: no event, no history row, no payment.
import { ORDER_STATUSES, type OrderStatus } from "../src/orders/order.machine";
import { startTestApp, type TestApp } from "./helpers/app";
import { client } from "./helpers/http";

type Api = ReturnType<typeof client>;
let t: TestApp;
let api: Api;
let key: string;

beforeAll(async () => {
  t = (await startTestApp())!;
  api = client(t.url);
  key = (await t.bootstrap()).apiKey;
});
afterAll(() => t?.close());

type Op = { name: string; call: (id: string, o: { status: string }) => [string, string, unknown] };
const OPS: Op[] = [
  { name: "status (another)", call: (id, o) => ["POST", `orders/${id}/status`, { status: o.status === "processing" ? "pending" : "processing" }] },
  { name: "status cancelled", call: (id) => ["POST", `orders/${id}/status`, { status: "cancelled" }] },
  { name: "cancel", call: (id) => ["POST", `orders/${id}/cancel`, {}] },
  { name: "close", call: (id) => ["POST", `orders/${id}/close`, {}] },
  { name: "checkout", call: (id) => ["POST", `orders/${id}/checkout`, {}] },
  { name: "authorize", call: (id) => ["POST", `orders/${id}/authorize`, { paymentToken: "tok_visa_authorize" }] },
  { name: "hold", call: (id) => ["POST", `orders/${id}/hold`, { reason: "check" }] },
  { name: "release", call: (id) => ["POST", `orders/${id}/hold/release`, undefined] },
  { name: "comp", call: (id) => ["POST", `orders/${id}/comp`, { reason: "goodwill" }] },
  { name: "comp reverse", call: (id) => ["POST", `orders/${id}/comp/reverse`, undefined] },
  { name: "record payment", call: (id) => ["POST", `orders/${id}/payments/record`, { amount: 100, method: "cash" }] },
  { name: "line edit", call: (id) => ["PATCH", `orders/${id}/line-items`, { add: [{ name: "More", unitPrice: 100, quantity: 1 }] }] },
  { name: "patch", call: (id) => ["PATCH", `orders/${id}`, { notes: "n" }] },
  { name: "refund", call: (id) => ["POST", `orders/${id}/refund`, {}] },
];

const D = "draft", P = "pending", PR = "processing", PF = "partially_fulfilled", F = "fulfilled", C = "cancelled", CL = "closed";
const ALL = [...ORDER_STATUSES];
const ok = (code = 200) => String(code);
/** operation -> status -> "200" | "201" | "<status> <code>" (not held) */
function expected(op: string, s: OrderStatus): string {
  const among = (list: string[]) => list.includes(s);
  switch (op) {
    case "status (another)":
    case "status cancelled":
    case "patch":
      return ok();
    case "cancel":
      return among([D, P, PR, PF]) ? ok() : "409 invalid_order_transition";
    case "close":
      return among([F, C]) ? ok() : "409 invalid_order_transition";
    case "checkout":
      return among([D, P]) ? ok() : "422 invalid_order_state";
    case "authorize":
      return among([C, CL]) ? "422 invalid_order_state" : ok();
    case "hold":
      return among([P, PR, PF, F]) ? ok() : "422 invalid_order_state";
    case "release":
      return "422 order_not_on_hold";
    case "comp":
      return among([C, CL]) ? "422 validation_error" : ok();
    case "comp reverse":
      return "422 validation_error";
    case "record payment":
      return among([C, CL]) ? "422 invalid_order_state" : ok(201);
    case "line edit":
      return among([C, CL]) ? "409 order_not_editable" : ok();
    case "refund":
      return "400 refund_amount_exceeds_balance";
  }
  throw new Error(op);
}

/** While held: every status transition, manual payments, comp and comp reverse are 409 order_on_hold. */
function expectedHeld(op: string, s: OrderStatus): string {
  switch (op) {
    case "status (another)":
    case "status cancelled":
    case "close":
    case "authorize":
    case "comp":
    case "comp reverse":
    case "record payment":
      return "409 order_on_hold";
    case "release":
      return ok();
    case "hold":
      return ok(); // the same hold again: nothing changes
    default:
      return expected(op, s);
  }
}

async function orderIn(status: OrderStatus, held: boolean) {
  const o = await api("POST", "orders", { key, body: { customerEmail: "b@example.com", lineItems: [{ name: "Widget", unitPrice: 1000, quantity: 2 }] } });
  if (status !== "draft") expect((await api("POST", `orders/${o.body.data.id}/status`, { key, body: { status } })).status).toBe(200);
  if (held) expect((await api("POST", `orders/${o.body.data.id}/hold`, { key, body: { reason: "check" } })).status).toBe(200);
  return o.body.data.id as string;
}

async function footprint(id: string) {
  const [events, history, payments, order] = await Promise.all([
    t.deps.prisma.event.count({ where: { data: { path: ["orderId"], equals: id } } }),
    t.deps.prisma.orderStatusHistory.count({ where: { orderId: id } }),
    t.deps.prisma.payment.count({ where: { orderId: id } }),
    t.deps.prisma.order.findUniqueOrThrow({ where: { id } }),
  ]);
  return { events, history, payments, order: { ...order, updatedAt: null } };
}

const cells = ALL.flatMap((s) => OPS.map((op) => [s, op.name, expected(op.name, s)] as const));
const heldCells = ([P, PR, PF, F] as OrderStatus[]).flatMap((s) => OPS.map((op) => [s, op.name, expectedHeld(op.name, s)] as const));

async function run(status: OrderStatus, opName: string, want: string, held: boolean) {
  const id = await orderIn(status, held);
  const op = OPS.find((o) => o.name === opName)!;
  const [m, path, body] = op.call(id, { status });
  const before = await footprint(id);
  const r = await api(m, path, { key, body });
  const got = r.status < 300 ? String(r.status) : `${r.status} ${r.body.error?.code}`;
  expect(`${status}${held ? " (held)" : ""} x ${opName}: ${got}`).toBe(`${status}${held ? " (held)" : ""} x ${opName}: ${want}`);
  if (r.status >= 400) expect(await footprint(id)).toEqual(before);
  if (r.status === 409 && r.body.error.code === "order_on_hold") expect(r.body.error.message).toContain("check");
}

describe("lifecycle table", () => {
  test.each(cells)("%s x %s -> %s", async (status, opName, want) => run(status, opName, want, false));
});

describe("hold table", () => {
  test.each(heldCells)("%s (held) x %s -> %s", async (status, opName, want) => run(status, opName, want, true));
});
