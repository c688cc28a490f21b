// zod-to-openapi writes a zod regex as its toString() without the slashes, so /^[0-9a-f]{64}$/i becomes
// "^[0-9a-f]{64}$/i": a pattern that can never match in JSON Schema, which has no flags. This folds the flags in:
// `i` by adding the other case of every ASCII letter (in and out of character classes); `g`, `u`, `y` and `d` do
// not change what a whole-value test accepts; `m`, `s` and `v` would, so a pattern with them is refused at build.

/** The JSON Schema pattern of a zod-to-openapi pattern string (regex source, possibly with `/flags`). */
export function jsonSchemaPattern(pattern: string): string {
  const m = /^(.*[^\\])\/([dgimsuvy]+)$/s.exec(pattern);
  if (!m) return pattern;
  const [, source, flags] = m;
  for (const f of flags) if ("msv".includes(f)) throw new Error(`OpenAPI: the pattern ${pattern} uses the ${f} flag, which JSON Schema cannot express`);
  return flags.includes("i") ? caseInsensitive(source) : source;
}

const isLower = (c: string) => c >= "a" && c <= "z";
const isUpper = (c: string) => c >= "A" && c <= "Z";
const other = (c: string) => (isLower(c) ? c.toUpperCase() : isUpper(c) ? c.toLowerCase() : null);

function caseInsensitive(source: string): string {
  let out = "";
  let i = 0;
  while (i < source.length) {
    const c = source[i];
    if (c === "\\") {
      out += source.slice(i, i + 2); // an escape (\d, \., \u…) keeps its meaning
      i += 2;
    } else if (c === "[") {
      const end = classEnd(source, i);
      out += caseInsensitiveClass(source.slice(i, end + 1));
      i = end + 1;
    } else if (c === "{" && /^\{\d+(,\d*)?\}/.test(source.slice(i))) {
      const q = /^\{\d+(,\d*)?\}/.exec(source.slice(i))![0]; // a quantifier, not letters
      out += q;
      i += q.length;
    } else if (c === "(" && source[i + 1] === "?") {
      const head = /^\(\?(?:<[A-Za-z_][A-Za-z0-9_]*>|[:=!]|<[=!])/.exec(source.slice(i))?.[0] ?? "(?"; // group syntax, not letters
      out += head;
      i += head.length;
    } else {
      const o = other(c);
      out += o ? `[${c}${o}]` : c;
      i += 1;
    }
  }
  return out;
}

function classEnd(source: string, start: number): number {
  let i = start + 1;
  if (source[i] === "^") i++;
  if (source[i] === "]") i++;
  while (i < source.length && source[i] !== "]") i += source[i] === "\\" ? 2 : 1;
  return i;
}

/** `[a-f0-9]` -> `[a-f0-9A-F]`: each letter or letter range gets its other case appended. */
function caseInsensitiveClass(cls: string): string {
  const body = cls.slice(1, -1);
  const negated = body.startsWith("^");
  const items = negated ? body.slice(1) : body;
  let extra = "";
  let i = 0;
  while (i < items.length) {
    if (items[i] === "\\") {
      i += 2;
      continue;
    }
    const c = items[i];
    if (items[i + 1] === "-" && i + 2 < items.length && items[i + 2] !== "\\") {
      const d = items[i + 2];
      if ((isLower(c) && isLower(d)) || (isUpper(c) && isUpper(d))) extra += `${other(c)}-${other(d)}`;
      i += 3;
    } else {
      const o = other(c);
      if (o) extra += o;
      i += 1;
    }
  }
  return `[${negated ? "^" : ""}${items}${extra}]`;
}
