// GraphQL for issuing a quote (POST /quotes/{id}/issue): the answer carries the quote (merchant view, whose
// shareToken is the buyer's link) and the revision just issued, as REST's { quote, revision }.
import { builder } from "../graphql/builder";
import { QuoteRef, QuoteRevisionRef } from "./quotes.schema";
import { issueQuote } from "./quotes.service";

const QuoteIssueRef = builder.objectRef<Awaited<ReturnType<typeof issueQuote>>>("QuoteIssue").implement({
  description: "An issued quote and the revision just issued",
  fields: (t) => ({
    quote: t.field({ type: QuoteRef, description: "The quote, merchant view; shareToken and buyerUrl are the buyer's link", resolve: (i) => i.quote }),
    revision: t.field({ type: QuoteRevisionRef, description: "The revision just issued (now the current offer)", resolve: (i) => i.revision }),
  }),
});

builder.mutationFields((t) => ({
  issueQuote: t.field({
    type: QuoteIssueRef,
    description: "Freezes the working revision and offers it at the buyer link (409 empty_revision, unpriced_items, net_terms_not_configured)",
    authScopes: { scope: "quotes:write" },
    args: { id: t.arg.id({ required: true, description: "The quote's id" }) },
    resolve: (_r, a, ctx) => issueQuote(ctx, String(a.id), {}),
  }),
}));
