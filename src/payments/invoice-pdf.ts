// The Net-N invoice PDF's document (commerce.md part 4, issue 35 item 10): a Net-N invoice at checkout or a deposit
// quote's balance invoice. The seller block is the quote revision's frozen seller when the order came from a quote
// (Quote.orderId), else the application's seller when it is rendered; bill-to and ship-to are the order's addresses
// with the company and the buyer's name and email; then the invoice, order and quote numbers, the PO, issue and due
// dates, the lines, totals with tax lines, what was paid (the deposit) and the amount due, the seller's payment
// instructions (remit-to) and the buyer's view link. invoices.service.ts renders and stores it.
import type { Content, TDocumentDefinitions } from "pdfmake/interfaces";
import type { Order, OrderLineItem, Payment } from "../generated/prisma/client";
import { orderDisplayNumber } from "../documents/order-number";
import { frozenParties, sellerBlock, type BuyerBlock, type SellerBlock } from "../documents/parties";
import { taxLabel, type TaxLine } from "../documents/tax-lines";
import type { Address } from "../shared/address";
import type { Ctx } from "../shared/context";
import { formatDay } from "../shared/dates";
import { formatMoney } from "../shared/money";
import { addressLines, blockRow, brandColorOf, header, linesTable, metaTable, partyBlock, pdfDocument, section, sellerParty, totalsTable, type TotalRow } from "../shared/pdf";
import { invoiceDownloadUrl } from "./invoice-issue";

type IssuedPayment = Payment & { invoiceNumber: string };

interface InvoiceData {
  payment: IssuedPayment;
  order: (Order & { lineItems: OrderLineItem[] }) | null;
  merchant: { name: string; settings: unknown };
  seller: SellerBlock;
  /** the quote the order came from, with the buyer block its accepted revision froze */
  quote: { number: string; buyerReference: string | null; buyer: BuyerBlock | null } | null;
  customer: { name: string | null; company: string | null } | null;
  /** the order's cart-level tax lines (name and rate), when they account for its tax */
  taxLines: TaxLine[];
  /** the buyer's view / download link (the one the invoice email carries) */
  viewUrl: string | null;
}

/** Everything the document needs, read in one round of queries. */
export async function invoiceData(ctx: Ctx, p: IssuedPayment): Promise<InvoiceData> {
  const order = p.orderId ? await ctx.db.order.findUnique({ where: { id: p.orderId }, include: { lineItems: { orderBy: { position: "asc" } } } }) : null;
  const [merchant, quote, customer, cart] = await Promise.all([
    ctx.db.application.findUniqueOrThrow({ where: { id: p.applicationId }, select: { name: true, settings: true } }),
    order
      ? ctx.db.quote.findUnique({
          where: { orderId: order.id },
          select: { number: true, buyerReference: true, acceptedRevisionId: true, currentRevisionId: true, revisions: { select: { id: true, parties: true } } },
        })
      : null,
    order?.customerId ? ctx.db.customer.findUnique({ where: { id: order.customerId }, select: { name: true, company: true } }) : null,
    order?.cartId ? ctx.db.cart.findUnique({ where: { id: order.cartId }, select: { taxLines: true } }) : null,
  ]);
  const revId = quote?.acceptedRevisionId ?? quote?.currentRevisionId;
  const parties = frozenParties(quote?.revisions.find((r) => r.id === revId)?.parties);
  const cartTax = Array.isArray(cart?.taxLines) ? (cart.taxLines as unknown as TaxLine[]) : [];
  const lineTax = (order?.lineItems ?? []).reduce((a, l) => a + l.taxAmount, 0);
  const accounted = order && cartTax.length > 0 && cartTax.reduce((a, t) => a + t.amount, 0) + lineTax === order.taxTotal;
  return {
    payment: p,
    order,
    merchant,
    seller: parties?.seller ?? sellerBlock(merchant),
    quote: quote ? { number: quote.number, buyerReference: quote.buyerReference, buyer: parties?.buyer ?? null } : null,
    customer,
    taxLines: accounted ? [...cartTax, ...(lineTax ? [{ name: "Tax", amount: lineTax, rateBps: null, jurisdiction: null }] : [])] : [],
    viewUrl: invoiceDownloadUrl(ctx, p),
  };
}

type Meta = { invoiceIssuedAt?: string; dueDate?: string; kind?: string; net30Acceptance?: { companyName?: string; billingEmail?: string } };

