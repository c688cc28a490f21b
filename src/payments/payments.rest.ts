import { Router } from "express";

export function paymentsRouter() {
  const r = Router();
  return r;
}
