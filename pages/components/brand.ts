// The merchant's brand colour on buyer pages, kept readable (WCAG 2.1 AA): text on a brand-coloured surface is
// black or white, whichever contrasts more, and a colour used as text or a border on white is darkened until it
// reaches 4.5:1. Pure functions of the #rrggbb the application stores (applications.service.ts brandColor).

export const DEFAULT_BRAND = "#3e4c59";

function channels(hex: string): [number, number, number] {
  const h = /^#[0-9a-f]{6}$/i.test(hex) ? hex : DEFAULT_BRAND;
  return [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16)) as [number, number, number];
}

/** WCAG relative luminance of a #rrggbb colour. */
function luminance(hex: string): number {
  const [r, g, b] = channels(hex).map((c) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG contrast ratio of two #rrggbb colours (1 to 21). */
export function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/** Black or white: the text colour that reads best on `background`. */
export function textOn(background: string): "#ffffff" | "#000000" {
  return contrast(background, "#ffffff") >= contrast(background, "#000000") ? "#ffffff" : "#000000";
}

/** `hex` darkened (toward black, keeping its hue) until it reads at `ratio`:1 on white; unchanged if it already does. */
export function readableOnWhite(hex: string, ratio = 4.5): string {
  let [r, g, b] = channels(hex);
  const toHex = () => `#${[r, g, b].map((c) => Math.round(c).toString(16).padStart(2, "0")).join("")}`;
  for (let i = 0; i < 40 && contrast(toHex(), "#ffffff") < ratio; i++) [r, g, b] = [r * 0.92, g * 0.92, b * 0.92];
  return toHex();
}

/** The CSS custom properties a buyer page sets from the brand colour. */
export function brandVars(brandColor: string | null | undefined): string {
  const brand = brandColor && /^#[0-9a-f]{6}$/i.test(brandColor) ? brandColor.toLowerCase() : DEFAULT_BRAND;
  return `--brand: ${brand}; --on-brand: ${textOn(brand)}; --brand-text: ${readableOnWhite(brand)};`;
}
