// The quote lifecycle (quotes.md part 3, decisions.md part 3) as data: every action names the statuses it may
// start from and the one it leads to. Moves are compare-and-set and write a history row; anything else is
// 409 invalid_quote_transition with details.from and details.to.
import type { Ctx } from "../shared/context";
import { DomainError } from "../shared/errors";

export const QUOTE_STATUSES = ["draft", "requested", "under_review", "proposed", "revision_requested", "accepted", "converted", "declined", "expired", "archived"] as const;
export type QuoteStatus = (typeof QUOTE_STATUSES)[number];

/** Revision statuses: one working (editable) at most; issuing freezes it; the next issue supersedes it. */
export const REVISION_STATUSES = ["working", "issued", "superseded"] as const;

/**
 * Who may do what from where. `create` and `request` start a quote (from nothing). Actions the merchant side owns:
 * issue, review, decline (merchant), archive. The buyer link owns request_revision and buyer_decline; accept is
 * the buyer's or a rep's (quote-accept.service.ts); checkout owns convert (with the order); the hourly job, expire.
 */
export const QUOTE_TRANSITIONS = {
  issue: { from: ["draft", "requested", "under_review", "revision_requested", "proposed", "expired"], to: "proposed" },
  review: { from: ["requested", "revision_requested"], to: "under_review" },
  decline: { from: ["requested", "under_review", "revision_requested", "proposed"], to: "declined" },
  buyer_decline: { from: ["proposed", "revision_requested"], to: "declined" },
  request_revision: { from: ["proposed"], to: "revision_requested" },
  accept: { from: ["proposed"], to: "accepted" },
  convert: { from: ["accepted"], to: "converted" },
  expire: { from: ["proposed"], to: "expired" },
  archive: { from: ["draft", "requested", "under_review", "proposed", "revision_requested", "converted", "declined", "expired"], to: "archived" },
} as const satisfies Record<string, { from: readonly QuoteStatus[]; to: QuoteStatus }>;
export type QuoteAction = keyof typeof QUOTE_TRANSITIONS;
export const QUOTE_ACTIONS = Object.keys(QUOTE_TRANSITIONS) as QuoteAction[];

/** The status an action leads to from `from`, or 409 invalid_quote_transition. */
export function nextQuoteStatus(from: string, action: QuoteAction): QuoteStatus {
  const rule = QUOTE_TRANSITIONS[action];
  if (!(rule.from as readonly string[]).includes(from)) throw invalidTransition(from, rule.to, action);
  return rule.to;
}

export function invalidTransition(from: string, to: string, action?: QuoteAction) {
  return new DomainError("invalid_quote_transition", 409, `A ${from} quote cannot move to ${to}${action ? ` (${action})` : ""}`, { from, to });
}

/** Statuses a PATCH may name, and the action each one means. */
export const PATCH_STATUS_ACTIONS = { declined: "decline", under_review: "review", archived: "archive" } as const satisfies Partial<Record<QuoteStatus, QuoteAction>>;

export interface QuoteActor {
  actorType: "user" | "integration" | "buyer" | "system";
  actorId?: string | null;
}

/**
 * Moves a quote by `action` inside the caller's transaction: the update is compare-and-set on the status it
 * was read in (callers hold the row lock, so this only fails on a programming error or a forced path), and the
 * history row says who moved it and why. `also` carries columns written with the move.
 */
export async function moveQuote(
  tx: Ctx,
  quote: { id: string; status: string },
  action: QuoteAction,
  actor: QuoteActor & { reason?: string | null },
  also: {
    declinedReason?: string | null;
    declinedBy?: string | null;
    currentRevisionId?: string;
    expiresAt?: Date | null;
    acceptedRevisionId?: string;
    acceptedAt?: Date;
    acceptance?: object;
    checkoutSessionId?: string;
    orderId?: string;
    convertedAt?: Date;
  } = {},
): Promise<QuoteStatus> {
  const to = nextQuoteStatus(quote.status, action);
  const at = tx.clock.now();
  const moved = await tx.db.quote.updateMany({ where: { id: quote.id, status: quote.status }, data: { ...also, status: to, updatedAt: at } });
  if (moved.count !== 1) throw new DomainError("quote_state_changed", 409, "The quote changed while this request ran; retry");
  await tx.db.quoteStatusHistory.create({
    data: { quoteId: quote.id, fromStatus: quote.status, toStatus: to, action, actorType: actor.actorType, actorId: actor.actorId ?? null, reason: actor.reason ?? null, createdAt: at },
  });
  return to;
}
