// Arguments of GraphQL fields as the services take them (the REST body's shape).

/** GraphQL gives absent optional args as null; the REST body would omit them. */
export function compact<T extends Record<string, unknown>>(o: T) {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined));
}

/**
 * compact() for update mutations, except that an explicit null on a `clearable` field is kept: it clears the
 * field, as `null` does in the REST PATCH body. graphql-js leaves an argument the caller did not send out of
 * the args object (undefined), so only a null the caller wrote reaches the service.
 */
export function withClears<T extends Record<string, unknown>>(o: T, clearable: readonly (keyof T & string)[]) {
  return Object.fromEntries(Object.entries(o).filter(([k, v]) => v !== undefined && (v !== null || clearable.includes(k))));
}
