import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * Generic code names no family (docs/ARCHITECTURE.md §2): outside src/app (the composition root) and the
 * families' own folders, no string a user sees and no identifier names a family, its levels or its physics.
 * Comments may cite a family as an example; code may not depend on one.
 */
const FAMILY_WORDS = /interphyre|catapult|pass_the_parcel|two_body|reward[-_ ]?search|hopper|cartpole|pendulum|mujoco|box2d|planck/i;
const GENERIC = ["src", "agents", "tools"];

const genericFiles = (): string[] =>
  execFileSync("git", ["ls-files", ...GENERIC], { encoding: "utf8" })
    .split("\n")
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts") && !f.startsWith("src/app/"));

/** Every string literal, template piece and identifier of a file that names a family, with its line. */
const familyWordsIn = (file: string): string[] => {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    const text = ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node) || ts.isIdentifier(node) ? node.text : undefined;
    if (text !== undefined && FAMILY_WORDS.test(text)) {
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      found.push(`${file}:${line}: ${JSON.stringify(text.slice(0, 80))}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
};

describe("generic code", () => {
  it("names no family in its strings or identifiers (src/ but src/app, agents/, tools/)", () => {
    const files = genericFiles();
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap(familyWordsIn)).toEqual([]);
  });

  it("the check finds a family's name where one is written", () => {
    const file = "test/fixtures/family-words/names-a-family.ts";
    expect(familyWordsIn(file)).toEqual([`${file}:2: "catapult"`, `${file}:3: "rewardSearchTrainer"`]);
  });
});
