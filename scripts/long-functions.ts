/**
 * Lists the functions longer than a limit (default 80 lines; docs/spec/style.md §16), longest first:
 * `path:line  lines  name`, and exits 1 when it found any (`npm run lint` runs it). Test files and the tables of
 * data in `ALLOWED` are left out. Run with `npm run --silent lint:long-functions [-- --max N] [folders…]`.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import ts from "typescript";

/** Files whose long functions are tables of data or have their own owner (docs/ARCHITECTURE.md). */
const ALLOWED: readonly RegExp[] = [/\.test\.ts$/, /^test\//, /\.d\.ts$/];

interface LongFunction {
  file: string;
  line: number;
  lines: number;
  name: string;
}

const nameOf = (node: ts.Node, source: ts.SourceFile): string => {
  const named = node as ts.Node & { name?: ts.Node };
  if (named.name) return named.name.getText(source);
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent)) return parent.name.getText(source);
  if (parent && ts.isPropertyAssignment(parent)) return parent.name.getText(source);
  if (parent && ts.isCallExpression(parent)) return `(callback of ${parent.expression.getText(source).slice(0, 40)})`;
  return "(anonymous)";
};

const longFunctionsIn = (file: string, max: number): LongFunction[] => {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const found: LongFunction[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && (node as ts.FunctionLikeDeclaration).body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      if (lines > max) found.push({ file, line: start + 1, lines, name: nameOf(node, source) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
};

const args = process.argv.slice(2);
const maxAt = args.indexOf("--max");
const max = maxAt >= 0 ? Number(args[maxAt + 1]) : 80;
if (!Number.isInteger(max) || max < 1) {
  process.stderr.write(`--max takes a whole number of lines (got ${JSON.stringify(args[maxAt + 1])})\n`);
  process.exit(2);
}
const folders = maxAt >= 0 ? [...args.slice(0, maxAt), ...args.slice(maxAt + 2)] : args;
const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "--", ...(folders.length ? folders : ["."])], { encoding: "utf8" })
  .split("\n")
  .filter((f) => /\.(ts|mts)$/.test(f) && !ALLOWED.some((r) => r.test(f)));
const long = files.flatMap((f) => longFunctionsIn(f, max)).sort((a, b) => b.lines - a.lines);
for (const f of long) process.stdout.write(`${`${f.file}:${f.line}`.padEnd(60)} ${String(f.lines).padStart(4)}  ${f.name}\n`);
process.stdout.write(`${long.length} function(s) over ${max} lines in ${files.length} files\n`);
if (long.length > 0) process.exitCode = 1;
