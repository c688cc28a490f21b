/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// The checkout form: contact, shipping and billing addresses (billing "same as shipping" by default, hidden by CSS
// while ticked, so it works without JavaScript), the payment methods on offer with their fields, and a button that
// says what it does ("Pay USD 84.00", "Pay the deposit of …", "Place order on Net 30 terms"). Every control has a
// label; an error sits under its field (role="alert", linked by aria-describedby) and the field keeps its value.
import { netTermsText, type CheckoutPageView } from "../../src/checkout/checkout-page.service";
import type { Address } from "../../src/shared/address";
import { formatMoney } from "../../src/shared/money";
import { COUNTRIES } from "./countries";
import type { FieldErrors, Fields } from "./form-input";

const idOf = (name: string) => name.replace(/\./g, "-");

/** One labelled input (or select) with its error under it. */
function Field(p: { name: string; label: string; values: Fields; errors: FieldErrors; type?: "text" | "email"; autocomplete?: string; required?: boolean; help?: string; inputMode?: string }) {
  const id = idOf(p.name);
  const err = p.errors[p.name];
  const describedBy = [p.help ? `help-${id}` : null, err ? `err-${id}` : null].filter(Boolean).join(" ") || undefined;
  return (
    <div class="field">
      <label for={id}>
        {p.label}
        {p.required ? null : <span class="muted"> (optional)</span>}
      </label>
      <input
        type={p.type ?? "text"}
        id={id}
        name={p.name}
        value={p.values[p.name] ?? ""}
        autocomplete={p.autocomplete}
        inputMode={p.inputMode as any}
        aria-required={p.required ? "true" : undefined}
        aria-invalid={err ? "true" : undefined}
        aria-describedby={describedBy}
      />
      {p.help ? (
        <p class="muted" id={`help-${id}`}>
          {p.help}
        </p>
      ) : null}
      <FieldError id={`err-${id}`} message={err} />
    </div>
  );
}

function FieldError(p: { id: string; message: string | undefined }) {
  return p.message ? (
    <p class="field-error" id={p.id} role="alert">
      {p.message}
    </p>
  ) : null;
}

function CountrySelect(p: { name: string; values: Fields; errors: FieldErrors; section: string }) {
  const id = idOf(p.name);
  const err = p.errors[p.name];
  const value = (p.values[p.name] || "US").toUpperCase();
  return (
    <div class="field">
      <label for={id}>Country or region</label>
      <select id={id} name={p.name} autocomplete={`${p.section} country`} aria-invalid={err ? "true" : undefined} aria-describedby={err ? `err-${id}` : undefined}>
        {COUNTRIES.map((c) => (
          <option value={c.code} selected={c.code === value}>
            {c.name}
          </option>
        ))}
      </select>
      <FieldError id={`err-${id}`} message={err} />
    </div>
  );
}

function AddressFields(p: { prefix: "shippingAddress" | "billingAddress"; values: Fields; errors: FieldErrors }) {
  const section = p.prefix === "shippingAddress" ? "shipping" : "billing";
  const f = (k: string) => `${p.prefix}.${k}`;
  const common = { values: p.values, errors: p.errors };
  return (
    <>
      <Field name={f("addressLine1")} label="Street address" autocomplete={`${section} address-line1`} required {...common} />
      <Field name={f("addressLine2")} label="Apartment, suite, floor" autocomplete={`${section} address-line2`} {...common} />
      <div class="row">
        <Field name={f("city")} label="Town or city" autocomplete={`${section} address-level2`} required {...common} />
        <Field name={f("stateProvince")} label="State or province" autocomplete={`${section} address-level1`} {...common} />
      </div>
      <div class="row">
        <Field name={f("postalCode")} label="Postal code" autocomplete={`${section} postal-code`} {...common} />
        <CountrySelect name={f("countryCode")} section={section} {...common} />
      </div>
    </>
  );
}

/** The form's starting values: what the buyer typed (after an error), else what the session, cart, customer and quote know. */
export function initialValues(v: CheckoutPageView): Fields {
  const out: Fields = {};
  const put = (prefix: string, a: Address | null) => {
    if (a) for (const [k, x] of Object.entries(a)) if (x) out[`${prefix}.${k}`] = String(x);
  };
  put("shippingAddress", v.prefill.shippingAddress);
  put("billingAddress", v.prefill.billingAddress);
  if (v.prefill.email) out.email = v.prefill.email;
  if (v.prefill.companyName) out.companyName = v.prefill.companyName;
  if (v.prefill.billingEmail) out.billingEmail = v.prefill.billingEmail;
  const same = !v.prefill.billingAddress || JSON.stringify(v.prefill.billingAddress) === JSON.stringify(v.prefill.shippingAddress);
  if (same) out.billingSameAsShipping = "1";
  if (v.methods[0]) out.paymentMethod = v.methods[0].method;
  if (v.sandbox) out.paymentToken = "tok_visa";
  return out;
}

