export interface EdgeIds {
  customerId: string; quoteId: string; revisionId: string; orderId: string; paymentId: string;
  fulfillmentId: string | null; subscriptionId: string | null; paymentMethodId: string | null;
  cartId: string; checkoutSessionId: string; installationId: string | null; extensionId: string | null;
  versionId: string | null; memberId: string; userId: string; invitationId: string | null;
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
