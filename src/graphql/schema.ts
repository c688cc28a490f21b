// Imports every domain's schema file, then builds. Order of imports is the order of registration.
import { lexicographicSortSchema } from "graphql";
import { builder } from "./builder";
import { describeCommonFields } from "./descriptions";
import "../platform/platform.schema";
import "../platform/applications.schema";
import "../events/events.schema";
import "../webhooks/webhooks.schema";
import "../customers/customers.schema";
import "../carts/carts.schema";
import "../discounts/discounts.schema";
import "../shipping-tax/shipping-tax.schema";
import "../shipping-tax/estimate.schema";
import "../checkout/checkout.schema";
import "../payments/payments.schema";
import "../payments/processor-proxy.schema";
import "../payments/receivables.schema";
import "../orders/orders.schema";
import "../orders/order-ops.schema";
import "../orders/order-reports.schema";
import "../subscriptions/subscriptions.schema";
import "../fulfillments/fulfillments.schema";
import "../quotes/quotes.schema";
import "../quotes/quote-links.schema";
import "../mail/mail.schema";
import "../wallet/wallet.schema";
import "../imports/imports.schema";

export const schema = lexicographicSortSchema(describeCommonFields(builder.toSchema()));
