// /api/v1 mail routes: the outbox (operators, tests) and the application's lifecycle email templates. Thin.
import { ctxOf, ok, okPage } from "../rest/http";
import { deleteEmailTemplate, getEmailTemplate, listEmails, listEmailTemplates, previewEmailTemplate, putEmailTemplate } from "./mail.service";
import { apiRouter } from "../rest/api-router";

export function mailRouter() {
  const r = apiRouter();
  r.get("/emails", async (req, res) => okPage(res, await listEmails(ctxOf(req), req.query), (e) => e));
  r.get("/email-templates", async (req, res) => ok(res, await listEmailTemplates(ctxOf(req))));
  r.get("/email-templates/:name", async (req, res) => ok(res, await getEmailTemplate(ctxOf(req), req.params.name)));
  r.put("/email-templates/:name", async (req, res) => ok(res, await putEmailTemplate(ctxOf(req), req.params.name, req.body)));
  r.delete("/email-templates/:name", async (req, res) => ok(res, await deleteEmailTemplate(ctxOf(req), req.params.name)));
  r.post("/email-templates/:name/preview", async (req, res) => ok(res, await previewEmailTemplate(ctxOf(req), req.params.name, req.body)));
  return r;
}
