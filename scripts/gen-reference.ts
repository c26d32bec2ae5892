/**
 * Writes the generated references under docs/reference/ (docs/README.md): `npm run docs:reference`.
 * test/docs-reference.test.ts generates them again in memory and fails when a committed page differs.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { REFERENCES } from "./reference/pages.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

for (const page of REFERENCES) {
  writeFileSync(join(ROOT, page.path), await page.generate());
  process.stdout.write(`wrote ${page.path}\n`);
}
