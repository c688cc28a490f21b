// The country select's options: every ISO 3166-1 alpha-2 code with its English name (Intl.DisplayNames), sorted by
// name. ICU also names regions that are not countries (EU, UN, pseudo-locales, deprecated codes such as BU for
// Burma): those are left out, so the list is the standard's 249 codes.
const NOT_COUNTRIES = new Set(["AC", "CP", "CQ", "DG", "EA", "EU", "EZ", "IC", "QO", "TA", "UN", "XA", "XB", "XK", "ZZ"]);

function build(): { code: string; name: string }[] {
  const names = new Intl.DisplayNames(["en"], { type: "region", fallback: "none" });
  const out: { code: string; name: string }[] = [];
  for (let a = 65; a <= 90; a++) {
    for (let b = 65; b <= 90; b++) {
      const code = String.fromCharCode(a, b);
      const name = NOT_COUNTRIES.has(code) ? undefined : names.of(code);
      if (!name || name === code || Intl.getCanonicalLocales(`und-${code}`)[0] !== `und-${code}`) continue;
      out.push({ code, name });
    }
  }
  return out.sort((x, y) => x.name.localeCompare(y.name, "en"));
}

export const COUNTRIES = build();
const BY_CODE = new Map(COUNTRIES.map((c) => [c.code, c.name]));

/** A country's name for a receipt ("United States"), or the code itself when it is not one of the list. */
export const countryName = (code: string | null | undefined) => (code ? (BY_CODE.get(code.toUpperCase()) ?? code) : "");
