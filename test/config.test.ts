import { ConfigError, loadConfig } from "../src/config";

test("defaults", () => {
  const c = loadConfig({});
  expect(c.PORT).toBe(3000);
  expect(c.DATABASE_URL).toBeUndefined();
  expect(c.DATA_DIR).toBe("./data");
  expect(c.BASE_URL).toBe("http://localhost:3000");
  expect(c.CHECKOUT_URL).toBe(c.BASE_URL);
  expect(c.WEBHOOK_RETRY_SCHEDULE).toEqual([300_000, 900_000, 3_600_000, 21_600_000, 86_400_000]);
  expect(c.CHECKOUT_SESSION_TTL_MS).toBe(86_400_000);
});

test("values are parsed and trailing slashes trimmed", () => {
  const c = loadConfig({ PORT: "8080", BASE_URL: "https://api.example.com/", WEBHOOK_RETRY_SCHEDULE: "1s, 2s,500ms", DATABASE_URL: "postgresql://u@h/db" });
  expect(c.PORT).toBe(8080);
  expect(c.BASE_URL).toBe("https://api.example.com");
  expect(c.CHECKOUT_URL).toBe("https://api.example.com");
  expect(c.WEBHOOK_RETRY_SCHEDULE).toEqual([1000, 2000, 500]);
});

test.each([
  ["PORT", "abc"],
  ["PORT", "70000"],
  ["DATABASE_URL", "mysql://x"],
  ["BASE_URL", "ftp://x"],
  ["WEBHOOK_RETRY_SCHEDULE", "soon"],
  ["NODE_ENV", "staging"],
  ["REDIS_URL", "http://x"],
])("bad %s=%s names the variable", (name, value) => {
  expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
  expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(name));
});
