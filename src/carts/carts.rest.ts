import { Router } from "express";

export function cartsRouter() {
  const r = Router();
  return r;
}
