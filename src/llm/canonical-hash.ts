import { createHash } from "node:crypto";
import { canonicalJson } from "../util/canonical-json.ts";

export const sha256Hex = (value: unknown): string => createHash("sha256").update(canonicalJson(value)).digest("hex");
