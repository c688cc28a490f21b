// Typed GraphQL calls (codegen documents from test/ops) through graphql-request; errors come back as data.
import { ClientError, GraphQLClient } from "graphql-request";
import type { TypedDocumentNode } from "@graphql-typed-document-node/core";
import type { Cred } from "./http";

export type GqlResult<T> = { data: T | null; errors: { message: string; extensions?: { code?: string; status?: number; details?: any } }[] | null; status: number };

export function gqlClient(base: string) {
  return async function gql<T, V extends Record<string, unknown>>(doc: TypedDocumentNode<T, V>, variables: V, cred: Cred = {}): Promise<GqlResult<T>> {
    const headers: Record<string, string> = { ...cred.headers };
    if (cred.key) headers["x-api-key"] = cred.key;
    if (cred.token) headers.authorization = `Bearer ${cred.token}`;
    const c = new GraphQLClient(`${base}/graphql`, { headers });
    try {
      const data = await c.request<T>(doc as any, variables as any);
      return { data, errors: null, status: 200 };
    } catch (e) {
      if (e instanceof ClientError) {
        return { data: (e.response.data as T) ?? null, errors: (e.response.errors as any) ?? null, status: e.response.status };
      }
      throw e;
    }
  };
}

export const codeOf = (r: GqlResult<unknown>) => r.errors?.[0]?.extensions?.code;
