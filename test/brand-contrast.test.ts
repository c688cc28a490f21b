// Issue 35 item 8: whatever brand colour a merchant picks, text on it and text in it read at WCAG AA (4.5:1).
import { brandVars, contrast, readableOnWhite, textOn } from "../pages/components/brand";

const COLOURS = ["#ffff00", "#00ff00", "#ffffff", "#000000", "#3e4c59", "#2563eb", "#ff7f50", "#9aa5b1", "#0b3d91", "#e11d48", "#fde68a", "#777777"];

test.each(COLOURS)("%s: the text chosen for it and its readable variant on white both reach 4.5:1", (c) => {
  expect(contrast(c, textOn(c))).toBeGreaterThanOrEqual(4.5);
  expect(contrast(readableOnWhite(c), "#ffffff")).toBeGreaterThanOrEqual(4.5);
});

test("a colour that already reads on white is kept; light ones get dark text, dark ones white", () => {
  expect(readableOnWhite("#0b3d91")).toBe("#0b3d91");
  expect(textOn("#ffff00")).toBe("#000000");
  expect(textOn("#0b3d91")).toBe("#ffffff");
  expect(contrast("#ffffff", "#000000")).toBeCloseTo(21, 5);
});

test("brandVars falls back to the neutral colour for anything that is not #rrggbb", () => {
  expect(brandVars("red")).toContain("--brand: #3e4c59;");
  expect(brandVars("#FFFF00")).toBe("--brand: #ffff00; --on-brand: #000000; --brand-text: " + readableOnWhite("#ffff00") + ";");
});
