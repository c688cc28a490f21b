// The cross-tenant edge table's contract (test/cross-tenant-edges.e2e.test.ts), shared by the streams of issue 37:
// each stream's table (quotes.ts, orders.ts, platform.ts) lists its edges as EdgeCases against this world.
export interface EdgeIds {
  customerId: string; quoteId: string; revisionId: string; orderId: string; paymentId: string;
  fulfillmentId: string | null; subscriptionId: string | null; paymentMethodId: string | null;
  cartId: string; checkoutSessionId: string; installationId: string | null; extensionId: string | null;
  versionId: string | null; memberId: string; userId: string; invitationId: string | null;
  /** the tenant's workspace (member reads take it as an argument); not an id the leak check looks for */
  workspaceId?: string;
}
export interface EdgeWorld {
  prisma: import("../../src/generated/prisma/client").PrismaClient;
  a: EdgeIds;            // tenant A's rows (the victim)
  b: EdgeIds;            // tenant B's rows (the caller's own)
  /** GraphQL as tenant B (its secret key with every scope; `dashboard: true` for B's dashboard session) */
  gqlB(query: string, variables?: Record<string, unknown>, opts?: { dashboard?: boolean }): Promise<{ data: unknown; errors?: unknown[] }>;
}
export interface EdgeCase {
  edge: string;                                  // "Quote.customer", exactly Type.field as in schema.graphql
  /** point one of B's rows at A's row through Prisma, as a bug or a forged id would (skip when no column to forge) */
  forge?(w: EdgeWorld): Promise<void>;
  query: string;                                 // reaches the edge from B's own row
  variables(w: EdgeWorld): Record<string, unknown>;
}
