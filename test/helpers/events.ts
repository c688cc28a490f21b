// Records events through the service, as a domain change would (there is no public "emit" route).
import { recordEvent } from "../../src/events/events.service";
import { makeCtx, withTx } from "../../src/shared/context";
import type { TestApp } from "./app";

export async function emit(t: TestApp, tenant: { workspaceId: string; applicationId: string; environmentId: string; environmentKind?: string }, type: string, data: Record<string, unknown> = {}) {
  return withTx(makeCtx(t.deps), (tx) => recordEvent(tx, { environmentKind: "non_production", ...tenant }, type, data));
}
