import { ctxOf, ok, okPage } from "../rest/http";
import { envelope, getEvent, listEvents, listEventTypes } from "./events.service";
import { apiRouter } from "../rest/api-router";

export function eventsRouter() {
  const r = apiRouter();
  r.get("/events", async (req, res) => okPage(res, await listEvents(ctxOf(req), req.query), envelope));
  r.get("/events/:id", async (req, res) => ok(res, envelope(await getEvent(ctxOf(req), req.params.id))));
  r.get("/event-types", async (req, res) => {
    const { types, conventions } = listEventTypes(ctxOf(req));
    await ok(res, types, 200, { conventions });
  });
  return r;
}
