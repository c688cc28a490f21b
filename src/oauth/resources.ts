/** The resource identifiers access tokens are minted for: the API (REST, GraphQL, graphql-ws) and the tool endpoint. */
export function oauthResources(config: { BASE_URL: string }) {
  const base = config.BASE_URL.replace(/\/+$/, "");
  return { api: base, mcp: `${base}/mcp` };
}
