import { DomainError } from "../src/shared/errors";
import { hasScope, validateKeyScopes } from "../src/shared/scopes";
import { isReservedSlug } from "../src/platform/environments.service";
import { keySegment } from "../src/platform/api-keys.service";

test("secret keys take any registered non-staff scope or *", () => {
  expect(validateKeyScopes(["*"])).toEqual({ type: "secret", scopes: ["*"] });
  expect(validateKeyScopes(["quotes:read", "quotes:read", "billing:write"])).toEqual({ type: "secret", scopes: ["quotes:read", "billing:write"] });
});

test.each([[["nope"]], [["admin:write"]], [[]], [["publishable", "quotes:read"]], [["publishable"]]])("invalid_scope: %j", (scopes) => {
  try {
    validateKeyScopes(scopes);
    throw new Error("expected invalid_scope");
  } catch (e) {
    expect(e).toBeInstanceOf(DomainError);
    expect((e as DomainError).code).toBe("invalid_scope");
    expect((e as DomainError).status).toBe(400);
  }
});

test("publishable sentinel", () => {
  expect(validateKeyScopes(["publishable", "tax_calculations:write"])).toEqual({ type: "publishable", scopes: ["tax_calculations:write"] });
});

test("hasScope", () => {
  expect(hasScope(["*"], "orders:read")).toBe(true);
  expect(hasScope(["orders:read"], "orders:read")).toBe(true);
  expect(hasScope(["orders:write"], "orders:read")).toBe(false);
});

test.each([
  ["production", true],
  ["live", true],
  ["production-1", true],
  ["live-2", true],
  ["productionish", false],
  ["livemode", false],
  ["staging", false],
  ["my-live", false],
])("reserved slug %s: %s", (slug, reserved) => expect(isReservedSlug(slug)).toBe(reserved));

test("key segment: live for production, slug otherwise", () => {
  expect(keySegment({ slug: "production", kind: "production" })).toBe("live");
  expect(keySegment({ slug: "qa-1", kind: "non_production" })).toBe("qa-1");
});
