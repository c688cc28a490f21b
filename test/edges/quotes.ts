// Stream A's edges (the quote's) for the cross-tenant edge table (test/cross-tenant-edges.e2e.test.ts): each case
// reaches the edge from tenant B's own row after pointing a column at tenant A's row (or, where the link lives on
// A's side, A's row at B's), so a batch read that forgot its tenant filter would hand A's ids to B. The selections
// leave out B's own id columns (currentRevisionId, ...) that a forge points at A's rows: those are B's data.
import type { EdgeCase, EdgeWorld } from "./types";

const quoteQuery = (selection: string) => `query ($id: ID!) { quote(id: $id) { id ${selection} } }`;
const quoteOfB = (w: EdgeWorld) => ({ id: w.b.quoteId });

/** Frees an order id from whichever quote holds it (Quote.orderId is unique), then hands it to `quoteId`. */
async function pointQuoteAtOrder(w: EdgeWorld, quoteId: string, orderId: string) {
  await w.prisma.quote.updateMany({ where: { orderId }, data: { orderId: null } });
  await w.prisma.quote.update({ where: { id: quoteId }, data: { orderId } });
}

export const EDGES: EdgeCase[] = [
  {
    edge: "Quote.currentRevision",
    forge: async (w) => {
      await w.prisma.quote.update({ where: { id: w.b.quoteId }, data: { currentRevisionId: w.a.revisionId } });
    },
    query: quoteQuery("currentRevision { id number items { id name } }"),
    variables: quoteOfB,
  },
  {
    edge: "Quote.checkoutSession",
    forge: async (w) => {
      await w.prisma.quote.update({ where: { id: w.b.quoteId }, data: { checkoutSessionId: w.a.checkoutSessionId } });
    },
    query: quoteQuery("checkoutSession { id cartId orderId paymentId hostedUrl }"),
    variables: quoteOfB,
  },
  {
    edge: "Quote.order",
    forge: (w) => pointQuoteAtOrder(w, w.b.quoteId, w.a.orderId),
    query: quoteQuery("order { id customerId checkoutSessionId cartId lineItems { id } }"),
    variables: quoteOfB,
  },
  {
    edge: "Quote.activity",
    // an event of tenant A's that names B's quote (and carries A's ids): B's activity must not list it
    forge: async (w) => {
      const q = await w.prisma.quote.findUniqueOrThrow({ where: { id: w.a.quoteId }, include: { application: { select: { workspaceId: true } } } });
      await w.prisma.event.create({
        data: {
          workspaceId: q.application.workspaceId,
          applicationId: q.applicationId,
          environmentId: q.environmentId,
          environmentKind: "non_production",
          type: "quote.accepted",
          data: { quoteId: w.b.quoteId, quote: { id: w.a.quoteId, status: "accepted", customerId: w.a.customerId }, revisionId: w.a.revisionId, checkoutSessionId: w.a.checkoutSessionId, orderId: w.a.orderId },
        },
      });
    },
    query: quoteQuery("activity(first: 50) { edges { cursor node { id type revisionId checkoutSessionId orderId commentId } } }"),
    variables: quoteOfB,
  },
  {
    edge: "Quote.revisions",
    // no column of B's to forge: the revisions hang off the quote row itself
    query: quoteQuery("revisions { id items { id } }"),
    variables: quoteOfB,
  },
  {
    edge: "Quote.comments",
    query: quoteQuery("comments { id body }"),
    variables: quoteOfB,
  },
  {
    edge: "Order.quote",
    // the link lives on the quote: A's quote claims B's order
    forge: (w) => pointQuoteAtOrder(w, w.a.quoteId, w.b.orderId),
    query: `query ($id: ID!) { order(id: $id) { id quote { id number } } }`,
    variables: (w) => ({ id: w.b.orderId }),
  },
  {
    edge: "Customer.quotes",
    // A's quote claims B's customer
    forge: async (w) => {
      await w.prisma.quote.update({ where: { id: w.a.quoteId }, data: { customerId: w.b.customerId } });
    },
    query: `query ($id: ID!) { customer(id: $id) { id quotes(first: 50) { edges { cursor node { id number } } } } }`,
    variables: (w) => ({ id: w.b.customerId }),
  },
];