function buttonLabel(v: CheckoutPageView, method: string): string {
  const money = (n: number) => formatMoney(n, v.cart.currency);
  if (method === "net30") return `Place order on Net ${v.netN} terms`;
  return v.deposit ? `Pay the deposit of ${money(v.deposit.amount)}` : `Pay ${money(v.cart.total)}`;
}

export function CheckoutForm(p: { v: CheckoutPageView; values: Fields; errors: FieldErrors; askShipping: boolean }) {
  const { v, values, errors } = p;
  const common = { values, errors };
  const askBilling = v.session.collectBilling;
  const method = values.paymentMethod && v.methods.some((m) => m.method === values.paymentMethod) ? values.paymentMethod : (v.methods[0]?.method ?? "card");
  const offers = (m: string) => v.methods.some((x) => x.method === m);
  const labels = Object.fromEntries(v.methods.map((m) => [`data-label-${m.method}`, buttonLabel(v, m.method)]));
  return (
    <form id="pay" class="card" method="post" action={`/checkout/${v.session.id}`} data-session={v.session.id} novalidate>
      <fieldset>
        <legend>Contact</legend>
        <Field name="email" type="email" label="Email" autocomplete="email" required help="Your receipt goes to this address." {...common} />
      </fieldset>
      {p.askShipping ? (
        <fieldset id="shipping">
          <legend>Shipping address</legend>
          <AddressFields prefix="shippingAddress" {...common} />
        </fieldset>
      ) : null}
      {askBilling ? (
        <fieldset id="billing">
          <legend>Billing address</legend>
          {p.askShipping ? (
            <label class="choice" for="same">
              <input type="checkbox" id="same" name="billingSameAsShipping" value="1" checked={values.billingSameAsShipping === "1"} />
              Same as shipping address
            </label>
          ) : null}
          <div id="billing-fields">
            <AddressFields prefix="billingAddress" {...common} />
          </div>
        </fieldset>
      ) : null}
      <fieldset id="payment" aria-describedby={errors.paymentMethod ? "err-paymentMethod" : undefined}>
        <legend>Payment</legend>
        {v.methods.length === 0 ? <p class="alert">No payment method is available for this order. Please contact the store.</p> : null}
        {v.methods.length > 1 ? (
          <div class="choices">
            {v.methods.map((m) => (
              <label class="choice" for={`method-${m.method}`}>
                <input type="radio" id={`method-${m.method}`} name="paymentMethod" value={m.method} checked={m.method === method} />
                {m.method === "net30" ? `Invoice on Net ${v.netN} terms` : m.displayName}
              </label>
            ))}
          </div>
        ) : v.methods.length === 1 ? (
          <input type="hidden" name="paymentMethod" value={method} />
        ) : null}
        <FieldError id="err-paymentMethod" message={errors.paymentMethod} />
        {offers("card") ? (
          <div class="method" data-method-fields="card">
            {v.deposit ? (
              <p class="muted" id="deposit-note">
                Your card pays the deposit of {formatMoney(v.deposit.amount, v.cart.currency)} now. The balance of {formatMoney(v.cart.total - v.deposit.amount, v.cart.currency)} is invoiced on Net {v.deposit.balanceNetN} terms.
              </p>
            ) : null}
            <Field
              name="paymentToken"
              label={v.sandbox ? "Card (test token)" : "Card"}
              autocomplete="off"
              required
              help={v.sandbox ? "Sandbox: use tok_visa (paid), tok_visa_authorize (charged at shipping), tok_card_declined or tok_3ds_required." : undefined}
              {...common}
            />
          </div>
        ) : null}
        {offers("net30") ? (
          <div class="method" data-method-fields="net30">
            <p class="terms" id="terms">
              {netTermsText(v.netN)}
            </p>
            <Field name="companyName" label="Company" autocomplete="organization" required {...common} />
            <Field name="billingEmail" type="email" label="Email for invoices" autocomplete="email" required {...common} />
            <label class="choice" for="acceptTerms">
              <input type="checkbox" id="acceptTerms" name="acceptTerms" value="1" checked={values.acceptTerms === "1"} aria-invalid={errors.acceptTerms ? "true" : undefined} aria-describedby={errors.acceptTerms ? "err-acceptTerms" : "terms"} />
              I accept the Net {v.netN} terms above
            </label>
            <FieldError id="err-acceptTerms" message={errors.acceptTerms} />
          </div>
        ) : null}
      </fieldset>
      <button type="submit" id="submit" data-method={method} {...labels} disabled={v.methods.length === 0}>
        {buttonLabel(v, method)}
      </button>
    </form>
  );
}
