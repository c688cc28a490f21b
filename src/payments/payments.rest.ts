import { ctxOf, ok, okPage } from "../rest/http";
import { disputePayment, openTestDispute, resolvePaymentDispute } from "./disputes.service";
import { invoiceDownloadTarget, invoicePdfUrl, resendInvoice } from "./invoices.service";
import { capturePayment, getPayment, listPayments, markPaymentFailed, paymentTransactions, paymentView, refundPayment, resolveTestPayment } from "./payments.service";
import { apiRouter } from "../rest/api-router";

export function paymentsRouter() {
  const r = apiRouter();
  r.get("/payments", async (req, res) => okPage(res, await listPayments(ctxOf(req), req.query), paymentView));
  r.get("/payments/:id", async (req, res) => ok(res, paymentView(await getPayment(ctxOf(req), req.params.id))));
  r.get("/payments/:id/transactions", async (req, res) =>
    ok(res, (await paymentTransactions(ctxOf(req), req.params.id)).map((t) => ({ id: t.id, paymentId: t.paymentId, type: t.type, status: t.status, amount: t.amount, currency: t.currency, createdAt: t.createdAt.toISOString() }))));
  r.post("/payments/:id/capture", async (req, res) => ok(res, paymentView(await capturePayment(ctxOf(req), req.params.id, req.body))));
  r.post("/payments/:id/refund", async (req, res) => {
    const p = await refundPayment(ctxOf(req), req.params.id, req.body);
    await ok(res, { ...paymentView(p), id: p.id, status: p.status, refundedAmount: p.refundedAmount });
  });
  r.post("/payments/:id/mark-failed", async (req, res) => ok(res, paymentView(await markPaymentFailed(ctxOf(req), req.params.id, req.body))));
  r.post("/test-processor/payments/:id/resolve", async (req, res) => ok(res, paymentView(await resolveTestPayment(ctxOf(req), req.params.id, req.body))));
  // receivables: the invoice PDF, its resend, and the buyer's keyless download (the signed token is the authority)
  r.get("/payments/:id/invoice-pdf", async (req, res) => ok(res, await invoicePdfUrl(ctxOf(req), req.params.id)));
  r.post("/payments/:id/invoice/resend", async (req, res) => ok(res, await resendInvoice(ctxOf(req), req.params.id)));
  r.get("/payments/:id/invoice/download", async (req, res) => {
    res.set("cache-control", "private, no-store").redirect(302, await invoiceDownloadTarget(ctxOf(req), req.params.id, req.query.token));
  });
  // disputes
  r.post("/payments/:id/dispute", async (req, res) => ok(res, paymentView(await disputePayment(ctxOf(req), req.params.id, req.body))));
  r.post("/payments/:id/dispute/resolve", async (req, res) => ok(res, paymentView(await resolvePaymentDispute(ctxOf(req), req.params.id, req.body))));
  r.post("/test-processor/payments/:id/dispute", async (req, res) => ok(res, paymentView(await openTestDispute(ctxOf(req), req.params.id, req.body))));
  return r;
}
