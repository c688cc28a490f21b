// Stream C's edges in the cross-tenant edge table (and Quote.customer, the example edge on main): each forges one of
// B's rows (or one of A's children) to point at tenant A through Prisma, then reads the edge from B's own row.
import type { EdgeCase } from "./types";

// The queries never select the forged foreign key itself (it holds A's id by construction): only what the edge reads.
export const EDGES: EdgeCase[] = [
  {
    edge: "Quote.customer",
    forge: async (w) => void (await w.prisma.quote.update({ where: { id: w.b.quoteId }, data: { customerId: w.a.customerId } })),
    query: "query($id: ID!) { quote(id: $id) { id customer { id email } } }",
    variables: (w) => ({ id: w.b.quoteId }),
  },
  {
    edge: "Customer.carts",
    // A's cart claims B's customer: B's customer must still list only B's carts
    forge: async (w) => void (await w.prisma.cart.update({ where: { id: w.a.cartId }, data: { customerId: w.b.customerId } })),
    query: "query($id: ID!) { customer(id: $id) { id carts(first: 50) { edges { cursor node { id customerEmail } } pageInfo { hasNextPage } } } }",
    variables: (w) => ({ id: w.b.customerId }),
  },
  {
    edge: "Cart.customer",
    forge: async (w) => void (await w.prisma.cart.update({ where: { id: w.b.cartId }, data: { customerId: w.a.customerId } })),
    query: "query($id: ID!) { cart(id: $id) { id customer { id email } } }",
    variables: (w) => ({ id: w.b.cartId }),
  },
  {
    edge: "Cart.checkoutSessions",
    // A's checkout session claims B's cart
    forge: async (w) => void (await w.prisma.checkoutSession.update({ where: { id: w.a.checkoutSessionId }, data: { cartId: w.b.cartId } })),
    query: "query($id: ID!) { cart(id: $id) { id checkoutSessions(first: 50) { nodes { id orderId paymentId } } } }",
    variables: (w) => ({ id: w.b.cartId }),
  },
  {
    edge: "ExtensionInstallation.extension",
    // B's install points at A's workspace's draft extension
    forge: async (w) => void (await w.prisma.installation.update({ where: { id: w.b.installationId! }, data: { extensionId: w.a.extensionId! } })),
    query: "query($id: ID!) { extensionInstallation(id: $id) { id extension { id name lifecycle } } }",
    variables: (w) => ({ id: w.b.installationId }),
  },
  {
    edge: "ExtensionInstallation.version",
    forge: async (w) => void (await w.prisma.installation.update({ where: { id: w.b.installationId! }, data: { versionId: w.a.versionId! } })),
    query: "query($id: ID!) { extensionInstallation(id: $id) { id version { id version extensionId status } } }",
    variables: (w) => ({ id: w.b.installationId }),
  },
  {
    edge: "WorkspaceMember.user",
    // no forge: the member row's userId is the only link, so a member row pointing at a user makes that user a member
    // of B's workspace by definition; the check is that B's members read their own users only
    query: "query($ws: ID!) { myMembership(workspaceId: $ws) { memberId user { id email name } } members(workspaceId: $ws) { nodes { memberId user { id email } } } }",
    variables: (w) => ({ ws: w.b.workspaceId }),
  },
  {
    edge: "WorkspaceMember.invitations",
    // A's invitation claims to be sent by B's owner
    forge: async (w) => void (await w.prisma.invitation.update({ where: { id: w.a.invitationId! }, data: { invitedByMemberId: w.b.memberId } })),
    query: "query($ws: ID!) { myMembership(workspaceId: $ws) { memberId invitations(first: 50) { nodes { id email } } } }",
    variables: (w) => ({ ws: w.b.workspaceId }),
  },
];