export function invoiceDocument(d: InvoiceData): TDocumentDefinitions {
  const { payment: p, order, seller, quote } = d;
  const money = (n: number) => formatMoney(n, p.currency);
  const meta = (p.metadata ?? {}) as Meta;
  const issued = meta.invoiceIssuedAt ? new Date(meta.invoiceIssuedAt) : p.createdAt;
  const due = p.dueDate ?? (meta.dueDate ? new Date(`${meta.dueDate}T00:00:00Z`) : null);
  const dueText = due ? formatDay(due) : null;
  const company = meta.net30Acceptance?.companyName ?? quote?.buyer?.company ?? d.customer?.company ?? null;
  const contact = quote?.buyer?.name ?? d.customer?.name ?? null;
  const email = meta.net30Acceptance?.billingEmail ?? order?.email ?? quote?.buyer?.email ?? null;
  const billing = (order?.billingAddress as Address | null) ?? quote?.buyer?.billingAddress ?? null;
  const shipping = (order?.shippingAddress as Address | null) ?? null;
  const po = quote?.buyerReference ?? quote?.buyer?.reference ?? null;
  const ref = `Invoice ${p.invoiceNumber}`;
  const paid = order ? order.total - order.compAmount - p.amount : 0;
  const balance = meta.kind === "balance";

  const totals: TotalRow[] = order
    ? [
        { label: "Subtotal", amount: money(order.subtotal) },
        ...(order.discountTotal ? [{ label: order.discountCode ? `Discount (${order.discountCode})` : "Discount", amount: `-${money(order.discountTotal)}` }] : []),
        ...(order.shippingTotal ? [{ label: "Shipping", amount: money(order.shippingTotal) }] : []),
        ...(d.taxLines.length ? d.taxLines.map((t) => ({ label: taxLabel(t), amount: money(t.amount) })) : order.taxTotal ? [{ label: "Tax", amount: money(order.taxTotal) }] : []),
        { label: "Order total", amount: money(order.total), strong: paid > 0 },
        ...(paid > 0 ? [{ label: balance ? "Deposit paid" : "Paid or credited", amount: `-${money(paid)}` }] : []),
      ]
    : [];
  totals.push({ label: "Amount due", amount: money(p.amount), strong: true });

  const body: Content[] = [
    ...header({ wordmark: d.merchant.name, color: brandColorOf(d.merchant.settings), title: "INVOICE", subtitle: p.invoiceNumber }),
    blockRow([
      partyBlock(sellerParty(seller)),
      metaTable([
        ["Invoice number", p.invoiceNumber],
        ["Order number", order ? orderDisplayNumber(order) : null],
        ["Quote number", quote?.number],
        ["PO / reference", po],
        ["Issue date", formatDay(issued)],
        ["Due date", dueText],
      ]),
    ]),
    blockRow(
      [
        partyBlock({ label: "Bill to", name: company, lines: [contact, email, ...addressLines(billing)] }),
        partyBlock({ label: "Ship to", name: shipping ? (company ?? contact) : null, lines: addressLines(shipping) }),
      ],
      [0, 0, 0, 14],
    ),
    {
      text: [
        { text: `${money(p.amount)} due${dueText ? ` ${dueText}` : ""}`, fontSize: 15, bold: true },
        ...(balance ? [{ text: "   balance after the deposit", color: "#6b7280" }] : []),
      ],
      margin: [0, 0, 0, 4],
    },
    ...(d.viewUrl ? [{ text: [{ text: "View and download online: ", color: "#6b7280" }, { text: "open this invoice", link: d.viewUrl, color: brandColorOf(d.merchant.settings), decoration: "underline" as const }], margin: [0, 0, 0, 16] as [number, number, number, number] }] : []),
  ];
  const lines = order?.lineItems ?? [];
  if (lines.length) {
    body.push(
      linesTable(lines.map((l) => ({ name: l.name, details: [l.description], quantity: l.quantity, unitPrice: money(l.unitPrice), amount: money(l.unitPrice * l.quantity) }))),
    );
  }
  body.push(totalsTable(totals));
  body.push(
    ...section("Payment terms", `Net ${p.netN ?? 30}: ${money(p.amount)} due by ${dueText ?? "the due date"}${balance ? ", the balance after the deposit paid at checkout" : ""}. Please quote ${p.invoiceNumber} with your payment.`),
    ...section("Payment instructions (remit to)", seller.paymentInstructions),
  );
  return pdfDocument({ title: p.invoiceNumber, author: seller.name, subject: ref, footer: `${ref} · ${seller.name}`, content: body });
}
