// Stream B's rows of the cross-tenant edge table (test/cross-tenant-edges.e2e.test.ts): one case per edge of the
// order graph. Each forge points a row at the other tenant (B's row at A's, or A's child row at B's parent, as a bug
// or a forged id would); where the leaked row would carry no id of A's, the forged row reuses one of A's ids as its
// own primary key, so a leak shows up in the answer. The queries leave out the forged id column itself (customerId,
// orderId, subscriptionId: the parent's own value, which the forge wrote), and ask for the edge's data.
import type { EdgeCase, EdgeWorld } from "./types";

const orderOf = (w: EdgeWorld) => ({ id: w.b.orderId });
const tenantOfA = async (w: EdgeWorld) => {
  const o = await w.prisma.order.findUniqueOrThrow({ where: { id: w.a.orderId }, select: { applicationId: true, environmentId: true } });
  return { applicationId: o.applicationId, environmentId: o.environmentId };
};
/** A's payment moved under B's order (a child row of A's pointing at B's parent). */
const aPaymentUnderB = (w: EdgeWorld, extra: Record<string, unknown> = {}) => w.prisma.payment.update({ where: { id: w.a.paymentId }, data: { orderId: w.b.orderId, ...extra } });

export const EDGES: EdgeCase[] = [
  {
    edge: "Order.customer",
    forge: async (w) => void (await w.prisma.order.update({ where: { id: w.b.orderId }, data: { customerId: w.a.customerId } })),
    query: "query($id: ID!) { order(id: $id) { id customer { id email } } }",
    variables: orderOf,
  },
  {
    edge: "Order.payments",
    forge: async (w) => void (await aPaymentUnderB(w)),
    query: "query($id: ID!) { order(id: $id) { id payments { id orderId amount } } }",
    variables: orderOf,
  },
  {
    edge: "Order.invoices",
    forge: async (w) => void (await aPaymentUnderB(w, { method: "net30", invoiceNumber: `INV-FORGED-${w.a.paymentId.slice(0, 8)}` })),
    query: "query($id: ID!) { order(id: $id) { id invoices { id orderId invoiceNumber } } }",
    variables: orderOf,
  },
  {
    edge: "Order.fulfillments",
    forge: async (w) => {
      if (w.a.fulfillmentId) await w.prisma.fulfillment.update({ where: { id: w.a.fulfillmentId }, data: { orderId: w.b.orderId } });
    },
    query: "query($id: ID!) { order(id: $id) { id fulfillments { id orderId status } } }",
    variables: orderOf,
  },
  {
    edge: "Order.returns",
    // a return of tenant A on B's order; its id is A's order id so that a leak is visible
    forge: async (w) => {
      const data = { ...(await tenantOfA(w)), orderId: w.b.orderId, status: "requested" };
      await w.prisma.orderReturn.upsert({ where: { id: w.a.orderId }, create: { id: w.a.orderId, ...data }, update: data });
    },
    query: "query($id: ID!) { order(id: $id) { id returns { id orderId status } } }",
    variables: orderOf,
  },
  {
    edge: "Order.timeline",
    // A's payment under B's order with a transaction whose id is A's payment id: the timeline's payment rows
    forge: async (w) => {
      await aPaymentUnderB(w);
      const data = { paymentId: w.a.paymentId, type: "capture", status: "succeeded", amount: 1, currency: "USD" };
      await w.prisma.transaction.upsert({ where: { id: w.a.paymentId }, create: { id: w.a.paymentId, ...data }, update: data });
    },
    query: "query($id: ID!) { order(id: $id) { id timeline(first: 100) { edges { cursor node { id kind title detail } } } } }",
    variables: orderOf,
  },
  {
    edge: "Order.subscription",
    forge: async (w) => {
      if (w.a.subscriptionId) await w.prisma.order.update({ where: { id: w.b.orderId }, data: { subscriptionId: w.a.subscriptionId } });
    },
    query: "query($id: ID!) { order(id: $id) { id subscription { id customerId } } }",
    variables: orderOf,
  },
  {
    edge: "Payment.order",
    forge: async (w) => void (await w.prisma.payment.update({ where: { id: w.b.paymentId }, data: { orderId: w.a.orderId } })),
    query: "query($id: ID!) { payment(id: $id) { id order { id customerId } } }",
    variables: (w) => ({ id: w.b.paymentId }),
  },
  {
    edge: "Payment.transactions",
    // a transaction has no tenant of its own (it is its payment's): no column to forge; the read still runs as B
    query: "query($id: ID!) { payment(id: $id) { id transactions { id paymentId type } } }",
    variables: (w) => ({ id: w.b.paymentId }),
  },
  {
    edge: "Customer.orders",
    forge: async (w) => void (await w.prisma.order.update({ where: { id: w.a.orderId }, data: { customerId: w.b.customerId } })),
    query: "query($id: ID!) { customer(id: $id) { id orders(first: 100) { edges { cursor node { id customerId } } } } }",
    variables: (w) => ({ id: w.b.customerId }),
  },
  {
    edge: "Customer.subscriptions",
    forge: async (w) => {
      if (w.a.subscriptionId) await w.prisma.subscription.update({ where: { id: w.a.subscriptionId }, data: { customerId: w.b.customerId } });
    },
    query: "query($id: ID!) { customer(id: $id) { id subscriptions { id customerId } } }",
    variables: (w) => ({ id: w.b.customerId }),
  },
  {
    edge: "Customer.paymentMethods",
    forge: async (w) => {
      if (w.a.paymentMethodId) await w.prisma.savedCard.update({ where: { id: w.a.paymentMethodId }, data: { customerId: w.b.customerId } });
    },
    query: "query($id: ID!) { customer(id: $id) { id paymentMethods { id cardLastFour } } }",
    variables: (w) => ({ id: w.b.customerId }),
  },
  {
    edge: "CustomerSubscription.customer",
    forge: async (w) => {
      if (w.b.subscriptionId) await w.prisma.subscription.update({ where: { id: w.b.subscriptionId }, data: { customerId: w.a.customerId } });
    },
    query: "query($id: ID!) { subscription(id: $id) { id customer { id email } } }",
    variables: (w) => ({ id: w.b.subscriptionId }),
  },
  {
    edge: "CustomerSubscription.orders",
    forge: async (w) => {
      if (w.b.subscriptionId) await w.prisma.order.update({ where: { id: w.a.orderId }, data: { subscriptionId: w.b.subscriptionId } });
    },
    query: "query($id: ID!) { subscription(id: $id) { id orders(first: 100) { edges { cursor node { id subscriptionId } } } } }",
    variables: (w) => ({ id: w.b.subscriptionId }),
  },
  {
    edge: "CustomerSubscription.paymentMethod",
    // A's card made the default card of B's customer, whom B's subscription bills
    forge: async (w) => {
      if (!w.a.paymentMethodId || !w.b.subscriptionId) return;
      await w.prisma.subscription.update({ where: { id: w.b.subscriptionId }, data: { customerId: w.b.customerId } });
      await w.prisma.savedCard.update({ where: { id: w.a.paymentMethodId }, data: { customerId: w.b.customerId, isDefault: true, deletedAt: null } });
    },
    query: "query($id: ID!) { subscription(id: $id) { id paymentMethod { id cardLastFour } } }",
    variables: (w) => ({ id: w.b.subscriptionId }),
  },
];
