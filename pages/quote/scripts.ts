// The two small scripts of the buyer pages; both only improve what already works without them.

/**
 * Live totals: the server's rules (selected lines x quantity, plus flat shipping, plus each frozen tax rate on that,
 * half up as shared/money's applyBps; the deposit floor). Run once on load too: an error re-render shows the buyer's
 * own choices.
 */
export const LIVE_TOTALS = `
const form = document.getElementById("accept-form");
if (form) {
  const fmt = new Intl.NumberFormat("en-US", { style: "currency", currency: form.dataset.currency, currencyDisplay: "code" });
  const digits = fmt.resolvedOptions().maximumFractionDigits;
  const money = (n) => fmt.format(n / 10 ** digits).replace(/\\u00a0/g, " ");
  const recompute = () => {
    let subtotal = 0;
    for (const row of form.querySelectorAll("tr[data-line]")) {
      const include = row.querySelector("[data-include]");
      const qtyInput = row.querySelector("[data-qty-input]");
      const qty = qtyInput ? Math.max(1, Math.floor(Number(qtyInput.value) || 0)) : Number(row.dataset.qty);
      const on = include ? include.checked : true;
      const amount = Number(row.dataset.price) * qty;
      row.classList.toggle("off", !on);
      row.querySelector("[data-amount]").textContent = on ? money(amount) : "Not included";
      if (on) subtotal += amount;
    }
    const taxable = subtotal + Number(form.dataset.shipping || 0);
    let tax = 0;
    for (const row of form.querySelectorAll("tr[data-tax-line]")) {
      const amount = Math.floor((taxable * Number(row.dataset.taxBps) + 5000) / 10000);
      row.querySelector("[data-tax-amount]").textContent = money(amount);
      tax += amount;
    }
    const total = taxable + tax;
    document.getElementById("subtotal").textContent = money(subtotal);
    document.getElementById("total").textContent = money(total);
    const bar = document.getElementById("bar-total");
    if (bar) bar.textContent = money(total);
    const deposit = form.dataset.deposit ? Number(form.dataset.deposit) : null;
    if (deposit !== null && total <= deposit) document.getElementById("messages").textContent = "This selection totals " + money(total) + ", at or below the deposit of " + money(deposit) + "; include more lines.";
  };
  form.addEventListener("input", recompute);
  form.addEventListener("change", recompute);
  recompute();
}`;

/**
 * Item rows of the request form without a round trip: "Add another item" clones the last row empty, "Remove" drops
 * one. Without JavaScript both buttons submit the form and the server re-renders it with one row more or less.
 */
export const ITEM_ROWS = `
const list = document.getElementById("item-rows");
const add = document.getElementById("add-row");
if (list && add) {
  const renumber = () => {
    const rows = list.querySelectorAll("[data-item-row]");
    rows.forEach((row, n) => {
      row.querySelector("[data-row-title]").textContent = "Item " + (n + 1);
      for (const el of row.querySelectorAll("[data-field]")) {
        const f = el.dataset.field;
        el.id = "item-" + n + "-" + f;
        el.name = "items." + n + "." + f;
      }
      for (const l of row.querySelectorAll("label[data-for]")) l.htmlFor = "item-" + n + "-" + l.dataset.for;
      const rm = row.querySelector("[data-remove]");
      rm.value = String(n);
      rm.setAttribute("aria-label", "Remove item " + (n + 1));
      rm.hidden = rows.length === 1;
    });
    document.getElementById("row-count").value = String(rows.length);
  };
  add.addEventListener("click", (e) => {
    e.preventDefault();
    const rows = list.querySelectorAll("[data-item-row]");
    const row = rows[rows.length - 1].cloneNode(true);
    for (const el of row.querySelectorAll("input")) el.value = "";
    list.appendChild(row);
    renumber();
    row.querySelector("input").focus();
  });
  list.addEventListener("click", (e) => {
    const rm = e.target.closest("[data-remove]");
    if (!rm) return;
    e.preventDefault();
    const row = rm.closest("[data-item-row]");
    if (list.querySelectorAll("[data-item-row]").length > 1) row.remove();
    renumber();
    add.focus();
  });
}`;
