import { Router } from "express";

export function shippingTaxRouter() {
  const r = Router();
  return r;
}
