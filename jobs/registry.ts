// Every scheduled job, registered in one place. A job parses its data and calls one service.
import type { Deps } from "../src/shared/context";
import type { DeliveryWorker } from "../src/webhooks/delivery.worker";
import { checkoutSessionExpiry } from "./checkout-session-expiry";
import { invoiceOverdue } from "./invoice-overdue";
import { mailDispatch } from "./mail-dispatch";
import { paymentAuthorizationExpiry } from "./payment-authorization-expiry";
import { quoteExpiry } from "./quote-expiry";
import { subscriptionRenewal } from "./subscription-renewal";
import { webhookDelivery } from "./webhook-delivery";

export interface JobContext {
  deps: Deps;
  deliveries: DeliveryWorker;
}

export interface JobDefinition {
  name: string;
  /** how often Agenda runs it (human-interval string) */
  every: string;
  /** one pass; returns a short summary for operators */
  run(ctx: JobContext): Promise<string>;
}

export const JOBS: JobDefinition[] = [webhookDelivery, checkoutSessionExpiry, paymentAuthorizationExpiry, invoiceOverdue, quoteExpiry, mailDispatch, subscriptionRenewal];

export function findJob(name: string) {
  return JOBS.find((j) => j.name === name);
}
