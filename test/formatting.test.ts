// Amounts and days as emails, receipts and buyer pages show them: minor units by each currency's own digits, and
// the cached formatters give the same text as building a new Intl formatter every time.
import { formatDay } from "../src/shared/dates";
import { formatMoney, formatMoneySymbol } from "../src/shared/money";

test("amounts use the currency's minor units (none for JPY, three for KWD)", () => {
  expect(formatMoney(1250, "USD")).toBe("USD 12.50");
  expect(formatMoney(1200, "JPY")).toBe("JPY 1,200");
  expect(formatMoney(1234, "KWD")).toBe("KWD 1.234");
  expect(formatMoneySymbol(1250, "USD")).toBe("$12.50");
  expect(formatMoneySymbol(1200, "JPY")).toBe("¥1,200");
  // buyer pages' amounts: 1,200 yen, not 12
  expect(formatMoney(1200, "JPY")).toBe("JPY 1,200");
  expect(formatMoneySymbol(99, "EUR")).toBe("€0.99");
  // an unknown code does not break an email
  expect(formatMoney(100, "ZZZZ")).toBe("ZZZZ 100");
});

test("the cached formatters answer what a fresh Intl formatter would, for any amount and currency", () => {
  for (const currency of ["USD", "EUR", "JPY", "KWD", "GBP", "CLF"]) {
    for (const minor of [0, 1, 99, 100, 123456789, -4200]) {
      const fresh = new Intl.NumberFormat("en-US", { style: "currency", currency, currencyDisplay: "code" });
      const digits = fresh.resolvedOptions().maximumFractionDigits ?? 2;
      expect(formatMoney(minor, currency)).toBe(fresh.format(minor / 10 ** digits).replace(/\u00a0/g, " "));
    }
  }
});

test("days read in UTC whatever the input form", () => {
  expect(formatDay(new Date("2026-11-25T23:59:59Z"))).toBe("November 25, 2026");
  expect(formatDay("2026-01-01T00:30:00+02:00")).toBe("December 31, 2025");
  expect(formatDay(Date.UTC(2027, 1, 28))).toBe("February 28, 2027");
});
