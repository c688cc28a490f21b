// Who made a change, as history rows, timeline rows and event payloads record it: a dashboard member (their
// membership id and email), an API key (its id and name), or the service itself when no credential is involved
// (jobs, state machines). One definition, so every domain names the same caller the same way.
import type { Principal } from "./principal";

export interface ActorRef {
  actorType: "user" | "system" | "integration";
  actorId: string | null;
  actorName: string | null;
}

/** The caller as a history row records it (type and id). */
export interface Actor {
  actorType: "user" | "system" | "integration";
  actorId?: string | null;
}

export function actorOf(subject: { principal: Principal | null }): ActorRef {
  const p = subject.principal;
  if (!p) return { actorType: "system", actorId: null, actorName: null };
  // an extension's iframe acts for its install (named after the extension), on behalf of the member who opened it
  if (p.extension) return { actorType: "integration", actorId: p.extension.installationId, actorName: `${p.extension.extensionName} (${p.extension.user.email})` };
  if (p.member) return { actorType: "user", actorId: p.member.id, actorName: p.member.email ?? null };
  return { actorType: "integration", actorId: p.apiKey?.id ?? null, actorName: p.apiKey?.name ?? null };
}
