declare const __HEXA_DIST__: true | undefined;

/** Whether this process runs hexa's compiled JavaScript (dist/, whose build defines the flag) rather than its TypeScript. */
export const RUNS_COMPILED = typeof __HEXA_DIST__ !== "undefined";

// import.meta.url is the source file's URL in both forms (scripts/build.mjs).
const ROOT = new URL("../../", import.meta.url).href;

/** The module a worker thread or child process starts for the source file `source`: its dist/ twin when compiled. */
export const runnableModule = (source: URL): URL => (RUNS_COMPILED ? new URL(`dist/${source.href.slice(ROOT.length).replace(/\.ts$/, ".js")}`, ROOT) : source);
