import { isAbsolute, relative } from "node:path";

/** `path` lies strictly below `dir` (both as given: resolve or realpath them first). */
export const isInside = (dir: string, path: string): boolean => {
  const rel = relative(dir, path);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
};
