// The target fields a column can be mapped to, per entity, and the suggestion for a header: a header is compared
// after lower-casing and dropping everything but letters and digits ("E-mail Address" -> "emailaddress").
const CUSTOMER_FIELDS = [
  "customer.email",
  "customer.externalId",
  "customer.name",
  "customer.firstName",
  "customer.lastName",
  "customer.company",
  "customer.phone",
  "customer.netTermsDays",
] as const;

const ORDER_FIELDS = [
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
  "order.cancelledAt",
  "line.name",
  "line.sku",
  "line.quantity",
  "line.unitPrice",
  "line.requiresShipping",
  "billing.email",
  "billing.name",
  "billing.firstName",
  "billing.lastName",
  "billing.company",
  "billing.phone",
  "billing.addressLine1",
  "billing.addressLine2",
  "billing.city",
  "billing.stateProvince",
  "billing.postalCode",
  "billing.countryCode",
  "shipping.name",
  "shipping.firstName",
  "shipping.lastName",
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
type Provider = (typeof PROVIDERS)[number];

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

/**
 * Normalised header -> field, for order files: Shopify's orders export ("Name" is the order number, one row per
 * line item), WooCommerce's order export ("Order Number", "Item Name", "Order Total Amount"...), and generic names.
 * Consulted before CUSTOMER_SYNONYMS; a null entry hides a customer synonym that means something else in an
 * order file (Shopify's "Id" is its internal order id, not a customer id).
 */
const ORDER_SYNONYMS: Record<string, string | null> = {
  // order number
  name: "order.externalId",
  ordernumber: "order.externalId",
  orderno: "order.externalId",
  ordername: "order.externalId",
  orderexternalid: "order.externalId",
  id: null,
  // dates and statuses
  createdat: "order.date",
  orderdate: "order.date",
  date: "order.date",
  orderedat: "order.date",
  status: "order.status",
  orderstatus: "order.status",
  financialstatus: "order.paymentStatus",
  paymentstatus: "order.paymentStatus",
  fulfillmentstatus: "order.fulfillmentStatus",
  fulfilmentstatus: "order.fulfillmentStatus",
  cancelledat: "order.cancelledAt",
  canceledat: "order.cancelledAt",
  // money
  currency: "order.currency",
  ordercurrency: "order.currency",
  subtotal: "order.subtotal",
  ordersubtotalamount: "order.subtotal",
  ordersubtotal: "order.subtotal",
  shipping: "order.shippingTotal",
  shippingtotal: "order.shippingTotal",
  ordershippingamount: "order.shippingTotal",
  taxes: "order.taxTotal",
  tax: "order.taxTotal",
  taxtotal: "order.taxTotal",
  ordertotaltaxamount: "order.taxTotal",
  discountamount: "order.discountTotal",
  discount: "order.discountTotal",
  discounttotal: "order.discountTotal",
  cartdiscountamount: "order.discountTotal",
  orderdiscountamount: "order.discountTotal",
  total: "order.total",
  ordertotal: "order.total",
  ordertotalamount: "order.total",
  notes: "order.notes",
  note: "order.notes",
  customernote: "order.notes",
  // lines
  lineitemname: "line.name",
  itemname: "line.name",
  product: "line.name",
  productname: "line.name",
  item: "line.name",
  lineitemsku: "line.sku",
  itemsku: "line.sku",
  sku: "line.sku",
  lineitemquantity: "line.quantity",
  quantity: "line.quantity",
  qty: "line.quantity",
  itemquantity: "line.quantity",
  lineitemprice: "line.unitPrice",
  itemcost: "line.unitPrice",
  unitprice: "line.unitPrice",
  price: "line.unitPrice",
  itemprice: "line.unitPrice",
  lineitemrequiresshipping: "line.requiresShipping",
  requiresshipping: "line.requiresShipping",
  // customer
  email: "customer.email",
  customeremail: "customer.email",
  customeremailbilling: "customer.email",
  billingemail: "billing.email",
  customername: "customer.name",
  // addresses (Shopify: "Billing Address1", "Billing Zip", "Billing Province"; WooCommerce: "Billing Address 1",
  // "Billing Postcode", "Billing State")
  billingname: "billing.name",
  billingfirstname: "billing.firstName",
  billinglastname: "billing.lastName",
  billingcompany: "billing.company",
  billingphone: "billing.phone",
  billingaddress1: "billing.addressLine1",
  billingaddress2: "billing.addressLine2",
  billingcity: "billing.city",
  billingprovince: "billing.stateProvince",
  billingprovincecode: "billing.stateProvince",
  billingstate: "billing.stateProvince",
  billingzip: "billing.postalCode",
  billingpostcode: "billing.postalCode",
  billingpostalcode: "billing.postalCode",
  billingcountry: "billing.countryCode",
  billingcountrycode: "billing.countryCode",
  shippingname: "shipping.name",
  shippingfirstname: "shipping.firstName",
  shippinglastname: "shipping.lastName",
  shippingcompany: "shipping.company",
  shippingphone: "shipping.phone",
  shippingaddress1: "shipping.addressLine1",
  shippingaddress2: "shipping.addressLine2",
  shippingcity: "shipping.city",
  shippingprovince: "shipping.stateProvince",
  shippingprovincecode: "shipping.stateProvince",
  shippingstate: "shipping.stateProvince",
  shippingzip: "shipping.postalCode",
  shippingpostcode: "shipping.postalCode",
  shippingpostalcode: "shipping.postalCode",
  shippingcountry: "shipping.countryCode",
  shippingcountrycode: "shipping.countryCode",
};
/** Headers that yield their field to a better header of the same file (WooCommerce: "Order Number" over "Order ID"). */
const WEAK_ORDER_SYNONYMS: Record<string, string> = { orderid: "order.externalId" };

/** The suggested target of each header (null when none), never suggesting one field twice (first header wins). */
export function suggestFields(entity: ImportEntity, headers: string[]): Record<string, string | null> {
  const allowed = new Set(targetFields(entity));
  const taken = new Set<string>();
  const out: Record<string, string | null> = {};
  for (const h of headers) {
    const n = norm(h);
    let f: string | null;
    if (entity === "order" && n in WEAK_ORDER_SYNONYMS) f = null; // decided after every other header
    else if (entity === "order" && n in ORDER_SYNONYMS) f = ORDER_SYNONYMS[n]!;
    else {
      f = CUSTOMER_SYNONYMS[n] ?? null;
      if (!f) {
        // "customer.email" written as the header itself
        const direct = [...allowed].find((a) => norm(a) === n || norm(a.split(".")[1] ?? "") === n);
        f = direct ?? null;
      }
    }
    if (f && (!allowed.has(f) || taken.has(f))) f = null;
    if (f) taken.add(f);
    out[h] = f;
  }
  // weak synonyms take a field only when no other header did
  if (entity === "order") {
    for (const h of headers) {
      const f = WEAK_ORDER_SYNONYMS[norm(h)];
      if (f && !taken.has(f) && out[h] === null) {
        out[h] = f;
        taken.add(f);
      }
    }
  }
  return out;
}

/** The store platform whose export (orders or customers) these headers look like, or null. */
export function matchTemplate(headers: string[]): Provider | null {
  const n = new Set(headers.map(norm));
  // order exports first: Shopify's orders export also has "Billing Address1", which alone reads as WooCommerce
  if (n.has("financialstatus") || (n.has("lineitemname") && n.has("lineitemquantity"))) return "shopify";
  if (n.has("ordertotalamount") || n.has("customeremailbilling") || (n.has("ordernumber") && (n.has("orderstatus") || n.has("itemname")))) return "woocommerce";
  // the names only one platform writes first: WooCommerce's customer export also has customer_id and total_spent
  if (n.has("acceptsemailmarketing") || n.has("defaultaddressaddress1")) return "shopify";
  if (n.has("billingfirstname") || n.has("billingaddress1") || n.has("billingphone")) return "woocommerce";
  if (n.has("customerid") && n.has("totalspent")) return "shopify";
  if (n.has("customerid") && n.has("username")) return "woocommerce";
  return null;
}
