import { Router } from "express";

export function checkoutRouter() {
  const r = Router();
  return r;
}
