// The cart error codes of commerce.md part 7, plus cart_not_editable (the spec says only open carts should be
// mutated but names no code; this service answers 409 cart_not_editable, like order_not_editable).
import { DomainError, errors } from "../shared/errors";

export const cartErrors = {
  notFound: () => errors.notFound("Cart", "cart_not_found"),
  itemNotFound: () => errors.notFound("Line item"),
  notEditable: (status: string) =>
    new DomainError("cart_not_editable", `Only open carts can be changed; this cart is ${status}`, { status }),
  currencyMismatch: (requested: string, applicationCurrency: string) =>
    new DomainError("currency_mismatch", `Cart currency ${requested} differs from the application's currency ${applicationCurrency}`, {
      currency: requested,
      applicationCurrency,
    }),
  shippingCurrencyMismatch: (rateCurrency: string, cartCurrency: string) =>
    new DomainError("currency_mismatch", `Shipping rate currency ${rateCurrency} differs from the cart's currency ${cartCurrency}`, {
      currency: rateCurrency,
      cartCurrency,
      field: "currency",
    }),
  imageUrlUnresolvable: (imageUrl: string) =>
    new DomainError(
      "image_url_unresolvable",
      "imageUrl is a relative path but the application has no storefrontBaseUrl or allowedOrigins to resolve it against",
      { imageUrl },
    ),
};
