import { Router } from "express";

export function customersRouter() {
  const r = Router();
  return r;
}
