import { Router } from "express";

export function ordersRouter() {
  const r = Router();
  return r;
}
