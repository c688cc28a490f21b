// The frame every branded buyer page shares (quote link, request form, update-card page): the merchant's name and
// logo, its brand colour (a #rrggbb value, else a neutral one) fed to the page's own stylesheet, the nonce-bound
// style and optional script, and the page as a doctype'd string. The stylesheet gets --brand, --on-brand (black or
// white, whichever reads on the brand) and --brand-text (the brand darkened to 4.5:1 on white) from ./brand.ts.
import type { ComponentChildren, VNode } from "preact";
import { renderToString } from "preact-render-to-string";
import { brandVars, DEFAULT_BRAND } from "./brand";

export interface Brand {
  name: string;
  logoUrl: string | null;
  brandColor: string | null;
}

const COLOR = /^#[0-9a-fA-F]{6}$/;

/**
 * `head` / `end`: elements placed last in <head> / last in <body>, after the page's own script (the checkout's
 * application scripts and their reporter).
 */
export function Shell(p: {
  nonce: string;
  title: string;
  brand: Brand;
  css: (brandColor: string) => string;
  children: ComponentChildren;
  script?: string;
  scriptType?: "module";
  head?: ComponentChildren;
  end?: ComponentChildren;
}) {
  const color = p.brand.brandColor && COLOR.test(p.brand.brandColor) ? p.brand.brandColor : DEFAULT_BRAND;
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{p.title}</title>
        <link rel="icon" href="data:," />
        <style nonce={p.nonce} dangerouslySetInnerHTML={{ __html: `:root { ${brandVars(color)} }\n${p.css(color)}` }} />
        {p.head}
      </head>
      <body>
        <header>
          {p.brand.logoUrl && /^https:\/\//.test(p.brand.logoUrl) ? <img src={p.brand.logoUrl} alt={p.brand.name} /> : null}
          <strong>{p.brand.name}</strong>
        </header>
        <main>{p.children}</main>
        {p.script ? <script nonce={p.nonce} type={p.scriptType} dangerouslySetInnerHTML={{ __html: p.script }} /> : null}
        {p.end}
      </body>
    </html>
  );
}

export const html = (node: VNode) => "<!doctype html>" + renderToString(node);
