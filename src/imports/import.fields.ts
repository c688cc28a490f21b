// The target fields a column can be mapped to, per entity, and the suggestion for a header: a header is compared
// after lower-casing and dropping everything but letters and digits ("E-mail Address" -> "emailaddress").
export const CUSTOMER_FIELDS = [
  "customer.email",
  "customer.externalId",
  "customer.name",
  "customer.firstName",
  "customer.lastName",
  "customer.company",
  "customer.phone",
  "customer.netTermsDays",
] as const;

export const ORDER_FIELDS = [
  "order.externalId",
  "order.date",
  "order.status",
  "order.paymentStatus",
  "order.fulfillmentStatus",
  "order.currency",
  "order.subtotal",
  "order.taxTotal",
  "order.shippingTotal",
  "order.discountTotal",
  "order.total",
  "order.notes",
  "line.name",
  "line.sku",
  "line.quantity",
  "line.unitPrice",
  "billing.name",
  "billing.company",
  "billing.phone",
  "billing.addressLine1",
  "billing.addressLine2",
  "billing.city",
  "billing.stateProvince",
  "billing.postalCode",
  "billing.countryCode",
  "shipping.name",
  "shipping.company",
  "shipping.phone",
  "shipping.addressLine1",
  "shipping.addressLine2",
  "shipping.city",
  "shipping.stateProvince",
  "shipping.postalCode",
  "shipping.countryCode",
  ...CUSTOMER_FIELDS,
] as const;

export type ImportEntity = "customer" | "order";
export const IMPORT_ENTITIES = ["customer", "order"] as const;
export const PROVIDERS = ["shopify", "woocommerce"] as const;
export type Provider = (typeof PROVIDERS)[number];

export function targetFields(entity: ImportEntity): readonly string[] {
  return entity === "customer" ? CUSTOMER_FIELDS : ORDER_FIELDS;
}

const norm = (h: string) => h.toLowerCase().replace(/[^a-z0-9]/g, "");

/** Normalised header -> field, for customer files (generic names, Shopify and WooCommerce export names). */
const CUSTOMER_SYNONYMS: Record<string, string> = {
  email: "customer.email",
  emailaddress: "customer.email",
  mail: "customer.email",
  customeremail: "customer.email",
  billingemail: "customer.email",
  id: "customer.externalId",
  externalid: "customer.externalId",
  customerid: "customer.externalId",
  customernumber: "customer.externalId",
  name: "customer.name",
  fullname: "customer.name",
  customername: "customer.name",
  firstname: "customer.firstName",
  givenname: "customer.firstName",
  lastname: "customer.lastName",
  surname: "customer.lastName",
  familyname: "customer.lastName",
  company: "customer.company",
  companyname: "customer.company",
  organization: "customer.company",
  organisation: "customer.company",
  defaultaddresscompany: "customer.company",
  billingcompany: "customer.company",
  phone: "customer.phone",
  phonenumber: "customer.phone",
  telephone: "customer.phone",
  mobile: "customer.phone",
  defaultaddressphone: "customer.phone",
  billingphone: "customer.phone",
  nettermsdays: "customer.netTermsDays",
  netterms: "customer.netTermsDays",
  paymentterms: "customer.netTermsDays",
};

/** The suggested target of each header (null when none), never suggesting one field twice (first header wins). */
export function suggestFields(entity: ImportEntity, headers: string[]): Record<string, string | null> {
  const allowed = new Set(targetFields(entity));
  const taken = new Set<string>();
  const out: Record<string, string | null> = {};
  for (const h of headers) {
    const n = norm(h);
    let f: string | null = CUSTOMER_SYNONYMS[n] ?? null;
    if (!f) {
      // "customer.email" written as the header itself
      const direct = [...allowed].find((a) => norm(a) === n || norm(a.split(".")[1] ?? "") === n);
      f = direct ?? null;
    }
    if (f && (!allowed.has(f) || taken.has(f))) f = null;
    if (f) taken.add(f);
    out[h] = f;
  }
  return out;
}

/** The store platform whose customer export these headers look like, or null. */
export function matchTemplate(headers: string[]): Provider | null {
  const n = new Set(headers.map(norm));
  if (n.has("acceptsemailmarketing") || n.has("defaultaddressaddress1") || (n.has("customerid") && n.has("totalspent"))) return "shopify";
  if (n.has("billingfirstname") || n.has("billingaddress1") || n.has("billingphone") || (n.has("customerid") && n.has("username"))) return "woocommerce";
  return null;
}
