// The one PDF renderer (pdfmake): quotes and invoices draw their documents, this turns them into bytes. pdfmake and
// its font stack load on the first PDF, not at every process start, and are configured once: the bundled Roboto
// fonts, nothing fetched while rendering, and only the fonts' own folder readable from disk (an image path in a
// document could reach nothing else).
import path from "node:path";
import type { TDocumentDefinitions } from "pdfmake/interfaces";

type PdfMake = typeof import("pdfmake");
let engine: PdfMake | null = null;

function pdfmake(): PdfMake {
  if (engine) return engine;
  const pm = require("pdfmake") as PdfMake;
  pm.setFonts(require("pdfmake/fonts/Roboto.js"));
  pm.setUrlAccessPolicy(() => false);
  const fontsDir = path.dirname(require.resolve("pdfmake/fonts/Roboto.js")) + path.sep;
  pm.setLocalAccessPolicy((file) => path.resolve(file).startsWith(fontsDir));
  return (engine = pm);
}

/** Renders a pdfmake document definition to PDF bytes. */
export async function renderPdf(doc: TDocumentDefinitions): Promise<Buffer> {
  return Buffer.from(await pdfmake().createPdf(doc).getBuffer());
}
