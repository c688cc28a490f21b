// Every scheduled job, registered in one place. A job parses its data and calls one service.
import type { Deps } from "../src/shared/context";
import type { DeliveryWorker } from "../src/webhooks/delivery.worker";
import { checkoutSessionExpiry } from "./checkout-session-expiry";
import { importRunner } from "./import-runner";
import { inviteExpiry } from "./invite-expiry";
import { invoiceOverdue } from "./invoice-overdue";
import { mailDispatch } from "./mail-dispatch";
import { oauthCleanup } from "./oauth-cleanup";
import { paymentAuthorizationExpiry } from "./payment-authorization-expiry";
import { quoteExpiry } from "./quote-expiry";
import { subscriptionRenewal } from "./subscription-renewal";
import { webhookDelivery } from "./webhook-delivery";
import { platformBilling } from "./platform-billing";
import { extensionInstallCallbacks } from "./extension-install-callbacks";
import { extensionPing } from "./extension-ping";

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

export const JOBS: JobDefinition[] = [webhookDelivery, checkoutSessionExpiry, paymentAuthorizationExpiry, invoiceOverdue, quoteExpiry, mailDispatch, subscriptionRenewal, importRunner, inviteExpiry, platformBilling, extensionInstallCallbacks, extensionPing, oauthCleanup];

export function findJob(name: string) {
  return JOBS.find((j) => j.name === name);
}
