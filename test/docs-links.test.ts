import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * The README and the pages under docs/ link to each other by relative paths and #anchors; a page moved or a
 * heading renamed breaks them silently. This checks every such link against the files and headings that exist,
 * and keeps the README a front page (CONTRIBUTING.md, "Documentation").
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const README_MAX_LINES = 200;
const FIRST_SCREEN_LINES = 30;

/** Markdown files under dir, recursively. */
const markdownUnder = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownUnder(path);
    return entry.name.endsWith(".md") ? [path] : [];
  });

const PAGES = [...["README.md", "CONTRIBUTING.md", "CHANGELOG.md"].map((name) => join(ROOT, name)), ...markdownUnder(join(ROOT, "docs"))];

/** The prose of a page: fenced code blocks and inline code spans removed, so examples are not read as links. */
const prose = (markdown: string): string => markdown.replace(/^```[^\n]*\n[\s\S]*?^```[^\n]*$/gm, "").replace(/`[^`\n]*`/g, "");

/** Link targets in a page's prose: [text](target) and ![alt](target), titles dropped. */
const linkTargets = (markdown: string): string[] => [...prose(markdown).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1] ?? "");

/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
const headingAnchors = (markdown: string): Set<string> => {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, text] of prose(markdown).matchAll(/^#{1,6}[ \t]+(.+?)[ \t]*#*$/gm)) {
    const slug = (text ?? "")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .trim()
      .replace(/\s/g, "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
};

const isExternal = (target: string): boolean => /^[a-z][a-z0-9+.-]*:/i.test(target);

/** What is wrong with one link from the page at `from`, or undefined when it leads somewhere real. */
const brokenLink = (from: string, target: string): string | undefined => {
  const [path = "", anchor] = target.split("#", 2);
  const file = path === "" ? from : resolve(dirname(from), decodeURIComponent(path));
  if (!existsSync(file)) return `${target}: no file ${relative(ROOT, file)}`;
  if (anchor === undefined || anchor === "" || !file.endsWith(".md")) return undefined;
  return headingAnchors(readFileSync(file, "utf8")).has(anchor) ? undefined : `${target}: ${relative(ROOT, file)} has no heading #${anchor}`;
};

/** Every broken relative link of one page, each as "page: target: why". */
const brokenLinksOf = (page: string, markdown: string): string[] =>
  linkTargets(markdown)
    .filter((target) => !isExternal(target))
    .flatMap((target) => {
      const why = brokenLink(page, target);
      return why === undefined ? [] : [`${relative(ROOT, page)}: ${why}`];
    });

describe("links in the README and docs/", () => {
  it("finds the links it checks, and reports a missing file and a missing heading", () => {
    const page = join(ROOT, "docs", "sample.md");
    const sample = "See [guide](guides/getting-started.md#the-quickstart), [gone](guides/gone.md) and [bad](README.md#no-such-heading).\n";
    expect(brokenLinksOf(page, sample)).toEqual([
      "docs/sample.md: guides/gone.md: no file docs/guides/gone.md",
      "docs/sample.md: README.md#no-such-heading: docs/README.md has no heading #no-such-heading",
    ]);
    expect(linkTargets("```sh\n[not](a-link.md)\n```\n`[nor](this.md)` [yes](that.md)")).toEqual(["that.md"]);
  });

  it("every relative link leads to a file that exists, and every #anchor to a heading of that page", () => {
    const checked = PAGES.flatMap((page) => linkTargets(readFileSync(page, "utf8")).filter((target) => !isExternal(target)));
    expect(checked.length).toBeGreaterThan(100);
    expect(PAGES.flatMap((page) => brokenLinksOf(page, readFileSync(page, "utf8")))).toEqual([]);
  });

  it("every page under docs/ is linked from the README or the docs index", () => {
    const index = [join(ROOT, "README.md"), join(ROOT, "docs", "README.md"), join(ROOT, "docs", "benchmarks", "README.md")];
    const linked = new Set(
      index.flatMap((page) => linkTargets(readFileSync(page, "utf8")).map((target) => resolve(dirname(page), target.split("#")[0] ?? ""))),
    );
    const unlinked = PAGES.filter((page) => page.startsWith(join(ROOT, "docs")) && !index.includes(page) && !linked.has(page));
    expect(unlinked.map((page) => relative(ROOT, page))).toEqual([]);
  });
});

describe("the README as a front page", () => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8").split("\n");

  it(`stays within ${README_MAX_LINES} lines`, () => {
    expect(readme.length).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it("shows the quickstart and the test command CI runs on its first screen", () => {
    const firstScreen = readme.slice(0, FIRST_SCREEN_LINES);
    expect(firstScreen.some((line) => line.startsWith("npm ci && ./hexa run configs/quickstart.yaml "))).toBe(true);
    expect(firstScreen.some((line) => line.startsWith("npm ci && npm test "))).toBe(true);
  });
});
